/**
 * Money safety 4 (issue 39): the fault matrix with a master key whose sub account holds identical
 * orders under identical client order IDs. Every order write kind of the matrix with sub-account
 * twins (each order request of the master's node gives the sub account an identical order under
 * its client order ID as it arrives, before any fault: matrix.ts, `twins`), and the cancel kinds
 * (cancelMatrix.ts: Cancel by client order ID, Cancel Many by IDs and by symbol, each main order
 * with its twin), Retry On Fail on/off × Continue On Fail on/off, faults forced on the first write
 * and drawn at random after it.
 *
 * Over at least 1,000 faulted runs: no write doubled (committed twice, or a report the ledger
 * contradicts), none misreported, no item carrying another account's order, no cancel applied to
 * a sub account's order, "unknown" only where a fault hit the run.
 */
import { DEFAULT_RETRY_POLICY } from '../../nodes/TradingService/transport';
import { CANCEL_KINDS, cancelMatrixRun, type CancelKind } from './cancelMatrix';
import { againIfTooLate, runInLanes } from './lanes';
import {
	matrixRun,
	violationOf,
	type Violation,
	type WriteKind,
	type WriteVerdict,
} from './matrix';

jest.setTimeout(600_000);

const RUNS_PER_CELL = Number(process.env.FAULT_TWINS_RUNS_PER_CELL ?? 29);
const LANES = Number(process.env.FAULT_TWINS_LANES ?? 32);

const ORDER_KINDS: readonly WriteKind[] = [
	'createGenerated',
	'createUserId',
	'createPlain',
	'createManyGenerated',
	'createManyUserId',
	'createManyPlain',
];
const KINDS: ReadonlyArray<WriteKind | CancelKind> = [...ORDER_KINDS, ...CANCEL_KINDS];
const VIOLATIONS: Violation[] = [
	'committedTwice',
	'placedNotPlaced',
	'rejectedButPlaced',
	'noOutcome',
	'otherAccountsOrder',
	'unknownWithoutFault',
];

interface Cell {
	kind: WriteKind | CancelKind;
	retryOnFail: boolean;
	continueOnFail: boolean;
	seed: number;
}

/** What the checks read of a run of either matrix. */
interface AnyRun {
	name: string;
	kind: WriteKind | CancelKind;
	retryOnFail: boolean;
	continueOnFail: boolean;
	faults: string[];
	reachedOtherHost: number;
	requests: Array<{ code?: string }>;
	/** Times the run was run again because its reads came too late to test a write (lanes.ts). */
	tooLateReruns?: number;
	verdicts: Array<Omit<WriteVerdict, 'kind'> & { kind: WriteKind | CancelKind }>;
	/** Output items carrying another account's order. */
	otherAccountItems: number;
	/** Orders the sub account held as twins of the main account's. */
	twinOrders?: number;
	/** Cancels applied to another account's order (the cancel kinds). */
	otherAccountCancels?: number;
}

function plan(): Cell[] {
	const cells: Cell[] = [];
	let seed = 39_000;
	for (let round = 0; round < RUNS_PER_CELL; round++)
		for (const kind of KINDS)
			for (const retryOnFail of [false, true])
				for (const continueOnFail of [false, true])
					cells.push({ kind, retryOnFail, continueOnFail, seed: seed++ });
	return cells;
}

const isCancel = (kind: string): kind is CancelKind =>
	(CANCEL_KINDS as readonly string[]).includes(kind);

async function runCell(sb: Parameters<typeof matrixRun>[0], cell: Cell): Promise<AnyRun> {
	const { kind } = cell;
	return await againIfTooLate(async (named): Promise<AnyRun> => {
		const name = named(`twins-${cell.seed}`);
		if (isCancel(kind)) return await cancelMatrixRun(sb, { ...cell, kind, name });
		const run = await matrixRun(sb, { ...cell, kind, name, twins: true });
		return {
			...run,
			otherAccountItems: run.verdicts.filter((verdict) => verdict.otherAccountsOrder).length,
		};
	});
}

