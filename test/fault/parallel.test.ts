/**
 * The money-safety matrix (matrix.ts) on version 2's parallel runs (docs/safety.md "Parallel
 * requests"): Create with generated and with the user's own client order IDs, Create Many with
 * both, at Parallel Requests 20 and 5, and transfers (one at a time, one per second, whatever the
 * option), each with Retry On Fail and Continue On Fail off and on, a forced fault on a drawn
 * item's first request and the matrix's random faults on the write path. The sandbox's ledger is
 * the oracle:
 *
 * 1. per intended write, as in the matrix: none committed twice, none reported placed that was
 *    not (or as another order), none reported rejected or "nothing was executed" that was placed;
 * 2. a run stopped by its first failure (Continue On Fail off): its error's run report lists every
 *    other item once, placed ones are committed, "nothing executed" ones are not; retries of the
 *    execution with the faults gone send nothing listed placed or unknown and nothing the ledger
 *    holds, and end with every write placed exactly once, but for those the node leaves unknown
 *    (sent, not found: never sent again, docs/safety.md) and the items behind them; stops whose
 *    unknown outcomes a later lookup settles end with every write placed exactly once;
 * 3. one request's unknown outcome never blocks or changes another's;
 * 4. the checks catch a doubled or misreported write: with the node's lookup made to lie, they do.
 *
 * Determinism: a run's requests are in flight at once and reach the sandbox in an order that
 * varies, so faults are drawn per write and attempt, not per arrival (lib.ts drawFaultsByWrite):
 * a seed gives the same faults on the same writes on every run. What may vary is only the timing
 * (which items are in flight when a run stops).
 */
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_RETRY_POLICY } from '../../nodes/TradingService/transport';
import * as orders from '../../nodes/TradingService/orders/orderWrites';
import type { Verdict } from '../../nodes/TradingService/writes/engine';
import { runTradingService, type NodeRun } from '../../tools/harness/node';
import {
	DEMO_ACCOUNTS,
	startSandbox,
	type FaultRule,
	type LedgerRequest,
	type Sandbox,
} from '../../sandbox';
import { runInLanes } from './lanes';
import { PATHS, byInputItem, drawFaultsByWrite, queryOf } from './lib';
import {
	FORCED_FAULTS,
	RUN_REPORT_LISTS,
	itemsOfRanges,
	matrixRun,
	parametersFor,
	reportOf,
	reportedOrderIdOf,
	violationOf,
	writeKeyOf,
	type MatrixRun,
	type MatrixRunOptions,
	type RunReportList,
	type WriteKind,
	type WriteVerdict,
} from './matrix';

// Transfers go one per second: a run of 4 costs 4 s or more, so the hooks get room.
jest.setTimeout(180_000);

const ORDER_KINDS: WriteKind[] = [
	'createGenerated',
	'createUserId',
	'createManyGenerated',
	'createManyUserId',
];
const PARALLEL = [20, 5];
const ROUNDS = 3;
/** Items of a run: enough to fill 20 lanes of Create, and 4 batches of 20 for Create Many. */
const ITEMS = { create: 30, createMany: 70, transfer: 4 };
/**
 * The credential's receive window: longer than the matrix's 200 ms, since the runs of all lanes
 * share 2 cores and a request signed in a busy moment would come too late (-1021, "rejected"),
 * a refusal that says nothing of parallel writes; short enough to keep the reconcile's waits short.
 */
const RECV_WINDOW_MS = 1000;
/** Sandboxes, each running one node run at a time (whose requests are in flight at once). */
const SANDBOX_LANES = 12;

interface Cell {
	kind: WriteKind;
	retryOnFail: boolean;
	continueOnFail: boolean;
	/** Parallel Requests; undefined for transfers (they have no such option). */
	parallelRequests?: number;
	seed: number;
	/** Share of items the sandbox refuses (balance): none in every other round, so that a retry can place them all. */
	refusedShare: number;
}

function plan(): Cell[] {
	const cells: Cell[] = [];
	let seed = 25_000;
	for (let round = 0; round < ROUNDS; round++) {
		const refusedShare = round % 2 === 0 ? 0.1 : 0;
		for (const kind of ORDER_KINDS)
			for (const parallelRequests of PARALLEL)
				for (const retryOnFail of [false, true])
					for (const continueOnFail of [false, true])
						cells.push({
							kind,
							retryOnFail,
							continueOnFail,
							parallelRequests,
							seed: seed++,
							refusedShare,
						});
	}
	// Transfers: one run per setting (each costs a second per transfer).
	for (const retryOnFail of [false, true])
		for (const continueOnFail of [false, true])
			cells.push({
				kind: 'transfer',
				retryOnFail,
				continueOnFail,
				seed: seed++,
				refusedShare: 0.2,
			});
	return cells;
}

/**
 * The transport's policy, shortened for the suite: a drip-fed answer ends at a 3 s deadline (as in
 * the matrix), and a failing lookup's backoff starts at 20 ms instead of 250 ms (5 retries: 0.6 s
 * instead of 7.8 s); what is retried, and how often, stays the same.
 */
function shortPolicy() {
	const deadline = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'timeoutMs', 3000);
	const backoff = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'baseDelayMs', 20);
	return {
		restore: () => {
			backoff.restore();
			deadline.restore();
		},
	};
}

const itemsOf = (kind: WriteKind) =>
	kind === 'transfer'
		? ITEMS.transfer
		: kind.startsWith('createMany')
			? ITEMS.createMany
			: ITEMS.create;

// ------------------------------------------------------------------ what the ledger holds of an item

/** Writes the sandbox committed for one input (by its unique quantity). */
function committedOf(sb: Sandbox, kind: WriteKind, quantity: string): number {
	return kind === 'transfer'
		? sb.ledger.transfers.filter((transfer) => transfer.quantity === quantity).length
		: sb.ledger.orders.filter((order) => order.origQty === quantity).length;
}

