/**
 * The futures money-safety matrix (issue 51, futuresMatrix.ts): every futures write kind (Create
 * Order, Create Many Orders, Cancel Order, Cancel Many Orders, Close Position, Set Position TP/SL,
 * Set Leverage) x Retry On Fail on/off x Continue On Fail on/off, each run with a fault forced on
 * its first write request (dropped, late or garbled answers), seeded random faults after it, a
 * third of them with another account's orders under the same client order IDs, and killed workers
 * (the execution run again after its worker died). The sandbox's futures book is the oracle: 0
 * writes doubled, 0 misreported, 0 acting on another account. Then the sub key, which has no
 * futures account: a futures lookup never answers with its orders.
 *
 * Runs in lanes of sandboxes (lanes.ts), one run per lane at a time; deterministic by seed.
 * FUTURES_MATRIX_ROUNDS sets the rounds (default 38: 38 x 28 cells + 70 killed workers = 1,134 runs).
 */
import { DEMO_KEYS } from '../../sandbox';
import { runTradingService } from '../../tools/harness/node';
import { runInLanes } from './lanes';
import {
	DEFAULT_RETRY_POLICY,
	FUTURES_FORCED_FAULTS,
	FUTURES_KINDS,
	futuresRun,
	RERUN_SIGNED_TOO_LATE,
	violationOf,
	type FuturesCell,
	type FuturesRun,
	type FuturesViolation,
} from './futuresMatrix';
import { mainFuturesOrders, isOpen } from './futuresLedger';
import { useFaultSandbox } from './scenarios';
import { secretIn, visibleText } from './lib';

const ROUNDS = Number(process.env.FUTURES_MATRIX_ROUNDS ?? 38);
const LANES = 64;
const FAULTED_FLOOR = 1000;

function plan(): FuturesCell[] {
	const cells: FuturesCell[] = [];
	let seed = 51_000;
	for (let round = 0; round < ROUNDS; round++) {
		for (const kind of FUTURES_KINDS) {
			for (const retryOnFail of [false, true])
				for (const continueOnFail of [false, true])
					cells.push({ kind, retryOnFail, continueOnFail, killed: false, seed: seed++ });
			if (round % 4 === 0)
				cells.push({
					kind,
					retryOnFail: false,
					continueOnFail: round % 8 === 0,
					killed: true,
					seed: seed++,
				});
		}
	}
	return cells;
}

const sandbox = useFaultSandbox(200_000);
/** Runs run again because a request of theirs arrived after its 200 ms receive window. */
let lateReruns = 0;

/**
 * Runs a cell again, under a new name (at most twice), when any request of it was refused -1021
 * (signed too long before it arrived: a busy machine, with the 200 ms receive window that keeps
 * the reconcile's waits short). Such a refusal is the machine's timing, not a fault of the plan,
 * and its verdict would depend on the machine's load; lanes.ts's againIfTooLate does the same
 * for runs without a fault.
 */
async function againIfSignedTooLate(
	attempt: (name: (base: string) => string) => Promise<FuturesRun>,
): Promise<FuturesRun> {
	for (let rerun = 0; ; rerun++) {
		const run = await attempt((base) => (rerun === 0 ? base : `${base}-again${rerun}`));
		if (!RERUN_SIGNED_TOO_LATE || rerun === 2) return run;
		if (!run.requests.some((request) => request.code === '-1021')) return run;
		lateReruns++;
	}
}
const runs: FuturesRun[] = [];
let wallMs = 0;

function cellName(cell: FuturesCell): string {
	return cell.killed
		? `${cell.kind} killed cof=${cell.continueOnFail ? 'on' : 'off'}`
		: `${cell.kind} retry=${cell.retryOnFail ? 'on' : 'off'} cof=${cell.continueOnFail ? 'on' : 'off'}`;
}

