import type { AnswerShape, Endpoint } from '../transport';

/**
 * The futures reads of the UAE documentation ("Futures Trading"): every one a signed GET of weight
 * 1 that counts against the key's query rate (5 a second). docs/api.md describes each answer.
 */
export const FUTURES_PATHS = {
	positions: '/api/v2/futures/positions',
	balance: '/api/v2/futures/balance',
	fundingRate: '/api/v2/futures/fundingRate',
	historyFundingRate: '/api/v2/futures/historyFundingRate',
	historyFundingFees: '/api/v2/futures/historyFundingFees',
	openOrders: '/api/v2/futures/openOrders',
	historyOrders: '/api/v2/futures/historyOrders',
	order: '/api/v2/futures/order',
	userTrades: '/api/v2/futures/userTrades',
	leverage: '/api/v2/futures/leverage',
	commissionRate: '/api/v2/futures/commissionRate',
} as const;

export type FuturesRead = keyof typeof FUTURES_PATHS;

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

const read = (path: string, answer: AnswerShape): Endpoint => ({
	method: 'GET',
	path,
	weight: 1,
	answer,
});

export const FUTURES_ENDPOINTS: Record<FuturesRead, Endpoint> = {
	positions: read(FUTURES_PATHS.positions, listOf('positions', 'symbol')),
	balance: read(FUTURES_PATHS.balance, listOf('balances', 'asset')),
	fundingRate: read(FUTURES_PATHS.fundingRate, listOf('funding rates', 'symbol')),
	historyFundingRate: read(FUTURES_PATHS.historyFundingRate, listOf('funding rates', 'settleTime')),
	historyFundingFees: read(FUTURES_PATHS.historyFundingFees, listOf('funding fees', 'fundingTime')),
	openOrders: read(FUTURES_PATHS.openOrders, listOf('orders', 'orderId')),
	historyOrders: read(FUTURES_PATHS.historyOrders, listOf('orders', 'orderId')),
	order: read(FUTURES_PATHS.order, objectWith('order', 'orderId')),
	userTrades: read(FUTURES_PATHS.userTrades, listOf('trades', 'tradeId')),
	leverage: read(FUTURES_PATHS.leverage, listOf('leverage', 'leverage')),
	commissionRate: read(FUTURES_PATHS.commissionRate, objectWith('commission rate', 'makerFeeRate')),
};
