/**
 * Cancel Many under faults (money safety 3a, cases b, c, e): by symbol (5 to 250 open orders of
 * BTCUSDT, some partly filled, beside ETHUSDT orders that must stay open) and by order IDs (open
 * orders, orders filled or cancelled before, an ID the exchange does not know). The cancel is
 * partly done and then refused (429 after the first request, or from the first), or its outcome
 * is unknown (a lost answer, 5xx after the cancel, -1147 after it, HTTP 200 carrying an error code,
 * failure entries naming their order under another key), at a seeded request, with seeded random
 * faults on the cancels, the lookups and the lists; cancels applied late (PENDING_CANCEL) in a
 * third of the runs; Retry On Fail and Continue On Fail on and off.
 *
 * The ledger is the oracle, read once late cancels had time to apply. Per order: reported placed
 * ⇒ it is not open at the end; reported rejected ⇒ this run did not cancel it (or the reason says
 * it was already filled or cancelled); no order cancelled twice; every order open at the start
 * (by symbol) or named (by IDs) gets exactly one item; no other symbol's order is cancelled.
 */
import { DEFAULT_RETRY_POLICY } from '../../nodes/TradingService/transport';
import { runTradingService } from '../../tools/harness/node';
import { DEMO_KEYS, type FaultRule, type Sandbox } from '../../sandbox';
import { TestClient } from '../../sandbox/testClient';
import { placeRestingOrders } from '../support/orders';
import { countBy, runInLanes, sleep } from './lanes';
import { Rng } from './lib';
import { reportOf, type Reported } from './matrix';

jest.setTimeout(600_000);

const BY_IDS = '/api/v1/spot/cancelOrderByIds';
const OPEN = '/api/v1/spot/openOrders';
const ORDER = '/api/v1/spot/order';
const PAST = '/api/v1/spot/tradeOrders';
const UNKNOWN_ID = '1234567890123456789';
const LANES = 10;
const ROUNDS = Number(process.env.FAULT_CANCEL_MANY_ROUNDS ?? 3);
const OPEN_STATUSES = ['NEW', 'PARTIALLY_FILLED', 'PENDING_CANCEL'];
const CANCELLED_STATUSES = ['CANCELED', 'PARTIALLY_CANCELED'];
const ALREADY_REASONS = ['alreadyFilled', 'alreadyCancelled', 'alreadyPartiallyCancelled'];

const FORCED = [
	'rateLimitAfterFirst',
	'rateLimitFirst',
	'dropAfter',
	'http500After',
	'http502After',
	'http503After',
	'unknownAfter',
	'answer200Code',
	'cancelByIdsOtherKey',
	'unknownBefore',
	'dropBefore',
	'http503',
	'lookupsOrListsFail',
] as const;
type Forced = (typeof FORCED)[number];

interface Cell {
	mode: 'symbol' | 'ids';
	forced: Forced;
	retryOnFail: boolean;
	seed: number;
}

type Violation =
	| 'cancelledTwice'
	| 'placedButOpen'
	| 'rejectedButCancelled'
	| 'notOneItem'
	| 'otherSymbolCancelled';

interface OrderVerdict {
	orderId: string;
	reported: Reported | 'wholeRun';
	reason?: string;
	runCancels: number;
	finalStatus?: string;
	violation?: Violation;
	detail: string;
}

interface CancelRun {
	cell: Cell;
	name: string;
	targets: number;
	cancelApplyDelayMs: number;
	faults: string[];
	cancelRequests: number;
	/** The run's report when it is one error for the whole item (no per-order items). */
	wholeRun?: { reported: Reported; text: string };
	verdicts: OrderVerdict[];
}

