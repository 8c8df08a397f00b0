/**
 * The service's paths and request weights as the tests name them, written out here rather than read
 * from the product's endpoint declarations (orders/endpoints.ts, …): a test that took the product's
 * table would share any misreading of it.
 */
export const PATHS = {
	serverTime: '/api/v1/time',
	history: '/api/v1/account/balanceFlow',
	assetTransfer: '/api/v1/account/assetTransfer',
	credentialCheck: '/api/v1/account/checkApiKey',
	newOrder: '/api/v1/spot/new/order',
	batchOrders: '/api/v1/spot/batchOrders',
	queryOrder: '/api/v1/spot/order',
	cancelOrder: '/api/v1/spot/order',
	openOrders: '/api/v1/spot/openOrders',
	cancelOrderByIds: '/api/v1/spot/cancelOrderByIds',
	tradeOrders: '/api/v1/spot/tradeOrders',
	orderTest: '/api/v1/spot/orderTest',
	account: '/api/v1/account',
	accountType: '/api/v1/account/type',
	accountTrades: '/api/v1/account/trades',
	exchangeInfo: '/api/v1/exchangeInfo',
	tickerPrice: '/quote/v1/ticker/price',
	ticker24h: '/quote/v1/ticker/24hr',
	depth: '/quote/v1/depth',
	trades: '/quote/v1/trades',
	klines: '/quote/v1/klines',
	userDataStream: '/api/v1/userDataStream',
	userStreamSocket: '/api/v1/ws/',
} as const;

/** Request weights: spec §8 where it gives one, else the UAE documentation's (docs/api.md §4). */
export const WEIGHTS = {
	history: 5,
	batchOrders: 1,
	cancelOrderByIds: 1,
	tradeOrders: 5,
	account: 5,
	accountType: 5,
	accountTrades: 5,
	marketData: 1,
	default: 1,
} as const;
