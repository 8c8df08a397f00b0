/**
 * Workflows of bench 5 (real n8n): each "way" of placing orders or reading history, as users build
 * it in the editor. Every workflow starts with a Manual Trigger and a fixed JSON input (a Set node
 * in raw JSON mode and a Split Out node, so no Code node runs before the measured part: n8n's task
 * runner would otherwise be warmed up by the input and not by the way measured). Only the
 * `measured` nodes' `executionTime` counts.
 */
import { DEMO_KEYS } from '../sandbox';

export const NODE_TYPE = 'n8n-nodes-trading-service.tradingService';
export const TRADING_CREDENTIAL = {
	id: 'benchTradingCred',
	name: 'Trading Service Sandbox (bench)',
} as const;
export const CRYPTO_CREDENTIAL = { id: 'benchCryptoCred1', name: 'HMAC secret (bench)' } as const;
export const HEADER_AUTH_CREDENTIAL = {
	id: 'benchHeaderAuth1',
	name: 'API key header (bench)',
} as const;

/** The window of the history ways; records are seeded inside it before each run. */
export interface HistoryWindow {
	startTime: number;
	endTime: number;
}

export type WayKind = 'orders' | 'history' | 'market' | 'cancel';

export interface Way {
	/** Short key: a, b, c, … (issue #15's letters). */
	key: string;
	label: string;
	kind: WayKind;
	/** Input items (orders or history calls). */
	count: number;
	/** Requests the way must send. */
	requests: number;
	/** Nodes whose executionTime is summed. */
	measured: string[];
	/** The node whose output items are checked. */
	outputNode: string;
	/** Output items expected from `outputNode`. */
	outputItems: number;
	/** Mapped expressions evaluated per item by the measured nodes. */
	expressionsPerItem: number;
	/**
	 * Whether the way sends user-given client order IDs (business keys), which the node looks up
	 * before sending (docs/safety.md); IDs the node or the chain generates are not business keys.
	 */
	businessKeys: boolean;
	workflow: BenchWorkflow;
	/** For a way that needs a node feature that may not exist yet. */
	requires?: 'autoMap';
}

export interface BenchWorkflow {
	id: string;
	name: string;
	active: boolean;
	nodes: Array<Record<string, unknown>>;
	connections: Record<
		string,
		{ main: Array<Array<{ node: string; type: string; index: number }>> }
	>;
	settings: Record<string, unknown>;
}

const ORDER = {
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	price: '100.5',
	quantity: '0.001',
} as const;
const ORDER_PATH = '/api/v1/spot/new/order';
const CANCEL_PATH = '/api/v1/spot/order';
const PRICE_PATH = '/quote/v1/ticker/price';
const MARKET_SYMBOL = 'BTCUSDT';
const HISTORY_PATH = '/api/v1/account/balanceFlow';
const BATCH_SIZE = 20;
const HISTORY_LIMIT = 50;
/**
 * The chain stamps all timestamps in its Code node, before the first request: with 1,000 orders
 * the last request leaves seconds later, past the service's recommended 5,000 ms. Users of the
 * chain have to raise it, to the UAE maximum of 8,000 ms at most (beyond it the service refuses
 * the request); the node stamps each request when it sends it.
 */
const CHAIN_RECV_WINDOW = 8_000;

/**
 * The open orders the cancel ways cancel, one per input item: seeded (Sandbox.seedOpenOrder) right
 * before every run of a cancel way, on the master key's trading account.
 */
export const CANCEL_ORDER = {
	symbol: 'BTCUSDT',
	side: 'BUY',
	price: '100.5',
	quantity: '0.001',
} as const;
export const CANCEL_COUNT = 200;

/** The business key of input row `index` (way ak), as a sheet row ID would be. */
function businessKey(index: number): string {
	return `row-${index + 2}`;
}

/**
 * The items the input nodes produce: orders (with a column that is not an order field, and with
 * `clientOrderId` only for the way that maps it: auto-mapping would pick it up), history calls,
 * market reads, or the IDs of the orders to cancel.
 */
