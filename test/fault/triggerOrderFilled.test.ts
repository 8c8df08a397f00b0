/**
 * The polling trigger's Order Filled event under injected faults: an active trigger polling the
 * trade list while fills keep arriving (partial and whole fills of resting LIMIT orders, fills
 * listed up to 3 minutes late, seeded bursts larger than a page), under seeded 5xx, drops, 429s
 * and latency, with polls that fail outright (server clock outside the receive window) and polls
 * stopped by a 1 ms time budget, each poll from the state n8n saved (JSON) after the one before.
 * The trade list is the oracle: every fill made after activation is emitted exactly once.
 *
 * Fills are listed late only in the first rounds, while the late records window holds fewer than
 * the 1,000 remembered ids: once a burst fills it, the window shrinks to the newest 1,000 fills
 * (docs/trigger.md), and a fill listed minutes late behind such a burst is, by design, not emitted.
 */
import type { IDataObject } from 'n8n-workflow';

import { triggerRunner } from '../../tools/harness/trigger';
import type { LedgerRequest, Sandbox } from '../../sandbox';
import { TRADES_PATH, allFills, restingOrders } from '../nodes/TradingService/trigger/fills';
import { Rng, bookRequests, duplicates, mergeTallies, secretIn, type Tally } from './lib';
import { runScenarios, useFaultSandbox } from './scenarios';

const sandbox = useFaultSandbox();

interface PollCase {
	round: number;
	emitted: string[];
	error?: string;
	requests: LedgerRequest[];
	stateChanged: boolean;
	budgetStopped: boolean;
}

/** Remaining quantity of each resting order, in steps of 0.0001 (each order is 0.001: 10 steps). */
type Pool = Map<string, number>;

async function orderFilledScenario(sb: Sandbox, tally: Tally) {
	const rng = new Rng(2727);
	const pool: Pool = new Map((await restingOrders(sb, 120)).map((orderId) => [orderId, 10]));
	const lateIds: string[] = [];
	let newestTime = 0;
	/** Fills `count` resting orders, each by part of what remains (a partial fill) or all of it. */
	const fillSome = (count: number) => {
		for (let k = 0; k < count && pool.size > 0; k++) {
			const open = [...pool.keys()];
			const orderId = open[rng.int(0, open.length - 1)];
			const remaining = pool.get(orderId) as number;
			const steps = rng.int(1, remaining);
			if (steps === remaining) {
				sb.fillOrder(orderId);
				pool.delete(orderId);
			} else {
				sb.fillOrder(orderId, `0.000${steps}`);
				pool.set(orderId, remaining - steps);
			}
			newestTime = Math.max(newestTime, sb.now());
		}
	};
	/** Fills listed now with a time up to 3 minutes back (the server clock moved back to make them). */
	const fillLate = async (count: number) => {
		for (let k = 0; k < count && pool.size > 0; k++) {
			sb.setFaults({ clockOffsetMs: -rng.int(1000, 180_000) });
			fillSome(1);
			sb.clearFaults();
			const [late] = sb.fills();
			lateIds.push(late.id);
		}
	};
	/** A burst of seeded fills over the last few seconds, more than a page. */
	const burst = (count: number) => {
		const endTime = sb.now();
		const seeded = sb.seedTrades({
			count,
			startTime: Math.max(newestTime, endTime - 5000),
			endTime,
			bothSides: rng.chance(0.5),
			seed: rng.int(1, 1_000_000),
		});
		newestTime = Math.max(newestTime, endTime);
		return seeded;
	};

	let saved: IDataObject = {};
	const poll = async (round: number, budget = false): Promise<PollCase> => {
		// Each poll starts from what n8n saved after the one before; some get a 1 ms budget.
		const runner = triggerRunner(sb, {
			parameters: { event: 'orderFilled' },
			staticData: saved,
			...(budget ? { pollBudgetMs: 1 } : {}),
		});
		const stateBefore = JSON.stringify(runner.nodeStaticData());
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
			tally.secretLeaks.push(`order filled poll ${round}: output or error contains a secret`);
		const stateChanged =
			runner.staticDataChanged() || JSON.stringify(runner.nodeStaticData()) !== stateBefore;
		runner.markSaved();
		saved = runner.savedStaticData();
		return {
			round,
			emitted: outcome.items.map((item) => String(item.json.id)),
			error: outcome.error?.message,
			requests,
			stateChanged,
			budgetStopped: runner.nodeStaticData().resume !== undefined,
		};
	};

	// Fills that exist before activation: never emitted.
	burst(600);
	fillSome(5);
	const before = new Set((await allFills(sb)).map((fill) => fill.id));
	const baseline = await poll(0);
	const cases: PollCase[] = [];
	for (let round = 1; round <= 36; round++) {
		if (round <= 12 && round % 3 === 1) {
			fillSome(rng.int(1, 8));
			await fillLate(rng.int(1, 4));
		} else if (round > 12 && round % 10 === 5) {
			burst(rng.int(1100, 2400));
			fillSome(rng.int(1, 5));
		} else if (round % 4 !== 0) fillSome(rng.int(1, 12));
		const fail = round % 9 === 0;
		sb.setFaults({
			latencyMs: round % 3 === 0 ? 3 : 0,
			...(fail ? { clockOffsetMs: 8000 } : {}),
			rules:
				round % 5 === 0
					? [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 0, path: TRADES_PATH }]
					: [],
			random: {
				seed: 27_000 + round,
				http5xx: 0.1,
				dropBefore: 0.05,
				dropAfter: 0.05,
				paths: [TRADES_PATH],
			},
		});
		cases.push(await poll(round, round % 6 === 5 || round % 10 === 6));
		sb.clearFaults();
	}
	// Clean polls catch up on what failed or budget-stopped polls left.
	for (let round = 37; round < 40; round++) cases.push(await poll(round));
	const idle: PollCase[] = [];
	for (let round = 40; round < 43; round++) idle.push(await poll(round));
	const all = await allFills(sb);
	const windowStart = Math.max(...all.map((fill) => Number(fill.time))) - 10 * 60_000;
	return {
		before,
		lateIds,
		baseline,
		cases,
		idle,
		after: all.filter((fill) => !before.has(fill.id)),
		windowFills: all.filter((fill) => Number(fill.time) >= windowStart).length,
	};
}