/** The rules that put the forced fault on the cancel request `at` (0-based) of the run. */
function forcedRules(forced: Forced, at: number, mode: Cell['mode']): FaultRule[] {
	const skip: FaultRule[] = at > 0 ? [{ kind: 'numericIds', times: at, path: BY_IDS }] : [];
	switch (forced) {
		case 'rateLimitAfterFirst':
			return [
				{ kind: 'numericIds', times: Math.max(1, at), path: BY_IDS },
				{ kind: 'rateLimit', times: 60, path: BY_IDS, retryAfterSeconds: 0 },
			];
		case 'rateLimitFirst':
			return [{ kind: 'rateLimit', times: 60, path: BY_IDS, retryAfterSeconds: 0 }];
		case 'lookupsOrListsFail':
			// By symbol: the confirming list fails (the first list passes); by IDs: a lost answer whose
			// lookups fail, the order lists it is settled from and each order's query alike.
			return mode === 'symbol'
				? [
						{ kind: 'numericIds', times: 1, path: OPEN, method: 'GET' },
						{ kind: 'http500', times: 200, path: OPEN, method: 'GET' },
					]
				: [
						...skip,
						{ kind: 'dropAfter', times: 1, path: BY_IDS },
						{ kind: 'http500', times: 2000, path: ORDER, method: 'GET' },
						{ kind: 'http500', times: 2000, path: OPEN, method: 'GET' },
						{ kind: 'http500', times: 2000, path: PAST, method: 'GET' },
					];
		default:
			return [...skip, { kind: forced, times: 1, path: BY_IDS }];
	}
}

