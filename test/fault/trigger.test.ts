/**
 * The trigger's polls under injected faults: an active trigger polling the funding fee history
 * while records keep arriving, under seeded 5xx, drops, 429s and latency, with polls that fail
 * outright. The records the sandbox holds are the oracle: every record that arrived after
 * activation is emitted exactly once, a failed poll changes nothing, idle polls stay cheap.
 */
import { triggerRunner } from '../../tools/harness/trigger';
import { DEMO_ACCOUNTS, type LedgerRequest, type Sandbox } from '../../sandbox';
import { PATHS, Rng, bookRequests, duplicates, secretIn, type Tally } from './lib';
import { runScenarios, useFaultSandbox } from './scenarios';
import { describeTotals } from './totals';

const sandbox = useFaultSandbox();

interface PollCase {
	round: number;
	/** Records added since the previous poll. */
	added: string[];
	emitted: string[];
	error?: string;
	requests: LedgerRequest[];
	stateChanged: boolean;
}

/**
 * An active trigger polling the funding fee history while records keep arriving (bursts larger
 * than a page, up to 3 per millisecond, a few listed up to 3 s late) under seeded 5xx, drops and
 * 429s; some polls fail outright (server clock outside the receive window) and must change
 * nothing, so that the next poll catches up.
 *
 * Records arrive in time order on a timeline of their own (20 minutes ago onwards), so "late"
 * means exactly what the test says. (Records listed late behind more than a page of newer ones:
 * test/nodes/TradingService/TradingServiceTrigger.node.catchUp.test.ts.)
 */
async function triggerScenario(sb: Sandbox, tally: Tally) {
	const rng = new Rng(808);
	const runner = triggerRunner(sb);
	let timeline = sb.now() - 20 * 60_000;
	const record = (created: number) => ({
		accountId: DEMO_ACCOUNTS.mainContract,
		flowTypeValue: 32,
		change: `-0.${rng.int(1, 999)}`,
		created: String(created),
	});
	/** `count` records after everything so far, `perMillisecond` at a time, 20-60 ms apart. */
	const createdTimes: number[] = [];
	const store = (records: Array<ReturnType<typeof record>>) => {
		for (const added of records) createdTimes.push(Number(added.created));
		return sb.addRecords(records).map((added) => added.id);
	};
	const arrive = (count: number, perMillisecond = 1): string[] => {
		const records: Array<ReturnType<typeof record>> = [];
		while (records.length < count) {
			timeline += rng.int(20, 60);
			for (let k = 0; k < perMillisecond && records.length < count; k++)
				records.push(record(timeline));
		}
		return store(records);
	};
	/** Records listed late: up to 3 s older than the newest record. */
	const arriveLate = (count: number): string[] =>
		store(Array.from({ length: count }, () => record(timeline - rng.int(1, 3000))));
	const poll = async (round: number, added: string[]): Promise<PollCase> => {
		const before = sb.ledger.requests.length;
		const outcome = await runner.poll();
		const requests = sb.ledger.requests.slice(before);
		tally.runs++;
		bookRequests(tally, requests, () => 'trigger request carried a secret');
		const visible =
			JSON.stringify(outcome.items) +
			String(outcome.error?.message ?? '') +
			String(outcome.error?.description ?? '') +
			String(outcome.error?.stack ?? '');
		if (secretIn(visible))
			tally.secretLeaks.push(`trigger poll ${round}: output or error contains a secret`);
		const stateChanged = runner.staticDataChanged();
		runner.markSaved();
		return {
			round,
			added,
			emitted: outcome.items.map((item) => String(item.json.id)),
			error: outcome.error?.message,
			requests,
			stateChanged,
		};
	};

	// History that exists before activation: never emitted.
	const before = arrive(800, 2);
	const baseline = await poll(0, []);
	const cases: PollCase[] = [];
	for (let round = 1; round <= 40; round++) {
		let added: string[];
		if (round % 10 === 5) added = arrive(1200, 3);
		else if (round % 4 === 0) added = [];
		else if (round % 7 === 3)
			added = [...arrive(rng.int(1, 40), rng.int(1, 3)), ...arriveLate(rng.int(1, 5))];
		else added = arrive(rng.int(1, 60), rng.int(1, 3));
		const fail = round % 9 === 0;
		sb.setFaults({
			latencyMs: round % 3 === 0 ? 3 : 0,
			...(fail ? { clockOffsetMs: 8000 } : {}),
			rules:
				round % 5 === 0
					? [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 0, path: PATHS.history }]
					: [],
			random: {
				seed: 8000 + round,
				http5xx: 0.1,
				dropBefore: 0.05,
				dropAfter: 0.05,
				paths: [PATHS.history],
			},
		});
		cases.push(await poll(round, added));
	}
	// A last clean poll catches up on anything a failed poll left.
	sb.clearFaults();
	cases.push(await poll(41, []));
	// And idle polls: nothing new, no state change. Each reads the late records window again (500
	// records per request), so its cost depends on how many records the window holds.
	const idle: PollCase[] = [];
	for (let round = 42; round < 47; round++) idle.push(await poll(round, []));
	const newest = Math.max(...createdTimes);
	const windowRecords = createdTimes.filter((created) => created >= newest - 10 * 60_000).length;
	return { before, baseline, cases, idle, windowRecords };
}

const { results, tallies, wallMs } = runScenarios(sandbox, { trigger: triggerScenario });

describe('trigger polls under faults, failed polls and bursts', () => {
	it('emits every record that arrived after activation exactly once, and none from before', () => {
		expect(results.trigger.baseline.error).toBeUndefined();
		expect(results.trigger.baseline.emitted).toEqual([]);
		const emitted = results.trigger.cases.flatMap((c) => c.emitted);
		const added = results.trigger.cases.flatMap((c) => c.added);
		expect(duplicates(emitted)).toEqual([]);
		expect([...emitted].sort()).toEqual([...added].sort());
		expect(emitted.filter((id) => results.trigger.before.includes(id))).toEqual([]);
		expect(added.length).toBeGreaterThan(4000);
	});

	it('a poll that fails emits nothing and changes no state; transient faults are retried within the poll', () => {
		const failed = results.trigger.cases.filter((c) => c.error !== undefined);
		expect(failed.length).toBeGreaterThanOrEqual(4);
		for (const c of failed) {
			expect(c.error).toMatch(/receive window/);
			expect(c.emitted).toEqual([]);
			expect(c.stateChanged).toBe(false);
		}
		const retried = results.trigger.cases.filter(
			(c) => c.error === undefined && c.requests.some((request) => request.fault !== undefined),
		);
		expect(retried.length).toBeGreaterThan(10);
	});

	it('an idle poll emits nothing, changes nothing, and reads the late records window once (500 records per request)', () => {
		const pages = Math.floor(results.trigger.windowRecords / 500) + 1;
		for (const c of results.trigger.idle) {
			expect(c.error).toBeUndefined();
			expect(c.emitted).toEqual([]);
			expect(c.requests.length).toBeGreaterThanOrEqual(1);
			expect(c.requests.length).toBeLessThanOrEqual(pages);
			expect(c.stateChanged).toBe(false);
		}
	});
});

describeTotals('trigger', tallies, wallMs);
