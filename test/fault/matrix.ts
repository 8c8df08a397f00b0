/**
 * One run of the money-safety matrix (docs/safety.md): a faulted node run of one write kind, and
 * what the sandbox's ledger says of each item's report. Deterministic: the seed picks the forced
 * fault, the inputs and the sandbox's random faults; the run resets its sandbox first.
 * moneySafety.ts runs many of them and checks the verdicts.
 */
import { runTradingService, type NodeRun } from '../../tools/harness/node';
import {
	DEMO_ACCOUNTS,
	DEMO_KEYS,
	type FaultKind,
	type FaultPlan,
	type FaultRule,
	type LedgerRequest,
	type Sandbox,
	type SandboxBehaviour,
} from '../../sandbox';
import { MALFORMED_KINDS, REDIRECT_KINDS } from '../../sandbox/faults';
import { PATHS, Rng, byInputItem, drawFaultsByWrite, onRequestArrival, queryOf } from './lib';

/**
 * The write kinds of the money-safety matrix: transfers and orders (Create, Create Many) with the
 * node's generated client order IDs, with the user's own, and with none.
 */
export const WRITE_KINDS = [
	'transfer',
	'createGenerated',
	'createUserId',
	'createPlain',
	'createManyGenerated',
	'createManyUserId',
	'createManyPlain',
] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];

/** Faults forced on a run's first write request: each leaves the write's outcome unknown to the client, or scrambles a batch. */
export const FORCED_FAULTS = [
	'dropAfter',
	'http500After',
	'http502After',
	'http503After',
	'unknownAfter',
	'unknownBefore',
	'dropBefore',
	'http500',
	'http503',
	// answers that must not become results (redirects not followed, malformed or
	// drip-fed answers to a write that was applied)
	...REDIRECT_KINDS,
	'dripFeed',
	...MALFORMED_KINDS,
] as readonly FaultKind[];

export type Reported = 'placed' | 'rejected' | 'unknown' | 'none' | 'missing';

/** One intended write (one input item) of one run, with what the ledger holds and what the node said. */
export interface WriteVerdict {
	run: string;
	kind: WriteKind;
	retryOnFail: boolean;
	continueOnFail: boolean;
	itemIndex: number;
	/** Writes of this item the sandbox committed (ledger transfers / orders). */
	committed: number;
	reported: Reported;
	/** The report's text says nothing was executed. */
	claimsNothingExecuted: boolean;
	/** For an order reported placed: the order ID the report names, if any. */
	reportedOrderId?: string;
	/** The ledger's order ID for this item, if it committed one. */
	ledgerOrderId?: string;
	/** A fault hit a write request of this item that the sandbox applied (committed, answer lost or garbled). */
	faultAfterCommit: boolean;
	/** The report comes from a re-run of the node (n8n's Retry On Fail): a replayed result or the ledger's refusal. */
	fromRerun: boolean;
	/** The lists of the stopping error's run report that name this item (none without a report). */
	listed: RunReportList[];
	detail: string;
	/**
	 * The item carries another account's order: the order ID it reports is one of the sub account's
	 * (a twin's), or it says its order is of another account than the key's own trading account.
	 */
	otherAccountsOrder?: boolean;
	/**
	 * Whether any request of the run was faulted; set by the runs that allow "unknown" only with a
	 * fault (sub-account twins, the cancel kinds): unset, "unknown" is never judged.
	 */
	runFaulted?: boolean;
}

/** The lists of a stopping error's run report (`context.runReport`, writes/outcomes.ts). */
export const RUN_REPORT_LISTS = ['placed', 'unknown', 'nothingExecuted'] as const;
export type RunReportList = (typeof RUN_REPORT_LISTS)[number];
export type RunReportItems = Record<RunReportList, number[]>;