async function cancelRun(sb: Sandbox, cell: Cell): Promise<CancelRun> {
	const rng = new Rng(cell.seed);
	const name = `cancel-${cell.seed}`;
	sb.reset();
	const cancelApplyDelayMs = rng.chance(1 / 3) ? rng.int(100, 600) : 0;
	if (cancelApplyDelayMs > 0)
		sb.setBehaviour({
			cancelApplyDelayMs,
			createAnswerStatus: 'PENDING_NEW',
			marketOrderType: 'byBase',
		});
	// Large lists (more than one cancel request) in every run whose fault needs two requests and in
	// a tenth of the others. A list whose lookups fail stays small: with the order lists failing too,
	// its IDs are looked up one by one, 20 s for 100 at the key's 5 queries a second.
	const large =
		cell.forced === 'rateLimitAfterFirst' ||
		(cell.forced !== 'lookupsOrListsFail' && rng.chance(0.1));
	const openCount = large ? rng.int(101, 150) : rng.int(5, 20);
	const open = await placeRestingOrders(sb, openCount);
	const others = await placeRestingOrders(sb, 2, { symbol: 'ETHUSDT' });
	// Some orders partly filled (still open), and for Cancel By IDs some no longer open.
	for (const orderId of open) if (rng.chance(0.1)) sb.fillOrder(orderId, '0.0005');
	let ids: string[] = [];
	if (cell.mode === 'ids') {
		const [filled, cancelled] = await placeRestingOrders(sb, 2);
		sb.fillOrder(filled);
		await new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now()).cancelOrder({
			orderId: cancelled,
		});
		if (cancelApplyDelayMs > 0) await sleep(cancelApplyDelayMs + 50);
		ids = [...open];
		for (const extra of [filled, cancelled, UNKNOWN_ID])
			ids.splice(rng.int(0, ids.length), 0, extra);
	}
	// The orders were placed a moment ago through the same key by something other than this n8n:
	// its second of order requests is over before the node, which counts only its own, starts.
	await sleep(1100);
	const targets = cell.mode === 'ids' ? ids : open;
	const cancelRequestsNeeded = Math.ceil(targets.length / 100);
	sb.setFaults({
		rules: forcedRules(cell.forced, rng.int(0, cancelRequestsNeeded - 1), cell.mode),
		random: {
			seed: cell.seed,
			http5xx: 0.04,
			dropBefore: 0.03,
			dropAfter: 0.06,
			http5xxAfter: 0.05,
			unknownAfter: 0.04,
			answer200Code: 0.04,
			cancelByIdsOtherKey: 0.04,
			paths: [BY_IDS, ORDER, OPEN],
		},
	});
	const cancelsBefore = sb.ledger.cancels.length;
	const requestsBefore = sb.ledger.requests.length;
	const continueOnFail = rng.chance(0.5);
	const run = await runTradingService(sb, {
		parameters: {
			resource: 'order',
			operation: 'cancelMany',
			cancelBy: cell.mode,
			...(cell.mode === 'ids' ? { orderIds: ids.join(',') } : { symbol: 'BTCUSDT' }),
		},
		continueOnFail,
		executionId: name,
		credentials: { recvWindow: 200 },
		node: cell.retryOnFail ? { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 } : {},
	});
	const requests = sb.ledger.requests.slice(requestsBefore);
	sb.clearFaults();
	if (cancelApplyDelayMs > 0) await sleep(cancelApplyDelayMs + 150);

	const runCancels = sb.ledger.cancels.slice(cancelsBefore);
	const error = run.error as
		| (Error & { description?: string | null; context?: Record<string, unknown> })
		| undefined;
	const perOrder = run.items.filter((item) => item.json.orderId !== undefined);
	let wholeRun: CancelRun['wholeRun'];
	if (perOrder.length === 0) {
		const json =
			run.items[0]?.json ??
			({
				outcome: error?.context?.outcome,
				error: error?.message,
				description: error?.description,
			} as Record<string, unknown>);
		const report = reportOf(json as Record<string, unknown>);
		wholeRun = {
			reported: report.claimsNothingExecuted ? 'rejected' : report.reported,
			text: report.text.trim(),
		};
	}
	const verdicts = targets.map((orderId): OrderVerdict => {
		const items = perOrder.filter((item) => String(item.json.orderId) === orderId);
		const cancels = sb.ledger.cancels.filter((entry) => entry.orderId === orderId).length;
		const byRun = runCancels.filter((entry) => entry.orderId === orderId).length;
		const finalStatus = sb.getOrder(orderId)?.status;
		const verdict: OrderVerdict = {
			orderId,
			reported: 'none',
			runCancels: byRun,
			finalStatus,
			detail: '',
		};
		if (cancels > 1) verdict.violation = 'cancelledTwice';
		if (wholeRun !== undefined) {
			// One error for the whole item: acceptable only as a refusal before anything was cancelled.
			verdict.reported = 'wholeRun';
			verdict.detail = `${wholeRun.reported}: ${wholeRun.text}`;
			if (runCancels.length > 0 || wholeRun.reported !== 'rejected')
				verdict.violation ??=
					wholeRun.reported === 'rejected' ? 'rejectedButCancelled' : 'notOneItem';
			return verdict;
		}
		if (items.length !== 1) {
			verdict.violation ??= 'notOneItem';
			verdict.detail = `${items.length} items`;
			return verdict;
		}
		const json = items[0].json as Record<string, unknown>;
		const report = reportOf(json);
		verdict.reported = report.reported;
		verdict.reason = typeof json.reason === 'string' ? json.reason : undefined;
		verdict.detail = report.text.trim();
		if (report.reported === 'missing') verdict.violation ??= 'notOneItem';
		else if (
			report.reported === 'placed' &&
			(finalStatus === undefined || !CANCELLED_STATUSES.includes(finalStatus))
		)
			verdict.violation ??= 'placedButOpen';
		else if (
			(report.reported === 'rejected' || report.claimsNothingExecuted) &&
			byRun > 0 &&
			!ALREADY_REASONS.includes(verdict.reason ?? '')
		)
			verdict.violation ??= 'rejectedButCancelled';
		return verdict;
	});
	// By symbol: every order still open at the end was reported not cancelled (or unknown).
	if (cell.mode === 'symbol') {
		for (const verdict of verdicts) {
			if (
				verdict.finalStatus !== undefined &&
				OPEN_STATUSES.includes(verdict.finalStatus) &&
				verdict.reported === 'placed'
			)
				verdict.violation ??= 'placedButOpen';
		}
		const extra = perOrder.filter((item) => !open.includes(String(item.json.orderId)));
		for (const item of extra)
			verdicts.push({
				orderId: String(item.json.orderId),
				reported: reportOf(item.json as Record<string, unknown>).reported,
				runCancels: 0,
				violation: 'notOneItem',
				detail: 'an item for an order that was not open',
			});
	}
	for (const orderId of others) {
		if (runCancels.some((entry) => entry.orderId === orderId))
			verdicts.push({
				orderId,
				reported: 'none',
				runCancels: 1,
				violation: 'otherSymbolCancelled',
				detail: 'an ETHUSDT order was cancelled',
			});
	}
	return {
		cell,
		name,
		targets: targets.length,
		cancelApplyDelayMs,
		faults: requests
			.filter((request) => request.fault !== undefined && request.fault !== 'numericIds')
			.map((request) => request.fault as string),
		cancelRequests: requests.filter((request) => request.path === BY_IDS).length,
		wholeRun,
		verdicts,
	};
}

function plan(): Cell[] {
	const cells: Cell[] = [];
	let seed = 51_000;
	for (let round = 0; round < ROUNDS; round++)
		for (const forced of FORCED)
			for (const mode of ['symbol', 'ids'] as const)
				for (const retryOnFail of [false, true])
					cells.push({ mode, forced, retryOnFail, seed: seed++ });
	return cells;
}

