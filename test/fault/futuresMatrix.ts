/**
 * One run of the futures money-safety matrix (issue 51): a faulted node run of one futures write
 * kind (Create Order, Create Many Orders, Cancel Order, Cancel Many Orders, Close Position, Set
 * Position TP/SL, Set Leverage), and what the sandbox's futures book says of each item's report.
 * Deterministic: the seed picks the forced fault, the inputs, the sandbox's random faults and the
 * run's shape; the run resets its sandbox first. futuresMatrix.test.ts runs many and checks them.
 *
 * - Dropped answers: a fault forced on the run's first write request (drop or 5xx after the
 *   exchange applied it, unknown-outcome codes, drops and 5xx before, malformed and drip-fed
 *   answers, redirects), seeded random faults on the write path after it, sometimes failing lookups.
 * - Late answers: `createLate` (answered -1146 at once, applied 300 or 800 ms later); the book
 *   is read once every late write has landed.
 * - Retry On Fail (3 tries, no wait) and Continue On Fail, each on and off.
 * - Killed workers: the run stops on its error (its write applied, its answer lost), its process
 *   is gone with the node's context, and n8n runs the execution again (mode `retry`, the execution
 *   context carried over, not the node's): the verdict is the second run's, the book counts both.
 * - Another account with the same client order IDs: only the master user has a futures account
 *   (the sub key has none), so the twins are SPOT orders, in the master's own spot account and in
 *   the sub account, under every client order ID the run's futures writes carry (the user's known
 *   before the run, the generated ones as their request arrives). No futures lookup may answer
 *   with one, no item may carry one, and none may be cancelled.
 */
import { DEFAULT_RETRY_POLICY } from '../../nodes/TradingService/transport';
import { runTradingService, type NodeRun } from '../../tools/harness/node';
import {
	DEMO_ACCOUNTS,
	DEMO_KEYS,
	type FaultKind,
	type FaultRule,
	type LedgerRequest,
	type Sandbox,
} from '../../sandbox';
import { TestClient } from '../../sandbox/testClient';
import { MALFORMED_KINDS, REDIRECT_KINDS } from '../../sandbox/faults';
import {
	isCancelled,
	isOpen,
	mainFuturesOrders,
	positionSize,
	typeOf,
	type BookOrder,
} from './futuresLedger';
import { Rng, byInputItem, onRequestArrival, queryOf } from './lib';
import { reportOf, reportedOrderIdOf, type Reported } from './matrix';

export { DEFAULT_RETRY_POLICY };

export const FUTURES_KINDS = [
	'create',
	'createMany',
	'cancel',
	'cancelMany',
	'close',
	'tpSl',
	'leverage',
] as const;
export type FuturesKind = (typeof FUTURES_KINDS)[number];

export const FUTURES_PATHS = {
	order: '/api/v2/futures/order',
	batch: '/api/v2/futures/batchOrders',
	cancelMany: '/api/v2/futures/cancelOrders',
	tpSl: '/api/v2/futures/position/trading-stop',
	leverage: '/api/v2/futures/leverage',
} as const;

const BTC = 'BTCUSDT-PERPETUAL';
const ETH = 'ETHUSDT-PERPETUAL';
const SOL = 'SOLUSDT-PERPETUAL';

/**
 * Whether a run that met -1021 is run again (futuresMatrix.test.ts). FUTURES_MATRIX_RERUN_LATE=off
 * turns it off, to see what a -1021 refusal of a killed worker's retry is reported as.
 */
export const RERUN_SIGNED_TOO_LATE = process.env.FUTURES_MATRIX_RERUN_LATE !== 'off';

/**
 * FUTURES_MATRIX_RETRY_1021=on: a killed worker's retry meets -1021 on its first write request
 * (answered before processing, nothing applied), as a busy machine's would: what the retry reports.
 */
const RETRY_REFUSED_1021 = process.env.FUTURES_MATRIX_RETRY_1021 === 'on';

