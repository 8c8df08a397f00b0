/**
 * Cancelling orders: DELETE /api/v1/spot/order (one order), /api/v1/spot/openOrders (by symbol,
 * the key's own account) and /api/v1/spot/cancelOrderByIds.
 */
import { CODES } from '../../codes';
import { tradingAccountOf } from '../../constants';
import { apiError, fieldError } from '../../errors';
import { OrderBook } from '../../orders/book';
import { DEFAULT_CANCEL_ALL_LIMIT, MAX_CANCEL_ALL_LIMIT, MAX_CANCEL_IDS } from '../../orders/state';
import { json, type Resp } from '../../response';
import type { Authed, RequestContext, Services } from '../route';
import { limitParam, orderAccountsOf, orderFilter } from './params';

/** DELETE /api/v1/spot/order: cancel one order by orderId or clientOrderId (orderId wins). */
export function cancelOrder(_ctx: RequestContext, auth: Authed, { engine }: Services): Resp {
	const p = auth.allParams;
	const orderId = p.get('orderId');
	const clientOrderId = p.get('clientOrderId');
	if (orderId === undefined && clientOrderId === undefined)
		throw fieldError('orderId', 'send orderId or clientOrderId');
	if (orderId !== undefined && !/^\d{1,20}$/.test(orderId))
		throw fieldError('orderId', 'numeric order id');
	if (orderId === undefined && clientOrderId === '') throw fieldError('clientOrderId');
	const o = engine.orders.find(
		orderAccountsOf(auth.key),
		orderId !== undefined ? { orderId } : { clientOrderId },
	);
	if (!o) throw apiError(CODES.orderNotOnBook);
	return json(200, engine.orders.cancel(o, 'single', auth.key.apiKey));
}

/**
 * DELETE /api/v1/spot/openOrders: the key's own trading account only (a master key's sub account
 * is left alone), newest first, at most `limit` (default 100, at most 200) per request.
 */
export function cancelOpenOrders(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const { engine, behaviour } = services;
	const p = auth.allParams;
	const f = orderFilter(p, 'fromOrderId');
	const limit = limitParam(p, DEFAULT_CANCEL_ALL_LIMIT, MAX_CANCEL_ALL_LIMIT, true);
	const orders = engine.orders.list(tradingAccountOf(auth.key), true, f, limit);
	for (const o of orders) engine.orders.cancel(o, 'symbol', auth.key.apiKey);
	if (behaviour.cancelOpenOrdersAnswer === 'successOnly') return json(200, { success: true });
	const lastOrderId = orders.length > 0 ? orders[orders.length - 1].orderId : '0';
	return json(200, { code: '0', message: 'success', timestamp: services.now(), lastOrderId });
}

/**
 * DELETE /api/v1/spot/cancelOrderByIds: `ids` comma-separated (at most 100). `result` lists only
 * the ids that were not cancelled, each with its code as a string.
 */
export function cancelOrdersByIds(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const { engine, behaviour } = services;
	const raw = auth.allParams.get('ids');
	if (raw === undefined || raw === '') throw fieldError('ids', 'comma-separated order ids');
	const ids = raw.split(',');
	if (ids.some((id) => !/^\d{1,20}$/.test(id)))
		throw fieldError('ids', 'comma-separated numeric order ids');
	if (ids.length > MAX_CANCEL_IDS)
		throw apiError(CODES.batchTooLarge, `at most ${MAX_CANCEL_IDS} ids per request`);
	const failed: Array<{ orderId: string; code: string }> = [];
	for (const orderId of ids) {
		const o = engine.orders.find(orderAccountsOf(auth.key), { orderId });
		const err = o ? OrderBook.finalError(o) : apiError(CODES.orderNotOnBook);
		if (err) failed.push({ orderId, code: err.code });
		else engine.orders.cancel(o!, 'ids', auth.key.apiKey);
	}
	const result =
		failed.length === 0 && behaviour.cancelByIdsAllCancelled === 'null' ? null : failed;
	return json(200, { code: '0000', result });
}
