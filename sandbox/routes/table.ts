/**
 * Every endpoint of the sandbox: path, method, weight, permission and request-rate class. Weights:
 * spec section 8 where it gives one (history 5, batch orders 1), else the UAE documentation's
 * (balances, account types, past orders and fills 5; every cancel, transfers and the rest 1); the
 * user data stream's listen keys 1 (the family's PRO and Global documentation). Classes (the UAE
 * documentation's "Order Rate Limiting": 20 order, 5 query requests a second per key): 'order'
 * for creating and cancelling orders, named on each trade route below; every other route,
 * including transfers, the order test, listen keys, server time and market data, is a 'query'.
 */
import * as futures from '../futures/routes';
import * as futuresWrites from '../futures/writeRoutes';
import { json } from '../response';
import { account, accountTypes, checkApiKey, transfer } from './account';
import { history } from './history';
import { accountTrades } from './trades';
import {
	depthRoute,
	exchangeInfo,
	klinesRoute,
	ticker24hRoute,
	tickerPriceRoute,
	tradesRoute,
} from './market';
import { batchOrders, unifiedBatchOrders } from './orders/batch';
import {
	cancelAllOpenOrders,
	cancelOpenOrders,
	cancelOrder,
	cancelOrdersByIds,
} from './orders/cancel';
import { singleOrder, testOrder, unifiedOrder } from './orders/create';
import { openOrders, pastOrders, queryOrder } from './orders/query';
import { anyKey, keyOnly, read, trade, type RateClass, type RouteTable } from './route';
import { createListenKey, deleteListenKey, keepAliveListenKey } from './userDataStream';
import { depositAddressRoute, depositOrders, withdrawOrders } from '../wallet/routes';

export const ROUTES: RouteTable = {
	'/api/v1/time': {
		GET: {
			weight: 1,
			signed: false,
			// counted when sent with a known key, like market data
			rateClass: 'query',
			handler: (_ctx, _auth, services) => json(200, { serverTime: services.now() }),
		},
	},
	'/api/v1/account/balanceFlow': { GET: read(5, history) },
	// The UAE documentation: "no more than once per second".
	'/api/v1/account/assetTransfer': {
		POST: { ...trade(1, transfer, 'query'), minIntervalMs: 1000 },
	},
	// Signed, but open to every valid key whatever its permissions (no `permission`).
	'/api/v1/account/checkApiKey': {
		GET: {
			weight: 1,
			signed: true,
			rateClass: 'query',
			handler: (ctx, auth) => checkApiKey(ctx, auth!),
		},
	},
	// The user data stream's listen keys (the family's PRO and Global documentation): signed,
	// weight 1, any valid key.
	'/api/v1/userDataStream': {
		POST: anyKey(1, createListenKey),
		PUT: anyKey(1, keepAliveListenKey),
		DELETE: anyKey(1, deleteListenKey),
	},
	'/api/v1/spot/new/order': { POST: trade(1, singleOrder, 'order') },
	'/api/v1/spot/batchOrders': { POST: trade(1, batchOrders, 'order') },
	// The unified endpoints (the family's "Create Order v1.1", weight 1; "Create Multiple Orders",
	// weight 5): node version 2's Create and Create Many.
	'/api/v1.1/spot/order': { POST: trade(1, unifiedOrder, 'order') },
	'/api/v1.1/spot/batchOrders': { POST: trade(5, unifiedBatchOrders, 'order') },
	'/api/v1/spot/order': { GET: read(1, queryOrder), DELETE: trade(1, cancelOrder, 'order') },
	// An order test places and cancels nothing: a query.
	'/api/v1/spot/orderTest': { POST: trade(1, testOrder, 'query') },
	'/api/v1/spot/openOrders': {
		GET: read(1, openOrders),
		DELETE: trade(1, cancelOpenOrders, 'order'),
	},
	'/api/v1/spot/tradeOrders': { GET: read(5, pastOrders) },
	'/api/v1/spot/cancelAllOpenOrders': { DELETE: trade(1, cancelAllOpenOrders, 'order') },
	'/api/v1/spot/cancelOrderByIds': { DELETE: trade(1, cancelOrdersByIds, 'order') },
	'/api/v1/account': { GET: read(5, account) },
	'/api/v1/account/type': { GET: read(5, accountTypes) },
	// The UAE documentation's "Get Account Trade List": weight 5.
	'/api/v1/account/trades': { GET: read(5, accountTrades) },
	// The wallet reads (sandbox/wallet/routes.ts): deposit and withdrawal lists 5, the address 1.
	'/api/v1/account/depositOrders': { GET: read(5, depositOrders) },
	'/api/v1/account/withdrawOrders': { GET: read(5, withdrawOrders) },
	'/api/v1/account/deposit/address': { GET: read(1, depositAddressRoute) },
	// The futures read side (the UAE documentation's "Futures Trading"): weight 1 each, queries.
	'/api/v2/futures/positions': { GET: read(1, futures.positions) },
	'/api/v2/futures/balance': { GET: read(1, futures.balance) },
	'/api/v2/futures/fundingRate': { GET: read(1, futures.fundingRate) },
	'/api/v2/futures/historyFundingRate': { GET: read(1, futures.historyFundingRate) },
	'/api/v2/futures/historyFundingFees': { GET: read(1, futures.historyFundingFees) },
	'/api/v2/futures/openOrders': { GET: read(1, futures.openOrders) },
	'/api/v2/futures/historyOrders': { GET: read(1, futures.historyOrders) },
	'/api/v2/futures/order': {
		GET: read(1, futures.order),
		POST: trade(1, futuresWrites.createOrder, 'order'),
		DELETE: trade(1, futuresWrites.cancelOrder, 'order'),
	},
	'/api/v2/futures/userTrades': { GET: read(1, futures.userTrades) },
	'/api/v2/futures/leverage': {
		GET: read(1, futures.leverage),
		POST: trade(1, futuresWrites.setLeverage, 'order'),
	},
	'/api/v2/futures/commissionRate': { GET: read(1, futures.commissionRate) },
	// The futures write side: trade permission, order requests (20 a second per key); the
	// documentation's weights (trading-stop 3, the others 1).
	'/api/v2/futures/batchOrders': { POST: trade(1, futuresWrites.batchOrders, 'order') },
	'/api/v2/futures/cancelOrders': { DELETE: trade(1, futuresWrites.cancelOrders, 'order') },
	'/api/v2/futures/position/trading-stop': { POST: trade(3, futuresWrites.tradingStop, 'order') },
	// Market data: a valid API key, no signature; the documentation states no weight, 1 each.
	'/api/v1/exchangeInfo': { GET: keyOnly(1, exchangeInfo) },
	'/quote/v1/ticker/price': { GET: keyOnly(1, tickerPriceRoute) },
	'/quote/v1/ticker/24hr': { GET: keyOnly(1, ticker24hRoute) },
	'/quote/v1/depth': { GET: keyOnly(1, depthRoute) },
	'/quote/v1/trades': { GET: keyOnly(1, tradesRoute) },
	'/quote/v1/klines': { GET: keyOnly(1, klinesRoute) },
};

/** The nominal weight of a request (0 for an unknown path or method), as the ledger records it. */
export function weightOf(path: string, method: string): number {
	return ROUTES[path]?.[method as keyof (typeof ROUTES)[string]]?.weight ?? 0;
}

/** The request-rate class of a route, or undefined for an unknown path or method (not counted). */
export function rateClassOf(path: string, method: string): RateClass | undefined {
	return ROUTES[path]?.[method as keyof (typeof ROUTES)[string]]?.rateClass;
}