/** The path and method of a kind's write requests. */
export function writeOf(kind: FuturesKind): { path: string; method: string } {
	switch (kind) {
		case 'create':
		case 'close':
			return { path: FUTURES_PATHS.order, method: 'POST' };
		case 'createMany':
			return { path: FUTURES_PATHS.batch, method: 'POST' };
		case 'cancel':
			return { path: FUTURES_PATHS.order, method: 'DELETE' };
		case 'cancelMany':
			return { path: FUTURES_PATHS.cancelMany, method: 'DELETE' };
		case 'tpSl':
			return { path: FUTURES_PATHS.tpSl, method: 'POST' };
		case 'leverage':
			return { path: FUTURES_PATHS.leverage, method: 'POST' };
	}
}

/** Kinds whose write applied twice is a second order (the others set a state: twice is once). */
const ADDS_ORDERS = new Set<FuturesKind>(['create', 'createMany', 'close']);

/** Faults forced on a run's first write request. */
export const FUTURES_FORCED_FAULTS = [
	'dropAfter',
	'http500After',
	'http502After',
	'http503After',
	'unknownAfter',
	'unknownBefore',
	'dropBefore',
	'http500',
	'http503',
	'createLate',
	'dripFeed',
	...MALFORMED_KINDS,
	...REDIRECT_KINDS,
] as readonly FaultKind[];

/** Faults after which the write was applied although its answer was lost or garbled. */
const AFTER_COMMIT = new Set<string>([
	'dropAfter',
	'http500After',
	'http502After',
	'http503After',
	'unknownAfter',
	'dripFeed',
	...MALFORMED_KINDS,
]);

export interface FuturesCell {
	kind: FuturesKind;
	retryOnFail: boolean;
	continueOnFail: boolean;
	/** A killed worker: the first run stops on its error, n8n runs the execution again. */
	killed: boolean;
	seed: number;
}

export type FuturesViolation =
	| 'committedTwice'
	| 'placedNotPlaced'
	| 'rejectedButPlaced'
	| 'noOutcome'
	| 'otherAccount';

/** One item of one run: what the book holds for it and what the node said. */
export interface FuturesVerdict {
	run: string;
	kind: FuturesKind;
	itemIndex: number;
	/** Writes of this item the exchange applied: orders placed, or 1 when the state it sets holds. */
	committed: number;
	/** For the kinds that add orders: more orders than intended (TP/SL children included). */
	doubled: boolean;
	reported: Reported;
	reportedOrderId?: string;
	ledgerOrderId?: string;
	/** The item names a twin (a spot order of another account) or an account not the futures one. */
	otherAccount: boolean;
	faultAfterCommit: boolean;
	detail: string;
}

export interface FuturesRun {
	name: string;
	cell: FuturesCell;
	faults: string[];
	requests: LedgerRequest[];
	verdicts: FuturesVerdict[];
	twins: number;
	/** Twins cancelled or changed (must stay 0). */
	twinsTouched: number;
	reachedOtherHost: number;
	killedFirstError?: string;
}

export function violationOf(v: FuturesVerdict): FuturesViolation | undefined {
	if (v.doubled || v.committed > 1) return 'committedTwice';
	if (
		v.reported === 'placed' &&
		(v.committed !== 1 ||
			(v.reportedOrderId !== undefined &&
				v.ledgerOrderId !== undefined &&
				v.reportedOrderId !== v.ledgerOrderId))
	)
		return 'placedNotPlaced';
	if (v.reported === 'rejected' && v.committed > 0) return 'rejectedButPlaced';
	if (v.reported === 'missing') return 'noOutcome';
	if (v.otherAccount) return 'otherAccount';
	return undefined;
}

const picked = (value: string) => ({ __rl: true, mode: 'id', value });

/** What a run is made of: the node's parameters, its items and what each item intends. */
interface Shape {
	parameters: Record<string, unknown>;
	inputs: Array<Record<string, string>>;
	/** The client order IDs the user gave (twinned before the run). */
	userIds: string[];
	/** Reads the book after the run: the committed count and order of each item. */
	oracle: (
		sb: Sandbox,
	) => Promise<Array<{ committed: number; doubled: boolean; orderId?: string }>>;
}

