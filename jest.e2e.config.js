/**
 * End-to-end tests in a real n8n 2.x (see test/e2e/ and tools/n8n-runtime/README.md).
 * Run with `npm run test:e2e`: it builds the package and installs the n8n runtime (cached) first.
 * The tests start n8n processes and a sandbox, so they run one file at a time with long timeouts.
 */
/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	rootDir: __dirname,
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.test.ts'],
	// A skipped test fails the run unless SKIP_SUITES names its suite.
	reporters: ['default', '<rootDir>/test/support/noSkippedTests.js'],
	setupFiles: ['<rootDir>/test/support/setup-e2e.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
	},
	testTimeout: 5 * 60_000,
	maxWorkers: 1,
	// n8n's processes are stopped in afterAll; do not let a stray handle hang the run.
	forceExit: true,
	verbose: true,
};
