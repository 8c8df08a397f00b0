/**
 * The money-safety checks of one operation's write kinds (docs/safety.md), called by that
 * operation's test file (Create and Create Many in node version 2: versionOf): every write kind x Retry On Fail (3 tries, no wait) on/off x Continue On
 * Fail on/off, each run with a fault forced on its first write request (drop or 5xx after commit,
 * unknown-outcome codes before and after, drops and 5xx before, re-ordered batch results,
 * redirects, malformed and drip-fed answers) and seeded random faults after it. The sandbox's
 * ledger is the oracle for each item's report.
 *
 * The seeds are those of the whole matrix (all write kinds, in one fixed order), so a kind's runs
 * are the same whichever file runs them. A floor stated for the whole matrix is split evenly over
 * its write kinds, rounded up: the files together assert at least the whole.
 */
import { DEFAULT_RETRY_POLICY } from '../../nodes/TradingService/transport';
import { startSandbox, type Sandbox } from '../../sandbox';
import { againIfTooLate } from './lanes';
import {
	FORCED_FAULTS,
	WRITE_KINDS,
	matrixRun,
	violationOf,
	type MatrixRun,
	type WriteKind,
} from './matrix';

const RUNS_PER_CELL = Number(process.env.FAULT_MATRIX_RUNS_PER_CELL ?? 40);
const LANES = 16;

interface Cell {
	kind: WriteKind;
	retryOnFail: boolean;
	continueOnFail: boolean;
	seed: number;
}

/** The runs of the whole matrix that are of `kinds`, each with the seed it has in the whole. */
function planFor(kinds: readonly WriteKind[]): Cell[] {
	const plan: Cell[] = [];
	let seed = 11_000;
	for (let round = 0; round < RUNS_PER_CELL; round++) {
		for (const kind of WRITE_KINDS) {
			for (const retryOnFail of [false, true]) {
				for (const continueOnFail of [false, true]) {
					const cell = { kind, retryOnFail, continueOnFail, seed: seed++ };
					if (kinds.includes(kind)) plan.push(cell);
				}
			}
		}
	}
	return plan;
}

/** A floor stated for the whole matrix: the share of `kinds` (even over the write kinds, rounded up). */
function shareOf(floor: number, kinds: readonly WriteKind[]): number {
	return Math.ceil(floor / WRITE_KINDS.length) * kinds.length;
}

/** Prints the matrix: violations by kind, and each cell's outcomes. */
function logMatrix(runs: Array<MatrixRun & { tooLateReruns: number }>): void {
	const verdicts = runs.flatMap((run) => run.verdicts);
	const table: Record<string, Record<string, number>> = {};
	for (const run of runs) {
		const cell = `${run.kind} retry=${run.retryOnFail ? 'on' : 'off'} cof=${run.continueOnFail ? 'on' : 'off'}`;
		const row = (table[cell] ??= {
			runs: 0,
			faulted: 0,
			writes: 0,
			placed: 0,
			rejected: 0,
			unknown: 0,
			notReported: 0,
			committedAfterFault: 0,
			reportedFromRerun: 0,
			violations: 0,
		});
		row.runs++;
		if (run.faults.length > 0) row.faulted++;
		for (const verdict of run.verdicts) {
			row.writes++;
			if (verdict.reported === 'none') row.notReported++;
			else if (verdict.reported !== 'missing') row[verdict.reported]++;
			if (verdict.faultAfterCommit && verdict.committed > 0) row.committedAfterFault++;
			if (violationOf(verdict)) row.violations++;
			if (verdict.fromRerun) row.reportedFromRerun++;
		}
	}
	const count = (kind: string) =>
		verdicts.filter((verdict) => violationOf(verdict) === kind).length;
	console.log(
		[
			`money safety: ${runs.length} runs (${runs.filter((run) => run.faults.length > 0).length} faulted), ${verdicts.length} writes`,
			`run again, their reads too late for the 200 ms receive window before any write: ${runs.reduce((sum, run) => sum + run.tooLateReruns, 0)}`,
			`committed more than intended: ${count('committedTwice')}`,
			`reported placed but not placed (or another order): ${count('placedNotPlaced')}`,
			`reported rejected / "nothing was executed" but placed: ${count('rejectedButPlaced')}`,
			`no outcome reported: ${count('noOutcome')}`,
			`items carrying another account's order: ${count('otherAccountsOrder')}`,
			...Object.entries(table).map(([cell, row]) => `  ${cell}: ${JSON.stringify(row)}`),
		].join('\n'),
	);
}

/**
 * The node version a kind's runs use: Create and Create Many run version 2, which sends the
 * unified endpoints (/api/v1.1/spot/order and batchOrders), one request at a time (Parallel
 * Requests 1) as version 1 did, so that the seeded faults hit the same requests on every run;
 * parallel version 2 runs are parallel.test.ts's. The transfer runs version 1. Version 1's
 * endpoints keep the scenarios of create.test.ts and createMany.test.ts.
 */