function createShape(sb: Sandbox, rng: Rng, name: string, many: boolean): Shape {
	const type = rng.pick(['LIMIT', 'MARKET']);
	const withTpSl = rng.chance(0.5);
	const userIds = rng.chance(0.5);
	const count = rng.int(many ? 2 : 1, many ? 3 : 2);
	const inputs = Array.from({ length: count }, (_, index) => {
		// Never the first: every run sends a write (the forced fault's target).
		const refused = !many && index > 0 && rng.chance(0.3);
		const quantity = refused ? '99999' : `0.0${index + 1}${rng.int(1, 9)}`;
		const input: Record<string, string> = { symbol: BTC, side: 'BUY', type, quantity };
		if (type === 'LIMIT') input.price = '30000';
		if (userIds) input.clientOrderId = `${name}-${index}`;
		if (withTpSl) {
			input.tp = '60000';
			input.sl = type === 'LIMIT' ? '25000' : '40000';
		}
		return input;
	});
	const parameters: Record<string, unknown> = many
		? // Items mode: each item's JSON fields are the order's.
			{ resource: 'futures', operation: 'createManyOrders', inputMode: 'items' }
		: {
				resource: 'futures',
				operation: 'createOrder',
				symbol: picked('={{ $json.symbol }}'),
				side: 'BUY',
				orderType: type,
				quantityIn: 'base',
				quantity: '={{ $json.quantity }}',
				...(type === 'LIMIT' ? { price: '={{ $json.price }}' } : {}),
				options: {
					...(userIds ? { clientOrderId: '={{ $json.clientOrderId }}' } : {}),
					...(withTpSl
						? { takeProfitPrice: '={{ $json.tp }}', stopLossPrice: '={{ $json.sl }}' }
						: {}),
				},
			};
	const itemsJson = inputs.map((input) => {
		if (!many) return input;
		const order: Record<string, string> = {
			symbol: input.symbol,
			side: 'BUY',
			type,
			baseQty: input.quantity,
		};
		if (input.price) order.price = input.price;
		if (input.clientOrderId) order.clientOrderId = input.clientOrderId;
		if (input.tp) {
			order.tpTriggerPrice = input.tp;
			order.slTriggerPrice = input.sl;
		}
		return order;
	});
	return {
		parameters,
		inputs: itemsJson,
		userIds: inputs.flatMap((input) => (input.clientOrderId ? [input.clientOrderId] : [])),
		oracle: async () =>
			inputs.map((input) => {
				const book = mainFuturesOrders(sb);
				const entries = book.filter(
					(o) => o.quantity === input.quantity && o.side === 'BUY' && !o.reduceOnly,
				);
				const children = book.filter(
					(o) => o.quantity === input.quantity && o.side === 'SELL' && o.reduceOnly,
				);
				return {
					committed: entries.length,
					doubled: entries.length > 1 || children.length > 2,
					orderId: entries[0]?.orderId,
				};
			}),
	};
}

function cancelShape(sb: Sandbox, rng: Rng, name: string): Shape {
	const by = rng.pick(['orderId', 'clientOrderId']);
	const seeded: BookOrder[] = [];
	const count = rng.int(1, 3);
	for (let index = 0; index < count; index++) {
		const order = sb.futures.placeOpenOrder({
			symbol: rng.pick([BTC, ETH]),
			side: 'BUY',
			quantity: `0.0${index + 1}`,
			price: '1000',
			clientOrderId: `${name}-c${index}`,
		});
		seeded.push({
			...(order as unknown as BookOrder),
			quantity: order.originalBaseQty,
			accountId: DEMO_ACCOUNTS.mainContract,
		});
	}
	const missing = rng.chance(0.2);
	const inputs = seeded.map((o) => ({ orderId: o.orderId, clientOrderId: o.clientOrderId }));
	if (missing) inputs.push({ orderId: '2139999999999999999', clientOrderId: `${name}-none` });
	return {
		parameters: {
			resource: 'futures',
			operation: 'cancelOrder',
			cancelBy: by,
			...(by === 'orderId'
				? { orderId: '={{ $json.orderId }}' }
				: { clientOrderId: '={{ $json.clientOrderId }}' }),
			orderType: rng.pick(['find', 'find', 'LIMIT']),
		},
		inputs,
		userIds: inputs.map((input) => input.clientOrderId),
		oracle: async () =>
			inputs.map((input) => {
				const order = mainFuturesOrders(sb).find((o) => o.orderId === input.orderId);
				return {
					committed: order && isCancelled(order) ? 1 : 0,
					doubled: false,
					orderId: order?.orderId,
				};
			}),
	};
}

