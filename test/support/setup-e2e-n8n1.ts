// The e2e subset on n8n 1.x (jest.e2e.n8n1.config.js): the tools/n8n library starts n8n 1.123.81
// from .n8n-runtime-1/ (Node 22) instead of n8n 2.41.1.
process.env.N8N_RUNTIME_MAJOR = '1';
