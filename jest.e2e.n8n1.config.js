/**
 * The e2e subset on n8n 1.123.81 with Node 22 (the newest n8n 1.x the registry serves), installed by
 * `tools/n8n-runtime/install.sh --n8n 1` into .n8n-runtime-1/. Run with `npm run test:e2e:n8n1`.
 * Chosen for coverage per minute, every node and the credential:
 *  - trigger.e2e: the polling trigger (manual poll, activation and scheduled polls), the credential's Test;
 *  - fills-example.e2e: the action node (Get Trades, version 2), the real-time trigger and Order Filled;
 *  - order-examples.e2e: the action node on version 2 (Get Many, Cancel) and as an AI agent's tool.
 * The whole e2e suite runs on n8n 2.41.1 (jest.e2e.config.js).
 */
// The tools/n8n library picks the runtime from this (set before any test file is loaded).
process.env.N8N_RUNTIME_MAJOR = '1';

const base = require('./jest.e2e.config.js');

/** @type {import('jest').Config} */
module.exports = {
	...base,
	setupFiles: [...base.setupFiles, '<rootDir>/test/support/setup-e2e-n8n1.ts'],
	testMatch: [
		'**/trigger.e2e.test.ts',
		'**/fills-example.e2e.test.ts',
		'**/order-examples.e2e.test.ts',
	],
};
