/**
 * The futures write side (the UAE documentation's "Futures Trading"; docs/api.md "Futures (write
 * side)"): POST order and batchOrders, DELETE order and cancelOrders, POST position/trading-stop
 * and leverage. Signed, trade permission, request-rate class 'order' each. Parameters in the
 * query string (or a form body), a batch's orders a JSON array body. Every refusal comes before
 * anything is written. The sub key has no futures account: its orders, cancels and settings are
 * refused 0104.
 */
import { CODES } from '../codes';
import * as D from '../decimal';
import { ApiError, apiError, fieldError } from '../errors';
import { mediaType } from '../http';
import { JsonNumber, parseJson, type JsonValue } from '../json';
import { json, type Resp } from '../response';
import type { Authed, RequestContext, Services } from '../routes/route';
import type { DemoKey } from '../types';
import { onStep, type Contract } from './contracts';
import { futuresAccountOf, type Futures } from './futures';
import {
	TRIGGER_BY,
	decimalParam,
	leverageParam,
	oneOf,
	parseOrder,
	priceParam,
	tradingContract,
	type ParamGetter,
} from './orderParams';
import { contractParam, enumParam, idParam, limitParam } from './params';
import { orderCreateFailed } from './trading';
import { isOpenOrder, isStopOrder, orderView, type PositionStop } from './views';

type Handler = (ctx: RequestContext, auth: Authed, services: Services) => Resp;

/** The documentation's batch limits: "at most 20", "3 for STOP". */
export const MAX_FUTURES_BATCH = 20;
export const MAX_FUTURES_STOP_BATCH = 3;
/** cancelOrders' `limit`: default 100, at most 200. */
export const CANCEL_ORDERS_LIMIT = [100, 200] as const;

function getterOf(p: Map<string, string>): ParamGetter {
	return (name) => p.get(name);
}

function formOnly(ctx: RequestContext): void {
	if (ctx.body !== '' && mediaType(ctx.req) !== 'application/x-www-form-urlencoded')
		throw fieldError(
			'Content-Type',
			'send the parameters in the query string or an application/x-www-form-urlencoded body',
		);
}

/** The key's futures account, or 0104 (the sub key has none). */
function accountOrRefuse(key: DemoKey): string {
	const accountId = futuresAccountOf(key);
	if (!accountId) throw apiError(CODES.accountNotAllowed, "this key's user has no futures account");
	return accountId;
}

function placeOne(f: Futures, key: DemoKey, get: ParamGetter) {
	const r = parseOrder(
		get,
		(c) => f.contract(c.symbol),
		(c) => f.mark(c),
	);
	return f.trader.place(accountOrRefuse(key), r);
}

export const createOrder: Handler = (ctx, auth, { engine }) => {
	formOnly(ctx);
	try {
		return json(200, placeOne(engine.futures, auth.key, getterOf(auth.allParams)));
	} finally {
		engine.futures.afterWrite();
	}
};

function isObject(v: JsonValue): v is { [key: string]: JsonValue } {
	return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
}

/** A batch item's field as the single order's parameter: strings, numbers and booleans. */
function itemGetter(o: { [key: string]: JsonValue }): ParamGetter {
	return (name) => {
		const v = o[name];
		if (v === undefined) return undefined;
		if (typeof v === 'string') return v;
		if (v instanceof JsonNumber) return v.raw;
		if (typeof v === 'boolean') return String(v);
		throw fieldError(name, 'a string, number or boolean');
	};
}

/** The batch's own checks: a JSON array of 1 to 20 orders (3 STOP) of one symbol, side and type. */
function parseBatch(ctx: RequestContext): JsonValue[] {
	if (mediaType(ctx.req) !== 'application/json')
		throw fieldError('Content-Type', 'a batch is an application/json body');
	let parsed: JsonValue;
	try {
		parsed = parseJson(ctx.body);
	} catch {
		throw fieldError('body', 'not valid JSON; expected a JSON array of orders');
	}
	if (!Array.isArray(parsed)) throw fieldError('body', 'expected a JSON array of orders');
	if (parsed.length === 0) throw fieldError('body', 'the batch is empty');
	for (const name of ['symbol', 'side', 'type']) {
		const values = new Set<string>();
		for (const o of parsed) {
			const v = isObject(o) ? o[name] : undefined;
			if (typeof v === 'string') values.add(v);
		}
		if (values.size > 1)
			throw fieldError(name, `one ${name} per batch, not ${[...values].join(' and ')}`);
	}
	if (parsed.length > MAX_FUTURES_BATCH)
		throw apiError(CODES.batchTooLarge, `at most ${MAX_FUTURES_BATCH} orders per batch`);
	const first = parsed.find(isObject);
	if (first?.type === 'STOP' && parsed.length > MAX_FUTURES_STOP_BATCH)
		throw apiError(CODES.batchTooLarge, `at most ${MAX_FUTURES_STOP_BATCH} STOP orders per batch`);
	return parsed;
}

type Entry = Record<string, unknown> | null;