/** Version 2 (every run here) sends the unified order endpoints. */
const writePathOf = (kind: WriteKind) =>
	kind === 'transfer'
		? PATHS.transfer
		: kind.startsWith('createMany')
			? PATHS.unifiedBatch
			: PATHS.unifiedOrder;

/** Whether a request to the write path carries the write of `quantity`. */
function carries(request: LedgerRequest, kind: WriteKind, quantity: string): boolean {
	if (request.path !== writePathOf(kind)) return false;
	const key = writeKeyOf(request, kind.startsWith('createMany'));
	return key !== undefined && key.split(',').includes(quantity);
}

// ------------------------------------------------------------------ the run report of a stopped run

type ReportViolation =
	| 'inTwoLists'
	| 'notListed'
	| 'listedPlacedNotCommitted'
	| 'listedNothingButCommitted'
	| 'notReported';

/**
 * What a verdict breaks of the stop semantics: the error's run report lists each item once (all of
 * them for Create Many, all but the error's own item for a per-item operation), an item listed
 * placed is committed, one listed "nothing executed" is not; and every item has an outcome when
 * the run was not stopped.
 */
function reportViolationOf(run: MatrixRun, verdict: WriteVerdict): ReportViolation | undefined {
	if (verdict.listed.length > 1) return 'inTwoLists';
	if (verdict.listed.includes('placed') && verdict.committed !== 1)
		return 'listedPlacedNotCommitted';
	if (verdict.listed.includes('nothingExecuted') && verdict.committed > 0)
		return 'listedNothingButCommitted';
	if (run.error === undefined) return verdict.reported === 'none' ? 'notReported' : undefined;
	const isErrorItem =
		!run.kind.startsWith('createMany') && run.error.context?.itemIndex === verdict.itemIndex;
	if (run.runReport !== undefined && verdict.listed.length === 0 && !isErrorItem)
		return 'notListed';
	if (run.runReport !== undefined && verdict.listed.length > 0 && isErrorItem) return 'inTwoLists';
	return undefined;
}

// ------------------------------------------------------------------ retries of a stopped execution

interface Retries {
	run: string;
	kind: WriteKind;
	/** The stopped run's inputs had none the sandbox refuses. */
	allPlaceable: boolean;
	/** Retries made: each a retry of the one before, until one is not stopped or nothing changes. */
	tries: number;
	/** The last retry's error, if it was stopped too. */
	error?: string;
	/** Items committed more than once after the retries. */
	doubled: number[];
	/** "run k: item i" where retry k sent a write the report before it listed placed or unknown, or the ledger held. */
	resent: string[];
	/** With all placeable: items neither placed exactly once (and so reported) nor left unknown by the node, never sent again. */
	notSettled: string[];
	/** Items the retries sent a write for (what the stopped run had not placed). */
	sent: number;
	/** Items placed by the retries. */
	placedByRetries: number;
	/** Items left unknown: an attempt went out, the ledger holds none, the node never sends them again. */
	leftUnknown: number;
	/** Items never started: each retry stops at an item left unknown first (Continue On Fail off). */
	blocked: number;
}

/** The items a stopped run's error says may not be sent again: listed placed or unknown, and its own item unless refused. */
function notToSend(error: MatrixRun['error'], report: MatrixRun['runReport']): Set<number> {
	const items = new Set([...(report?.placed ?? []), ...(report?.unknown ?? [])]);
	const errorItem = error?.context?.itemIndex;
	if (typeof errorItem === 'number' && error?.context?.outcome !== 'rejected') items.add(errorItem);
	return items;
}

/**
 * Retries of the stopped execution (its ledger, `retryOf`) with the faults gone, as a user would,
 * each a retry of the one before while they stop and something changes. Checks what each sends
 * against the report before it, and what the ledger holds at the end.
 */
