/**
 * Reading orders: GET /api/v1/spot/order (one order), /api/v1/spot/openOrders and
 * /api/v1/spot/tradeOrders (past orders), in the family's query shape.
 */
import { CODES } from '../../codes';
import { apiError, fieldError } from '../../errors';
import {
	DEFAULT_OPEN_ORDERS_LIMIT,
	MAX_OPEN_ORDERS_LIMIT,
	type OrderListFilter,
	type OrderState,
} from '../../orders/state';
import { styleOf } from '../../orders/views';
import { json, type Resp } from '../../response';
import type { Authed, RequestContext, Services } from '../route';
import { limitParam, orderAccounts, orderFilter } from './params';

/** GET /api/v1/spot/order: by orderId or origClientOrderId (orderId wins when both are sent). */
export function queryOrder(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const { engine, behaviour } = services;
	const p = auth.queryParams;
	const accounts = orderAccounts(auth.key, p.get('accountId'));
	const orderId = p.get('orderId');
	const clientOrderId = p.get('origClientOrderId');
	if (orderId === undefined && clientOrderId === undefined)
		throw fieldError('orderId', 'send orderId or origClientOrderId');
	if (orderId !== undefined && !/^\d{1,20}$/.test(orderId))
		throw fieldError('orderId', 'numeric order id');
	if (orderId === undefined && clientOrderId === '') throw fieldError('origClientOrderId');
	const o = engine.orders.find(accounts, orderId !== undefined ? { orderId } : { clientOrderId });
	if (!o) throw apiError(CODES.orderNotFound);
	return json(200, engine.orders.view(o, styleOf(behaviour)));
}

/**
 * The orders of a list endpoint, as the UAE documentation describes a master key's list: with
 * `accountId`, that account's only; without, the main trading account's first and, only when they
 * are fewer than 500, then the sub accounts', one account after the other, up to `limit` in all.
 * Each account's orders come newest first (the futures lists' documented example, and past orders'
 * `fromOrderId`: "orders whose id are smaller"), and `fromOrderId` applies to every account listed.
 */
function listAccounts(
	services: Services,
	accounts: string[],
	open: boolean,
	f: OrderListFilter,
	limit: number,
): OrderState[] {
	const { engine } = services;
	const out = engine.orders.list(accounts[0], open, f, limit);
	if (out.length >= DEFAULT_OPEN_ORDERS_LIMIT) return out;
	for (const acc of accounts.slice(1)) {
		if (out.length >= limit) break;
		out.push(...engine.orders.list(acc, open, f, limit - out.length));
	}
	return out;
}

/** GET /api/v1/spot/openOrders: `accountId`, `fromOrderId`, `symbol`, `side`, `limit` (default 500, at most 1000). */
export function openOrders(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const { engine, behaviour } = services;
	const p = auth.queryParams;
	const accounts = orderAccounts(auth.key, p.get('accountId'));
	const f = orderFilter(p, 'fromOrderId');
	const limit = limitParam(p, DEFAULT_OPEN_ORDERS_LIMIT, MAX_OPEN_ORDERS_LIMIT, false);
	const out = listAccounts(services, accounts, true, f, limit);
	return json(
		200,
		out.map((o) => engine.orders.view(o, styleOf(behaviour))),
	);
}

/**
 * GET /api/v1/spot/tradeOrders: final orders (filled, cancelled) of the last 90 days, listed like
 * open orders (the UAE documentation gives it the same master-key rule), paged by `fromOrderId`.
 */
export function pastOrders(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const { engine, behaviour } = services;
	const p = auth.queryParams;
	const accounts = orderAccounts(auth.key, p.get('accountId'));
	const f = orderFilter(p, 'fromOrderId');
	const limit = limitParam(p, DEFAULT_OPEN_ORDERS_LIMIT, MAX_OPEN_ORDERS_LIMIT, false);
	const ms = (name: string): number | undefined => {
		const v = p.get(name);
		if (v === undefined) return undefined;
		if (!/^\d{1,16}$/.test(v)) throw fieldError(name, 'millisecond timestamp');
		return Number(v);
	};
	const startTime = ms('startTime');
	const endTime = ms('endTime');
	if (startTime !== undefined && endTime !== undefined && startTime > endTime) {
		throw fieldError('startTime', 'startTime must not be after endTime');
	}
	f.startTime = Math.max(startTime ?? 0, engine.orders.pastCutoff());
	if (endTime !== undefined) f.endTime = endTime;
	const out = listAccounts(services, accounts, false, f, limit);
	return json(
		200,
		out.map((o) => engine.orders.view(o, styleOf(behaviour))),
	);
}