function logTable(runs: AnyRun[], wallMs: number): void {
	const table: Record<string, Record<string, number>> = {};
	for (const run of runs) {
		const row = (table[run.kind] ??= {
			runs: 0,
			faulted: 0,
			writes: 0,
			placed: 0,
			rejected: 0,
			unknown: 0,
			none: 0,
			committedAfterFault: 0,
			fromRerun: 0,
			twins: 0,
			otherAccountItems: 0,
			violations: 0,
		});
		row.runs++;
		row.twins += run.twinOrders ?? 0;
		if (run.faults.length > 0) row.faulted++;
		row.otherAccountItems += run.otherAccountItems;
		for (const verdict of run.verdicts) {
			row.writes++;
			if (verdict.reported === 'none') row.none++;
			else if (verdict.reported !== 'missing') row[verdict.reported]++;
			if (verdict.faultAfterCommit && verdict.committed > 0) row.committedAfterFault++;
			if (verdict.fromRerun) row.fromRerun++;
			if (violationOf(verdict) !== undefined) row.violations++;
		}
	}
	const verdicts = runs.flatMap((run) => run.verdicts);
	const count = (kind: Violation) =>
		verdicts.filter((verdict) => violationOf(verdict) === kind).length;
	const columns = Object.keys(Object.values(table)[0] ?? {});
	const lines = [
		`account twins: ${runs.length} runs (${runs.filter((run) => run.faults.length > 0).length} faulted), ${verdicts.length} writes, ${(wallMs / 1000).toFixed(1)} s`,
		`  run again, their reads too late for the 200 ms receive window before any write: ${runs.reduce((sum, run) => sum + (run.tooLateReruns ?? 0), 0)}`,
		...VIOLATIONS.map((kind) => `  ${kind}: ${count(kind)}`),
		`  cancels applied to another account's order: ${runs.reduce((sum, run) => sum + (run.otherAccountCancels ?? 0), 0)}`,
		['kind'.padEnd(20), ...columns.map((column) => column.padStart(8))].join(' '),
		...Object.entries(table).map(([kind, row]) =>
			[kind.padEnd(20), ...columns.map((column) => String(row[column]).padStart(8))].join(' '),
		),
	];
	console.log(lines.join('\n'));
}

describe('money safety 4: a master key with a sub account holding identical orders and client order IDs, under faults', () => {
	let runs: AnyRun[] = [];

	beforeAll(async () => {
		// A drip-fed answer must end at the attempt's deadline: shorter than the product's 30 s, as
		// in moneySafety.ts.
		const deadline = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'timeoutMs', 3000);
		const started = Date.now();
		try {
			runs = await runInLanes(plan(), LANES, runCell);
		} finally {
			deadline.restore();
		}
		logTable(runs, Date.now() - started);
	}, 600_000);

	const violations = (kind: Violation) =>
		runs.flatMap((run) =>
			run.verdicts
				.filter((verdict) => violationOf(verdict) === kind)
				.map((verdict) => ({ ...verdict, faults: run.faults.join(',') })),
		);

	it('covers at least 1,000 faulted runs over every kind and setting, with lost answers and re-runs', () => {
		expect(runs.filter((run) => run.faults.length > 0).length).toBeGreaterThanOrEqual(1000);
		for (const kind of KINDS)
			for (const retryOnFail of [false, true])
				for (const continueOnFail of [false, true]) {
					const cell = runs.filter(
						(run) =>
							run.kind === kind &&
							run.retryOnFail === retryOnFail &&
							run.continueOnFail === continueOnFail,
					);
					expect([kind, retryOnFail, continueOnFail, cell.length]).toEqual([
						kind,
						retryOnFail,
						continueOnFail,
						RUNS_PER_CELL,
					]);
				}
		const verdicts = runs.flatMap((run) => run.verdicts);
		// The checks below bite only where writes were applied and their answers lost, and twins
		// existed to be found: there are many of each.
		for (const kind of KINDS) {
			const ofKind = verdicts.filter((verdict) => verdict.kind === kind);
			expect([
				kind,
				ofKind.some((verdict) => verdict.faultAfterCommit && verdict.committed > 0),
			]).toEqual([kind, true]);
		}
		// The sub account held twins wherever the main account's orders had client order IDs: in
		// most runs of every kind but those sending none.
		for (const kind of KINDS) {
			const withTwins = runs.filter((run) => run.kind === kind && (run.twinOrders ?? 0) > 0);
			expect([kind, withTwins.length >= (kind.endsWith('Plain') ? 0 : RUNS_PER_CELL * 2)]).toEqual([
				kind,
				true,
			]);
		}
		expect(verdicts.filter((verdict) => verdict.fromRerun).length).toBeGreaterThanOrEqual(
			RUNS_PER_CELL,
		);
	});

	it('reaches no other host', () => {
		expect(runs.reduce((sum, run) => sum + run.reachedOtherHost, 0)).toBe(0);
	});

	for (const kind of VIOLATIONS)
		it(`has no violation "${kind}"`, () => {
			expect(violations(kind)).toEqual([]);
		});

	it("no item carries another account's order, and no cancel touches one", () => {
		expect(runs.filter((run) => run.otherAccountItems > 0).map((run) => run.name)).toEqual([]);
		expect(runs.filter((run) => (run.otherAccountCancels ?? 0) > 0).map((run) => run.name)).toEqual(
			[],
		);
	});
});
