/**
 * Reading orders: GET /api/v1/spot/order (one order), /api/v1/spot/openOrders and
 * /api/v1/spot/tradeOrders (past orders), in the family's query shape.
 */
import { CODES } from '../../codes';
import { apiError, fieldError } from '../../errors';
import { DEFAULT_OPEN_ORDERS_LIMIT, MAX_OPEN_ORDERS_LIMIT } from '../../orders/state';
import { styleOf } from '../../orders/views';
import { json, type Resp } from '../../response';
import { cmpId } from '../../store';
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
 * GET /api/v1/spot/openOrders, newest first. As the family documents it for a master key without
 * accountId: the main trading account first, then, when that gave fewer than 500, the sub account.
 */
export function openOrders(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const { engine, behaviour } = services;
	const p = auth.queryParams;
	const accounts = orderAccounts(auth.key, p.get('accountId'));
	const f = orderFilter(p, 'fromOrderId');
	const limit = limitParam(p, DEFAULT_OPEN_ORDERS_LIMIT, MAX_OPEN_ORDERS_LIMIT, false);
	const out = engine.orders.list(accounts[0], true, f, limit);
	for (const acc of accounts.slice(1)) {
		if (out.length >= DEFAULT_OPEN_ORDERS_LIMIT || out.length >= limit) break;
		out.push(...engine.orders.list(acc, true, f, limit - out.length));
	}
	return json(
		200,
		out.map((o) => engine.orders.view(o, styleOf(behaviour))),
	);
}

/** GET /api/v1/spot/tradeOrders: final orders (filled, cancelled) of the last 90 days, newest first, paged by orderId. */
export function pastOrders(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const { engine, behaviour } = services;
	const p = auth.queryParams;
	const accounts = orderAccounts(auth.key, p.get('accountId'));
	const f = orderFilter(p, 'orderId');
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
	const all = accounts.flatMap((acc) => engine.orders.list(acc, false, f, limit));
	all.sort((a, b) => cmpId(b.orderId, a.orderId));
	return json(
		200,
		all.slice(0, limit).map((o) => engine.orders.view(o, styleOf(behaviour))),
	);
}