function cancelManyShape(sb: Sandbox, rng: Rng, name: string): Shape {
	const count = rng.int(2, 6);
	for (let index = 0; index < count; index++)
		sb.futures.placeOpenOrder({
			// The first on BTC: every run has something in scope to cancel.
			symbol: index === 0 ? BTC : rng.pick([BTC, ETH, SOL]),
			side: 'BUY',
			quantity: rng.pick(['1', '2']),
			price: '10',
			clientOrderId: `${name}-m${index}`,
		});
	const byContract = rng.chance(0.5);
	const inScope = (o: BookOrder) => !byContract || o.symbol === BTC;
	const ids = mainFuturesOrders(sb).map((o) => o.clientOrderId);
	return {
		parameters: {
			resource: 'futures',
			operation: 'cancelManyOrders',
			cancelBy: byContract ? 'contract' : 'all',
			...(byContract ? { symbol: picked(BTC) } : {}),
		},
		inputs: [{ run: name }],
		userIds: ids,
		// One verdict for the run's item: committed 1 when nothing in scope is left open (every
		// order in scope was open before the run).
		oracle: async () => {
			const open = mainFuturesOrders(sb).filter((o) => inScope(o) && isOpen(o));
			return [{ committed: open.length === 0 ? 1 : 0, doubled: false }];
		},
	};
}

function closeShape(sb: Sandbox, rng: Rng, name: string): Shape {
	const amount = rng.pick(['all', 'base', 'base', 'percent']);
	const contracts = rng.chance(0.5) ? [BTC, ETH] : [BTC];
	const held: Record<string, string> = { [BTC]: '0.2', [ETH]: '2' };
	for (const symbol of contracts) sb.futures.fill({ symbol, side: 'BUY', quantity: held[symbol] });
	const inputs = contracts.map((symbol, index) => ({
		symbol,
		quantity: symbol === BTC ? `0.0${index + 1}${rng.int(1, 9)}` : `0.${rng.int(1, 9)}${index + 1}`,
		percent: String(rng.pick([10, 25, 50])),
		clientOrderId: `${name}-x${index}`,
	}));
	const userIds = rng.chance(0.5);
	const expected = (input: (typeof inputs)[number]) =>
		amount === 'all'
			? held[input.symbol]
			: amount === 'base'
				? input.quantity
				: String((Number(held[input.symbol]) * Number(input.percent)) / 100);
	return {
		parameters: {
			resource: 'futures',
			operation: 'closePosition',
			symbol: picked('={{ $json.symbol }}'),
			closeAmount: amount,
			...(amount === 'base' ? { quantity: '={{ $json.quantity }}' } : {}),
			...(amount === 'percent' ? { percent: '={{ $json.percent }}' } : {}),
			options: userIds ? { clientOrderId: '={{ $json.clientOrderId }}' } : {},
		},
		inputs,
		userIds: userIds ? inputs.map((input) => input.clientOrderId) : [],
		oracle: async () =>
			inputs.map((input) => {
				const closes = mainFuturesOrders(sb).filter(
					(o) =>
						o.symbol === input.symbol &&
						o.side === 'SELL' &&
						typeOf(o) !== 'STOP' &&
						o.status !== 'REJECTED',
				);
				const left = Number(positionSize(sb, input.symbol));
				const closed = Number(held[input.symbol]) - left;
				return {
					committed: closes.length,
					// Closed more than the one close intended: a second close went through.
					doubled: closed > Number(expected(input)) + 1e-12,
					orderId: closes[0]?.orderId,
				};
			}),
	};
}

