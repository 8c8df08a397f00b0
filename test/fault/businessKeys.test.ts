/**
 * Business keys across executions (money safety 3a, case a): execution 1 places an order with a
 * client order ID the user gave (LIMIT or MARKET), something happens in between (left open,
 * filled, cancelled through the exchange or by a Cancel node run, or execution 1 ended unknown:
 * a lost answer whose lookups failed, a drop before the order reached the exchange, an order
 * created after its -1146 answer with a lag shorter or longer than the lookups wait), then
 * execution 2 sends the same ID (Create or Create Many, the same order or another one under that
 * ID, with other orders beside it) under seeded random faults on its writes and lookups, Retry On
 * Fail on and off. In a third of the runs the exchange answers with its own statuses (PENDING_NEW,
 * MARKET_OF_BASE) and applies cancels late (PENDING_CANCEL).
 *
 * The ledger is the oracle, read once every late write had time to land: at most one order holds
 * the ID; execution 2 reports placed only if that order exists and is the one named (its own
 * fields, its order ID), alreadyPlaced only for an order that existed before it; it never reports
 * rejected or "nothing was executed" when its own attempt placed an order. Both executions run node
 * version 2, which sends the unified create endpoints.
 */
import { DEFAULT_RETRY_POLICY } from '../../nodes/TradingService/transport';
import { runTradingService } from '../../tools/harness/node';
import {
	DEMO_KEYS,
	type FaultRule,
	type LedgerOrder,
	type LedgerRequest,
	type Sandbox,
	type SandboxBehaviour,
} from '../../sandbox';
import { TestClient } from '../../sandbox/testClient';
import { countBy, runInLanes, sleep } from './lanes';
import { PATHS, Rng, byInputItem } from './lib';
import { reportOf, reportedOrderIdOf, type Reported } from './matrix';

jest.setTimeout(240_000);

const ORDER = '/api/v1/spot/order';
const OPEN = '/api/v1/spot/openOrders';
const PAST = '/api/v1/spot/tradeOrders';
const LANES = 12;
const ROUNDS = Number(process.env.FAULT_BUSINESS_KEY_ROUNDS ?? 4);
/** What execution 1's lookups wait for (receive window 200 ms + the exchange's 1 s future tolerance). */
const LOOKUP_WAIT_MS = 1200;

const BETWEEN = [
	'open',
	'filled',
	'cancelledByExchange',
	'cancelledByNode',
	'lostAnswerUnknown',
	'neverPlaced',
	'lateShort',
	'lateLong',
	'otherOrder',
] as const;
type Between = (typeof BETWEEN)[number];

interface Cell {
	between: Between;
	operation: 'create' | 'createMany';
	retryOnFail: boolean;
	seed: number;
}

type Violation =
	| 'twoOrdersOneKey'
	| 'placedNotPlaced'
	| 'alreadyPlacedButNew'
	| 'rejectedButPlaced'
	| 'noOutcome';

interface KeyVerdict {
	key: string;
	shared: boolean;
	reported: Reported;
	alreadyPlaced: boolean;
	/** Orders the ledger holds under the key, and how many execution 2 added. */
	holders: number;
	addedByExecution2: number;
	violation?: Violation;
	detail: string;
}

interface KeyRun {
	cell: Cell;
	name: string;
	type: string;
	uaeStatuses: boolean;
	firstOutcome: Reported;
	faults: string[];
	verdicts: KeyVerdict[];
}

const UAE: SandboxBehaviour = {
	marketOrderType: 'byBase',
	createAnswerStatus: 'PENDING_NEW',
	cancelApplyDelayMs: 150,
};

/**
 * Node version 2 (the unified endpoints /api/v1.1/spot/order and batchOrders): the symbol in its
 * picker, the key under Options, one request at a time (Parallel Requests 1) as in version 1, so
 * that the seeded faults hit the same requests on every run.
 */
const V2 = { typeVersion: 2 };

function orderParameters(operation: Cell['operation']) {
	return {
		resource: 'order',
		operation,
		...(operation === 'createMany' ? { inputMode: 'items' } : {}),
		symbol: { __rl: true, mode: 'id', value: '={{ $json.symbol }}' },
		side: '={{ $json.side }}',
		type: '={{ $json.type }}',
		price: '={{ $json.price }}',
		quantity: '={{ $json.quantity }}',
		options: { newClientOrderId: '={{ $json.key }}', parallelRequests: 1 },
	};
}

interface Input extends Record<string, string> {
	symbol: string;
	side: string;
	type: string;
	price: string;
	quantity: string;
	key: string;
}

