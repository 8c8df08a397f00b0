/**
 * Get History under injected faults: Return All and single pages (Limit) under 5xx, connection
 * drops, 429 and latency. The seeded records are the oracle: no record may be lost or repeated,
 * every transiently failing read must end in success. (Pages that must not become records: bad
 * answers, redirects, malformed and drip-fed answers: getHistoryBadAnswers.test.ts.)
 *
 * Determinism: each scenario (each of the pages scenario's two runs) resets its sandbox and sends
 * one request at a time, so the sandbox's seeded fault generator hits the same requests on every
 * run. The scenarios run in beforeAll, at once, each on a sandbox of its own; the tests then check
 * what each produced.
 */
import { DEFAULT_RETRY_POLICY } from '../../nodes/TradingService/transport';
import { DEMO_ACCOUNTS, type HistoryRecord, type LedgerRequest, type Sandbox } from '../../sandbox';
import { ACCOUNT_TYPE_OF, expectedHistory, historyParameters, type HistoryQuery } from './history';
import {
	DAY,
	HOUR,
	PATHS,
	Rng,
	byInputItem,
	duplicates,
	errorOf,
	queryOf,
	runAndTally,
	type Tally,
} from './lib';
import { runInLanes } from './lanes';
import { runScenarios, useFaultSandbox } from './scenarios';
import { describeTotals } from './totals';

const sandbox = useFaultSandbox();

// ------------------------------------------------------------------ scenario: Return All

interface ReturnAllCase {
	query: HistoryQuery;
	expected: string[];
	got: string[];
	error?: string;
	cleanPages: number;
	requests: LedgerRequest[];
}

async function returnAllScenario(sb: Sandbox, tally: Tally) {
	sb.reset();
	const rng = new Rng(505);
	const now = sb.now();
	const seeded: HistoryRecord[] = [
		// Three records per millisecond: page boundaries fall inside a millisecond.
		...sb.seedRecords({
			flowType: 32,
			count: 2600,
			startTime: now - 20 * DAY,
			endTime: now - HOUR,
			perMillisecond: 3,
			seed: 1,
		}),
		...sb.seedRecords({
			flowType: 51,
			count: 900,
			startTime: now - 25 * DAY,
			endTime: now - HOUR,
			accountId: DEMO_ACCOUNTS.mainTrading,
			perMillisecond: 2,
			seed: 2,
		}),
		...sb.seedRecords({
			flowType: 51,
			count: 700,
			startTime: now - 25 * DAY,
			endTime: now - HOUR,
			accountId: DEMO_ACCOUNTS.custody,
			perMillisecond: 2,
			seed: 3,
		}),
		...sb.seedRecords({
			flowType: 1,
			count: 1400,
			startTime: now - 6 * DAY,
			endTime: now - HOUR,
			seed: 4,
		}),
	];
	const queries: HistoryQuery[] = [];
	for (let index = 0; index < 12; index++) {
		const flowType = rng.pick([32, 51, 51, 1]);
		const span = (flowType === 1 ? 6 : 25) * DAY;
		const startTime = now - span + rng.int(0, 3) * DAY;
		const endTime = now - rng.int(0, 48) * HOUR;
		const accountType = flowType === 51 ? rng.pick([undefined, 1, 5]) : undefined;
		queries.push({ flowType, accountType, startTime, endTime });
	}
	const cases: ReturnAllCase[] = [];
	for (const [index, query] of queries.entries()) {
		// Fault-free first: how many pages the walk needs.
		sb.clearFaults();
		const clean = await runAndTally(sb, tally, {
			parameters: historyParameters(query, { returnAll: true }),
		});
		sb.setFaults({
			latencyMs: index % 2 === 0 ? 3 : 0,
			// Two 429s (Retry-After: 0) in a row first, then seeded 5xx and drops.
			rules: [{ kind: 'rateLimit', times: 2, retryAfterSeconds: 0, path: PATHS.history }],
			random: {
				seed: 5000 + index,
				http5xx: 0.1,
				dropBefore: 0.05,
				dropAfter: 0.05,
				paths: [PATHS.history],
			},
		});
		const run = await runAndTally(sb, tally, {
			parameters: historyParameters(query, { returnAll: true }),
			executionId: `return-all-${index}`,
		});
		cases.push({
			query,
			expected: expectedHistory(seeded, query, ACCOUNT_TYPE_OF),
			got: run.items.map((item) => String(item.json.id)),
			error: run.error?.message,
			cleanPages: clean.requests.length,
			requests: run.requests,
		});
	}
	sb.clearFaults();
	return { cases };
}

// ------------------------------------------------------------------ scenario: pages (Limit)

interface PageCase {
	limit: number;
	expected: string[];
	got: string[];
	error?: string;
	attempts: LedgerRequest[];
}

/** The scenario's 2 runs of 100 reads: each read's times before the sandbox's now, drawn in order from one seed. */
function pagePlan() {
	const rng = new Rng(606);
	return Array.from({ length: 2 }, (_, runIndex) => ({
		runIndex,
		reads: Array.from({ length: 100 }, (_, index) => {
			// Unique windows (the item index in the milliseconds): requests map back to their item.
			const endAgo = rng.int(2, 9 * 24) * HOUR + runIndex * 1000 + index;
			return { endAgo, span: rng.int(1, 24) * HOUR, limit: rng.int(1, 40) };
		}),
	}));
}

