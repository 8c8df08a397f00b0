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
} satisfies Record<string, Endpoint>;