function logMatrix(): void {
	const verdicts = runs.flatMap((run) => run.verdicts);
	const count = (kind: FuturesViolation) => verdicts.filter((v) => violationOf(v) === kind).length;
	const table: Record<string, Record<string, number>> = {};
	for (const run of runs) {
		const row = (table[cellName(run.cell)] ??= {
			runs: 0,
			faulted: 0,
			writes: 0,
			placed: 0,
			rejected: 0,
			unknown: 0,
			notReported: 0,
			committedAfterFault: 0,
			violations: 0,
		});
		row.runs++;
		if (run.faults.length > 0) row.faulted++;
		for (const v of run.verdicts) {
			row.writes++;
			if (v.reported === 'none') row.notReported++;
			else if (v.reported !== 'missing') row[v.reported]++;
			if (v.faultAfterCommit && v.committed > 0) row.committedAfterFault++;
			if (violationOf(v)) row.violations++;
		}
	}
	const faultKinds: Record<string, number> = {};
	for (const fault of runs.flatMap((run) => run.faults))
		faultKinds[fault] = (faultKinds[fault] ?? 0) + 1;
	console.log(
		[
			`futures money safety: ${runs.length} runs (${runs.filter((r) => r.faults.length > 0).length} faulted, ${runs.filter((r) => r.cell.killed).length} killed workers, ${runs.filter((r) => r.twins > 0).length} with another account's twins), ${verdicts.length} writes, ${runs.reduce((n, r) => n + r.requests.length, 0)} requests, ${(wallMs / 1000).toFixed(1)} s`,
			`run again, a request of theirs signed too long before it arrived (-1021, the machine's load): ${lateReruns}`,
			`writes doubled: ${count('committedTwice')}`,
			`reported placed but not placed (or another order): ${count('placedNotPlaced')}`,
			`reported rejected but placed: ${count('rejectedButPlaced')}`,
			`no outcome reported: ${count('noOutcome')}`,
			`acting on another account (an item naming a twin, twins touched): ${count('otherAccount')}, ${runs.reduce((n, r) => n + r.twinsTouched, 0)}`,
			`faults by kind: ${JSON.stringify(faultKinds)}`,
			...Object.entries(table).map(([cell, row]) => `  ${cell}: ${JSON.stringify(row)}`),
		].join('\n'),
	);
}

beforeAll(async () => {
	// A drip-fed answer must end at the attempt's deadline: 1.5 s here, far below the drip's length.
	const deadline = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'timeoutMs', 1500);
	const started = Date.now();
	try {
		const done = await runInLanes(plan(), LANES, (sb, cell) =>
			againIfSignedTooLate((named) => futuresRun(sb, cell, named(`fut-${cell.seed}`))),
		);
		runs.push(...done);
	} finally {
		wallMs = Date.now() - started;
		deadline.restore();
	}
	logMatrix();
}, 190_000);

const violations = (kind: FuturesViolation) =>
	runs.flatMap((run) =>
		run.verdicts
			.filter((v) => violationOf(v) === kind)
			.map((v) => ({
				...v,
				cell: cellName(run.cell),
				faults: run.faults.join(','),
				firstError: run.killedFirstError,
			})),
	);