function inputRows(
	kind: WayKind,
	count: number,
	extra: { orderIds?: readonly string[]; businessKeys?: boolean } = {},
): Array<Record<string, unknown>> {
	return Array.from({ length: count }, (_, index) =>
		kind === 'orders'
			? {
					row_number: index + 2,
					...ORDER,
					...(extra.businessKeys ? { clientOrderId: businessKey(index) } : {}),
				}
			: kind === 'market'
				? { symbol: MARKET_SYMBOL, call: index }
				: kind === 'cancel'
					? { row_number: index + 2, orderId: extra.orderIds![index] }
					: { call: index },
	);
}

function baseNodes(rows: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
	return [
		{
			id: 'trigger',
			name: 'Manual Trigger',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: 'input-json',
			name: 'Input JSON',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [200, 0],
			parameters: {
				mode: 'raw',
				jsonOutput: JSON.stringify({ rows }),
				options: {},
			},
		},
		{
			id: 'split-out',
			name: 'One Item per Row',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: [400, 0],
			parameters: { fieldToSplitOut: 'rows', options: {} },
		},
	];
}

function chainConnections(names: string[]): BenchWorkflow['connections'] {
	const all = ['Manual Trigger', 'Input JSON', 'One Item per Row', ...names];
	const connections: BenchWorkflow['connections'] = {};
	for (let index = 0; index < all.length - 1; index++) {
		connections[all[index]] = { main: [[{ node: all[index + 1], type: 'main', index: 0 }]] };
	}
	return connections;
}

function workflow(
	id: string,
	name: string,
	rows: Array<Record<string, unknown>>,
	nodes: Array<Record<string, unknown>>,
): BenchWorkflow {
	return {
		id,
		name,
		active: false,
		nodes: [
			...baseNodes(rows),
			...nodes.map((node, index) => ({ position: [600 + 200 * index, 0], ...node })),
		],
		connections: chainConnections(nodes.map((node) => String(node.name))),
		settings: { executionOrder: 'v1' },
	};
}

/** n8n workflow ids are 16 characters here (as the e2e examples'). */
function workflowId(key: string, count: number): string {
	return `bench5${key}${String(count).padStart(10 - key.length, '0')}`.slice(0, 16).padEnd(16, '0');
}

const EXPRESSION_FIELDS = ['symbol', 'side', 'type', 'price', 'quantity'] as const;

/** The order fields, those in `mapped` as expressions reading the item (`={{ $json.price }}`), the rest fixed. */
function orderParameters(mapped: readonly string[]): Record<string, unknown> {
	const fields: Record<string, unknown> = {};
	for (const field of EXPRESSION_FIELDS)
		fields[field] = mapped.includes(field) ? `={{ $json.${field} }}` : ORDER[field];
	// A picker holds its value (fixed, or an expression dragged into By ID) in a resource locator.
	if (symbolLocator) fields.symbol = { __rl: true, mode: 'id', value: fields.symbol };
	return fields;
}

/**
 * The node version the node ways use: the newest the measured build has (set by allWays), as a
 * new node in the editor gets. Version 2 keeps Parallel Requests in flight; version 1 sends one
 * request after the other.
 */
let nodeVersion = 1;
/** Whether that version's Symbol is a picker (stored as a resource locator). */
let symbolLocator = false;

function tradingNode(
	name: string,
	parameters: Record<string, unknown>,
	typeVersion = nodeVersion,
): Record<string, unknown> {
	return {
		id: 'trading-service',
		name,
		type: NODE_TYPE,
		typeVersion,
		parameters,
		credentials: { tradingServiceApi: { ...TRADING_CREDENTIAL } },
	};
}

/** The chain's Code node: builds each item's query string and timestamp (and, in way c, signs it). */
function chainCode(kind: WayKind, window: HistoryWindow, signInCode: boolean): string {
	const params =
		kind === 'orders'
			? `[
		['symbol', row.symbol], ['side', row.side], ['type', row.type], ['timeInForce', 'GTC'],
		['price', row.price], ['quantity', row.quantity], ['newClientOrderId', 'chain-' + $execution.id + '-' + index],
		['recvWindow', ${CHAIN_RECV_WINDOW}], ['timestamp', Date.now()],
	]`
			: kind === 'cancel'
				? `[
		['orderId', row.orderId], ['recvWindow', ${CHAIN_RECV_WINDOW}], ['timestamp', Date.now()],
	]`
				: `[
		['startTime', '${window.startTime}'], ['endTime', '${window.endTime}'], ['limit', '${HISTORY_LIMIT}'], ['flowType', 32],
		['recvWindow', ${CHAIN_RECV_WINDOW}], ['timestamp', Date.now()],
	]`;
	return [
		signInCode
			? `const crypto = require('crypto');\nconst secret = '${DEMO_KEYS.master.secret}';`
			: '',
		'const items = $input.all();',
		'const out = [];',
		'for (let index = 0; index < items.length; index++) {',
		'\tconst row = items[index].json;',
		`\tconst query = ${params}.map(([key, value]) => key + '=' + encodeURIComponent(String(value))).join('&');`,
		signInCode
			? "\tout.push({ json: { query, signature: crypto.createHmac('sha256', secret).update(query).digest('hex') } });"
			: '\tout.push({ json: { query } });',
		'}',
		'return out;',
	]
		.filter((line) => line !== '')
		.join('\n');
}