/** A position's TP/SL as GET positions shows them (fields the sandbox adds for issue 51). */
function tpSlOf(sb: Sandbox, symbol: string): { tp: string; sl: string } {
	const p = sb.futures.positions().find((q) => q.symbol === symbol) as unknown as
		| Record<string, unknown>
		| undefined;
	return { tp: String(p?.takeProfit ?? ''), sl: String(p?.stopLoss ?? '') };
}

function tpSlShape(sb: Sandbox, rng: Rng): Shape {
	sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.1' });
	const inputs = [{ symbol: BTC, tp: `6${rng.int(1, 9)}000`, sl: `4${rng.int(1, 8)}000` }];
	if (rng.chance(0.3)) inputs.push({ symbol: SOL, tp: '200', sl: '100' }); // no position: refused
	return {
		parameters: {
			resource: 'futures',
			operation: 'setPositionTpSl',
			symbol: picked('={{ $json.symbol }}'),
			takeProfitPrice: '={{ $json.tp }}',
			stopLossPrice: '={{ $json.sl }}',
		},
		inputs,
		userIds: [],
		oracle: async () =>
			inputs.map((input) => {
				const now = tpSlOf(sb, input.symbol);
				return { committed: now.tp === input.tp && now.sl === input.sl ? 1 : 0, doubled: false };
			}),
	};
}

function leverageShape(sb: Sandbox, rng: Rng): Shape {
	const inputs = [{ symbol: rng.pick([BTC, ETH]), leverage: String(rng.int(2, 19)) }];
	if (rng.chance(0.2)) inputs.push({ symbol: SOL, leverage: '25' }); // above the contract's 20: refused
	// The read-only key reads the same futures account in its own request-rate window: the
	// oracle's reads never take a place of the master key's, which the node paces.
	const client = new TestClient(sb.baseUrl, DEMO_KEYS.readOnly, () => sb.now());
	const leverageOf = async (symbol: string) => {
		const res = await client.call({
			method: 'GET',
			path: '/api/v2/futures/leverage',
			query: { symbol },
		});
		const body = res.json as Array<{ leverage?: string }> | { leverage?: string };
		return String((Array.isArray(body) ? body[0] : body)?.leverage ?? '');
	};
	return {
		parameters: {
			resource: 'futures',
			operation: 'setLeverage',
			symbol: picked('={{ $json.symbol }}'),
			leverage: '={{ $json.leverage }}',
		},
		inputs,
		userIds: [],
		oracle: async () => {
			const out = [];
			for (const input of inputs)
				out.push({
					committed: (await leverageOf(input.symbol)) === input.leverage ? 1 : 0,
					doubled: false,
				});
			return out;
		},
	};
}

function shapeOf(sb: Sandbox, rng: Rng, kind: FuturesKind, name: string): Shape {
	switch (kind) {
		case 'create':
			return createShape(sb, rng, name, false);
		case 'createMany':
			return createShape(sb, rng, name, true);
		case 'cancel':
			return cancelShape(sb, rng, name);
		case 'cancelMany':
			return cancelManyShape(sb, rng, name);
		case 'close':
			return closeShape(sb, rng, name);
		case 'tpSl':
			return tpSlShape(sb, rng);
		case 'leverage':
			return leverageShape(sb, rng);
	}
}

/** Spot twins (orders of other accounts) under client order IDs: their IDs, and a check they are untouched. */
class SpotTwins {
	readonly orderIds = new Set<string>();
	private readonly byClientId = new Set<string>();

	constructor(private readonly sb: Sandbox) {}

	add(clientOrderId: string | null | undefined): void {
		if (!clientOrderId || this.byClientId.has(clientOrderId)) return;
		this.byClientId.add(clientOrderId);
		for (const key of [DEMO_KEYS.master, DEMO_KEYS.sub]) {
			const twin = this.sb.seedOpenOrder({
				key,
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'LIMIT',
				price: '100',
				quantity: '0.001',
				clientOrderId,
				time: this.sb.now(),
			});
			this.orderIds.add(twin.orderId);
		}
	}