/** Execution 1, then what happens in between; returns its outcome and the real ms still to wait for a late order. */
async function firstExecution(
	sb: Sandbox,
	cell: Cell,
	input: Input,
	rng: Rng,
): Promise<{ outcome: Reported; lateMs: number }> {
	const { between } = cell;
	let lateMs = 0;
	const rules: FaultRule[] = [];
	if (between === 'lostAnswerUnknown') {
		rules.push({
			kind: rng.pick(['dropAfter', 'http502After', 'unknownAfter'] as const),
			times: 1,
			path: PATHS.unifiedOrder,
		});
		// The business-key check before the order is sent passes (the first lookup); every later lookup fails.
		rules.push({ kind: 'numericIds', times: 1, path: ORDER, method: 'GET' });
		rules.push({ kind: 'http500', times: 40, path: ORDER, method: 'GET' });
	} else if (between === 'neverPlaced') {
		rules.push({
			kind: rng.pick(['dropBefore', 'http503', 'unknownBefore'] as const),
			times: 1,
			path: PATHS.unifiedOrder,
		});
	} else if (between === 'lateShort' || between === 'lateLong') {
		lateMs =
			between === 'lateShort'
				? rng.int(200, LOOKUP_WAIT_MS - 400)
				: rng.int(LOOKUP_WAIT_MS + 500, LOOKUP_WAIT_MS + 1500);
		rules.push({ kind: 'createLate', times: 1, path: PATHS.unifiedOrder, delayMs: lateMs });
	}
	sb.setFaults({ rules });
	const started = Date.now();
	const run = await runTradingService(sb, {
		parameters: orderParameters('create'),
		inputItems: [{ json: input }],
		continueOnFail: true,
		executionId: `${input.key}-1`,
		credentials: { recvWindow: 200 },
		node: V2,
	});
	sb.clearFaults();
	const outcome = reportOf((run.items[0]?.json ?? {}) as Record<string, unknown>).reported;
	const placed = sb.ledger.orders.find((order) => order.clientOrderId === input.key);
	if (
		placed !== undefined &&
		input.type === 'LIMIT' &&
		sb.getOrder(placed.orderId)?.status === 'NEW'
	) {
		if (between === 'filled')
			sb.fillOrder(
				placed.orderId,
				rng.chance(0.5) ? undefined : String(Number(input.quantity) / 2),
			);
		if (between === 'cancelledByExchange') {
			const client = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
			await client.cancelOrder({ orderId: placed.orderId });
		}
		if (between === 'cancelledByNode') {
			await runTradingService(sb, {
				parameters: { resource: 'order', operation: 'cancel', orderId: placed.orderId },
				executionId: `${input.key}-cancel`,
			});
		}
	}
	// The late order lands `lateMs` after its request reached the exchange, which may be well after
	// the execution started (its lookups go first, at the key's query rate).
	const late = sb.ledger.requests.find((request) => request.fault === 'createLate');
	const landsAt = late === undefined ? started : late.at + lateMs;
	return { outcome, lateMs: Math.max(0, landsAt - Date.now()) };
}

/**
 * Waits until the sandbox has processed every late request of `requests`: a timer on a loaded
 * machine may fire well after its delay, and an order landing after the count was taken would be
 * counted as the next execution's.
 */
async function lateRequestsApplied(requests: LedgerRequest[]): Promise<void> {
	const late = requests.filter((request) => request.fault === 'createLate');
	const until = Date.now() + 30_000;
	while (late.some((request) => request.appliedStatus === undefined) && Date.now() < until)
		await sleep(50);
}