/** Item numbers from a run report's ranges ("0–2, 5" → 0, 1, 2, 5); throws on anything else. */
export function itemsOfRanges(ranges: unknown): number[] {
	if (ranges === '') return [];
	if (typeof ranges !== 'string') throw new Error(`run report ranges ${String(ranges)}`);
	return ranges.split(', ').flatMap((part) => {
		const match = /^(\d+)(?:–(\d+))?$/.exec(part);
		if (match === null) throw new Error(`run report range "${part}" in "${ranges}"`);
		const first = Number(match[1]);
		const last = Number(match[2] ?? match[1]);
		return Array.from({ length: last - first + 1 }, (_, offset) => first + offset);
	});
}

export interface MatrixRun {
	name: string;
	kind: WriteKind;
	retryOnFail: boolean;
	continueOnFail: boolean;
	faults: string[];
	/** Write requests sent (all tries of the node). */
	writeRequests: number;
	/** Every request of the run, for a reproduction. */
	requests: LedgerRequest[];
	inputs: Array<Record<string, string>>;
	verdicts: WriteVerdict[];
	/** Requests that reached the other host of a redirect (the API key must never go there). */
	reachedOtherHost: number;
	/** The error that stopped the run (Continue On Fail off), if any. */
	error?: Error & { description?: string | null; context?: Record<string, unknown> };
	/** The items the stopping error's run report lists, if it has one. */
	runReport?: RunReportItems;
	/** The node's run, when the options asked to keep it. */
	nodeRun?: NodeRun;
	/** Orders the sub account held as twins of the main account's (option `twins`). */
	twinOrders?: number;
}

const ORDER_QUERY_PATH = '/api/v1/spot/order';
/** The order lists many unknown orders are settled from (orders/listLookups.ts). */
const LIST_PATHS = new Set(['/api/v1/spot/openOrders', '/api/v1/spot/tradeOrders']);
/** Faults after which the write was applied (committed) although its answer was lost or garbled. */
const FAULTS_AFTER_COMMIT = new Set<string>([
	'dropAfter',
	'http500After',
	'http502After',
	'http503After',
	'unknownAfter',
	'dripFeed',
	...MALFORMED_KINDS,
]);

/** A version 2 picker holding `value` (typed By ID, or an expression). */
const picked = (value: string) => ({ __rl: true, mode: 'id', value });

export function parametersFor(
	kind: WriteKind,
	runName: string,
	typeVersion: 1 | 2 = 1,
	parallelRequests?: number,
): Record<string, unknown> {
	const v2 = typeVersion === 2;
	if (kind === 'transfer') {
		return {
			resource: 'account',
			operation: 'transferAsset',
			fromAccountId: v2 ? picked('={{ $json.from }}') : '={{ $json.from }}',
			toAccountId: v2 ? picked('={{ $json.to }}') : '={{ $json.to }}',
			coin: v2 ? picked('USDT') : 'USDT',
			quantity: '={{ $json.quantity }}',
		};
	}
	const many = kind.startsWith('createMany');
	const order: Record<string, unknown> = {
		resource: 'order',
		operation: many ? 'createMany' : 'create',
		...(many ? { inputMode: 'items' } : {}),
		symbol: v2 ? picked('={{ $json.symbol }}') : '={{ $json.symbol }}',
		side: '={{ $json.side }}',
		type: '={{ $json.type }}',
		price: '={{ $json.price }}',
		quantity: '={{ $json.quantity }}',
	};
	// Version 2 keeps Client Order ID under Options, with Parallel Requests.
	const options: Record<string, unknown> = {};
	if (kind.endsWith('UserId')) {
		const id = `={{ "${runName}-" + $json.quantity }}`;
		if (v2) options.newClientOrderId = id;
		else order.newClientOrderId = id;
	}
	if (kind.endsWith('Plain')) options.generateClientOrderId = false;
	if (v2 && parallelRequests !== undefined) options.parallelRequests = parallelRequests;
	if (Object.keys(options).length > 0) order.options = options;
	return order;
}

