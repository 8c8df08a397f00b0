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
		/**
		 * Whether sending the same request again cannot execute it twice (every order carries a client
		 * order ID, which the service refuses to reuse), so an unknown outcome may be retried.
		 */
		isIdempotent?(request: EndpointRequest): boolean;
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
			isIdempotent: ({ qs = {} }) => typeof qs.newClientOrderId === 'string',
		},
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
			isIdempotent: (request) => batchOf(request).every((order) => typeof order.newClientOrderId === 'string'),
		},
		checkResponse: (body, request) => {
			const orders = batchOf(request);
			const result = (body as { result?: unknown } | null)?.result;
			if (Array.isArray(result) && result.length === orders.length) return undefined;
			return `The service answered a batch of ${orders.length} orders with ${Array.isArray(result) ? result.length : 'no'} results`;
		},
	},
} as const satisfies Record<string, Endpoint>;