async function keyRun(sb: Sandbox, cell: Cell): Promise<KeyRun> {
	const rng = new Rng(cell.seed);
	sb.reset();
	const uaeStatuses = rng.chance(1 / 3);
	if (uaeStatuses) sb.setBehaviour(UAE);
	const name = `key-${cell.seed}`;
	const needsRestingOrder = ['open', 'cancelledByExchange', 'cancelledByNode'].includes(
		cell.between,
	);
	const type = needsRestingOrder ? 'LIMIT' : rng.pick(['LIMIT', 'MARKET']);
	const side = rng.pick(['BUY', 'SELL']);
	const symbol = 'ETHUSDT';
	const limitPrice = side === 'BUY' ? '100' : '90000';
	const first: Input = {
		symbol,
		side,
		type,
		price: type === 'LIMIT' ? limitPrice : '',
		quantity: `0.0${rng.int(1, 9)}${rng.int(1, 9)}`,
		key: `${name}-row`,
	};
	const { outcome: firstOutcome, lateMs } = await firstExecution(sb, cell, first, rng);
	// A late order lands before execution 2 starts (the user runs the workflow again later).
	if (lateMs > 0) await sleep(lateMs + 150);
	await lateRequestsApplied(sb.ledger.requests);
	if (uaeStatuses) await sleep(200); // a cancel applied late has landed too

	// Execution 2: the same ID, the same order (or another one under it), beside orders of their own.
	const shared: Input =
		cell.between === 'otherOrder'
			? { ...first, quantity: `0.1${rng.int(1, 9)}${rng.int(1, 9)}` }
			: { ...first };
	const extras = Array.from(
		{ length: cell.operation === 'createMany' ? rng.int(0, 5) : rng.int(0, 2) },
		(_, index): Input => {
			const extraType = rng.pick(['LIMIT', 'MARKET']);
			const extraSide = rng.pick(['BUY', 'SELL']);
			return {
				symbol,
				side: extraSide,
				type: extraType,
				price: extraType === 'LIMIT' ? (extraSide === 'BUY' ? '100' : '90000') : '',
				quantity: `0.2${index}${rng.int(1, 9)}`,
				key: `${name}-extra-${index}`,
			};
		},
	);
	const inputs = [...extras.slice(0, 1), shared, ...extras.slice(1)];
	const writePath = cell.operation === 'create' ? PATHS.unifiedOrder : PATHS.unifiedBatch;
	const lookupRule = rng.pick([
		undefined,
		{ kind: 'http500', times: 1 },
		{ kind: 'dropBefore', times: 1 },
		{ kind: 'http503', times: 40 },
	] as const);
	const lookupPath = rng.pick([ORDER, OPEN, PAST]);
	const createLateMs = rng.int(200, 700);
	sb.setFaults({
		rules: [
			...(lookupRule === undefined ? [] : [{ ...lookupRule, path: lookupPath, method: 'GET' }]),
		],
		random: {
			seed: cell.seed,
			http5xx: 0.06,
			dropBefore: 0.04,
			dropAfter: 0.1,
			http5xxAfter: 0.08,
			unknownBefore: 0.04,
			unknownAfter: 0.06,
			createLate: 0.05,
			createLateDelayMs: createLateMs,
			paths: [writePath, ORDER, OPEN, PAST],
		},
	});
	const ordersBefore = sb.ledger.orders.length;
	const requestsBefore = sb.ledger.requests.length;
	const run = await runTradingService(sb, {
		parameters: orderParameters(cell.operation),
		inputItems: inputs.map((json) => ({ json })),
		continueOnFail: rng.chance(0.5),
		executionId: `${name}-2`,
		credentials: { recvWindow: 200 },
		node: cell.retryOnFail ? { ...V2, retryOnFail: true, maxTries: 3, waitBetweenTries: 0 } : V2,
	});
	const requests = sb.ledger.requests.slice(requestsBefore);
	if (requests.some((request) => request.fault === 'createLate')) await sleep(createLateMs + 200);
	await lateRequestsApplied(requests);
	sb.clearFaults();

	const error = run.error as
		| (Error & { description?: string | null; context?: Record<string, unknown> })
		| undefined;
	const outputs = byInputItem(run.items);
	const verdicts = inputs.map((input, itemIndex): KeyVerdict => {
		const holders = sb.ledger.orders.filter((order) => order.clientOrderId === input.key);
		const added = sb.ledger.orders
			.slice(ordersBefore)
			.filter((order) => order.clientOrderId === input.key);
		let reported: Reported = 'none';
		let claimsNothingExecuted = false;
		let alreadyPlaced = false;
		let reportedOrderId: string | undefined;
		let detail = '';
		const items = outputs.get(itemIndex) ?? [];
		if (items.length > 0) {
			const json = items[0].json as Record<string, unknown>;
			const report = reportOf(json);
			reported = items.length === 1 ? report.reported : 'missing';
			claimsNothingExecuted = report.claimsNothingExecuted;
			alreadyPlaced = json.alreadyPlaced === true;
			reportedOrderId = report.reported === 'placed' ? reportedOrderIdOf(json) : undefined;
			detail = report.text.trim();
		} else if (error !== undefined && error.context?.itemIndex === itemIndex) {
			const report = reportOf({
				outcome: error.context?.outcome,
				error: error.message,
				description: error.description,
			});
			reported = report.reported;
			claimsNothingExecuted = report.claimsNothingExecuted;
			detail = report.text.trim();
		} else if (error !== undefined && error.context?.itemIndex === undefined) {
			reported = 'missing';
			detail = `the run failed without naming an item: ${error.message}`;
		}
		const named: LedgerOrder | undefined = holders.find(
			(order) => reportedOrderId === undefined || order.orderId === reportedOrderId,
		);
		const isTheOrderMeant = (order: LedgerOrder | undefined) =>
			order !== undefined &&
			order.side === input.side &&
			Number(order.origQty) === Number(input.quantity);
		let violation: Violation | undefined;
		if (holders.length > 1) violation = 'twoOrdersOneKey';
		else if (reported === 'placed' && (holders.length !== 1 || !isTheOrderMeant(named)))
			violation = 'placedNotPlaced';
		else if (reported === 'placed' && alreadyPlaced && added.length > 0)
			violation = 'alreadyPlacedButNew';
		else if ((reported === 'rejected' || claimsNothingExecuted) && added.length > 0)
			violation = 'rejectedButPlaced';
		else if (reported === 'missing') violation = 'noOutcome';
		return {
			key: input.key,
			shared: input === shared,
			reported,
			alreadyPlaced,
			holders: holders.length,
			addedByExecution2: added.length,
			violation,
			detail,
		};
	});
	return {
		cell,
		name,
		type,
		uaeStatuses,
		firstOutcome,
		faults: requests
			.filter((request) => request.fault !== undefined)
			.map((request) => request.fault as string),
		verdicts,
	};
}