/** The outcome an item or error reports, and whether its text claims nothing was executed. */
export function reportOf(json: Record<string, unknown>): {
	reported: Reported;
	claimsNothingExecuted: boolean;
	text: string;
} {
	const outcome = json.outcome;
	const text = `${String(json.error ?? '')} ${String(json.description ?? '')} ${String(json.message ?? '')}`;
	const reported: Reported =
		outcome === 'placed' || outcome === 'rejected' || outcome === 'unknown' ? outcome : 'missing';
	return { reported, claimsNothingExecuted: /nothing was executed/i.test(text), text };
}

export function reportedOrderIdOf(json: Record<string, unknown>): string | undefined {
	const order = json.order as Record<string, unknown> | null | undefined;
	const id = order?.orderId ?? json.orderId;
	return id === undefined || id === null ? undefined : String(id);
}

export interface MatrixRunOptions {
	kind: WriteKind;
	retryOnFail: boolean;
	continueOnFail: boolean;
	seed: number;
	name: string;
	/** Instead of a forced fault drawn from FORCED_FAULTS: this rule on the write path (its path is filled in). */
	forced?: FaultRule;
	/** Random fault rates added to (or replacing) the matrix's own. */
	random?: Partial<NonNullable<FaultPlan['random']>>;
	/** Answer variants of the sandbox for this run (after its reset). */
	behaviour?: SandboxBehaviour;
	/** Real milliseconds to wait after the run before the ledger is read (writes the sandbox applies late). */
	settleMs?: number;
	/** The node's version (default 1). Version 2 keeps several requests in flight (Parallel Requests). */
	typeVersion?: 1 | 2;
	/** Version 2's Parallel Requests option (default: unset, the node's own default). */
	parallelRequests?: number;
	/**
	 * The run's item count (default: 2 or 3, drawn). Their quantities are then all of one width
	 * (0.0011, 0.0021, …), so that no item's quantity is a prefix of another's in a request body.
	 */
	items?: number;
	/** Share of items bound to be refused (balance); default 0.2. */
	refusedShare?: number;
	/**
	 * Faults by write, not by arrival (lib.ts drawFaultsByWrite), for runs with requests in flight
	 * at once: the forced fault hits the first request carrying a drawn item, random faults are drawn
	 * per write and attempt, and in a run drawn to have failing lookups, every order lookup fails.
	 */
	faultsByWrite?: boolean;
	/** Keep the node's run in the result (`nodeRun`), for a retry of its execution. */
	keepNodeRun?: boolean;
	/** The credential's receive window (default 200 ms, which keeps the reconcile's waits short). */
	recvWindowMs?: number;
	/**
	 * Sub-account twins (money safety 4): every order request of the master's node to the write path
	 * makes the sub account hold an identical order under the same client order ID as it arrives,
	 * before any fault applies (a request dropped before the exchange still leaves its twin); the
	 * user's own IDs are twinned before the run. No item may carry a twin, and only the main
	 * account's orders count as committed.
	 */
	twins?: boolean;
}

/** The sub account's twins of a run: by client order ID, and their order IDs. */
export interface Twins {
	byClientOrderId: Map<string, string>;
	orderIds: Set<string>;
}

export function newTwins(): Twins {
	return { byClientOrderId: new Map(), orderIds: new Set() };
}

/** An order as a request of the node sends it: the fields a twin copies. */
export interface SentOrder {
	symbol?: string;
	side?: string;
	type?: string;
	price?: string;
	quantity?: string;
	clientOrderId?: string;
}

/**
 * Makes the sub account hold an identical order under `order`'s client order ID, unless it holds
 * one under that ID already or there is none: a LIMIT order at its price (a MARKET order's twin
 * rests far from the market: BUY at 100, SELL at 90000).
 */
