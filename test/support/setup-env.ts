import { shortenSuspensions } from './suspension';

// n8n-core logs every node error through its own logger; the tests assert on those errors, so
// the log lines are noise. Set before n8n's config is first read.
process.env.N8N_LOG_LEVEL = process.env.N8N_LOG_LEVEL ?? 'silent';

// A 429's suspension in the jest suites: a second, not the documented minute (suspension.ts).
shortenSuspensions();
