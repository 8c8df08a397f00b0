/**
 * The order jest hands test files to its workers: the longest first, so that no worker starts a
 * long file last while the other sits idle. Jest's own order uses the durations in its cache and,
 * without them (a fresh CI machine), file sizes, which put short files with long waits (the fault
 * suites) last. Here a file's duration is jest's cached one, else the one measured below, else it
 * goes after those, largest file first (jest's own fallback).
 */
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/**
 * Seconds each long file takes on the 2-core CI machine with 2 workers (CI of issue 42, less what
 * that changes measured off them; re-measure when they change). Only the order matters.
 */
const MEASURED_SECONDS = {
	'test/fault/parallel.test.ts': 158,
	'test/fault/cancelMany.test.ts': 120,
	'test/fault/createMany.test.ts': 118,
	'test/fault/create.test.ts': 110,
	'test/fault/accountTwins.test.ts': 80,
	'test/fault/futuresMatrix.test.ts': 70,
	'test/fault/rateLimits.test.ts': 66,
	'test/fault/createLate.test.ts': 60,
	'test/fault/transferAsset.test.ts': 55,
	'test/fault/transferLostRun.test.ts': 44,
	'test/fault/businessKeys.test.ts': 44,
	'test/fault/trigger.test.ts': 43,
	'test/fault/getHistory.test.ts': 40,
	'test/fault/getHistoryBadAnswers.test.ts': 37,
	'test/nodes/TradingService/transport/pacing.documentedRates.test.ts': 29,
	'test/nodes/TradingService/transport/pacing.sharedKey.test.ts': 20,
};

class LongestFirst extends Sequencer {
	sort(tests) {
		// Jest's order first: it reads the cached durations into `test.duration`.
		const ordered = super.sort(tests);
		const estimate = (test) =>
			test.duration ??
			(MEASURED_SECONDS[
				path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/')
			] ?? -1) * 1000;
		const rank = new Map(ordered.map((test, index) => [test, index]));
		return [...ordered].sort((a, b) => estimate(b) - estimate(a) || rank.get(a) - rank.get(b));
	}
}

module.exports = LongestFirst;