/** How the chain's HTTP Request sends the API key: a plain header parameter, or n8n's Header Auth credential. */
type ApiKeyIn = 'parameter' | 'credential';

/** The HTTP Request node's Batching option: `batchSize` items, then `batchInterval` ms of pause. */
export interface Batching {
	batchSize: number;
	batchInterval: number;
}

function httpOptions(batching: Batching | undefined): Record<string, unknown> {
	return batching === undefined ? {} : { batching: { batch: { ...batching } } };
}

function chainNodes(
	kind: WayKind,
	baseUrl: string,
	window: HistoryWindow,
	signInCode: boolean,
	apiKeyIn: ApiKeyIn,
	batching?: Batching,
): Array<Record<string, unknown>> {
	const path = kind === 'orders' ? ORDER_PATH : kind === 'cancel' ? CANCEL_PATH : HISTORY_PATH;
	const nodes: Array<Record<string, unknown>> = [
		{
			id: 'code',
			name: signInCode ? 'Build and Sign Query' : 'Build Query',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			parameters: { jsCode: chainCode(kind, window, signInCode) },
		},
	];
	if (!signInCode) {
		nodes.push({
			id: 'crypto',
			name: 'HMAC SHA256',
			type: 'n8n-nodes-base.crypto',
			typeVersion: 2,
			parameters: {
				action: 'hmac',
				type: 'SHA256',
				value: '={{ $json.query }}',
				dataPropertyName: 'signature',
				encoding: 'hex',
			},
			credentials: { crypto: { ...CRYPTO_CREDENTIAL } },
		});
	}
	const url = `=${baseUrl}${path}?{{ $json.query }}&signature={{ $json.signature }}`;
	const method = kind === 'orders' ? 'POST' : kind === 'cancel' ? 'DELETE' : 'GET';
	nodes.push({
		id: 'http',
		name: 'HTTP Request',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters:
			apiKeyIn === 'parameter'
				? {
						method,
						url,
						sendHeaders: true,
						headerParameters: {
							parameters: [{ name: 'X-APIKEY', value: DEMO_KEYS.master.apiKey }],
						},
						options: httpOptions(batching),
					}
				: {
						method,
						url,
						authentication: 'genericCredentialType',
						genericAuthType: 'httpHeaderAuth',
						options: httpOptions(batching),
					},
		...(apiKeyIn === 'credential'
			? { credentials: { httpHeaderAuth: { ...HEADER_AUTH_CREDENTIAL } } }
			: {}),
	});
	return nodes;
}

function chainWay(
	key: string,
	label: string,
	kind: WayKind,
	count: number,
	baseUrl: string,
	window: HistoryWindow,
	signInCode: boolean,
	apiKeyIn: ApiKeyIn = 'parameter',
	orderIds?: readonly string[],
): Way {
	const nodes = chainNodes(kind, baseUrl, window, signInCode, apiKeyIn);
	const names = nodes.map((node) => String(node.name));
	return {
		key,
		label,
		kind,
		count,
		requests: count,
		measured: names,
		outputNode: 'HTTP Request',
		outputItems: kind === 'history' ? count * HISTORY_LIMIT : count,
		// Crypto's value and the HTTP Request's URL; way c: the URL only.
		expressionsPerItem: signInCode ? 1 : 2,
		businessKeys: false,
		workflow: workflow(
			workflowId(key, count),
			`Bench 5 ${key}: ${label}`,
			inputRows(kind, count, { orderIds }),
			nodes,
		),
	};
}

