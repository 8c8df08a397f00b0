/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	// Every folder that holds tests: a moved test must not silently stop running.
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// A skipped test fails the run unless SKIP_SUITES names its suite.
	reporters: ['default', '<rootDir>/test/support/noSkippedTests.js'],
	setupFiles: ['<rootDir>/test/support/setup-env.ts'],
	// The e2e suites run in a real n8n: `npm run test:e2e` (jest.e2e.config.js).
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
	},
	// Network tests talk to the sandbox on loopback; give slow CI machines room.
	testTimeout: 60000,
	maxWorkers: 2,
	// The longest files first (jest.sequencer.js): on a fresh machine jest would order by file size.
	testSequencer: '<rootDir>/jest.sequencer.js',
};