async function retryStopped(sb: Sandbox, run: MatrixRun, cell: Cell): Promise<Retries> {
	sb.clearFaults();
	const quantities = run.inputs.map((input) => input.quantity);
	const committed = () => quantities.map((quantity) => committedOf(sb, cell.kind, quantity));
	const committedAtStop = committed();
	const sentByRetries = new Set<number>();
	const resent: string[] = [];
	let previous: { nodeRun?: NodeRun; error: MatrixRun['error']; report: MatrixRun['runReport'] } = {
		nodeRun: run.nodeRun,
		error: run.error,
		report: run.runReport,
	};
	let tries = 0;
	let last: NodeRun | undefined;
	while (tries < 4) {
		tries++;
		const before = committed();
		const since = sb.ledger.requests.length;
		const retry = await runTradingService(sb, {
			parameters: parametersFor(cell.kind, run.name, 2, cell.parallelRequests) as never,
			inputItems: run.inputs.map((json) => ({ json })),
			continueOnFail: false,
			executionId: `${run.name}-retry-${tries}`,
			credentials: { recvWindow: RECV_WINDOW_MS },
			node: {
				typeVersion: 2,
				...(cell.retryOnFail ? { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 } : {}),
			},
			retryOf: previous.nodeRun,
		});
		last = retry;
		const requests = sb.ledger.requests.slice(since);
		const forbidden = notToSend(previous.error, previous.report);
		quantities.forEach((quantity, itemIndex) => {
			if (!requests.some((request) => carries(request, cell.kind, quantity))) return;
			if (forbidden.has(itemIndex) || before[itemIndex] > 0)
				resent.push(`retry ${tries}: item ${itemIndex} (committed ${before[itemIndex]})`);
			sentByRetries.add(itemIndex);
		});
		if (retry.error === undefined) break;
		const error = retry.error as MatrixRun['error'];
		const report = error?.context?.runReport as Record<string, string> | undefined;
		const reportText = JSON.stringify(report);
		const unchanged =
			reportText === JSON.stringify(previous.error?.context?.runReport) &&
			String(committed()) === String(before);
		previous = {
			nodeRun: retry,
			error,
			report:
				report === undefined
					? undefined
					: {
							placed: itemsOfRanges(report.placed),
							unknown: itemsOfRanges(report.unknown),
							nothingExecuted: itemsOfRanges(report.nothingExecuted),
						},
		};
		if (unchanged) break;
	}
	const committedAfter = committed();
	const allPlaceable = quantities.every((quantity) => !quantity.startsWith('9999999.'));
	const notSettled: string[] = [];
	let leftUnknown = 0;
	let blocked = 0;
	if (allPlaceable) {
		const stopped = last?.error !== undefined;
		const outputs = byInputItem(stopped ? [] : (last?.items ?? []));
		const unknownAtEnd = notToSend(previous.error, previous.report);
		quantities.forEach((quantity, itemIndex) => {
			const json = outputs.get(itemIndex)?.[0]?.json as Record<string, unknown> | undefined;
			const ledgerId =
				cell.kind === 'transfer'
					? sb.ledger.transfers.find((transfer) => transfer.quantity === quantity)?.id
					: sb.ledger.orders.find((order) => order.origQty === quantity)?.orderId;
			if (committedAfter[itemIndex] === 1) {
				// Placed: a retry that was not stopped reports it so, with the ledger's ID.
				if (
					!stopped &&
					(json === undefined ||
						reportOf(json).reported !== 'placed' ||
						reportedOrderIdOf(json) !== ledgerId)
				)
					notSettled.push(`item ${itemIndex}: committed once, reported ${JSON.stringify(json)}`);
				return;
			}
			if (committedAfter[itemIndex] > 1) return; // counted as doubled
			// Not placed, and allowed only as: an item whose attempt went out before the retries and
			// that the node holds unknown (not found, never sent again) ...
			if (
				stopped &&
				unknownAtEnd.has(itemIndex) &&
				!previous.report?.placed.includes(itemIndex) &&
				!sentByRetries.has(itemIndex) &&
				run.requests.some((request) => carries(request, cell.kind, quantity))
			) {
				leftUnknown++;
				return;
			}
			// ... or one never started because every retry stops at such an item first.
			if (stopped && previous.report?.nothingExecuted.includes(itemIndex)) {
				blocked++;
				return;
			}
			notSettled.push(
				`item ${itemIndex}: ${committedAfter[itemIndex]} committed, last retry ${stopped ? `stopped: ${last?.error?.message}` : `reported ${JSON.stringify(json)}`}`,
			);
		});
		// Items are left unplaced only behind an unknown outcome: without one, the retries place all.
		if (leftUnknown === 0 && stopped)
			notSettled.push(`no item left unknown, but the last retry stopped: ${last?.error?.message}`);
	}
	return {
		run: run.name,
		kind: cell.kind,
		allPlaceable,
		tries,
		error: last?.error?.message,
		doubled: committedAfter.flatMap((count, itemIndex) => (count > 1 ? [itemIndex] : [])),
		resent,
		notSettled,
		sent: sentByRetries.size,
		placedByRetries: committedAfter.filter(
			(count, itemIndex) => count === 1 && committedAtStop[itemIndex] === 0,
		).length,
		leftUnknown,
		blocked,
	};
}

/**
 * Items a stopped run's report lists as of unknown outcome although the answer to their request
 * said placed: committed once, by a request with no fault or one whose results came back re-ordered
 * (matched by client order ID). The engine records such writes placed before a hook may stop the
 * run (defect 1 of this file: they were left recorded in flight); asserted to be none.
 */
function answeredPlacedListedUnknown(run: MatrixRun): string[] {
	return run.verdicts
		.filter((verdict) => verdict.listed.includes('unknown') && verdict.committed === 1)
		.filter((verdict) => {
			const quantity = run.inputs[verdict.itemIndex].quantity;
			const writes = run.requests.filter((request) => carries(request, run.kind, quantity));
			return (
				writes.length === 1 &&
				(writes[0].fault === undefined || writes[0].fault === 'batchReorder') &&
				writes[0].status === 200
			);
		})
		.map((verdict) => `${run.name} item ${verdict.itemIndex}`);
}

// ------------------------------------------------------------------ the figures

/** Each matrix run's Parallel Requests and wall time, for the figures. */
const parallelByRun = new Map<string, number | undefined>();
const runMs = new Map<string, number>();
const parallelOf = (run: MatrixRun) => parallelByRun.get(run.name);

function countViolations(runs: MatrixRun[]) {
	const verdicts = runs.flatMap((run) => run.verdicts);
	const count = (kind: string) =>
		verdicts.filter((verdict) => violationOf(verdict) === kind).length;
	return {
		doubled: count('committedTwice'),
		placedNotPlaced: count('placedNotPlaced'),
		rejectedButPlaced: count('rejectedButPlaced'),
		noOutcome: count('noOutcome'),
		report: runs.flatMap((run) =>
			run.verdicts.filter((verdict) => reportViolationOf(run, verdict) !== undefined),
		).length,
	};
}

const sum = <T>(values: T[], of: (value: T) => number) =>
	values.reduce((total, value) => total + of(value), 0);