const { results, tallies, wallMs } = runScenarios(sandbox, { orderFilled: orderFilledScenario });

describe('Order Filled polls under faults, failed polls, late fills, bursts and budget stops', () => {
	it('emits every fill made after activation exactly once (0 missed, 0 repeated), none from before, oldest first in each poll', () => {
		const { baseline, cases, after, before } = results.orderFilled;
		expect(baseline.error).toBeUndefined();
		expect(baseline.emitted).toEqual([]);
		const emitted = cases.flatMap((c) => c.emitted);
		expect(duplicates(emitted)).toEqual([]);
		const expected = after.map((fill) => fill.id);
		expect(expected.filter((id) => !emitted.includes(id))).toEqual([]);
		expect([...emitted].sort()).toEqual([...expected].sort());
		expect(emitted.filter((id) => before.has(id))).toEqual([]);
		expect(emitted.length).toBeGreaterThan(3000);
		const time = new Map(after.map((fill) => [fill.id, Number(fill.time)]));
		for (const c of cases) {
			const times = c.emitted.map((id) => time.get(id) as number);
			expect(times).toEqual([...times].sort((a, b) => a - b));
		}
		// Fills listed late (inside the window) were emitted, and polls were stopped by the budget.
		expect(results.orderFilled.lateIds.length).toBeGreaterThanOrEqual(5);
		expect(results.orderFilled.lateIds.filter((id) => !emitted.includes(id))).toEqual([]);
		expect(cases.filter((c) => c.budgetStopped).length).toBeGreaterThanOrEqual(2);
	});

	it('a poll that fails emits nothing and changes no state; transient faults are retried within the poll', () => {
		const { cases } = results.orderFilled;
		const failed = cases.filter((c) => c.error !== undefined);
		expect(failed.length).toBeGreaterThanOrEqual(3);
		for (const c of failed) {
			expect(c.error).toMatch(/receive window/);
			expect(c.emitted).toEqual([]);
			expect(c.stateChanged).toBe(false);
		}
		const retried = cases.filter(
			(c) => c.error === undefined && c.requests.some((request) => request.fault !== undefined),
		);
		expect(retried.length).toBeGreaterThan(5);
	});

	it('an idle poll emits nothing, changes nothing, and reads the late records window once (1,000 fills per request)', () => {
		const pages = Math.floor(results.orderFilled.windowFills / 1000) + 1;
		for (const c of results.orderFilled.idle) {
			expect(c.error).toBeUndefined();
			expect(c.emitted).toEqual([]);
			expect(c.stateChanged).toBe(false);
			expect(c.requests.length).toBeGreaterThanOrEqual(1);
			expect(c.requests.length).toBeLessThanOrEqual(pages);
		}
	});

	it('draws 5xx, drops and 429s, reads only the trade list (and the server time after a clock refusal), and leaks no secret', () => {
		const total = mergeTallies(Object.values(tallies));
		console.log(
			`fault suite, order filled: ${total.requests} requests in ${total.runs} polls, ${(wallMs() / 1000).toFixed(1)} s; faults by kind: ${JSON.stringify(total.faults)}`,
		);
		expect(total.requests).toBeGreaterThanOrEqual(60);
		const http5xx =
			(total.faults.http500 ?? 0) + (total.faults.http502 ?? 0) + (total.faults.http503 ?? 0);
		expect(http5xx).toBeGreaterThan(5);
		expect((total.faults.dropBefore ?? 0) + (total.faults.dropAfter ?? 0)).toBeGreaterThan(2);
		expect(total.faults.rateLimit ?? 0).toBeGreaterThan(2);
		expect(total.secretLeaks).toEqual([]);
		const paths = results.orderFilled.cases.flatMap((c) => c.requests.map((r) => r.path));
		// The server time is asked only when the service says the clocks disagree (the failed polls).
		expect([...new Set(paths)].sort()).toEqual([TRADES_PATH, '/api/v1/time']);
	});
});
