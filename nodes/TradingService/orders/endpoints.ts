import type { AnswerShape, Endpoint } from '../transport';
import { MARKET_TEXT_FIELDS } from '../transport/textFields';

/**
 * The spot order endpoints (spec §4.3, §4.4, UAE documentation "Spot Trading"), and exchange
 * information, whose symbol rules every order is checked against. docs/api.md describes each.
 */

const order = (what: string): AnswerShape => ({
	is: 'object',
	has: { orderId: 'id' },
	otherwise: `The service answered ${what} with something other than an order`,
});
const orderList = (what: string): AnswerShape => ({
	is: 'list',
	has: { orderId: 'id' },
	otherwise: `The service answered the ${what} request with something other than a list of orders`,
});

// A result list of another length than the request is read by the caller, entry by entry.
const BATCH_ANSWER: AnswerShape = {
	is: 'object',
	has: { result: 'list' },
	otherwise: 'The service answered the batch order request without a result list',
};

export const ORDER_ENDPOINTS = {
	newOrder: {
		method: 'POST',
		path: '/api/v1/spot/new/order',
		weight: 1,
		rateClass: 'order',
		writes: true,
		answer: order('the order'),
	},
	batchOrders: {
		method: 'POST',
		path: '/api/v1/spot/batchOrders',
		weight: 1,
		rateClass: 'order',
		writes: true,
		codesPerEntry: true,
		answer: BATCH_ANSWER,
	},
	/**
	 * The unified endpoints (the family's "Create Order v1.1" and "Create Multiple Orders" pages):
	 * version 2's Create and Create Many. The same parameters and answers as the two above, plus a
	 * MARKET order by amount on either side and IOC or FOK for LIMIT orders; batch weight 5.
	 */
	unifiedOrder: {
		method: 'POST',
		path: '/api/v1.1/spot/order',
		weight: 1,
		rateClass: 'order',
		writes: true,
		answer: order('the order'),
	},
	unifiedBatchOrders: {
		method: 'POST',
		path: '/api/v1.1/spot/batchOrders',
		weight: 5,
		rateClass: 'order',
		writes: true,
		codesPerEntry: true,
		answer: BATCH_ANSWER,
	},
	/** One order by orderId or origClientOrderId: how an unknown outcome is reconciled. */
	queryOrder: {
		method: 'GET',
		path: '/api/v1/spot/order',
		weight: 1,
		answer: order('an order lookup'),
	},
	openOrders: {
		method: 'GET',
		path: '/api/v1/spot/openOrders',
		weight: 1,
		answer: orderList('open-orders'),
	},
	/** Past (final) orders of the last 90 days. */
	tradeOrders: {
		method: 'GET',
		path: '/api/v1/spot/tradeOrders',
		weight: 5,
		answer: orderList('past-orders'),
	},
	cancelOrder: {
		method: 'DELETE',
		path: '/api/v1/spot/order',
		weight: 1,
		rateClass: 'order',
		writes: true,
		answer: order('the cancel'),
	},
	cancelOrderByIds: {
		method: 'DELETE',
		path: '/api/v1/spot/cancelOrderByIds',
		weight: 1,
		rateClass: 'order',
		writes: true,
		codesPerEntry: true,
		// Only the IDs that were not cancelled ([] or null when all were): without a list nobody can
		// tell which were.
		answer: {
			is: 'object',
			has: { result: 'listOrNull' },
			otherwise: 'The service answered the cancel by IDs without a result list',
		},
	},
	// Places nothing, so it is not a write: sending it again is harmless.
	orderTest: {
		method: 'POST',
		path: '/api/v1/spot/orderTest',
		weight: 1,
		answer: {
			is: 'object',
			otherwise: 'The service answered the order test with something other than an object',
		},
	},
	/** Symbols and their trading rules: public, the API key alone; weight 1 (the UAE documentation states none). */
	exchangeInfo: {
		method: 'GET',
		path: '/api/v1/exchangeInfo',
		weight: 1,
		signed: false,
		textFields: MARKET_TEXT_FIELDS,
		answer: {
			is: 'object',
			has: { symbols: 'objects' },
			otherwise: 'The service answered the exchange information request without a list of symbols',
		},
	},
} as const satisfies Record<string, Endpoint>;
