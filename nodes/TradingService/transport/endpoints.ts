import type { IDataObject, IHttpRequestMethods } from 'n8n-workflow';

import { PATHS, WEIGHTS } from '../constants';

/** What an operation hands the transport besides the endpoint: parameters and the item they serve. */
export interface EndpointRequest {
	/** Query parameters, signed and sent in this order. */
	qs?: IDataObject;
	/** Sent as JSON. */
	body?: IDataObject | IDataObject[];
	/** The input item the request serves, for error messages. */
	itemIndex?: number;
	/** For a write: filled in by the transport with when its attempts may have reached the service. */
	trace?: WriteTrace;
}

/**
 * When the attempts of one write may have reached the service, in this machine's clock. Each
 * attempt is signed with a timestamp taken during it; the service accepts a request only while
 * its clock is within recvWindow after that timestamp (and less than the future tolerance before
 * it), so after `acceptableUntil` no attempt made so far can still be accepted.
 */
export interface WriteTrace {
	/** Before the first attempt: a service record of this write cannot be older than this minus the future tolerance. */
	firstSentAt?: number;
	/** The end of the last attempt plus its recvWindow plus the future tolerance. */
	acceptableUntil?: number;
}

/** How a write is named to the user, and what to look at when its outcome is unknown. */
export interface WriteWording {
	/** "transfer of 5 USDT from 1 to 2", "batch of 20 BTCUSDT orders". */
	what: string;
	/** "Check your open orders … for BTCUSDT". */
	howToCheck: string;
}

export interface Endpoint {
	readonly method: IHttpRequestMethods;
	readonly path: string;
	/** Request weight against the key's budget (spec §8); 1 where the spec gives none. */
	readonly weight: number;
	/**
	 * Present on endpoints that change the account. A write is retried only when the service proves
	 * it did nothing; otherwise its outcome is unknown and the user is told what to check.
	 */
	readonly write?: {
		describe(request: EndpointRequest): WriteWording;
	};
	/** A problem with a 2xx answer's shape, in words, or undefined when the answer is usable. */
	readonly checkResponse?: (body: unknown, request: EndpointRequest) => string | undefined;
}

function text(value: unknown): string {
	return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

function orderWording(symbol: string, clientOrderId?: string): string {
	return `Check your open orders and trade history for ${symbol}${clientOrderId ? ` (client order ID ${clientOrderId})` : ''}`;
}

function batchOf(request: EndpointRequest): IDataObject[] {
	return Array.isArray(request.body) ? request.body : [];
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

/** "ID 123" or "with client order ID abc", from a cancel's or lookup's query. */
function orderReference(qs: IDataObject): string {
	return qs.orderId !== undefined ? `ID ${text(qs.orderId)}` : `with client order ID ${text(qs.clientOrderId ?? qs.origClientOrderId)}`;
}

function isHistoryRecord(record: unknown): boolean {
	if (record === null || typeof record !== 'object') return false;
	const { id, created } = record as IDataObject;
	return typeof id === 'string' && /^\d+$/.test(String(created));
}

/** Every endpoint the package calls: the only place that knows paths, weights and write wording. */
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
		write: {
			describe: ({ qs = {} }) => ({
				what: `transfer of ${text(qs.quantity)} ${text(qs.coin)} from ${text(qs.fromAccountId)} to ${text(qs.toAccountId)}`,
				howToCheck:
					'Check the transfer history (Trading Service > Get Transaction History, Flow Type: Transfer Between Accounts) or the account balances',
			}),
		},
		// `success: false` is a refusal (actions/account/transferAsset.operation.ts); anything but a
		// boolean there says nothing about what happened.
		checkResponse: (body) =>
			isObject(body) && typeof body.success === 'boolean' ? undefined : 'The service answered the transfer with something other than a transfer result',
	},
	newOrder: {
		method: 'POST',
		path: PATHS.newOrder,
		weight: WEIGHTS.default,
		write: {
			describe: ({ qs = {} }) => ({
				what: `${text(qs.side)} ${text(qs.type)} order for ${text(qs.symbol)}`,
				howToCheck: orderWording(text(qs.symbol), text(qs.newClientOrderId)),
			}),
		},
		checkResponse: (body) => (isOrder(body) ? undefined : 'The service answered the order with something other than an order'),
	},
	batchOrders: {
		method: 'POST',
		path: PATHS.batchOrders,
		weight: WEIGHTS.batchOrders,
		write: {
			describe: (request) => {
				const orders = batchOf(request);
				const symbol = text(orders[0]?.symbol);
				return { what: `batch of ${orders.length} ${symbol} orders`, howToCheck: orderWording(symbol) };
			},
		},
		// Entries are matched to orders by client order ID (actions/order/batchResults.ts); a result
		// list of another length leaves the unmatched orders unknown, not the whole batch.
		checkResponse: (body, request) =>
			Array.isArray((body as { result?: unknown } | null)?.result)
				? undefined
				: `The service answered a batch of ${batchOf(request).length} orders without a result list`,
	},
	queryOrder: {
		method: 'GET',
		path: PATHS.queryOrder,
		weight: WEIGHTS.default,
		checkResponse: (body) => (isOrder(body) ? undefined : 'The service answered an order lookup with something other than an order'),
	},
	openOrders: {
		method: 'GET',
		path: PATHS.openOrders,
		weight: WEIGHTS.default,
		checkResponse: (body) => (isOrderList(body) ? undefined : 'The service answered the open-orders request with something other than a list of orders'),
	},
	tradeOrders: {
		method: 'GET',
		path: PATHS.tradeOrders,
		weight: WEIGHTS.tradeOrders,
		checkResponse: (body) => (isOrderList(body) ? undefined : 'The service answered the past-orders request with something other than a list of orders'),
	},
	cancelOrder: {
		method: 'DELETE',
		path: PATHS.cancelOrder,
		weight: WEIGHTS.default,
		write: {
			describe: ({ qs = {} }) => ({
				what: `cancel of order ${orderReference(qs)}`,
				howToCheck: `Look up order ${orderReference(qs)} (Trading Service > Order > Get) and check its status`,
			}),
		},
		checkResponse: (body) => (isOrder(body) ? undefined : 'The service answered the cancel with something other than an order'),
	},
	cancelOpenOrders: {
		method: 'DELETE',
		path: PATHS.openOrders,
		weight: WEIGHTS.cancelOpenOrders,
		write: {
			describe: ({ qs = {} }) => ({
				what: `cancel of the open ${text(qs.symbol)} orders`,
				howToCheck: `Check your open orders for ${text(qs.symbol)} (Trading Service > Order > Get Many)`,
			}),
		},
		checkResponse: (body) => (isObject(body) ? undefined : 'The service answered the cancel of open orders with something other than a summary'),
	},
	cancelOrderByIds: {
		method: 'DELETE',
		path: PATHS.cancelOrderByIds,
		weight: WEIGHTS.cancelOrderByIds,
		write: {
			describe: ({ qs = {} }) => ({
				what: `cancel of orders ${text(qs.ids)}`,
				howToCheck: 'Look each order up (Trading Service > Order > Get) and check its status',
			}),
		},
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
		checkResponse: (body) => (isObject(body) ? undefined : 'The service answered the order test with something other than an object'),
	},
	account: {
		method: 'GET',
		path: PATHS.account,
		weight: WEIGHTS.default,
		checkResponse: (body) =>
			isObject(body) && Array.isArray(body.balances) && body.balances.every(isObject)
				? undefined
				: 'The service answered the balances request without a list of balances',
	},
} as const satisfies Record<string, Endpoint>;