function nodeWay(
	key: string,
	label: string,
	count: number,
	parameters: Record<string, unknown>,
	expressionsPerItem: number,
	options: {
		batch?: boolean;
		requires?: 'autoMap';
		typeVersion?: number;
		businessKeys?: boolean;
	} = {},
): Way {
	const name = 'Trading Service';
	const perOrder = options.businessKeys ? 2 : 1; // a keyed Create looks its key up first
	return {
		key,
		label,
		kind: 'orders',
		count,
		requests: options.batch ? Math.ceil(count / BATCH_SIZE) : count * perOrder,
		measured: [name],
		outputNode: name,
		outputItems: count,
		expressionsPerItem,
		businessKeys: options.businessKeys ?? false,
		requires: options.requires,
		workflow: workflow(
			workflowId(key, count),
			`Bench 5 ${key}: ${label}`,
			inputRows('orders', count, { businessKeys: options.businessKeys }),
			[tradingNode(name, parameters, options.typeVersion)],
		),
	};
}

export interface WayOptions {
	baseUrl: string;
	historyWindow: HistoryWindow;
	/** Node version that offers Create Many's auto-mapped input, if any. */
	autoMapVersion?: number;
	/** The node's newest version, and whether its Order ID is a resource locator (a picker). */
	newestVersion: number;
	orderIdLocator: boolean;
	/** The IDs of the CANCEL_COUNT open orders seeded before each run of a cancel way, oldest first. */
	cancelOrderIds: readonly string[];
}

/** Every way of bench 5, in issue #15's order (a–i), then issue 25's (ak, k, kb). */
export function allWays({
	baseUrl,
	historyWindow,
	autoMapVersion,
	newestVersion,
	orderIdLocator,
	cancelOrderIds,
}: WayOptions): Way[] {
	nodeVersion = newestVersion;
	symbolLocator = orderIdLocator;
	const all = EXPRESSION_FIELDS;
	const create = (mapped: readonly string[]) => ({
		resource: 'order',
		operation: 'create',
		...orderParameters(mapped),
	});
	const createMany = (mapped: readonly string[]) => ({
		resource: 'order',
		operation: 'createMany',
		inputMode: 'items',
		...orderParameters(mapped),
	});
	const autoMap = { resource: 'order', operation: 'createMany', inputMode: 'autoMap' };
	const autoMapWay = (key: string, count: number) =>
		nodeWay(key, 'Create Many, auto-mapped fields', count, autoMap, 0, {
			batch: true,
			requires: 'autoMap',
			typeVersion: autoMapVersion === undefined ? 1 : Math.max(autoMapVersion, nodeVersion),
		});
	const chain = 'chain: Code → Crypto (HMAC) → HTTP Request';
	const ways: Way[] = [
		nodeWay('a', 'Create, 5 mapped expressions', 200, create(all), 5),
		nodeWay(
			'a2',
			'Create, 2 mapped expressions (price, quantity)',
			200,
			create(['price', 'quantity']),
			2,
		),
		chainWay('b', chain, 'orders', 200, baseUrl, historyWindow, false),
		chainWay(
			'b2',
			`${chain}, API key in a Header Auth credential`,
			'orders',
			200,
			baseUrl,
			historyWindow,
			false,
			'credential',
		),
		chainWay(
			'c',
			'chain: Code with HMAC (require crypto) → HTTP Request',
			'orders',
			200,
			baseUrl,
			historyWindow,
			true,
		),
		nodeWay('d', 'Create Many, 5 mapped expressions', 200, createMany(all), 5, { batch: true }),
		nodeWay('e', 'Create, all fields fixed', 200, create([]), 0),
		nodeWay('f', 'Create Many, all fields fixed', 200, createMany([]), 0, { batch: true }),
		autoMapWay('i', 200),
		chainWay('gb', chain, 'orders', 1000, baseUrl, historyWindow, false),
		nodeWay('gd', 'Create Many, 5 mapped expressions', 1000, createMany(all), 5, { batch: true }),
		nodeWay('gf', 'Create Many, all fields fixed', 1000, createMany([]), 0, { batch: true }),
		autoMapWay('gi', 1000),
		nodeWay(
			'ak',
			'Create, 5 mapped expressions + Client Order ID mapped (business keys)',
			200,
			nodeVersion >= 2
				? { ...create(all), options: { newClientOrderId: '={{ $json.clientOrderId }}' } }
				: { ...create(all), newClientOrderId: '={{ $json.clientOrderId }}' },
			6,
			{ businessKeys: true },
		),
	];
	const historyParameters = {
		resource: 'account',
		operation: 'getHistory',
		flowType: 32,
		startTime: new Date(historyWindow.startTime).toISOString(),
		endTime: new Date(historyWindow.endTime).toISOString(),
		returnAll: false,
		limit: HISTORY_LIMIT,
	};
	ways.push({
		key: 'h',
		label: 'node: Get History, fixed fields',
		kind: 'history',
		count: 200,
		requests: 200,
		measured: ['Trading Service'],
		outputNode: 'Trading Service',
		outputItems: 200 * HISTORY_LIMIT,
		expressionsPerItem: 0,
		businessKeys: false,
		workflow: workflow(workflowId('h', 200), 'Bench 5 h: Get History', inputRows('history', 200), [
			tradingNode('Trading Service', historyParameters),
		]),
	});
	ways.push(
		chainWay(
			'hb',
			'chain: Code → Crypto (HMAC) → HTTP Request (GET)',
			'history',
			200,
			baseUrl,
			historyWindow,
			false,
		),
	);
	ways.push(...marketWays(baseUrl));
	ways.push(...cancelWays(baseUrl, historyWindow, newestVersion, orderIdLocator, cancelOrderIds));
	return ways;
}