function logFigures(
	runs: MatrixRun[],
	retries: Retries[],
	answeredPlaced: string[],
	wallMs: number,
): void {
	const verdicts = runs.flatMap((run) => run.verdicts);
	const table: Record<string, Record<string, number>> = {};
	for (const run of runs) {
		const lanes = run.kind === 'transfer' ? 'one at a time' : `parallel ${parallelOf(run)}`;
		const cell = `${run.kind} ${lanes} retry=${run.retryOnFail ? 'on' : 'off'} cof=${run.continueOnFail ? 'on' : 'off'}`;
		const row = (table[cell] ??= {
			ms: 0,
			runs: 0,
			faulted: 0,
			writes: 0,
			placed: 0,
			rejected: 0,
			unknown: 0,
			notReported: 0,
			committedAfterFault: 0,
			stopped: 0,
			violations: 0,
		});
		row.runs++;
		row.ms += runMs.get(run.name) ?? 0;
		if (run.faults.length > 0) row.faulted++;
		if (run.error !== undefined) row.stopped++;
		for (const verdict of run.verdicts) {
			row.writes++;
			if (verdict.reported === 'none') row.notReported++;
			else if (verdict.reported !== 'missing') row[verdict.reported]++;
			if (verdict.faultAfterCommit && verdict.committed > 0) row.committedAfterFault++;
			if (violationOf(verdict) || reportViolationOf(run, verdict)) row.violations++;
		}
	}
	const counts = countViolations(runs);
	const listed = (list: string) =>
		verdicts.filter((verdict) => verdict.listed.includes(list as never)).length;
	const reported = (outcome: string) =>
		verdicts.filter((verdict) => verdict.reported === outcome).length;
	console.log(
		[
			`money safety, parallel (version 2): ${runs.length} runs (${runs.filter((run) => run.faults.length > 0).length} faulted), ${verdicts.length} writes, ${(wallMs / 1000).toFixed(1)} s`,
			`reported: placed ${reported('placed')}, rejected ${reported('rejected')} (${verdicts.filter((verdict) => verdict.reported === 'rejected' && /receive window/.test(verdict.detail)).length} of them signed too long before they arrived), unknown ${reported('unknown')}, no item (run stopped first) ${reported('none')}`,
			`committed more than intended (doubled): ${counts.doubled}`,
			`misreported: placed but not placed (or another order) ${counts.placedNotPlaced}, rejected / "nothing was executed" but placed ${counts.rejectedButPlaced}, no outcome ${counts.noOutcome}`,
			`stopped runs: ${runs.filter((run) => run.error !== undefined).length}, their run reports list placed ${listed('placed')}, unknown ${listed('unknown')}, nothing executed ${listed('nothingExecuted')}; wrong entries: ${counts.report}`,
			`  listed unknown although the answer to its only request said placed (no fault on it, or results re-ordered): ${answeredPlaced.length}${answeredPlaced.length > 0 ? `, e.g. ${answeredPlaced.slice(0, 3).join('; ')}` : ''}`,
			`retries of stopped executions (faults gone): ${sum(retries, (retry) => retry.tries)} for ${retries.length} runs (${retries.filter((retry) => retry.allPlaceable).length} with every item placeable); items sent ${sum(retries, (retry) => retry.sent)}, placed ${sum(retries, (retry) => retry.placedByRetries)}, left unknown (sent before, not found, never sent again) ${sum(retries, (retry) => retry.leftUnknown)}, not started behind them ${sum(retries, (retry) => retry.blocked)}; doubled ${sum(retries, (retry) => retry.doubled.length)}, sent again ${sum(retries, (retry) => retry.resent.length)}, not settled ${sum(retries, (retry) => retry.notSettled.length)}`,
			...Object.entries(table).map(([cell, row]) => `  ${cell}: ${JSON.stringify(row)}`),
		].join('\n'),
	);
}

// ------------------------------------------------------------------ 1 and 2: the matrix, in parallel