/** The inline batch faults, as on the spot batch: the orders are placed as usual. */
function shapedBatch(ctx: RequestContext, entries: Entry[]): Record<string, unknown> {
	let result = entries;
	let code = '0000';
	switch (ctx.fault?.kind) {
		case 'batchReorder':
			result = [...result].reverse();
			break;
		case 'batchTopCodeNonZero':
			code = CODES.unknownError.code;
			break;
		case 'batchNullEntry':
			result = [...result.slice(0, -1), null];
			break;
		case 'batchEntryNoCode':
			result = result.map((e) => {
				if (e === null) return e;
				const rest = { ...e };
				delete rest.code;
				return rest;
			});
			break;
		default:
			break;
	}
	return { code, result };
}

/**
 * A TP/SL client order ID an earlier item of the batch already uses (as its own or a child's ID),
 * or a client order ID an earlier item's TP/SL child is to take: -1141, as for an ID an open order
 * holds (the children exist only once their parent fills, so the open-order check misses them).
 * `earlier`: the accepted items' IDs, true for a child's. Returns the item's IDs to add.
 */
function batchIdsCheck(get: ParamGetter, earlier: Map<string, boolean>): [string, boolean][] {
	const ids: [string, boolean][] = [];
	for (const name of ['clientOrderId', 'tpClientOrderId', 'slClientOrderId']) {
		const id = get(name);
		if (id === undefined) continue;
		const child = name !== 'clientOrderId';
		if (earlier.has(id) && (child || earlier.get(id) === true))
			throw apiError(
				CODES.duplicateOrder,
				`${name} '${id}' is already used by an earlier order of this batch`,
			);
		ids.push([id, child || earlier.get(id) === true]);
	}
	return ids;
}

/** POST /api/v2/futures/batchOrders: each order checked and placed on its own, in request order. */
export const batchOrders: Handler = (ctx, auth, { engine }) => {
	const parsed = parseBatch(ctx);
	const f = engine.futures;
	// Client order IDs of the accepted items: true for a TP/SL child's.
	const earlier = new Map<string, boolean>();
	try {
		const result = parsed.map((o): Entry => {
			try {
				if (!isObject(o)) throw fieldError('order', 'each order is a JSON object');
				const get = itemGetter(o);
				const used = batchIdsCheck(get, earlier);
				const order = placeOne(f, auth.key, get);
				for (const [id, child] of used) earlier.set(id, child);
				return { code: '0000', msg: 'success', order };
			} catch (e) {
				if (e instanceof ApiError) return { code: e.code, msg: e.message };
				throw e;
			}
		});
		return json(200, shapedBatch(ctx, result));
	} finally {
		f.afterWrite();
	}
};

/** DELETE /api/v2/futures/order: orderId (wins) or clientOrderId, and the order's type. */
export const cancelOrder: Handler = (ctx, auth, { engine }) => {
	formOnly(ctx);
	const p = auth.allParams;
	const orderId = idParam(p, 'orderId');
	const clientOrderId = p.get('clientOrderId');
	if (orderId === undefined && (clientOrderId === undefined || clientOrderId === ''))
		throw fieldError('orderId', 'orderId or clientOrderId');
	const type = enumParam(p, 'type', ['LIMIT', 'STOP'] as const, true)!;
	const f = engine.futures;
	const accountId = accountOrRefuse(auth.key);
	const stop = type === 'STOP';
	const mine = f.book.openOrders(accountId);
	const found =
		orderId !== undefined
			? mine.find((o) => o.orderId === orderId.toString())
			: mine.find((o) => o.clientOrderId === clientOrderId);
	if (!found || !isOpenOrder(found) || isStopOrder(found) !== stop)
		throw apiError(CODES.orderCompletedOrMissing);
	try {
		f.trader.cancel(found);
		return json(200, orderView(found, f.contract(found.symbol)));
	} finally {
		f.afterWrite();
	}
};

/** DELETE /api/v2/futures/cancelOrders: the newest open orders of a side and type first. */
export const cancelOrders: Handler = (ctx, auth, { engine, now }) => {
	formOnly(ctx);
	const p = auth.allParams;
	const side = enumParam(p, 'side', ['BUY', 'SELL'] as const, true)!;
	const type = enumParam(p, 'orderType', ['LIMIT', 'STOP'] as const, true)!;
	const c = contractParam(p, false);
	const before = idParam(p, 'fromOrderId');
	const limit = limitParam(p, CANCEL_ORDERS_LIMIT[0], CANCEL_ORDERS_LIMIT[1]);
	const f = engine.futures;
	const list = f.book.listOrders({
		accountId: accountOrRefuse(auth.key),
		symbol: c?.symbol,
		open: true,
		stop: type === 'STOP',
		side,
		beforeOrderId: before,
		startTime: 0,
		endTime: Number.MAX_SAFE_INTEGER,
		limit,
	});
	try {
		for (const o of list) if (isOpenOrder(o)) f.trader.cancel(o);
	} finally {
		f.afterWrite();
	}
	return json(200, {
		code: '0000',
		message: 'success',
		timestamp: now(),
		lastOrderId: list.length > 0 ? list[list.length - 1].orderId : '0',
	});
};

