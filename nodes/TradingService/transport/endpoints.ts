import type { IDataObject, IHttpRequestMethods } from 'n8n-workflow';

import { PATHS, WEIGHTS } from '../constants';
import { ACCOUNT_TRADE_TEXT_FIELDS, MARKET_TEXT_FIELDS } from './textFields';

/** What a caller hands the transport besides the endpoint: parameters and the item they serve. */
export interface EndpointRequest {
	/** Query parameters, signed and sent in this order; `body`: sent as JSON. */
	qs?: IDataObject;
	body?: IDataObject | IDataObject[];
	/** The input item the request serves, for error messages. */
	itemIndex?: number;
	/** Whether it goes before waiting requests that are not (pacing): listen keys, settling unknown writes. */
	urgent?: boolean;
}

export interface Endpoint {
	readonly method: IHttpRequestMethods;
	readonly path: string;
	/** Request weight against the key's budget: spec §8, else the UAE documentation (constants.ts). */
	readonly weight: number;
	/**
	 * Which of the key's two rates the request counts against (the UAE documentation: order
	 * endpoints 20 a second, every other endpoint 5): 'order' for new orders, batch orders and
	 * cancels; absent, a query.
	 */
	readonly rateClass?: 'order';
	/**
	 * Least time between two requests to this endpoint with one API key at one service, across
	 * every node and execution of this n8n process (pacing.ts): the UAE documentation allows some
	 * endpoints no more than one call per second.
	 */
	readonly minIntervalMs?: number;
	/**
	 * Whether a request changes the account. Such a request is tried again only when the service
	 * proves it did nothing; otherwise the caller learns that its outcome is unknown.
	 */
	readonly writes?: true;
	/**
	 * Whether a 2xx answer carries a code per entry of its `result` list: it is then handed over
	 * whole whatever its top-level code, since some entries may have been executed.
	 */
	readonly codesPerEntry?: true;
	/** A problem with a 2xx answer's shape, in words, or undefined when the answer is usable. */
	readonly checkResponse?: (body: unknown) => string | undefined;
	/**
	 * Keys whose numbers keep their literal text in this endpoint's answers, instead of the
	 * transport's list of IDs and decimals (textFields.ts TEXT_FIELDS).
	 */
	readonly textFields?: ReadonlySet<string>;
}

function isList(body: unknown, what: string): string | undefined {
	return Array.isArray(body) && body.every(isObject)
		? undefined
		: `The service answered the ${what} request with something other than a list`;
}

function isObject(body: unknown): body is IDataObject {
	return body !== null && typeof body === 'object' && !Array.isArray(body);
}

/** An order as the service answers it: an object with an order ID (a string, or a number some answers use). */
function isOrder(body: unknown): boolean {
	return isObject(body) && (typeof body.orderId === 'string' || typeof body.orderId === 'number');
}

function isOrderList(body: unknown): boolean {
	return Array.isArray(body) && body.every(isOrder);
}

function isHistoryRecord(record: unknown): boolean {
	if (record === null || typeof record !== 'object') return false;
	const { id, created } = record as IDataObject;
	return typeof id === 'string' && /^\d+$/.test(String(created));
}