	/** Twins no longer open (cancelled or changed by a futures write: must be none). */
	touched(): number {
		return [...this.orderIds].filter((id) => this.sb.getOrder(id)?.status !== 'NEW').length;
	}
}

/** The client order IDs a futures write request carries (query, form body or batch items). */
function clientIdsOf(request: LedgerRequest): string[] {
	const ids = [
		queryOf(request).get('clientOrderId'),
		new URLSearchParams(request.body).get('clientOrderId'),
	];
	if (request.path === FUTURES_PATHS.batch) {
		try {
			const orders = JSON.parse(request.body) as Array<Record<string, unknown>>;
			if (Array.isArray(orders))
				for (const o of orders)
					ids.push(o.clientOrderId === undefined ? null : String(o.clientOrderId));
		} catch {
			/* not JSON */
		}
	}
	return ids.filter((id): id is string => id !== null && id !== '');
}

function otherAccountIn(json: Record<string, unknown>, twins: SpotTwins): boolean {
	const order = json.order as Record<string, unknown> | null | undefined;
	const ids = [json.orderId, order?.orderId].filter((id) => id !== undefined && id !== null);
	if (ids.some((id) => twins.orderIds.has(String(id)))) return true;
	const accounts = [json.accountId, order?.accountId].filter(
		(id) => id !== undefined && id !== null && id !== '',
	);
	return accounts.some((id) => String(id) !== DEMO_ACCOUNTS.mainContract);
}