/** One leg of a position's TP/SL: its price on the right side of the mark, trigger source, size. */
function positionLeg(
	get: ParamGetter,
	c: Contract,
	mark: string,
	held: D.Dec,
	name: 'takeProfit' | 'stopLoss',
): PositionStop['takeProfit'] {
	const p = name === 'takeProfit' ? 'tp' : 'sl';
	const price = priceParam(get, name, c);
	const size = decimalParam(get, `${p}Size`);
	if (price === undefined) {
		for (const n of [`${p}TriggerBy`, `${p}Size`]) {
			if (get(n) !== undefined) throw fieldError(n, `sent without ${name}`);
		}
		return undefined;
	}
	const above = D.cmp(D.parseDec(price)!, D.parseDec(mark)!) > 0;
	if (name === 'takeProfit' && !above)
		throw fieldError(name, `a LONG's take-profit must be above the mark price ${mark}`);
	if (name === 'stopLoss' && (above || D.cmp(D.parseDec(price)!, D.parseDec(mark)!) === 0))
		throw fieldError(name, `a LONG's stop-loss must be below the mark price ${mark}`);
	const leg: NonNullable<PositionStop['takeProfit']> = {
		price,
		triggerBy: oneOf(get, `${p}TriggerBy`, TRIGGER_BY, 'CONTRACT_PRICE'),
	};
	if (size !== undefined) {
		if (!onStep(size, c.stepSize))
			throw apiError(
				CODES.quantityPrecision,
				`${p}Size ${size} is not a multiple of the step ${c.stepSize}`,
			);
		if (D.isPositive(held) && D.cmp(D.parseDec(size)!, held) > 0)
			throw fieldError(`${p}Size`, `above the LONG position of ${D.fmt(held)}`);
		leg.size = size;
	}
	return leg;
}

/** POST /api/v2/futures/position/trading-stop: a LONG position's TP/SL, replacing the previous. */
export const tradingStop: Handler = (ctx, auth, { engine }) => {
	formOnly(ctx);
	const get = getterOf(auth.allParams);
	const f = engine.futures;
	const c = tradingContract(get, (x) => f.contract(x.symbol));
	const side = get('side');
	if (side !== 'LONG')
		throw fieldError('side', `LONG (only LONG positions exist), not '${String(side)}'`);
	if (get('takeProfit') === undefined && get('stopLoss') === undefined)
		throw fieldError('takeProfit', 'send takeProfit, stopLoss or both');
	const accountId = accountOrRefuse(auth.key);
	const held = f.book.position(accountId, c.symbol)?.baseQty ?? D.ZERO;
	const mark = f.trader.markTick(c);
	const tp = positionLeg(get, c, mark, held, 'takeProfit');
	const sl = positionLeg(get, c, mark, held, 'stopLoss');
	if (!D.isPositive(held)) throw orderCreateFailed(`no LONG position of ${c.symbol}`);
	const stop: PositionStop = {};
	if (tp) stop.takeProfit = tp;
	if (sl) stop.stopLoss = sl;
	f.stops.set(`${accountId}/${c.symbol}`, stop);
	f.afterWrite();
	return json(200, {
		symbol: c.symbol,
		side: 'LONG',
		takeProfit: tp?.price ?? '',
		stopLoss: sl?.price ?? '',
		tpTriggerBy: tp?.triggerBy ?? '',
		slTriggerBy: sl?.triggerBy ?? '',
		tpSize: tp?.size ?? '',
		slSize: sl?.size ?? '',
	});
};

/**
 * POST /api/v2/futures/leverage: the contract's leverage for later orders and the position's
 * margin. Refused 0401 when an open position would need more margin than is available.
 */
export const setLeverage: Handler = (ctx, auth, { engine }) => {
	formOnly(ctx);
	const get = getterOf(auth.allParams);
	const f = engine.futures;
	const c = tradingContract(get, (x) => f.contract(x.symbol));
	const leverage = leverageParam(get, undefined);
	const accountId = accountOrRefuse(auth.key);
	const position = f.positionsOf(accountId, c.symbol)[0];
	if (position) {
		const newMargin = D.divTrunc(D.parseDec(position.quoteQty)!, D.parseDec(leverage)!, 4);
		const free = D.sub(D.add(f.trader.free(accountId), D.parseDec(position.margin)!), newMargin);
		if (!D.isPositive(free) && free.v !== 0n)
			throw apiError(
				CODES.insufficientAsset,
				`insufficient balance: the ${c.symbol} position needs ${D.fmt(newMargin)} ${c.quote} of margin at leverage ${leverage}`,
			);
	}
	f.setLeverage(c.symbol, leverage);
	f.afterWrite();
	return json(200, { code: '0000', symbolId: c.symbol, leverage });
};