/**
 * Cancel per item: the node's Order › Cancel in its newest version (what a new workflow gets) with
 * the Order ID mapped from the item, against the users' chain sending `DELETE /api/v1/spot/order`
 * signed as in way b. Each item names one of the open orders seeded before the run.
 */
function cancelWays(
	baseUrl: string,
	window: HistoryWindow,
	version: number,
	orderIdLocator: boolean,
	orderIds: readonly string[],
): Way[] {
	const mapped = '={{ $json.orderId }}';
	const cancel = {
		resource: 'order',
		operation: 'cancel',
		// An expression dragged into a picker's By ID mode is stored like this.
		orderId: orderIdLocator ? { __rl: true, mode: 'id', value: mapped } : mapped,
	};
	const name = 'Trading Service';
	return [
		{
			key: 'k',
			label: 'node: Cancel, Order ID mapped',
			kind: 'cancel',
			count: CANCEL_COUNT,
			requests: CANCEL_COUNT,
			measured: [name],
			outputNode: name,
			outputItems: CANCEL_COUNT,
			expressionsPerItem: 1,
			businessKeys: false,
			workflow: workflow(
				workflowId('k', CANCEL_COUNT),
				'Bench 5 k: Cancel',
				inputRows('cancel', CANCEL_COUNT, { orderIds }),
				[tradingNode(name, cancel, version)],
			),
		},
		chainWay(
			'kb',
			'chain: Code → Crypto (HMAC) → HTTP Request (DELETE)',
			'cancel',
			CANCEL_COUNT,
			baseUrl,
			window,
			false,
			'parameter',
			orderIds,
		),
	];
}

/**
 * Market reads: Get Price once per item against the users' HTTP Request with the API key header
 * (market data is not signed, so their chain is one node).
 */
function marketWays(baseUrl: string): Way[] {
	const price = {
		resource: 'market',
		operation: 'getPrice',
		symbol: '={{ $json.symbol }}',
	};
	const chainName = 'HTTP Request';
	return [
		{
			key: 'm',
			label: 'node: Get Price, symbol mapped',
			kind: 'market',
			count: 200,
			// One all-symbols request serves every item of the run.
			requests: 1,
			measured: ['Trading Service'],
			outputNode: 'Trading Service',
			outputItems: 200,
			expressionsPerItem: 1,
			businessKeys: false,
			workflow: workflow(workflowId('m', 200), 'Bench 5 m: Get Price', inputRows('market', 200), [
				tradingNode('Trading Service', price),
			]),
		},
		{
			key: 'mb',
			label: 'chain: HTTP Request (GET, API key header)',
			kind: 'market',
			count: 200,
			requests: 200,
			measured: [chainName],
			outputNode: chainName,
			outputItems: 200,
			expressionsPerItem: 1,
			businessKeys: false,
			workflow: workflow(
				workflowId('mb', 200),
				'Bench 5 mb: HTTP Request price',
				inputRows('market', 200),
				[
					{
						id: 'http',
						name: chainName,
						type: 'n8n-nodes-base.httpRequest',
						typeVersion: 4.2,
						parameters: {
							method: 'GET',
							url: `=${baseUrl}${PRICE_PATH}?symbol={{ $json.symbol }}&site=MENA`,
							sendHeaders: true,
							headerParameters: {
								parameters: [{ name: 'X-APIKEY', value: DEMO_KEYS.master.apiKey }],
							},
							options: {},
						},
					},
				],
			),
		},
	];
}