/** One run of a cell: faults set, the node run (twice for a killed worker), the book read. */
export async function futuresRun(
	sb: Sandbox,
	cell: FuturesCell,
	name: string,
): Promise<FuturesRun> {
	const rng = new Rng(cell.seed);
	sb.reset();
	sb.setBalance(DEMO_ACCOUNTS.mainTrading, 'USDT', '100000000');
	sb.setBalance(DEMO_ACCOUNTS.subTrading, 'USDT', '100000000');
	const shape = shapeOf(sb, rng, cell.kind, name);
	const write = writeOf(cell.kind);
	const twins = new SpotTwins(sb);
	const withTwins = rng.chance(0.35);
	if (withTwins) for (const id of shape.userIds) twins.add(id);

	const forcedKind = cell.killed
		? rng.pick(['dropAfter', 'http500After', 'unknownAfter'] as FaultKind[])
		: rng.pick(FUTURES_FORCED_FAULTS);
	const lateMs = rng.pick([300, 800]);
	const forced: FaultRule = {
		kind: forcedKind,
		times: 1,
		path: write.path,
		method: write.method,
		redirectStatus: rng.chance(0.5) ? 303 : 307,
		delayMs: lateMs,
	};
	const rules: FaultRule[] = [forced];
	if (rng.chance(0.06))
		rules.push({ kind: 'http500', times: 6, path: FUTURES_PATHS.order, method: 'GET' });
	sb.setFaults({
		latencyMs: rng.pick([0, 0, 5]),
		rules,
		random: {
			seed: cell.seed,
			http5xx: 0.04,
			dropBefore: 0.03,
			dropAfter: 0.08,
			http5xxAfter: 0.06,
			unknownBefore: 0.03,
			unknownAfter: 0.05,
			createLate: 0.03,
			createLateDelayMs: 300,
			malformed: 0.03,
			paths: [write.path],
		},
	});
	const undoTwins = withTwins
		? onRequestArrival(sb, (request) => {
				if (request.apiKey !== DEMO_KEYS.master.apiKey || request.path !== write.path) return;
				for (const id of clientIdsOf(request)) twins.add(id);
			})
		: () => {};

	const before = sb.ledger.requests.length;
	const node = cell.retryOnFail ? { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 } : {};
	const common = {
		parameters: shape.parameters as never,
		inputItems: shape.inputs.map((json) => ({ json })),
		executionId: name,
		credentials: { recvWindow: 200 },
	};
	let run: NodeRun;
	let killedFirstError: string | undefined;
	try {
		if (cell.killed) {
			const first = await runTradingService(sb, {
				...common,
				continueOnFail: false,
				node: { typeVersion: 2 },
			});
			killedFirstError = first.error?.message;
			if (RETRY_REFUSED_1021)
				sb.setFaults({
					rules: [{ kind: 'unknownBefore', code: '-1021', times: 1, ...write }],
				});
			// The worker's process is gone with the node context (lostRunOf carries n8n's execution
			// context, not the node's). Its pacing is kept: the lanes share one process, and forgetting
			// it would also forget the other lanes' (lanes.ts fails a run that meets the limits).
			run = await runTradingService(sb, {
				...common,
				continueOnFail: cell.continueOnFail,
				lostRunOf: first,
				mode: 'retry',
				node: { typeVersion: 2, ...node },
			});
		} else {
			run = await runTradingService(sb, {
				...common,
				continueOnFail: cell.continueOnFail,
				node: { typeVersion: 2, ...node },
			});
		}
	} finally {
		undoTwins();
	}
	const requests = sb.ledger.requests.slice(before);
	// Late writes land lateMs (or the random 300 ms) after they arrived: read the book after.
	if (requests.some((r) => r.fault === 'createLate'))
		await new Promise((r) => setTimeout(r, lateMs + 150));
	// The oracle's own reads (leverage) take no fault.
	sb.setFaults({ rules: [] });
	const facts = await shape.oracle(sb);

	const error = run.error as
		| (Error & { context?: Record<string, unknown>; description?: string })
		| undefined;
	const outputs = byInputItem(run.items);
	const writes = requests.filter((r) => r.path === write.path && r.method === write.method);
	const verdicts = facts.map((fact, itemIndex): FuturesVerdict => {
		const items = outputs.get(itemIndex) ?? [];
		let reported: Reported = 'none';
		let detail = '';
		let reportedOrderId: string | undefined;
		// Cancel Many answers one summary item per request sequence: judge them together.
		const many = cell.kind === 'cancelMany' ? run.items : items;
		if (many.length > 0) {
			const reports = many.map((item) => reportOf(item.json as Record<string, unknown>));
			reported = reports.some((r) => r.reported === 'missing')
				? 'missing'
				: reports.some((r) => r.reported === 'unknown')
					? 'unknown'
					: reports.every((r) => r.reported === 'placed')
						? 'placed'
						: reports.some((r) => r.reported === 'placed')
							? 'unknown' // partly done: judged as not-all-placed
							: 'rejected';
			if (cell.kind !== 'cancelMany' && items.length > 1) reported = 'missing';
			detail = reports.map((r) => r.text.trim()).join(' | ');
			if (reported === 'placed' && ADDS_ORDERS.has(cell.kind))
				reportedOrderId = reportedOrderIdOf(items[0].json as Record<string, unknown>);
		} else if (
			error !== undefined &&
			(error.context?.itemIndex === itemIndex || cell.kind === 'cancelMany')
		) {
			const report = reportOf({
				outcome: error.context?.outcome,
				error: error.message,
				description: error.description,
			});
			reported = report.reported;
			detail = report.text.trim();
		} else if (error !== undefined && error.context?.itemIndex === undefined) {
			reported = 'missing';
			detail = `the run failed without naming an item: ${error.message}`;
		}
		// A refused cancel of an order that was never there, or a reported "rejected" for an item whose
		// state held before the run (a leverage already set), is not a misreport of this run.
		return {
			run: name,
			kind: cell.kind,
			itemIndex,
			committed: fact.committed,
			doubled: ADDS_ORDERS.has(cell.kind) && fact.doubled,
			reported,
			reportedOrderId,
			ledgerOrderId: fact.orderId,
			otherAccount: many.some((item) =>
				otherAccountIn(item.json as Record<string, unknown>, twins),
			),
			faultAfterCommit: writes.some((r) => r.fault !== undefined && AFTER_COMMIT.has(r.fault)),
			detail,
		};
	});
	return {
		name,
		cell,
		faults: requests.filter((r) => r.fault !== undefined).map((r) => r.fault as string),
		requests,
		verdicts,
		twins: twins.orderIds.size,
		twinsTouched: twins.touched(),
		reachedOtherHost: sb.otherHost.requests.length,
		killedFirstError,
	};
}
