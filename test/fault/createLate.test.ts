/**
 * Lookups that lag (money safety 3a, case d): the exchange answers an order create -1146 "Order
 * creation timeout" and creates the order later (fault `createLate`), after a delay shorter or
 * longer than the receive window (200 ms here) + 1 s the node's lookups wait for. Create and
 * Create Many, with generated, user and no client order IDs, Retry On Fail and Continue On Fail
 * on/off, seeded random faults (createLate among them) on the write path, and in a third of the
 * runs the exchange's own statuses (PENDING_NEW answers, MARKET_OF_BASE types). The ledger is read
 * once every late order had time to land: never two orders for one intended order, nothing
 * reported placed that is not, nothing reported rejected that was placed. Unknown is allowed.
 */
import { DEFAULT_RETRY_POLICY } from '../../nodes/TradingService/transport';
import type { SandboxBehaviour } from '../../sandbox';
import { againIfTooLate, countBy, runInLanes } from './lanes';
import { Rng } from './lib';
import { matrixRun, violationOf, type MatrixRun, type WriteKind } from './matrix';

jest.setTimeout(240_000);

const KINDS: readonly WriteKind[] = [
	'createGenerated',
	'createUserId',
	'createPlain',
	'createManyGenerated',
	'createManyUserId',
	'createManyPlain',
];
const ROUNDS = Number(process.env.FAULT_CREATE_LATE_ROUNDS ?? 4);
const LANES = 12;
/** The receive window of the runs (credentials) + the exchange's future tolerance: what the lookups wait out. */
const LOOKUP_WAIT_MS = 200 + 1000;
const UAE_STATUSES: SandboxBehaviour = {
	marketOrderType: 'byBase',
	createAnswerStatus: 'PENDING_NEW',
};

interface LateCell {
	kind: WriteKind;
	lag: 'short' | 'long';
	retryOnFail: boolean;
	continueOnFail: boolean;
	seed: number;
}

interface LateRun extends MatrixRun {
	lag: 'short' | 'long';
	delayMs: number;
	uaeStatuses: boolean;
	tooLateReruns: number;
}

function plan(): LateCell[] {
	const cells: LateCell[] = [];
	let seed = 31_000;
	for (let round = 0; round < ROUNDS; round++)
		for (const kind of KINDS)
			for (const lag of ['short', 'long'] as const)
				for (const retryOnFail of [false, true])
					for (const continueOnFail of [false, true])
						cells.push({ kind, lag, retryOnFail, continueOnFail, seed: seed++ });
	return cells;
}

const runs: LateRun[] = [];
let wallMs = 0;

beforeAll(async () => {
	const started = Date.now();
	const quick = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'baseDelayMs', 20);
	const deadline = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'timeoutMs', 3000);
	try {
		runs.push(
			...(await runInLanes(plan(), LANES, async (sb, cell): Promise<LateRun> => {
				const rng = new Rng(cell.seed * 7);
				const delayMs =
					cell.lag === 'short'
						? rng.int(250, LOOKUP_WAIT_MS - 350)
						: rng.int(LOOKUP_WAIT_MS + 400, LOOKUP_WAIT_MS + 1800);
				const uaeStatuses = rng.chance(1 / 3);
				const run = await againIfTooLate((named) =>
					matrixRun(sb, {
						...cell,
						name: named(`late-${cell.seed}`),
						forced: { kind: 'createLate', times: 1, delayMs },
						random: { createLate: 0.08, createLateDelayMs: delayMs },
						behaviour: uaeStatuses ? UAE_STATUSES : undefined,
						settleMs: delayMs + 300,
					}),
				);
				return { ...run, lag: cell.lag, delayMs, uaeStatuses };
			})),
		);
	} finally {
		quick.restore();
		deadline.restore();
	}
	wallMs = Date.now() - started;
	const verdicts = runs.flatMap((run) => run.verdicts);
	const count = (kind: string) =>
		verdicts.filter((verdict) => violationOf(verdict) === kind).length;
	console.log(
		[
			`lagging lookups (createLate): ${runs.length} runs (${runs.filter((run) => run.faults.length > 0).length} faulted), ${verdicts.length} intended orders, ${(wallMs / 1000).toFixed(1)} s`,
			`run again, their reads too late for the 200 ms receive window before any write: ${runs.reduce((sum, run) => sum + run.tooLateReruns, 0)}`,
			`faults: ${JSON.stringify(
				countBy(
					runs.flatMap((run) => run.faults),
					(fault) => fault,
				),
			)}`,
			`outcomes by lag: ${JSON.stringify(
				countBy(
					runs.flatMap((run) => run.verdicts.map((verdict) => ({ run, verdict }))),
					({ run, verdict }) => `${run.lag}:${verdict.reported}:committed=${verdict.committed}`,
				),
			)}`,
			`committed more than intended: ${count('committedTwice')}`,
			`reported placed but not placed (or another order): ${count('placedNotPlaced')}`,
			`reported rejected / "nothing was executed" but placed: ${count('rejectedButPlaced')}`,
			`no outcome reported: ${count('noOutcome')}`,
		].join('\n'),
	);
});

const violations = (kind: string) =>
	runs.flatMap((run) =>
		run.verdicts
			.filter((verdict) => violationOf(verdict) === kind)
			.map((verdict) => ({ ...verdict, delayMs: run.delayMs, faults: run.faults.join(',') })),
	);

describe('orders the exchange creates after its -1146 answer (createLate), lookups lagging', () => {
	it('covers both lags, every order kind, Retry On Fail and Continue On Fail on and off, and the exchange statuses', () => {
		expect(runs).toHaveLength(KINDS.length * 2 * 4 * ROUNDS);
		expect(runs.every((run) => run.faults.includes('createLate'))).toBe(true);
		for (const lag of ['short', 'long'] as const) {
			const lagged = runs.filter((run) => run.lag === lag);
			expect(lagged.filter((run) => run.uaeStatuses).length).toBeGreaterThan(0);
			// Orders that landed after their -1146 answer: the cases the verdicts are about.
			expect(
				lagged.flatMap((run) => run.verdicts).filter((verdict) => verdict.committed === 1).length,
			).toBeGreaterThan(10);
		}
		// A short lag is found by the lookup after the receive window: reported placed.
		const shortPlaced = runs
			.filter((run) => run.lag === 'short' && !run.kind.endsWith('Plain'))
			.flatMap((run) => run.verdicts)
			.filter((verdict) => verdict.reported === 'placed' && verdict.committed === 1);
		expect(shortPlaced.length).toBeGreaterThan(10);
		// A long lag outlives the lookups: unknown, and the order lands later, once.
		const longUnknown = runs
			.filter((run) => run.lag === 'long')
			.flatMap((run) => run.verdicts)
			.filter((verdict) => verdict.reported === 'unknown' && verdict.committed === 1);
		expect(longUnknown.length).toBeGreaterThan(10);
	});

	it('never two orders for one intended order', () => {
		expect(violations('committedTwice')).toEqual([]);
	});

	it('reports no order placed that was not (and no order as another item’s order)', () => {
		expect(violations('placedNotPlaced')).toEqual([]);
	});

	it('reports no order rejected or "nothing was executed" that was placed', () => {
		expect(violations('rejectedButPlaced')).toEqual([]);
	});

	it('every order the node reports on carries one outcome', () => {
		expect(violations('noOutcome')).toEqual([]);
	});
});