/** One run of 100 reads on a sandbox of its own, reset and seeded with the scenario's records. */
async function historyPageRun(
	sb: Sandbox,
	tally: Tally,
	{ runIndex, reads }: ReturnType<typeof pagePlan>[number],
): Promise<PageCase[]> {
	sb.reset();
	const now = sb.now();
	const seeded = sb.seedRecords({
		flowType: 32,
		count: 3000,
		startTime: now - 10 * DAY,
		endTime: now - HOUR,
		perMillisecond: 2,
		seed: 6,
	});
	sb.setFaults({
		latencyMs: runIndex === 0 ? 2 : 0,
		rules: [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 0, path: PATHS.history }],
		random: {
			seed: 6000 + runIndex,
			http5xx: 0.08,
			dropBefore: 0.04,
			dropAfter: 0.04,
			paths: [PATHS.history],
		},
	});
	const inputs = reads.map(({ endAgo, span, limit }) => ({
		startTime: now - endAgo - span,
		endTime: now - endAgo,
		limit,
	}));
	const run = await runAndTally(sb, tally, {
		parameters: {
			resource: 'account',
			operation: 'getHistory',
			flowType: 32,
			startTime: '={{ $json.startTime }}',
			endTime: '={{ $json.endTime }}',
			returnAll: false,
			limit: '={{ $json.limit }}',
		},
		inputItems: inputs.map((json) => ({ json })),
		continueOnFail: true,
		executionId: `pages-${runIndex}`,
	});
	const outputs = byInputItem(run.items);
	sb.clearFaults();
	return inputs.map((input, index) => {
		const output = outputs.get(index) ?? [];
		return {
			limit: input.limit,
			expected: expectedHistory(
				seeded,
				{ flowType: 32, startTime: input.startTime, endTime: input.endTime },
				ACCOUNT_TYPE_OF,
			).slice(0, input.limit),
			got: output.filter((item) => errorOf(item) === undefined).map((item) => String(item.json.id)),
			error: errorOf(output[0]),
			attempts: run.requests.filter(
				(request) =>
					request.path === PATHS.history &&
					queryOf(request).get('endTime') === String(input.endTime) &&
					queryOf(request).get('startTime') === String(input.startTime),
			),
		};
	});
}

/**
 * The two runs at once, each on a lane's sandbox (lanes.ts): reads go at the key's 5 queries a
 * second, and each lane is a service of its own.
 */
async function historyPageScenario(_sb: Sandbox, tally: Tally) {
	const runs = await runInLanes(pagePlan(), 2, (sb, planned) => historyPageRun(sb, tally, planned));
	return { cases: runs.flat() };
}

// ------------------------------------------------------------------ run the scenarios

// A failing read's backoff starts at 20 ms instead of 250 ms (5 retries: 0.6 s instead of 7.8 s),
// as in parallel.test.ts: what is retried, and how often, stays the same. (Before the scenarios:
// hooks run in the order they are declared.)
let backoff: jest.ReplaceProperty<number> | undefined;
beforeAll(() => {
	backoff = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'baseDelayMs', 20);
});
afterAll(() => backoff?.restore());

const { results, tallies, wallMs } = runScenarios(
	sandbox,
	{ returnAll: returnAllScenario, pages: historyPageScenario },
	{ atOnce: true },
);

describe('history Return All under 5xx, drops, 429 and latency', () => {
	it('returns every record exactly once, in order, whatever the faults', () => {
		for (const c of results.returnAll.cases) {
			expect(c.error).toBeUndefined();
			expect(duplicates(c.got)).toEqual([]);
			expect(c.got).toEqual(c.expected);
		}
		expect(results.returnAll.cases.reduce((sum, c) => sum + c.expected.length, 0)).toBeGreaterThan(
			5000,
		);
	});

	it('retries each failed page until it succeeds, and asks for no page more than needed', () => {
		let faulted = 0;
		for (const c of results.returnAll.cases) {
			const ok = c.requests.filter((request) => request.fault === undefined);
			expect(ok.every((request) => request.status === 200)).toBe(true);
			expect(ok).toHaveLength(c.cleanPages);
			faulted += c.requests.length - ok.length;
		}
		expect(faulted).toBeGreaterThan(25);
	});
});

describe('history pages under faults', () => {
	it('every read ends in success with exactly the records asked for', () => {
		let retried = 0;
		for (const c of results.pages.cases) {
			expect(c.error).toBeUndefined();
			expect(c.got).toEqual(c.expected);
			const last = c.attempts[c.attempts.length - 1];
			expect(last.fault).toBeUndefined();
			expect(last.status).toBe(200);
			expect(c.attempts.slice(0, -1).every((attempt) => attempt.fault !== undefined)).toBe(true);
			if (c.attempts.length > 1) retried++;
		}
		expect(retried).toBeGreaterThan(20);
	});
});

describeTotals('getHistory', tallies, wallMs);
