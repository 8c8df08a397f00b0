// Marks a run of jest.e2e.config.js. The e2e files also match the unit-test config's pattern
// (`*.test.ts`); there they skip themselves, since they need the n8n runtime and take minutes.
process.env.TRADING_SERVICE_E2E = '1';