export const HISTORY_RECORDS = { flowType: 32, count: 2000, seed: 7 } as const;
export const PATHS = {
	order: ORDER_PATH,
	batch: '/api/v1/spot/batchOrders',
	history: HISTORY_PATH,
	price: PRICE_PATH,
	cancel: CANCEL_PATH,
} as const;

/**
 * Issue 25's rows (bench 5's default): Create fixed, 2 and 5 mapped (and 5 mapped with business
 * keys), Create Many mapped and auto-mapped, Get History per item and Cancel per item, each with
 * the users' chain it is compared with.
 */
export const ISSUE_25_WAYS = ['e', 'a2', 'a', 'ak', 'b', 'd', 'i', 'h', 'hb', 'k', 'kb'] as const;

// ------------------------------------------------------------------ the limits section

/** The exchange's documented rates per key, as the chains' Batching option spells them. */
export const LIMITS_BATCHING = {
	order: { batchSize: 20, batchInterval: 1000 },
	query: { batchSize: 5, batchInterval: 1000 },
} as const satisfies Record<string, Batching>;
/** The symbols the limits section's price reads cycle through (one per item, mixed). */
export const LIMITS_PRICE_SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'] as const;
/** Get History, Return All: 20 pages of 500 records (the page size of Return All). */
export const LIMITS_HISTORY_RECORDS = { flowType: 32, count: 20 * 500, seed: 11 } as const;
/** The pair of Create workflows of 100 items each started at once on the same key. */
export const LIMITS_PAIR = ['Lc2a', 'Lc2b'] as const;

/**
 * Workflows of the limits section: the node's version 2 (the newest) with its defaults, no option
 * set, against the users' chains with the HTTP Request node's Batching at the exchange's documented
 * rates (20 items a second for orders, 5 for reads). Keys: Lc Create, Lcb its chain, Lm Create
 * Many (auto-mapped), Lp Get Price (mixed symbols), Lpb its chain, Lk Cancel, Lkb its chain, Lh
 * Get History Return All, Lc2a/Lc2b the pair of Create workflows run at once.
 */