describe('futures money safety: every futures write kind under dropped and late answers, Retry On Fail, killed workers and twins in another account', () => {
	it(`covers at least ${FAULTED_FLOOR} faulted runs over every kind and setting, with every forced fault, killed workers and twins`, () => {
		expect(runs.filter((run) => run.faults.length > 0).length).toBeGreaterThanOrEqual(
			FAULTED_FLOOR,
		);
		const faults = new Set(runs.flatMap((run) => run.faults));
		for (const kind of FUTURES_FORCED_FAULTS)
			expect([kind, faults.has(kind)]).toEqual([kind, true]);
		for (const kind of FUTURES_KINDS) {
			const ofKind = runs.filter((run) => run.cell.kind === kind);
			expect([kind, ofKind.filter((r) => r.cell.killed).length]).toEqual([
				kind,
				Math.ceil(ROUNDS / 4),
			]);
			// Twins where the kind carries client order IDs (Set Position TP/SL and Set Leverage have none).
			if (kind !== 'tpSl' && kind !== 'leverage')
				expect([kind, ofKind.filter((r) => r.twins > 0).length > 0]).toEqual([kind, true]);
			for (const retryOnFail of [false, true])
				for (const continueOnFail of [false, true])
					expect([
						kind,
						retryOnFail,
						continueOnFail,
						ofKind.filter(
							(r) =>
								!r.cell.killed &&
								r.cell.retryOnFail === retryOnFail &&
								r.cell.continueOnFail === continueOnFail,
						).length,
					]).toEqual([kind, retryOnFail, continueOnFail, ROUNDS]);
		}
		// The checks below can only fail if writes were applied and their answers lost: there are many.
		const lost = runs
			.flatMap((run) => run.verdicts)
			.filter((v) => v.faultAfterCommit && v.committed > 0);
		expect(lost.length).toBeGreaterThanOrEqual(ROUNDS * FUTURES_KINDS.length);
	});

	it('doubles no write (no second order, no second TP/SL child, no second close)', () => {
		expect(violations('committedTwice')).toEqual([]);
	});

	it('reports no write placed that was not (and names the order the exchange holds)', () => {
		expect(violations('placedNotPlaced')).toEqual([]);
	});

	it('reports no write rejected that was placed', () => {
		expect(violations('rejectedButPlaced')).toEqual([]);
	});

	it('every write the node reports on carries one outcome: placed, rejected or unknown', () => {
		expect(violations('noOutcome')).toEqual([]);
	});

	it("acts on no other account: no item names a twin (another account's order under the same client order ID), no twin is touched", () => {
		expect(violations('otherAccount')).toEqual([]);
		expect(runs.filter((run) => run.twinsTouched > 0).map((run) => run.name)).toEqual([]);
	});

	it('follows no redirect: nothing reached the other host', () => {
		expect(runs.some((run) => run.faults.includes('redirectOtherHost'))).toBe(true);
		expect(runs.reduce((sum, run) => sum + run.reachedOtherHost, 0)).toBe(0);
	});
});

describe('the sub key has no futures account: its orders never answer a futures lookup', () => {
	it('the sub account holds spot orders under the client order IDs of the master’s futures orders: Cancel Order by Client Order ID with the sub key cancels nothing, Create is not placed, and no item names a sub order', async () => {
		const sb = sandbox();
		sb.reset();
		const futures = ['sub-twin-a', 'sub-twin-b'].map((clientOrderId, index) =>
			sb.futures.placeOpenOrder({
				symbol: 'BTCUSDT-PERPETUAL',
				side: 'BUY',
				quantity: `0.0${index + 1}`,
				price: '1000',
				clientOrderId,
			}),
		);
		const spot = futures.map((o) =>
			sb.seedOpenOrder({
				key: DEMO_KEYS.sub,
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'LIMIT',
				price: '100',
				quantity: '0.001',
				clientOrderId: o.clientOrderId,
				time: sb.now(),
			}),
		);
		const cancel = await runTradingService(sb, {
			key: DEMO_KEYS.sub,
			parameters: {
				resource: 'futures',
				operation: 'cancelOrder',
				cancelBy: 'clientOrderId',
				clientOrderId: '={{ $json.id }}',
				orderType: 'find',
			},
			inputItems: futures.map((o) => ({ json: { id: o.clientOrderId } })),
			continueOnFail: true,
			node: { typeVersion: 2 },
		});
		const create = await runTradingService(sb, {
			key: DEMO_KEYS.sub,
			parameters: {
				resource: 'futures',
				operation: 'createOrder',
				symbol: { __rl: true, mode: 'id', value: 'BTCUSDT-PERPETUAL' },
				side: 'BUY',
				orderType: 'LIMIT',
				quantityIn: 'base',
				quantity: '0.01',
				price: '1000',
				options: { clientOrderId: 'sub-twin-a' },
			},
			continueOnFail: true,
			node: { typeVersion: 2 },
		});
		for (const run of [cancel, create]) {
			expect(secretIn(visibleText(run))).toBeUndefined();
			for (const item of run.items) {
				expect(item.json.outcome).not.toBe('placed');
				const text = JSON.stringify(item.json);
				for (const o of [...spot, ...futures]) expect(text).not.toContain(o.orderId);
			}
		}
		// Nothing moved: the master's futures orders and the sub's spot orders are open, no order added.
		expect(
			mainFuturesOrders(sb)
				.filter(isOpen)
				.map((o) => o.orderId),
		).toEqual(futures.map((o) => o.orderId));
		expect(mainFuturesOrders(sb)).toHaveLength(2);
		for (const o of spot) expect(sb.getOrder(o.orderId)?.status).toBe('NEW');
	});
});