export function seedTwin(sb: Sandbox, twins: Twins, order: SentOrder): void {
	const { clientOrderId, symbol, side, quantity } = order;
	if (clientOrderId === undefined || clientOrderId === '') return;
	if (twins.byClientOrderId.has(clientOrderId)) return;
	if (symbol === undefined || quantity === undefined || (side !== 'BUY' && side !== 'SELL')) return;
	const far = side === 'BUY' ? '100' : '90000';
	const price = order.type === 'LIMIT' && order.price ? order.price : far;
	const twin = sb.seedOpenOrder({
		key: DEMO_KEYS.sub,
		symbol,
		side,
		type: 'LIMIT',
		price,
		quantity,
		clientOrderId,
		time: sb.now(),
	});
	twins.byClientOrderId.set(clientOrderId, twin.orderId);
	twins.orderIds.add(twin.orderId);
}

/** The orders a request to the order write path carries (one order, or a batch's JSON array). */
export function sentOrdersOf(request: LedgerRequest): SentOrder[] {
	const fieldsOf = (get: (name: string) => unknown): SentOrder => {
		const text = (name: string) => {
			const value = get(name);
			return value === undefined || value === null ? undefined : String(value);
		};
		return {
			symbol: text('symbol'),
			side: text('side'),
			type: text('type'),
			price: text('price'),
			quantity: text('quantity'),
			clientOrderId: text('newClientOrderId') ?? text('clientOrderId'),
		};
	};
	if (request.path === PATHS.batch || request.path === PATHS.unifiedBatch) {
		try {
			const orders = JSON.parse(request.body) as unknown;
			if (!Array.isArray(orders)) return [];
			return orders.map((order) => fieldsOf((name) => (order as Record<string, unknown>)[name]));
		} catch {
			return [];
		}
	}
	const query = queryOf(request);
	const body = new URLSearchParams(request.body);
	return [fieldsOf((name) => query.get(name) ?? body.get(name) ?? undefined)];
}

/** Balances that let the sub account hold a twin of every order, even those the main account is refused. */
export function fundSubAccount(sb: Sandbox): void {
	sb.setBalance(DEMO_ACCOUNTS.subTrading, 'USDT', '100000000000000');
	sb.setBalance(DEMO_ACCOUNTS.subTrading, 'ETH', '1000000000');
	sb.setBalance(DEMO_ACCOUNTS.subTrading, 'BTC', '1000000000');
}

/**
 * Twins every order of the master key's requests to the order write paths as it arrives (see
 * MatrixRunOptions.twins). Install after drawFaultsByWrite; returns the undo.
 */
export function twinOnArrival(sb: Sandbox, twins: Twins): () => void {
	return onRequestArrival(sb, (request) => {
		if (request.method !== 'POST' || request.apiKey !== DEMO_KEYS.master.apiKey) return;
		const orderPaths: string[] = [PATHS.order, PATHS.batch, PATHS.unifiedOrder, PATHS.unifiedBatch];
		if (!orderPaths.includes(request.path)) return;
		for (const order of sentOrdersOf(request)) seedTwin(sb, twins, order);
	});
}

/** Whether an item's json carries another account's order (a twin's ID, or another account). */
export function carriesOtherAccount(json: Record<string, unknown>, twins: Twins): boolean {
	const order = json.order as Record<string, unknown> | null | undefined;
	const ids = [json.orderId, order?.orderId].filter((id) => id !== undefined && id !== null);
	if (ids.some((id) => twins.orderIds.has(String(id)))) return true;
	const accounts = [json.accountId, order?.accountId].filter(
		(id) => id !== undefined && id !== null && id !== '',
	);
	return accounts.some((id) => String(id) !== DEMO_ACCOUNTS.mainTrading);
}

/**
 * One faulted node run of the matrix: 2 or 3 items (one write each, some bound to be refused),
 * a fault forced on the first write request, seeded random faults on the write path after it,
 * sometimes failing order lookups; then each item's ledger count against its report.
 */