describe('money safety of parallel runs (version 2): every write under faults, Parallel Requests 20 and 5, Retry On Fail and Continue On Fail off and on', () => {
	const cells = plan();
	const runs: MatrixRun[] = [];
	const retries: Retries[] = [];
	const transferGaps: number[] = [];
	const listedUnknownAnsweredPlaced: string[] = [];

	beforeAll(async () => {
		const policy = shortPolicy();
		const started = Date.now();
		try {
			await runInLanes(cells, SANDBOX_LANES, async (sb, cell) => {
				const name = `parallel-${cell.seed}`;
				parallelByRun.set(name, cell.parallelRequests);
				const options: MatrixRunOptions = {
					...cell,
					name,
					typeVersion: 2,
					items: itemsOf(cell.kind),
					faultsByWrite: true,
					keepNodeRun: !cell.continueOnFail,
					recvWindowMs: RECV_WINDOW_MS,
				};
				const runStarted = Date.now();
				const run = await matrixRun(sb, options);
				runMs.set(name, Date.now() - runStarted);
				if (cell.kind === 'transfer') {
					const sent = run.requests.filter((request) => request.path === PATHS.transfer);
					for (let index = 1; index < sent.length; index++)
						transferGaps.push(sent[index].at - sent[index - 1].at);
				}
				if (run.error !== undefined) retries.push(await retryStopped(sb, run, cell));
				listedUnknownAnsweredPlaced.push(...answeredPlacedListedUnknown(run));
				runs.push({ ...run, nodeRun: undefined, requests: [] });
			});
		} finally {
			policy.restore();
		}
		logFigures(runs, retries, listedUnknownAnsweredPlaced, Date.now() - started);
	}, 170_000);

	const violations = (kind: string) =>
		runs.flatMap((run) =>
			run.verdicts
				.filter((verdict) => violationOf(verdict) === kind)
				.map((verdict) => ({ ...verdict, faults: run.faults.join(',') })),
		);

	it('defect 1 (parallel): a write its batch answer placed is in the ledger as placed before a hook stops the run, so no stopped run reports it unknown', () => {
		expect(listedUnknownAnsweredPlaced).toEqual([]);
	});

	it('runs every kind and setting, every forced fault among them, with answers lost after commits in each setting', () => {
		for (const cell of cells)
			expect([cell.seed, runs.some((run) => run.name === `parallel-${cell.seed}`)]).toEqual([
				cell.seed,
				true,
			]);
		expect(runs.every((run) => run.faults.length > 0)).toBe(true);
		const faults = new Set(runs.flatMap((run) => run.faults));
		for (const kind of [...FORCED_FAULTS, 'batchReorder'])
			expect([kind, faults.has(kind)]).toEqual([kind, true]);
		// The checks below can only fail where writes were committed and their answers lost.
		const lostAnswers = runs
			.flatMap((run) => run.verdicts)
			.filter((verdict) => verdict.faultAfterCommit && verdict.committed > 0);
		for (const retryOnFail of [false, true])
			for (const continueOnFail of [false, true]) {
				const count = lostAnswers.filter(
					(verdict) =>
						verdict.retryOnFail === retryOnFail && verdict.continueOnFail === continueOnFail,
				).length;
				expect([retryOnFail, continueOnFail, count >= 20]).toEqual([
					retryOnFail,
					continueOnFail,
					true,
				]);
			}
		// Nothing followed a redirect to the other host.
		expect(runs.reduce((total, run) => total + run.reachedOtherHost, 0)).toBe(0);
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

	it('every write the node reports on carries one outcome; a run that was not stopped reports every item', () => {
		expect(violations('noOutcome')).toEqual([]);
		const unreported = runs.flatMap((run) =>
			run.verdicts.filter((verdict) => reportViolationOf(run, verdict) === 'notReported'),
		);
		expect(unreported).toEqual([]);
		for (const run of runs.filter((one) => one.continueOnFail))
			expect([run.name, run.error?.message]).toEqual([run.name, undefined]);
	});

	it('a stopped run: its report lists every other item once, placed ones committed, "nothing executed" ones not', () => {
		const stopped = runs.filter((run) => run.error !== undefined);
		expect(stopped.length).toBeGreaterThanOrEqual(10);
		for (const run of stopped) {
			expect([run.name, run.runReport === undefined]).toEqual([run.name, false]);
			// The description says the same as the context.
			for (const list of RUN_REPORT_LISTS) {
				const count = run.runReport![list].length;
				const label = {
					placed: 'placed, wholly or in part',
					unknown: 'outcome unknown',
					nothingExecuted: 'nothing executed',
				}[list];
				if (count > 0)
					expect(String(run.error!.description)).toContain(
						`${label}: ${count} item${count === 1 ? '' : 's'}`,
					);
			}
		}
		const wrong = stopped.flatMap((run) =>
			run.verdicts
				.map((verdict) => ({ verdict, violation: reportViolationOf(run, verdict) }))
				.filter(({ violation }) => violation !== undefined)
				.map(({ verdict, violation }) => ({ violation, ...verdict, report: run.runReport })),
		);
		expect(wrong).toEqual([]);
		// Each list occurs: the checks above had something to check.
		const verdicts = stopped.flatMap((run) => run.verdicts);
		for (const list of RUN_REPORT_LISTS)
			expect([list, verdicts.some((verdict) => verdict.listed.includes(list))]).toEqual([
				list,
				true,
			]);
	});

	it('retries of a stopped execution, faults gone, send only what was not placed: each write at most once, every item placed but those the node left unknown', () => {
		expect(retries.length).toBe(runs.filter((run) => run.error !== undefined).length);
		expect(retries.filter((retry) => retry.allPlaceable).length).toBeGreaterThanOrEqual(5);
		expect(sum(retries, (retry) => retry.placedByRetries)).toBeGreaterThanOrEqual(5);
		const wrong = retries.filter(
			(retry) => retry.doubled.length + retry.resent.length + retry.notSettled.length > 0,
		);
		expect(wrong).toEqual([]);
	});

	it('transfers stay one at a time, a second apart, in a parallel version 2 run', () => {
		// The two runs with Continue On Fail send all 4 transfers: 6 gaps at least.
		expect(transferGaps.length).toBeGreaterThanOrEqual(6);
		for (const gap of transferGaps) expect(gap).toBeGreaterThanOrEqual(990);
	});
});

// ------------------------------------------------------------------ scripted runs: chosen faults on chosen items

type ScriptedKind = Exclude<WriteKind, 'createPlain' | 'createManyPlain'>;

/** A run with faults on chosen items only: no random faults. */
interface Script {
	name: string;
	kind: ScriptedKind;
	items: number;
	/** The items whose (first) request is faulted; for Create Many, the whole batch of each. */
	faultedItems: number[];
	fault: FaultRule['kind'];
	/** Lookups that fail (every try): none, only those of the faulted writes, or all. */
	lookupsFail: 'none' | 'faulted' | 'all';
	/** How they fail: 5xx (retried with backoff, default), or a redirect (not followed: at once). */
	lookupFault?: 'http500' | 'redirectSameHost';
	continueOnFail: boolean;
	retryOnFail: boolean;
	parallelRequests?: number;
}

interface ScriptedRun {
	script: Script;
	run: NodeRun;
	requests: LedgerRequest[];
	inputs: Array<Record<string, string>>;
	/** The items of the faulted requests. */
	faulted: number[];
	committed: number[];
	ledgerIds: Array<string | undefined>;
}

/** The client order ID a lookup asks for, as the item it belongs to (generated: "…-0-<item>-0"; user: "<run>-<quantity>"). */
function itemOfLookup(
	request: LedgerRequest,
	inputs: Array<Record<string, string>>,
): number | undefined {
	const id = queryOf(request).get('origClientOrderId');
	if (id === null) return undefined;
	const generated = /-0-(\d+)-0$/.exec(id);
	if (generated !== null) return Number(generated[1]);
	const index = inputs.findIndex((input) => id.endsWith(`-${input.quantity}`));
	return index < 0 ? undefined : index;
}

function scriptInputs(script: Script): Array<Record<string, string>> {
	return Array.from({ length: script.items }, (_, index): Record<string, string> => {
		const quantity = `0.${String(index + 1).padStart(3, '0')}1`;
		return script.kind === 'transfer'
			? { from: DEMO_ACCOUNTS.mainTrading, to: DEMO_ACCOUNTS.custody, quantity }
			: { symbol: 'ETHUSDT', side: 'BUY', type: 'LIMIT', price: '100', quantity };
	});
}

/** What the ledger holds of each input now: writes committed, and the ID of the first. */
function ledgerOf(sb: Sandbox, kind: WriteKind, inputs: Array<Record<string, string>>) {
	return {
		committed: inputs.map((input) => committedOf(sb, kind, input.quantity)),
		ledgerIds: inputs.map((input) =>
			kind === 'transfer'
				? sb.ledger.transfers.find((transfer) => transfer.quantity === input.quantity)?.id
				: sb.ledger.orders.find((order) => order.origQty === input.quantity)?.orderId,
		),
	};
}

/** The node's run of a script (or a retry of it, faults gone): version 2, the script's settings. */
function runScript(sb: Sandbox, script: Script, retryOf?: NodeRun): Promise<NodeRun> {
	return runTradingService(sb, {
		// The run's name starts the user's client order IDs: printable characters only.
		parameters: parametersFor(
			script.kind,
			script.name.replace(/[^A-Za-z0-9]+/g, '-'),
			2,
			script.parallelRequests,
		) as never,
		inputItems: scriptInputs(script).map((json) => ({ json })),
		continueOnFail: script.continueOnFail,
		executionId: `${script.name}${retryOf === undefined ? '' : '-retry'}`,
		credentials: { recvWindow: RECV_WINDOW_MS },
		node: {
			typeVersion: 2,
			...(script.retryOnFail ? { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 } : {}),
		},
		retryOf,
	});
}

async function scriptedRun(sb: Sandbox, script: Script): Promise<ScriptedRun> {
	sb.reset();
	const isMany = script.kind.startsWith('createMany');
	const inputs = scriptInputs(script);
	const faultedQuantities = script.faultedItems.map((item) => inputs[item].quantity);
	const faulted = new Set<number>();
	const lookupPath = script.kind === 'transfer' ? PATHS.history : PATHS.queryOrder;
	const lookupFault = script.lookupFault ?? 'http500';
	if (script.lookupsFail === 'all')
		sb.setFaults({
			rules: [
				{ kind: lookupFault, times: Number.MAX_SAFE_INTEGER, path: lookupPath, method: 'GET' },
			],
		});
	// The order lists unknown orders are settled from together (orders/listLookups.ts) fail with
	// the faulted writes' lookups: those read once a write has left (before, they check business keys).
	let writeSent = false;
	let lists = 0;
	const undo = drawFaultsByWrite(sb, {
		seed: 0,
		random: {},
		keyOf: (request) => {
			if (request.path === writePathOf(script.kind)) {
				writeSent = true;
				return writeKeyOf(request, isMany);
			}
			if (script.lookupsFail === 'faulted' && request.path === PATHS.queryOrder) {
				const item = itemOfLookup(request, inputs);
				return item === undefined ? undefined : `lookup ${item}`;
			}
			if (
				script.lookupsFail === 'faulted' &&
				writeSent &&
				request.method === 'GET' &&
				(request.path === PATHS.openOrders || request.path === PATHS.pastOrders)
			)
				return `lists ${lists++}`;
			return undefined;
		},
		forced: (key, attempt) => {
			if (key.startsWith('lists '))
				return { kind: lookupFault, rule: { kind: lookupFault, times: 1 } };
			if (key.startsWith('lookup ')) {
				if (!faulted.has(Number(key.slice(7)))) return undefined;
				return { kind: lookupFault, rule: { kind: lookupFault, times: 1 } };
			}
			const quantities = key.split(',');
			if (attempt > 0 || !faultedQuantities.some((quantity) => quantities.includes(quantity)))
				return undefined;
			inputs.forEach((input, index) => {
				if (quantities.includes(input.quantity)) faulted.add(index);
			});
			return { kind: script.fault, rule: { kind: script.fault, times: 1 } };
		},
	});
	const since = sb.ledger.requests.length;
	let run: NodeRun;
	try {
		run = await runScript(sb, script);
	} finally {
		undo();
	}
	return {
		script,
		run,
		requests: sb.ledger.requests.slice(since),
		inputs,
		faulted: [...faulted].sort((a, b) => a - b),
		...ledgerOf(sb, script.kind, inputs),
	};
}

// ------------------------------------------------------------------ 2, again: stops a retry recovers from

interface Recovery {
	stopped: ScriptedRun;
	report?: Record<RunReportList, number[]>;
	retry: NodeRun;
	/** Items the retry sent a write for. */
	sentByRetry: number[];
	committed: number[];
	ledgerIds: Array<string | undefined>;
}

const RECOVERABLE: Script[] = [
	...(['createGenerated', 'createUserId'] as const).flatMap((kind) =>
		[20, 5].flatMap((parallelRequests) =>
			[false, true].map(
				(retryOnFail): Script => ({
					name: `recover-${kind}-${parallelRequests}-${retryOnFail ? 'retry' : 'once'}`,
					kind,
					items: 40,
					faultedItems: [3, 11, 17, 30],
					fault: 'dropAfter',
					// A lookup refused at once stops the run while most items are still to be sent.
					lookupsFail: 'faulted',
					lookupFault: 'redirectSameHost',
					continueOnFail: false,
					retryOnFail,
					parallelRequests,
				}),
			),
		),
	),
	// 4 batches, all in flight at once at 20; one after the other at 1, so that two are still to be
	// sent when the second stops the run (at 2 or more, the others are sent before its lookup ends).
	...(['createManyGenerated', 'createManyUserId'] as const).flatMap((kind) =>
		[20, 1].flatMap((parallelRequests) =>
			[false, true].map(
				(retryOnFail): Script => ({
					name: `recover-${kind}-${parallelRequests}-${retryOnFail ? 'retry' : 'once'}`,
					kind,
					items: 70,
					faultedItems: [25],
					fault: 'http502After',
					lookupsFail: 'faulted',
					lookupFault: 'redirectSameHost',
					continueOnFail: false,
					retryOnFail,
					parallelRequests,
				}),
			),
		),
	),
	...[false, true].map(
		(retryOnFail): Script => ({
			name: `recover-transfer-${retryOnFail ? 'retry' : 'once'}`,
			kind: 'transfer',
			items: 4,
			faultedItems: [1],
			fault: 'dropAfter',
			lookupsFail: 'all',
			continueOnFail: false,
			retryOnFail,
		}),
	),
];

describe('a stopped run whose unknown outcomes the lookups settle later: a retry of the execution places every write once, sending only what was not placed', () => {
	const results: Recovery[] = [];

	beforeAll(async () => {
		const policy = shortPolicy();
		try {
			results.push(
				...(await runInLanes(RECOVERABLE, 4, async (sb, script) => {
					const stopped = await scriptedRun(sb, script);
					sb.clearFaults();
					const since = sb.ledger.requests.length;
					const retry = await runScript(sb, script, stopped.run);
					const requests = sb.ledger.requests.slice(since);
					const ranges = (stopped.run.error?.context as { runReport?: Record<string, unknown> })
						?.runReport;
					return {
						stopped,
						report:
							ranges === undefined
								? undefined
								: {
										placed: itemsOfRanges(ranges.placed),
										unknown: itemsOfRanges(ranges.unknown),
										nothingExecuted: itemsOfRanges(ranges.nothingExecuted),
									},
						retry,
						sentByRetry: stopped.inputs.flatMap((input, index) =>
							requests.some((request) => carries(request, script.kind, input.quantity))
								? [index]
								: [],
						),
						...ledgerOf(sb, script.kind, stopped.inputs),
					};
				})),
			);
		} finally {
			policy.restore();
		}
		console.log(
			[
				'stopped runs a retry recovers from:',
				...results.map(
					({ stopped, report, retry, sentByRetry, committed }) =>
						`  ${stopped.script.name}: stopped at item ${String(stopped.run.error?.context?.itemIndex)}, report placed ${report?.placed.length}, unknown ${report?.unknown.length}, nothing executed ${report?.nothingExecuted.length}; the retry sent ${sentByRetry.length}, ledger: ${committed.filter((count) => count === 1).length}/${committed.length} placed once${retry.error === undefined ? '' : `; the retry failed: ${retry.error.message} ${String(retry.error.description ?? '')}`}`,
				),
			].join('\n'),
		);
	}, 120_000);

	it.each(RECOVERABLE.map((script, index) => [script.name, index] as const))(
		'%s',
		(_name, index) => {
			const { stopped, report, retry, sentByRetry, committed, ledgerIds } = results[index];
			const { script, inputs, faulted } = stopped;
			// The run stopped at a faulted write, whose lookup failed: its outcome unknown.
			expect(stopped.run.error).toBeDefined();
			expect(stopped.run.error?.context?.outcome).toBe('unknown');
			expect(faulted).toContain(stopped.run.error?.context?.itemIndex);
			expect(report).toBeDefined();
			const lists = report!;
			// Its report: each other item in one list; placed ones committed, "nothing executed" ones not.
			const listed = [...lists.placed, ...lists.unknown, ...lists.nothingExecuted].sort(
				(a, b) => a - b,
			);
			const errorItem = Number(stopped.run.error?.context?.itemIndex);
			const expected = inputs
				.map((_, index) => index)
				.filter((index) => script.kind.startsWith('createMany') || index !== errorItem);
			expect(listed).toEqual(expected);
			for (const item of lists.placed) expect([item, stopped.committed[item]]).toEqual([item, 1]);
			for (const item of lists.nothingExecuted)
				expect([item, stopped.committed[item]]).toEqual([item, 0]);
			// The retry: only what executed nothing is sent; placed ones answered, unknown ones looked up.
			expect(sentByRetry).toEqual(lists.nothingExecuted);
			expect(retry.error).toBeUndefined();
			const outputs = byInputItem(retry.items);
			inputs.forEach((_, item) => {
				const json = outputs.get(item)?.[0]?.json as Record<string, unknown> | undefined;
				expect([item, committed[item], json && reportOf(json).reported]).toEqual([
					item,
					1,
					'placed',
				]);
				if (script.kind !== 'transfer')
					expect([item, reportedOrderIdOf(json!)]).toEqual([item, ledgerIds[item]]);
			});
		},
	);
});

// ------------------------------------------------------------------ 3: one unknown outcome, the others in parallel

const ISOLATION: Script[] = [
	['drop after commit, found by lookup', 'createGenerated', 31, 7, 'dropAfter', 'none'],
	// Those whose lookups fail keep to one window of the key's order rate (20 a second): every
	// other write can leave before the faulted one's lookups end, whatever the machine's load.
	['drop after commit, lookups fail', 'createGenerated', 20, 7, 'dropAfter', 'faulted'],
	[
		'unknown-outcome code after commit, business key',
		'createUserId',
		31,
		12,
		'unknownAfter',
		'none',
	],
	[
		'dropped before it was applied, lookups fail',
		'createGenerated',
		20,
		0,
		'dropBefore',
		'faulted',
	],
	[
		'batch answer lost after commit, found by lookup',
		'createManyGenerated',
		80,
		25,
		'http502After',
		'none',
	],
	[
		'batch answer lost after commit, lookups fail',
		'createManyGenerated',
		70,
		65,
		'dropAfter',
		'faulted',
	],
].map(
	([name, kind, items, faultedItem, fault, lookupsFail]): Script => ({
		name: name as string,
		kind: kind as ScriptedKind,
		items: items as number,
		faultedItems: [faultedItem as number],
		fault: fault as FaultRule['kind'],
		lookupsFail: lookupsFail as Script['lookupsFail'],
		continueOnFail: true,
		retryOnFail: false,
		parallelRequests: 20,
	}),
);

describe('one unknown outcome never blocks or changes another request (Parallel Requests 20, Continue On Fail)', () => {
	const results: ScriptedRun[] = [];
	let sb: Sandbox;

	beforeAll(async () => {
		sb = await startSandbox({ rateLimit: false, symbolRules: 'lenient' });
		const policy = shortPolicy();
		try {
			for (const script of ISOLATION) results.push(await scriptedRun(sb, script));
		} finally {
			policy.restore();
		}
	});

	afterAll(async () => {
		await sb?.stop();
	});

	it.each(ISOLATION.map((script, index) => [script.name, script.kind, index] as const))(
		'%s (%s): every other order placed once and reported so, the faulted one placed by lookup or unknown, nothing doubled',
		(_name, _kind, index) => {
			const { run, requests, inputs, faulted, committed, ledgerIds, script } = results[index];
			expect(run.error).toBeUndefined();
			// Create Many sends the orders of one symbol 20 to a batch, in item order.
			const batchStart = script.faultedItems[0] - (script.faultedItems[0] % 20);
			expect(faulted.length).toBe(
				script.kind.startsWith('createMany') ? Math.min(20, script.items - batchStart) : 1,
			);
			const applied = script.fault !== 'dropBefore';
			const outputs = byInputItem(run.items);
			const writes = requests.filter((request) => request.path === writePathOf(script.kind));
			inputs.forEach((input, item) => {
				const isFaulted = faulted.includes(item);
				const json = outputs.get(item)?.[0]?.json as Record<string, unknown>;
				expect([item, outputs.get(item)?.length, committed[item]]).toEqual([
					item,
					1,
					isFaulted && !applied ? 0 : 1,
				]);
				// One request each: nothing was sent twice, not even the faulted one.
				expect([
					item,
					writes.filter((request) => carries(request, script.kind, input.quantity)).length,
				]).toEqual([item, 1]);
				const outcome = reportOf(json).reported;
				if (isFaulted && script.lookupsFail !== 'none')
					expect([item, outcome]).toEqual([item, 'unknown']);
				else
					expect([item, outcome, reportedOrderIdOf(json)]).toEqual([
						item,
						'placed',
						ledgerIds[item],
					]);
			});
			if (script.lookupsFail !== 'none') {
				// Never blocked: every other write left before the faulted one's lookups ended.
				const lookups = requests.filter(
					(request) =>
						request.path === PATHS.queryOrder &&
						faulted.includes(itemOfLookup(request, inputs) ?? -1),
				);
				// Each failing lookup is tried 6 times; once one has failed, the other orders waiting
				// with it are not looked up (writes/lookups.ts): at least the one's 6.
				expect(lookups.length).toBeGreaterThanOrEqual(6);
				const others = writes.filter(
					(request) =>
						!faulted.some((item) => carries(request, script.kind, inputs[item].quantity)),
				);
				expect(others.length).toBeGreaterThan(0);
				expect(requests.indexOf(others[others.length - 1])).toBeLessThan(
					requests.indexOf(lookups[lookups.length - 1]),
				);
			}
		},
	);
});

// ------------------------------------------------------------------ 4: the checks can fail

/**
 * The checks above catch a doubled or misreported write: here the node's order lookup is made to
 * lie (orders/orderWrites.ts orderKind, replaced for these runs only), and the same checks must flag
 * what it then does. A suite whose checks could not fail would pass these runs.
 */
describe('the checks catch a doubled or misreported write (the lookup made to lie)', () => {
	let sb: Sandbox;
	const noRandomFaults = {
		http5xx: 0,
		dropBefore: 0,
		dropAfter: 0,
		http5xxAfter: 0,
		unknownBefore: 0,
		unknownAfter: 0,
		batchReorder: 0,
		redirect: 0,
		malformed: 0,
		dripFeed: 0,
	};

	beforeAll(async () => {
		sb = await startSandbox({ rateLimit: false, symbolRules: 'lenient' });
	});

	afterEach(() => {
		jest.restoreAllMocks();
	});

	afterAll(async () => {
		await sb?.stop();
	});

	/** Order lookups answer `lie` (and orders without an ID may be looked up too). */
	function lookupsLie(lie: (itemIndex: number, looked: number) => Verdict) {
		const real = orders.orderKind;
		let looked = 0;
		jest.spyOn(orders, 'orderKind').mockImplementation((run, sending) => ({
			...real(run, sending),
			// Every lookup is the lie, one by one: none from the order lists.
			lookupMany: undefined,
			whyNoLookup: () => undefined,
			lookup: async (pending) => lie(pending.itemIndex, looked++),
		}));
	}

	const base = {
		typeVersion: 2 as const,
		parallelRequests: 20,
		items: 10,
		refusedShare: 0,
		faultsByWrite: true,
		retryOnFail: false,
	};

	it('an order sent again after its answer was lost: "committed more than intended"', async () => {
		// Not found (a lie: it was placed), so the engine sends it once more.
		lookupsLie(() => ({ kind: 'notDone' }));
		const run = await matrixRun(sb, {
			...base,
			kind: 'createPlain',
			continueOnFail: true,
			seed: 1,
			name: 'lie-doubled',
			forced: { kind: 'dropAfter', times: 1 },
			random: noRandomFaults,
		});
		const doubled = run.verdicts.filter((verdict) => violationOf(verdict) === 'committedTwice');
		expect(doubled.map((verdict) => verdict.committed)).toEqual([2]);
	});

	it('an order reported placed that the exchange never got: "placed but not placed", with and without Continue On Fail', async () => {
		// Found (a lie: the request was dropped before it was applied).
		const lie = (): Verdict => ({
			kind: 'placed',
			result: { orderId: 'no-such-order', status: 'NEW' } as IDataObject,
		});
		lookupsLie(lie);
		const reported = await matrixRun(sb, {
			...base,
			kind: 'createGenerated',
			continueOnFail: true,
			seed: 2,
			name: 'lie-placed',
			forced: { kind: 'dropBefore', times: 1 },
			random: noRandomFaults,
		});
		expect(
			reported.verdicts.filter((verdict) => violationOf(verdict) === 'placedNotPlaced').length,
		).toBe(1);

		// Without Continue On Fail: the first item looked up is found (the lie), the others' lookups
		// fail and stop the run; its report lists the lied-about item placed.
		jest.restoreAllMocks();
		lookupsLie((_itemIndex, looked) =>
			looked === 0 ? lie() : { kind: 'unknown', reason: 'the lookup could not tell' },
		);
		const stopped = await matrixRun(sb, {
			...base,
			kind: 'createGenerated',
			continueOnFail: false,
			seed: 3,
			name: 'lie-listed',
			random: { ...noRandomFaults, dropBefore: 0.4 },
		});
		expect(stopped.error).toBeDefined();
		const wrong = stopped.verdicts.map((verdict) => reportViolationOf(stopped, verdict));
		expect(wrong.filter((violation) => violation === 'listedPlacedNotCommitted')).toEqual([
			'listedPlacedNotCommitted',
		]);
	});
});