export function limitsWays({
	baseUrl,
	historyWindow,
	autoMapVersion,
	newestVersion,
	orderIdLocator,
	cancelOrderIds,
}: WayOptions): Way[] {
	nodeVersion = newestVersion;
	symbolLocator = orderIdLocator;
	const name = 'Trading Service';
	const mappedCreate = {
		resource: 'order',
		operation: 'create',
		...orderParameters(EXPRESSION_FIELDS),
	};
	const node = (
		key: string,
		label: string,
		kind: WayKind,
		count: number,
		requests: number,
		outputItems: number,
		rows: Array<Record<string, unknown>>,
		parameters: Record<string, unknown>,
		expressionsPerItem: number,
		typeVersion?: number,
	): Way => ({
		key,
		label,
		kind,
		count,
		requests,
		measured: [name],
		outputNode: name,
		outputItems,
		expressionsPerItem,
		businessKeys: false,
		workflow: workflow(workflowId(key, count), `Limits ${key}: ${label}`, rows, [
			tradingNode(name, parameters, typeVersion),
		]),
	});
	const chain = (
		key: string,
		label: string,
		kind: WayKind,
		count: number,
		rows: Array<Record<string, unknown>>,
		batching: Batching,
	): Way => {
		const nodes = chainNodes(kind, baseUrl, historyWindow, false, 'parameter', batching);
		return {
			key,
			label,
			kind,
			count,
			requests: count,
			measured: nodes.map((n) => String(n.name)),
			outputNode: 'HTTP Request',
			outputItems: count,
			expressionsPerItem: 2,
			businessKeys: false,
			workflow: workflow(workflowId(key, count), `Limits ${key}: ${label}`, rows, nodes),
		};
	};
	const priceRows = Array.from({ length: 200 }, (_, index) => ({
		symbol: LIMITS_PRICE_SYMBOLS[index % LIMITS_PRICE_SYMBOLS.length],
		call: index,
	}));
	const mappedSymbol = '={{ $json.symbol }}';
	const price = {
		resource: 'market',
		operation: 'getPrice',
		symbol: symbolLocator ? { __rl: true, mode: 'id', value: mappedSymbol } : mappedSymbol,
	};
	const mappedOrderId = '={{ $json.orderId }}';
	const cancel = {
		resource: 'order',
		operation: 'cancel',
		orderId: orderIdLocator ? { __rl: true, mode: 'id', value: mappedOrderId } : mappedOrderId,
	};
	const history = {
		resource: 'account',
		operation: 'getHistory',
		flowType: LIMITS_HISTORY_RECORDS.flowType,
		startTime: new Date(historyWindow.startTime).toISOString(),
		endTime: new Date(historyWindow.endTime).toISOString(),
		returnAll: true,
	};
	const batching = LIMITS_BATCHING;
	const httpPrice: Record<string, unknown> = {
		id: 'http',
		name: 'HTTP Request',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method: 'GET',
			url: `=${baseUrl}${PRICE_PATH}?symbol={{ $json.symbol }}&site=MENA`,
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'X-APIKEY', value: DEMO_KEYS.master.apiKey }] },
			options: httpOptions(batching.query),
		},
	};
	return [
		node(
			'Lc',
			'node: Create, 5 mapped fields',
			'orders',
			200,
			200,
			200,
			inputRows('orders', 200),
			mappedCreate,
			5,
		),
		chain(
			'Lcb',
			'chain: Code → Crypto → HTTP Request, Batching 20 / 1 s',
			'orders',
			200,
			inputRows('orders', 200),
			batching.order,
		),
		node(
			'Lm',
			'node: Create Many, auto-mapped',
			'orders',
			200,
			Math.ceil(200 / BATCH_SIZE),
			200,
			inputRows('orders', 200),
			{ resource: 'order', operation: 'createMany', inputMode: 'autoMap' },
			0,
			autoMapVersion === undefined ? undefined : Math.max(autoMapVersion, nodeVersion),
		),
		node(
			'Lp',
			'node: Get Price, symbol mapped (3 symbols mixed)',
			'market',
			200,
			1,
			200,
			priceRows,
			price,
			1,
		),
		{
			key: 'Lpb',
			label: 'chain: HTTP Request (GET, API key header), Batching 5 / 1 s',
			kind: 'market',
			count: 200,
			requests: 200,
			measured: ['HTTP Request'],
			outputNode: 'HTTP Request',
			outputItems: 200,
			expressionsPerItem: 1,
			businessKeys: false,
			workflow: workflow(
				workflowId('Lpb', 200),
				'Limits Lpb: HTTP Request price, batching',
				priceRows,
				[httpPrice],
			),
		},
		node(
			'Lk',
			'node: Cancel, Order ID mapped',
			'cancel',
			CANCEL_COUNT,
			CANCEL_COUNT,
			CANCEL_COUNT,
			inputRows('cancel', CANCEL_COUNT, { orderIds: cancelOrderIds }),
			cancel,
			1,
		),
		chain(
			'Lkb',
			'chain: Code → Crypto → HTTP Request (DELETE), Batching 20 / 1 s',
			'cancel',
			CANCEL_COUNT,
			inputRows('cancel', CANCEL_COUNT, { orderIds: cancelOrderIds }),
			batching.order,
		),
		node(
			'Lh',
			'node: Get History, Return All (20 × 500 records)',
			'history',
			1,
			LIMITS_HISTORY_RECORDS.count / 500,
			LIMITS_HISTORY_RECORDS.count,
			inputRows('history', 1),
			history,
			0,
		),
		...LIMITS_PAIR.map((key) =>
			node(
				key,
				'node: Create, 5 mapped fields (one of two at once)',
				'orders',
				100,
				100,
				100,
				inputRows('orders', 100),
				mappedCreate,
				5,
			),
		),
	];
}