export async function matrixRun(sb: Sandbox, options: MatrixRunOptions): Promise<MatrixRun> {
	const { kind, retryOnFail, continueOnFail, name } = options;
	const rng = new Rng(options.seed);
	sb.reset();
	const isTransfer = kind === 'transfer';
	const isMany = kind.startsWith('createMany');
	// Version 2 sends the unified endpoints (/api/v1.1/spot/order, /api/v1.1/spot/batchOrders).
	const v2 = options.typeVersion === 2;
	const writePath = isTransfer
		? PATHS.transfer
		: isMany
			? v2
				? PATHS.unifiedBatch
				: PATHS.batch
			: v2
				? PATHS.unifiedOrder
				: PATHS.order;
	const forced = isMany && rng.chance(0.25) ? 'batchReorder' : rng.pick(FORCED_FAULTS);
	const forcedRule: FaultRule =
		options.forced !== undefined
			? { ...options.forced, path: writePath }
			: {
					kind: forced as FaultRule['kind'],
					times: 1,
					path: writePath,
					redirectStatus: rng.chance(0.5) ? 303 : 307,
				};
	const byWrite = options.faultsByWrite === true;
	const rules: FaultRule[] = byWrite ? [] : [forcedRule];
	if (options.behaviour !== undefined) sb.setBehaviour(options.behaviour);
	const lookupsFail = !isTransfer && rng.chance(0.06);
	if (lookupsFail)
		rules.push({
			kind: 'http500',
			// By write: every lookup of the run, whatever order they come in.
			times: byWrite ? Number.MAX_SAFE_INTEGER : 8,
			path: ORDER_QUERY_PATH,
			method: 'GET',
		});
	const random = {
		http5xx: 0.05,
		dropBefore: 0.03,
		dropAfter: 0.1,
		http5xxAfter: 0.1,
		unknownBefore: 0.04,
		unknownAfter: 0.08,
		batchReorder: isMany ? 0.3 : 0,
		redirect: 0.03,
		malformed: 0.05,
		dripFeed: 0.02,
		paths: [writePath],
		...options.random,
	};
	sb.setFaults(byWrite ? { rules } : { rules, random: { seed: options.seed, ...random } });

	const fixedWidth = options.items !== undefined;
	const itemCount = options.items ?? rng.int(2, 3);
	const inputs = Array.from({ length: itemCount }, (_, index): Record<string, string> => {
		// A unique quantity names the item's write in the ledger; a huge one is refused (balance).
		const refused = rng.chance(options.refusedShare ?? 0.2);
		const number = String(index + 1).padStart(3, '0');
		const quantity = fixedWidth
			? refused
				? `9999999.${number}1`
				: `0.${number}${rng.int(1, 9)}`
			: refused
				? `9999999.${index + 1}`
				: `0.0${index + 1}${rng.int(1, 9)}`;
		if (isTransfer)
			return {
				from: DEMO_ACCOUNTS.mainTrading,
				to: rng.pick([DEMO_ACCOUNTS.custody, DEMO_ACCOUNTS.subTrading]),
				quantity,
			};
		const type = rng.pick(['LIMIT', 'MARKET']);
		// LIMIT orders rest (buy far below, sell far above the last price); MARKET orders fill at once.
		const side = rng.pick(['BUY', 'SELL']);
		return {
			symbol: 'ETHUSDT',
			side,
			type,
			price: type === 'LIMIT' ? (side === 'BUY' ? '100' : '90000') : '',
			quantity,
		};
	});

	const twins = newTwins();
	if (options.twins === true) {
		fundSubAccount(sb);
		// The user's own IDs are known before the run: the sub account holds them already.
		if (kind.endsWith('UserId'))
			for (const input of inputs)
				seedTwin(sb, twins, { ...input, clientOrderId: `${name}-${input.quantity}` });
	}

	let undoFaults = () => {};
	if (byWrite) {
		const forcedQuantity = inputs[rng.int(0, itemCount - 1)].quantity;
		let forcedUsed = false;
		// A run whose lookups fail fails the order lists it settles unknown writes from as well:
		// those read once a write has left (before, the lists check business keys).
		let writeSent = false;
		let lists = 0;
		undoFaults = drawFaultsByWrite(sb, {
			seed: options.seed,
			random,
			keyOf: (request) => {
				if (request.path === writePath) {
					writeSent = true;
					return writeKeyOf(request, isMany);
				}
				if (lookupsFail && writeSent && request.method === 'GET' && LIST_PATHS.has(request.path))
					return `list ${lists++}`;
				return undefined;
			},
			forced: (key, attempt) => {
				if (key.startsWith('list '))
					return { kind: 'http500', rule: { kind: 'http500', times: 1 } };
				if (forcedUsed || attempt > 0 || !key.split(',').includes(forcedQuantity)) return;
				forcedUsed = true;
				return { kind: forcedRule.kind, rule: { ...forcedRule } };
			},
		});
	}

	if (options.twins === true) {
		const undoDraws = undoFaults;
		const undoTwins = twinOnArrival(sb, twins);
		undoFaults = () => {
			undoTwins();
			undoDraws();
		};
	}

	const before = sb.ledger.requests.length;
	let run: NodeRun;
	try {
		run = await runTradingService(sb, {
			parameters: parametersFor(kind, name, options.typeVersion, options.parallelRequests) as never,
			inputItems: inputs.map((json) => ({ json })),
			continueOnFail,
			executionId: name,
			// The reconcile waits out the receive window before it concludes "not placed": keep it short.
			credentials: { recvWindow: options.recvWindowMs ?? 200 },
			node: {
				...(options.typeVersion === 2 ? { typeVersion: 2 } : {}),
				...(retryOnFail ? { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 } : {}),
			},
		});
	} finally {
		undoFaults();
	}
	if (options.settleMs !== undefined)
		await new Promise((resolve) => setTimeout(resolve, options.settleMs));
	const requests = sb.ledger.requests.slice(before);
	const writes = requests.filter((request) => request.path === writePath);

	const error = run.error as
		| (Error & { description?: string | null; context?: Record<string, unknown> })
		| undefined;
	const errorItem = error?.context?.itemIndex;
	const runReport = runReportOf(error?.context?.runReport);
	const outputs = byInputItem(run.items);
	const verdicts = inputs.map((input, itemIndex): WriteVerdict => {
		const committedOrders = isTransfer
			? []
			: sb.ledger.orders.filter(
					// Only the main account's orders: never a sub account's (twins are seeded, never placed).
					(order) =>
						order.origQty === input.quantity && order.accountId === DEMO_ACCOUNTS.mainTrading,
				);
		const committed = isTransfer
			? sb.ledger.transfers.filter((transfer) => transfer.quantity === input.quantity).length
			: committedOrders.length;
		const itemWrites = writes.filter((request) =>
			isMany
				? request.body.includes(`"${input.quantity}"`)
				: queryOf(request).get('quantity') === input.quantity ||
					request.body.includes(`quantity=${input.quantity}`),
		);
		const faultAfterCommit = itemWrites.some(
			(request) =>
				request.fault !== undefined &&
				FAULTS_AFTER_COMMIT.has(request.fault) &&
				request.appliedStatus === 200,
		);
		let reported: Reported = 'none';
		let claimsNothingExecuted = false;
		let reportedOrderId: string | undefined;
		let detail = '';
		let fromRerun = false;
		const items = outputs.get(itemIndex) ?? [];
		const otherAccountsOrder =
			!isTransfer &&
			items.some((item) => carriesOtherAccount(item.json as Record<string, unknown>, twins));
		if (items.length > 0) {
			const report = reportOf(items[0].json as Record<string, unknown>);
			reported = items.length === 1 ? report.reported : 'missing';
			claimsNothingExecuted = report.claimsNothingExecuted;
			reportedOrderId =
				report.reported === 'placed'
					? reportedOrderIdOf(items[0].json as Record<string, unknown>)
					: undefined;
			detail = items.length === 1 ? report.text.trim() : `${items.length} items for one write`;
			fromRerun =
				items[0].json.replayed === true || /an earlier try of this node run/.test(report.text);
		} else if (error !== undefined && errorItem === itemIndex) {
			const report = reportOf({
				outcome: error.context?.outcome,
				error: error.message,
				description: error.description,
			});
			reported = report.reported;
			claimsNothingExecuted = report.claimsNothingExecuted;
			detail = report.text.trim();
			fromRerun = /an earlier try of this node run/.test(report.text);
		} else if (error !== undefined && errorItem === undefined) {
			reported = 'missing';
			detail = `the run failed without naming an item: ${error.message}`;
		}
		return {
			run: name,
			kind,
			retryOnFail,
			continueOnFail,
			itemIndex,
			committed,
			reported,
			claimsNothingExecuted,
			reportedOrderId,
			ledgerOrderId: isTransfer
				? sb.ledger.transfers.find((transfer) => transfer.quantity === input.quantity)?.id
				: committedOrders[0]?.orderId,
			faultAfterCommit,
			fromRerun,
			listed: RUN_REPORT_LISTS.filter((list) => runReport?.[list].includes(itemIndex)),
			detail,
			otherAccountsOrder,
			...(options.twins === true
				? { runFaulted: requests.some((request) => request.fault !== undefined) }
				: {}),
		};
	});
	return {
		name,
		kind,
		retryOnFail,
		continueOnFail,
		faults: requests
			.filter((request) => request.fault !== undefined)
			.map((request) => request.fault as string),
		writeRequests: writes.length,
		requests,
		inputs,
		verdicts,
		reachedOtherHost: sb.otherHost.requests.length,
		error,
		runReport,
		nodeRun: options.keepNodeRun === true ? run : undefined,
		...(options.twins === true ? { twinOrders: twins.orderIds.size } : {}),
	};
}