function plan(): Cell[] {
	const cells: Cell[] = [];
	let seed = 41_000;
	for (let round = 0; round < ROUNDS; round++)
		for (const between of BETWEEN)
			for (const operation of ['create', 'createMany'] as const)
				for (const retryOnFail of [false, true])
					cells.push({ between, operation, retryOnFail, seed: seed++ });
	return cells;
}

const runs: KeyRun[] = [];

beforeAll(async () => {
	const started = Date.now();
	const quick = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'baseDelayMs', 20);
	try {
		runs.push(...(await runInLanes(plan(), LANES, keyRun)));
	} finally {
		quick.restore();
	}
	const verdicts = runs.flatMap((run) => run.verdicts);
	const sharedOf = (run: KeyRun) => run.verdicts.find((verdict) => verdict.shared)!;
	const table = countBy(
		runs,
		(run) =>
			`${run.cell.between} (${run.type}, execution 1 ${run.firstOutcome}) -> ${sharedOf(run).reported}${sharedOf(run).alreadyPlaced ? '+alreadyPlaced' : ''}`,
	);
	console.log(
		[
			`business keys across executions: ${runs.length} runs (${runs.filter((run) => run.faults.length > 0).length} faulted in execution 2), ${verdicts.length} orders checked, ${((Date.now() - started) / 1000).toFixed(1)} s`,
			`faults in execution 2: ${JSON.stringify(
				countBy(
					runs.flatMap((run) => run.faults),
					(fault) => fault,
				),
			)}`,
			`violations: ${JSON.stringify(
				countBy(
					verdicts.filter((verdict) => verdict.violation),
					(verdict) => verdict.violation!,
				),
			)}`,
			`exchange statuses (PENDING_NEW, MARKET_OF_BASE, PENDING_CANCEL): ${runs.filter((run) => run.uaeStatuses).length} runs`,
			'the shared key, by what happened in between -> what execution 2 reported:',
			...Object.entries(table)
				.sort()
				.map(([cell, count]) => `  ${cell}: ${count}`),
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
				...verdict,
			})),
	);

describe('a business key shared by two executions, under faults', () => {
	it('covers every in-between, both operations, Retry On Fail on and off, with faults in most second executions', () => {
		expect(runs).toHaveLength(BETWEEN.length * 2 * 2 * ROUNDS);
		expect(runs.filter((run) => run.faults.length > 0).length).toBeGreaterThanOrEqual(
			runs.length / 2,
		);
		const shared = runs.map((run) => ({
			run,
			verdict: run.verdicts.find((verdict) => verdict.shared)!,
		}));
		// The check finds the order of execution 1 and sends nothing, in every state it may be in.
		for (const between of [
			'open',
			'filled',
			'cancelledByExchange',
			'cancelledByNode',
			'lateLong',
		] as const)
			expect([
				between,
				shared.some(
					({ run, verdict }) =>
						run.cell.between === between &&
						verdict.alreadyPlaced &&
						verdict.addedByExecution2 === 0,
				),
			]).toEqual([between, true]);
		// Another order under a taken ID is refused; a failed check refuses too.
		expect(
			shared.some(
				({ run, verdict }) => run.cell.between === 'otherOrder' && verdict.reported === 'rejected',
			),
		).toBe(true);
		expect(runs.some((run) => run.uaeStatuses)).toBe(true);
	});

	it('never two orders under one client order ID', () => {
		expect(violations('twoOrdersOneKey')).toEqual([]);
	});

	it('reports placed only when the order exists under the key and is the order named', () => {
		expect(violations('placedNotPlaced')).toEqual([]);
	});

	it('reports alreadyPlaced only for an order that existed before the execution', () => {
		expect(violations('alreadyPlacedButNew')).toEqual([]);
	});

	it('never reports rejected or "nothing was executed" when its own attempt placed an order', () => {
		expect(violations('rejectedButPlaced')).toEqual([]);
	});

	it('every order reported on carries one outcome', () => {
		expect(violations('noOutcome')).toEqual([]);
	});
});