function versionOf(kind: WriteKind): { typeVersion?: 2; parallelRequests?: number } {
	return kind === 'transfer' ? {} : { typeVersion: 2, parallelRequests: 1 };
}

/** The money-safety describe block of an operation's write kinds. */
export function describeMoneySafety(kinds: readonly WriteKind[]): void {
	const faultedFloor = shareOf(1000, kinds);
	const redirectFloor = shareOf(51, kinds);
	const forced = kinds.some((kind) => kind.startsWith('createMany'))
		? [...FORCED_FAULTS, 'batchReorder']
		: [...FORCED_FAULTS];

	describe(`money safety (${kinds.join(', ')}): every write under faults, with and without Retry On Fail and Continue On Fail`, () => {
		const runs: Array<MatrixRun & { tooLateReruns: number }> = [];
		const lanes: Sandbox[] = [];

		beforeAll(async () => {
			// A drip-fed answer (one byte every 50 ms) must end at the attempt's deadline: a shorter
			// deadline than the product's 30 s keeps the suite quick and still far below the drip.
			const deadline = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'timeoutMs', 3000);
			const plan = planFor(kinds);
			for (let lane = 0; lane < LANES; lane++)
				lanes.push(await startSandbox({ rateLimit: false, symbolRules: 'lenient' }));
			let next = 0;
			// Each lane runs one node run at a time on its own sandbox (reset per run); lanes overlap
			// while runs wait on lookups, backoff and the receive window.
			await Promise.all(
				lanes.map(async (sb) => {
					for (let index = next++; index < plan.length; index = next++) {
						const cell = plan[index];
						runs.push(
							await againIfTooLate((named) =>
								matrixRun(sb, {
									...cell,
									name: named(`safety-${cell.seed}`),
									...versionOf(cell.kind),
								}),
							),
						);
					}
				}),
			);
			logMatrix(runs);
			deadline.restore();
		}, 290_000);

		afterAll(async () => {
			await Promise.all(lanes.map((sb) => sb.stop()));
		});

		const violations = (kind: string) =>
			runs.flatMap((run) =>
				run.verdicts
					.filter((verdict) => violationOf(verdict) === kind)
					.map((verdict) => ({ ...verdict, faults: run.faults.join(',') })),
			);

		it(`covers at least ${faultedFloor} faulted runs (its share of 1,000 over all write kinds) over each of its write kinds and settings, with every forced fault`, () => {
			expect(runs.filter((run) => run.faults.length > 0).length).toBeGreaterThanOrEqual(
				faultedFloor,
			);
			const faults = new Set(runs.flatMap((run) => run.faults));
			for (const kind of forced) expect([kind, faults.has(kind)]).toEqual([kind, true]);
			for (const kind of kinds) {
				for (const retryOnFail of [false, true]) {
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
				}
			}
			// The checks below can only fail if writes were committed and their answers lost: there are many.
			const lostAnswers = runs
				.flatMap((run) => run.verdicts)
				.filter((verdict) => verdict.faultAfterCommit && verdict.committed > 0);
			expect(lostAnswers.filter((verdict) => verdict.retryOnFail).length).toBeGreaterThanOrEqual(
				RUNS_PER_CELL,
			);
			expect(lostAnswers.filter((verdict) => !verdict.retryOnFail).length).toBeGreaterThanOrEqual(
				RUNS_PER_CELL,
			);
			// n8n's Retry On Fail really re-ran the node (reports from a re-run), and only where it is on.
			const fromRerun = runs.flatMap((run) => run.verdicts).filter((verdict) => verdict.fromRerun);
			expect(fromRerun.filter((verdict) => verdict.retryOnFail).length).toBeGreaterThanOrEqual(
				RUNS_PER_CELL,
			);
			expect(fromRerun.filter((verdict) => !verdict.retryOnFail)).toEqual([]);
		});

		it(`follows no redirect: nothing reached the other host, over at least ${redirectFloor} runs with a redirect (its share of more than 50; their outcomes are checked below)`, () => {
			expect(runs.some((run) => run.faults.includes('redirectOtherHost'))).toBe(true);
			expect(runs.reduce((sum, run) => sum + run.reachedOtherHost, 0)).toBe(0);
			// A redirect is answered without processing: the redirected request itself was never applied.
			const redirected = runs.filter((run) =>
				run.faults.some((fault) => fault.startsWith('redirect')),
			);
			expect(redirected.length).toBeGreaterThanOrEqual(redirectFloor);
		});

		it('commits no write more than intended', () => {
			expect(violations('committedTwice')).toEqual([]);
		});

		it("reports no write placed that was not (and no order as another item's order)", () => {
			expect(violations('placedNotPlaced')).toEqual([]);
		});

		it('reports no write rejected or "nothing was executed" that was placed', () => {
			expect(violations('rejectedButPlaced')).toEqual([]);
		});

		it('every write the node reports on carries one outcome: placed, rejected or unknown', () => {
			expect(violations('noOutcome')).toEqual([]);
		});

		it("no item carries another account's order (a master key acts on its own trading account)", () => {
			expect(violations('otherAccountsOrder')).toEqual([]);
		});
	});
}
