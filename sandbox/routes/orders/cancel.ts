/**
 * Cancelling orders: DELETE /api/v1/spot/order (one order), /api/v1/spot/openOrders (one symbol's,
 * oldest first), /api/v1/spot/cancelAllOpenOrders (any symbol's, newest first, paged) and
 * /api/v1/spot/cancelOrderByIds. The two cancel-all endpoints touch the key's own trading account
 * only: a master key's call leaves its sub account alone, as the family documents.
 */
import { CODES } from '../../codes';
import { tradingAccountOf } from '../../constants';
import { apiError, fieldError, type ApiError } from '../../errors';
import { OrderBook } from '../../orders/book';
import type { CancelRequest } from '../../orders/cancelling';
import {
	DEFAULT_CANCEL_ALL_LIMIT,
	MAX_CANCEL_ALL_LIMIT,
	MAX_CANCEL_BY_SYMBOL,
	MAX_CANCEL_IDS,
} from '../../orders/state';
import { styleOf } from '../../orders/views';
import { json, type Resp } from '../../response';
import type { LedgerCancel } from '../../types';
import type { Authed, RequestContext, Services } from '../route';
import { limitParam, orderAccountsOf, orderFilter } from './params';

/** A cancel by this key through `via`, as late and answered as the behaviours say. */
function cancelBy(auth: Authed, services: Services, via: LedgerCancel['via']): CancelRequest {
	const { behaviour } = services;
	return {
		via,
		apiKey: auth.key.apiKey,
		delayMs: behaviour.cancelApplyDelayMs,
		style: styleOf(behaviour),
	};
}

/**
 * The refusal of a cancel of an order that is not open (`specific`: the code saying why; undefined:
 * no such order of the key's accounts), in the codes the behaviour cancelNotOpenCodes asks for.
 * The UAE documentation's single cancel answers 0212, which leaves the client to look the order up.
 */
function notOpenRefusal(services: Services, specific: ApiError | undefined): ApiError {
	if (services.behaviour.cancelNotOpenCodes === 'specific')
		return specific ?? apiError(CODES.orderNotOnBook);
	return apiError(CODES.orderCompletedOrMissing);
}

/** DELETE /api/v1/spot/order: cancel one order by orderId or clientOrderId (orderId wins). */
export function cancelOrder(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const { engine } = services;
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
	if (!o) throw notOpenRefusal(services, undefined);
	const final = OrderBook.finalError(o);
	if (final) throw notOpenRefusal(services, final);
	return json(200, engine.orders.cancel(o, cancelBy(auth, services, 'single')));
}

/**
 * DELETE /api/v1/spot/openOrders: the open orders of one symbol (required) and optionally one side,
 * oldest first, at most 200 per call (the family's upper limit per batch); any other parameter
 * (limit, fromOrderId) is ignored, as the family's server ignores what it does not define. Orders
 * whose cancel is already pending are not taken again. Answers {"success": true}.
 */
export function cancelOpenOrders(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const p = auth.allParams;
	if (p.get('symbol') === undefined)
		throw fieldError('symbol', 'the symbol whose orders to cancel');
	const f = { ...orderFilter(p), skipPendingCancel: true };
	const { orders } = services.engine;
	const found = orders.list(tradingAccountOf(auth.key), true, f, MAX_CANCEL_BY_SYMBOL, true);
	const req = cancelBy(auth, services, 'symbol');
	for (const o of found) orders.cancel(o, req);
	return json(200, { success: true });
}

/**
 * DELETE /api/v1/spot/cancelAllOpenOrders: open orders of every symbol (or of `symbol`, `side`),
 * newest first from `fromOrderId` down (strictly older, as the order lists page), at most `limit`
 * (default 100; above 200 cut to 200). `lastOrderId` is the last order cancelled ("0" when none),
 * the `fromOrderId` of the next call. `message` only says the request was accepted.
 */
export function cancelAllOpenOrders(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const p = auth.allParams;
	const f = { ...orderFilter(p, 'fromOrderId'), skipPendingCancel: true };
	const limit = limitParam(p, DEFAULT_CANCEL_ALL_LIMIT, MAX_CANCEL_ALL_LIMIT, true);
	const { orders } = services.engine;
	const found = orders.list(tradingAccountOf(auth.key), true, f, limit);
	const req = cancelBy(auth, services, 'all');
	for (const o of found) orders.cancel(o, req);
	const lastOrderId = found.length > 0 ? found[found.length - 1].orderId : '0';
	return json(200, { code: '0000', message: 'success', timestamp: services.now(), lastOrderId });
}

/**
 * DELETE /api/v1/spot/cancelOrderByIds: `ids` comma-separated (at most 100). `result` lists only
 * the ids that were not cancelled, each with its code as a string: 0211 (the UAE example), or the
 * specific code with cancelNotOpenCodes 'specific'; under `id` instead of `orderId` with the
 * cancelByIdsOtherKey fault, with the rule's code (default -2013) with cancelByIdsEntryCode. An
 * order whose cancel is pending counts as cancelled.
 */
export function cancelOrdersByIds(ctx: RequestContext, auth: Authed, services: Services): Resp {
	const { engine, behaviour } = services;
	const raw = auth.allParams.get('ids');
	if (raw === undefined || raw === '') throw fieldError('ids', 'comma-separated order ids');
	const ids = raw.split(',');
	if (ids.some((id) => !/^\d{1,20}$/.test(id)))
		throw fieldError('ids', 'comma-separated numeric order ids');
	if (ids.length > MAX_CANCEL_IDS)
		throw apiError(CODES.batchTooLarge, `at most ${MAX_CANCEL_IDS} ids per request`);
	const req = cancelBy(auth, services, 'ids');
	const failed: Array<{ orderId: string; code: string }> = [];
	// The UAE documentation's example answers each ID it could not cancel with 0211.
	const uae = behaviour.cancelNotOpenCodes !== 'specific';
	for (const orderId of ids) {
		const o = engine.orders.find(orderAccountsOf(auth.key), { orderId });
		const err = o ? OrderBook.finalError(o) : apiError(CODES.orderNotOnBook);
		if (err) failed.push({ orderId, code: uae ? CODES.orderNotFound.code : err.code });
		else engine.orders.cancel(o!, req);
	}
	const fault = ctx.fault;
	const entries =
		fault?.kind === 'cancelByIdsOtherKey'
			? failed.map(({ orderId, code }) => ({ id: orderId, code }))
			: fault?.kind === 'cancelByIdsEntryCode'
				? failed.map(({ orderId }) => ({
						orderId,
						code: fault.rule.code ?? CODES.orderDoesNotExist.code,
					}))
				: failed;
	const result =
		failed.length === 0 && behaviour.cancelByIdsAllCancelled === 'null' ? null : entries;
	return json(200, { code: '0000', result });
}
