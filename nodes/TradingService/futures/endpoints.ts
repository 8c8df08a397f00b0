import type { AnswerShape, Endpoint } from '../transport';

/** A list whose every entry is an object with `key`. */
const listOf = (what: string, key: string): AnswerShape => ({
	is: 'list',
	has: { [key]: 'present' },
	otherwise: `The service answered the ${what} request with something other than a list of ${what}`,
});

const objectWith = (what: string, key: string): AnswerShape => ({
	is: 'object',
	has: { [key]: 'present' },
	otherwise: `The service answered the ${what} request without a ${key}`,
});

/**
 * The futures reads of the UAE documentation ("Futures Trading"): every one a signed GET of weight
 * 1 that counts against the key's query rate (5 a second). docs/api.md describes each answer.
 */
const read = (path: string, answer: AnswerShape): Endpoint => ({
	method: 'GET',
	path,
	weight: 1,
	answer,
});

/**
 * The futures writes: signed, counted against the key's order rate (20 a second) and never sent
 * again unless the service proves it did nothing. Weight 1, the position's TP/SL 3 (the documentation).
 */
const write = (
	method: 'POST' | 'DELETE',
	path: string,
	answer: AnswerShape,
	weight = 1,
): Endpoint => ({ method, path, weight, rateClass: 'order', writes: true, answer });

export const FUTURES_ENDPOINTS = {
	positions: read('/api/v2/futures/positions', listOf('positions', 'symbol')),
	balance: read('/api/v2/futures/balance', listOf('balances', 'asset')),
	fundingRate: read('/api/v2/futures/fundingRate', listOf('funding rates', 'symbol')),
	historyFundingRate: read(
		'/api/v2/futures/historyFundingRate',
		listOf('funding rates', 'settleTime'),
	),
	historyFundingFees: read(
		'/api/v2/futures/historyFundingFees',
		listOf('funding fees', 'fundingTime'),
	),
	openOrders: read('/api/v2/futures/openOrders', listOf('orders', 'orderId')),
	historyOrders: read('/api/v2/futures/historyOrders', listOf('orders', 'orderId')),
	order: read('/api/v2/futures/order', objectWith('order', 'orderId')),
	userTrades: read('/api/v2/futures/userTrades', listOf('trades', 'tradeId')),
	leverage: read('/api/v2/futures/leverage', listOf('leverage', 'leverage')),
	commissionRate: read(
		'/api/v2/futures/commissionRate',
		objectWith('commission rate', 'makerFeeRate'),
	),
	newOrder: write('POST', '/api/v2/futures/order', objectWith('order', 'orderId')),
	batchOrders: {
		...write('POST', '/api/v2/futures/batchOrders', {
			is: 'object',
			has: { result: 'list' },
			otherwise: 'The service answered the batch of futures orders without a result list',
		}),
		codesPerEntry: true,
	},
	cancelOrder: write('DELETE', '/api/v2/futures/order', objectWith('cancel', 'orderId')),
	cancelOrders: write(
		'DELETE',
		'/api/v2/futures/cancelOrders',
		objectWith('cancel', 'lastOrderId'),
	),
	tradingStop: write(
		'POST',
		'/api/v2/futures/position/trading-stop',
		objectWith('position TP/SL', 'symbol'),
		3,
	),
	setLeverage: write('POST', '/api/v2/futures/leverage', objectWith('leverage', 'leverage')),
} satisfies Record<string, Endpoint>;