const runs: CancelRun[] = [];

beforeAll(async () => {
	const started = Date.now();
	const quick = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'baseDelayMs', 20);
	try {
		// The runs with large lists (over 100 orders: their lookups take 20 s and more at the key's 5
		// queries a second) first, so that no lane starts one last and keeps the others waiting; the
		// cells and their seeds are the same.
		const cells = plan();
		const longest = (cell: Cell) => cell.forced === 'rateLimitAfterFirst';
		const byLength = [...cells.filter(longest), ...cells.filter((cell) => !longest(cell))];
		runs.push(...(await runInLanes(byLength, LANES, cancelRun)));
	} finally {
		quick.restore();
	}
	const verdicts = runs.flatMap((run) => run.verdicts);
	console.log(
		[
			`Cancel Many under faults: ${runs.length} runs (${runs.filter((run) => run.faults.length > 0).length} faulted), ${verdicts.length} orders checked, ${runs.reduce((sum, run) => sum + run.cancelRequests, 0)} cancel requests, ${((Date.now() - started) / 1000).toFixed(1)} s`,
			`runs with late cancels (PENDING_CANCEL): ${runs.filter((run) => run.cancelApplyDelayMs > 0).length}; with more than 100 orders: ${runs.filter((run) => run.targets > 100).length}`,
			`faults: ${JSON.stringify(
				countBy(
					runs.flatMap((run) => run.faults),
					(fault) => fault,
				),
			)}`,
			`outcomes: ${JSON.stringify(countBy(verdicts, (verdict) => `${verdict.reported}${verdict.reason ? `:${verdict.reason}` : ''}`))}`,
			`whole-run reports: ${JSON.stringify(
				countBy(
					runs.filter((run) => run.wholeRun),
					(run) => `${run.cell.forced}:${run.wholeRun!.reported}`,
				),
			)}`,
			`violations: ${JSON.stringify(
				countBy(
					verdicts.filter((verdict) => verdict.violation),
					(verdict) => verdict.violation!,
				),
			)}`,
		].join('\n'),
	);
});

const violations = (kind: Violation) =>
	runs.flatMap((run) =>
		run.verdicts
			.filter((verdict) => verdict.violation === kind)
			.map((verdict) => ({
				run: run.name,
				cell: run.cell,
				faults: run.faults.join(','),
				cancelApplyDelayMs: run.cancelApplyDelayMs,
				...verdict,
			})),
	);

describe('Cancel Many partly done, refused or unknown', () => {
	it('covers every forced fault by symbol and by IDs, Retry On Fail on and off, large lists and late cancels', () => {
		expect(runs).toHaveLength(FORCED.length * 2 * 2 * ROUNDS);
		const faults = new Set(runs.flatMap((run) => run.faults));
		for (const kind of [
			'rateLimit',
			'answer200Code',
			'cancelByIdsOtherKey',
			'unknownAfter',
			'dropAfter',
		])
			expect([kind, faults.has(kind)]).toEqual([kind, true]);
		expect(runs.filter((run) => run.targets > 100).length).toBeGreaterThan(10);
		expect(runs.filter((run) => run.cancelApplyDelayMs > 0).length).toBeGreaterThan(10);
		// Partly done, then refused: some orders cancelled and others reported not cancelled in one run.
		expect(
			runs.some(
				(run) =>
					run.cell.forced === 'rateLimitAfterFirst' &&
					run.verdicts.some((verdict) => verdict.reported === 'placed') &&
					run.verdicts.some((verdict) => verdict.reason === 'requestRefused'),
			),
		).toBe(true);
	});

	it('cancels no order twice, and no order of another symbol', () => {
		expect(violations('cancelledTwice')).toEqual([]);
		expect(violations('otherSymbolCancelled')).toEqual([]);
	});

	it('reports cancelled (placed) only orders that are not open at the end', () => {
		expect(violations('placedButOpen')).toEqual([]);
	});

	it('reports not cancelled (rejected) only orders this run did not cancel, or that were already filled or cancelled', () => {
		expect(violations('rejectedButCancelled')).toEqual([]);
	});

	it('gives every order open at the start (by symbol) or named (by IDs) exactly one item with an outcome', () => {
		expect(violations('notOneItem')).toEqual([]);
	});
});