/** Every endpoint the package calls: method, path, weight, and what a usable answer looks like. */
export const ENDPOINTS = {
	serverTime: { method: 'GET', path: PATHS.serverTime, weight: WEIGHTS.default },
	history: {
		method: 'GET',
		path: PATHS.history,
		weight: WEIGHTS.history,
		checkResponse: (body) =>
			Array.isArray(body) && body.every(isHistoryRecord)
				? undefined
				: 'The service answered the history request with something other than a list of records',
	},
	assetTransfer: {
		method: 'POST',
		path: PATHS.assetTransfer,
		weight: WEIGHTS.default,
		// UAE documentation: "no more than once per second".
		minIntervalMs: 1000,
		writes: true,
		// `success: false` is a refusal (transfers/transferWrites.ts); anything but a boolean there says
		// nothing about what happened.
		checkResponse: (body) =>
			isObject(body) && typeof body.success === 'boolean'
				? undefined
				: 'The service answered the transfer with something other than a transfer result',
	},
	newOrder: {
		method: 'POST',
		path: PATHS.newOrder,
		weight: WEIGHTS.default,
		rateClass: 'order',
		writes: true,
		checkResponse: (body) =>
			isOrder(body)
				? undefined
				: 'The service answered the order with something other than an order',
	},
	batchOrders: {
		method: 'POST',
		path: PATHS.batchOrders,
		weight: WEIGHTS.batchOrders,
		rateClass: 'order',
		writes: true,
		codesPerEntry: true,
		// A result list of another length than the request is read by the caller, entry by entry.
		checkResponse: (body) =>
			Array.isArray((body as { result?: unknown } | null)?.result)
				? undefined
				: 'The service answered the batch order request without a result list',
	},
	queryOrder: {
		method: 'GET',
		path: PATHS.queryOrder,
		weight: WEIGHTS.default,
		checkResponse: (body) =>
			isOrder(body)
				? undefined
				: 'The service answered an order lookup with something other than an order',
	},
	openOrders: {
		method: 'GET',
		path: PATHS.openOrders,
		weight: WEIGHTS.default,
		checkResponse: (body) =>
			isOrderList(body)
				? undefined
				: 'The service answered the open-orders request with something other than a list of orders',
	},
	tradeOrders: {
		method: 'GET',
		path: PATHS.tradeOrders,
		weight: WEIGHTS.tradeOrders,
		checkResponse: (body) =>
			isOrderList(body)
				? undefined
				: 'The service answered the past-orders request with something other than a list of orders',
	},
	cancelOrder: {
		method: 'DELETE',
		path: PATHS.cancelOrder,
		weight: WEIGHTS.default,
		rateClass: 'order',
		writes: true,
		checkResponse: (body) =>
			isOrder(body)
				? undefined
				: 'The service answered the cancel with something other than an order',
	},
	cancelOrderByIds: {
		method: 'DELETE',
		path: PATHS.cancelOrderByIds,
		weight: WEIGHTS.cancelOrderByIds,
		rateClass: 'order',
		writes: true,
		codesPerEntry: true,
		// The answer lists only the IDs that were not cancelled ([] or null when all were): without a
		// list nobody can tell which were.
		checkResponse: (body) =>
			isObject(body) && (body.result === null || Array.isArray(body.result))
				? undefined
				: 'The service answered the cancel by IDs without a result list',
	},
	// Places nothing, so it is not a write: sending it again is harmless.
	orderTest: {
		method: 'POST',
		path: PATHS.orderTest,
		weight: WEIGHTS.default,
		checkResponse: (body) =>
			isObject(body)
				? undefined
				: 'The service answered the order test with something other than an object',
	},
	account: {
		method: 'GET',
		path: PATHS.account,
		weight: WEIGHTS.account,
		checkResponse: (body) =>
			isObject(body) && Array.isArray(body.balances) && body.balances.every(isObject)
				? undefined
				: 'The service answered the balances request without a list of balances',
	},
	// The key's fills (UAE documentation), newest first: Account › Get Trades.
	accountTrades: {
		method: 'GET',
		path: PATHS.accountTrades,
		weight: WEIGHTS.accountTrades,
		textFields: ACCOUNT_TRADE_TEXT_FIELDS,
		checkResponse: (body) =>
			Array.isArray(body) && body.every((entry) => isObject(entry) && 'id' in entry)
				? undefined
				: 'The service answered the trade list with something other than a list of trades',
	},
	// Listen keys of the user data stream. Creating one twice only leaves a key that expires
	// unused, so none of them is a write: they are retried like reads.
	createListenKey: {
		method: 'POST',
		path: PATHS.userDataStream,
		weight: WEIGHTS.default,
		checkResponse: (body) =>
			isObject(body) && typeof body.listenKey === 'string' && body.listenKey !== ''
				? undefined
				: 'The service answered the listen key request without a listen key',
	},
	keepListenKeyAlive: {
		method: 'PUT',
		path: PATHS.userDataStream,
		weight: WEIGHTS.default,
		checkResponse: (body) =>
			isObject(body)
				? undefined
				: 'The service answered the keep-alive with something other than an object',
	},
	deleteListenKey: {
		method: 'DELETE',
		path: PATHS.userDataStream,
		weight: WEIGHTS.default,
		checkResponse: (body) =>
			isObject(body)
				? undefined
				: 'The service answered the listen key deletion with something other than an object',
	},
	// The key's accounts (UAE documentation): Get Many learns a master key's sub accounts from it.
	accountTypes: {
		method: 'GET',
		path: PATHS.accountType,
		weight: WEIGHTS.accountType,
		checkResponse: (body) =>
			Array.isArray(body) && body.every((entry) => isObject(entry) && 'accountId' in entry)
				? undefined
				: 'The service answered the account list with something other than a list of accounts',
	},
	exchangeInfo: {
		method: 'GET',
		path: PATHS.exchangeInfo,
		weight: WEIGHTS.marketData,
		textFields: MARKET_TEXT_FIELDS,
		checkResponse: (body) =>
			isObject(body) && Array.isArray(body.symbols) && body.symbols.every(isObject)
				? undefined
				: 'The service answered the exchange information request without a list of symbols',
	},
	tickerPrice: {
		method: 'GET',
		path: PATHS.tickerPrice,
		weight: WEIGHTS.marketData,
		textFields: MARKET_TEXT_FIELDS,
		checkResponse: (body) => isList(body, 'price'),
	},
	ticker24h: {
		method: 'GET',
		path: PATHS.ticker24h,
		weight: WEIGHTS.marketData,
		textFields: MARKET_TEXT_FIELDS,
		checkResponse: (body) => isList(body, '24-hour ticker'),
	},
	depth: {
		method: 'GET',
		path: PATHS.depth,
		weight: WEIGHTS.marketData,
		textFields: MARKET_TEXT_FIELDS,
		checkResponse: (body) =>
			isObject(body) && Array.isArray(body.b) && Array.isArray(body.a)
				? undefined
				: 'The service answered the order book request without bid and ask lists',
	},
	trades: {
		method: 'GET',
		path: PATHS.trades,
		weight: WEIGHTS.marketData,
		textFields: MARKET_TEXT_FIELDS,
		checkResponse: (body) => isList(body, 'recent trades'),
	},
	klines: {
		method: 'GET',
		path: PATHS.klines,
		weight: WEIGHTS.marketData,
		textFields: MARKET_TEXT_FIELDS,
		checkResponse: (body) =>
			Array.isArray(body) && body.every(Array.isArray)
				? undefined
				: 'The service answered the candles request with something other than a list of candles',
	},
} as const satisfies Record<string, Endpoint>;