/** The items a stopping error's `context.runReport` lists, or undefined when it has none. */
function runReportOf(report: unknown): RunReportItems | undefined {
	if (report === undefined || report === null) return undefined;
	const ranges = report as Record<string, unknown>;
	return {
		placed: itemsOfRanges(ranges.placed),
		unknown: itemsOfRanges(ranges.unknown),
		nothingExecuted: itemsOfRanges(ranges.nothingExecuted),
	};
}

/**
 * What names the write(s) of a request to the write path, for faults by write: its quantity (one
 * order or transfer), or the quantities of a batch's orders.
 */
export function writeKeyOf(request: LedgerRequest, isMany: boolean): string | undefined {
	if (!isMany)
		return (
			queryOf(request).get('quantity') ??
			new URLSearchParams(request.body).get('quantity') ??
			undefined
		);
	try {
		const orders = JSON.parse(request.body) as Array<{ quantity?: unknown }>;
		return orders
			.map((order) => String(order.quantity))
			.sort()
			.join(',');
	} catch {
		return undefined;
	}
}

export type Violation =
	| 'committedTwice'
	| 'placedNotPlaced'
	| 'rejectedButPlaced'
	| 'noOutcome'
	| 'otherAccountsOrder'
	| 'unknownWithoutFault';

/**
 * What a verdict breaks, if anything: the three money-safety promises, an item carrying another
 * account's order (money safety 4), and, where the run judges it (runFaulted set), an outcome
 * left unknown with no fault at all.
 */
export function violationOf(verdict: Omit<WriteVerdict, 'kind'>): Violation | undefined {
	if (verdict.committed > 1) return 'committedTwice';
	if (
		verdict.reported === 'placed' &&
		(verdict.committed !== 1 ||
			(verdict.reportedOrderId !== undefined && verdict.reportedOrderId !== verdict.ledgerOrderId))
	) {
		return 'placedNotPlaced';
	}
	if ((verdict.reported === 'rejected' || verdict.claimsNothingExecuted) && verdict.committed > 0)
		return 'rejectedButPlaced';
	if (verdict.reported === 'missing') return 'noOutcome';
	if (verdict.otherAccountsOrder === true) return 'otherAccountsOrder';
	if (verdict.reported === 'unknown' && verdict.runFaulted === false) return 'unknownWithoutFault';
	return undefined;
}
