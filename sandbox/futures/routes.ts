/**
 * The futures read side, GET /api/v2/futures/*: signed, read permission, weight 1, request-rate
 * class 'query' each (the UAE documentation's "Futures Trading" section). The master-kind keys
 * read the contract account 10003; the sub key has no futures account, so its account reads
 * (positions, balance, orders, fills, funding fees, leverage) answer empty lists and its order
 * lookups 0211, never another account's data. Funding rates and commission rates are the
 * contract's, the same for every key. Lists are newest first. docs/api.md "Futures (read side)".
 */
import { CODES } from '../codes';
import { DAY_MS, TRADES_DAYS } from '../constants';
import { apiError, fieldError } from '../errors';
import { json, type Resp } from '../response';
import type { Authed, RequestContext, Services } from '../routes/route';
import { findContract } from './contracts';
import { futuresAccountOf } from './futures';
import { contractParam, enumParam, idParam, limitParam, timeRange } from './params';
import { orderView, tradeView } from './views';

type Handler = (ctx: RequestContext, auth: Authed, services: Services) => Resp;

/** Limits: [default, maximum] as documented. */
export const FUTURES_LIMITS = {
	historyFundingRate: [20, 100],
	historyFundingFees: [500, 1000],
	openOrders: [20, 500],
	historyOrders: [20, 500],
	userTrades: [20, 1000],
} as const;
/** How far back the order lists reach (days): "the last 7 days", "the last 90 days". */
export const OPEN_ORDERS_DAYS = 7;
export const HISTORY_ORDERS_DAYS = 90;

const ORDER_TYPES = ['LIMIT', 'STOP'] as const;

export const positions: Handler = (_ctx, auth, { engine }) => {
	const p = auth.queryParams;
	const c = contractParam(p, false);
	const side = enumParam(p, 'side', ['LONG', 'SHORT'], false);
	const accountId = futuresAccountOf(auth.key);
	// net mode, LONG only: no SHORT position exists
	if (!accountId || side === 'SHORT') return json(200, []);
	return json(200, engine.futures.positionsOf(accountId, c?.symbol));
};

export const balance: Handler = (_ctx, auth, { engine }) => {
	const accountId = futuresAccountOf(auth.key);
	return json(200, accountId ? engine.futures.balanceOf(accountId) : []);
};

export const fundingRate: Handler = (_ctx, auth, { engine, now }) => {
	const p = auth.queryParams;
	const c = contractParam(p, false);
	enumParam(p, 'state', ['current'], false);
	// "Returns [] if not specified"
	if (!c) return json(200, []);
	const { rate, nextFundingTime } = engine.futures.funding.current(c.symbol, now());
	return json(200, [{ symbol: c.symbol, rate, nextFundingTime: String(nextFundingTime) }]);
};

/**
 * Settled rates, newest first. The documentation does not say whether `endId` is inclusive:
 * behaviour fundingHistoryEndId picks the reading ('inclusive', the default, or 'exclusive': ids
 * below it); fundingHistoryIds the numbering ('shared' by every contract, or 'perContract').
 */
export const historyFundingRate: Handler = (_ctx, auth, { engine, behaviour }) => {
	const p = auth.queryParams;
	const c = contractParam(p, true);
	const fromId = idParam(p, 'fromId');
	const endId = idParam(p, 'endId');
	if (fromId !== undefined && endId !== undefined && fromId > endId)
		throw fieldError('fromId', 'fromId must not be above endId');
	const [dflt, max] = FUTURES_LIMITS.historyFundingRate;
	const limit = limitParam(p, dflt, max);
	const upTo =
		endId !== undefined && behaviour.fundingHistoryEndId === 'exclusive' ? endId - 1n : endId;
	const ids = behaviour.fundingHistoryIds;
	const list = engine.futures.funding.history(c.symbol, limit, fromId, upTo, ids);
	return json(
		200,
		list.map((r) => ({
			id: r.id,
			symbol: r.symbol,
			settleTime: String(r.settleTime),
			settleRate: r.settleRate,
		})),
	);
};

export const historyFundingFees: Handler = (_ctx, auth, { engine }) => {
	const p = auth.queryParams;
	const c = contractParam(p, true);
	const { startTime, endTime } = timeRange(p, true);
	const own = futuresAccountOf(auth.key);
	const accountId = p.get('accountId');
	if (accountId !== undefined) {
		if (!/^\d{1,20}$/.test(accountId)) throw fieldError('accountId', 'numeric account id');
		if (accountId !== own)
			throw apiError(
				CODES.accountNotAllowed,
				`'${accountId}' is not a futures account of this key`,
			);
	}
	const [dflt, max] = FUTURES_LIMITS.historyFundingFees;
	const limit = limitParam(p, dflt, max);
	if (!own) return json(200, []);
	return json(200, engine.futures.feesOf(own, c.symbol, startTime!, endTime!, limit));
};

/** openOrders and historyOrders: the key's orders of the window, newest first. */
function orderList(auth: Authed, services: Services, open: boolean): Resp {
	const p = auth.queryParams;
	const c = contractParam(p, !open);
	const type = enumParam(p, 'type', ORDER_TYPES, true);
	const before = idParam(p, 'fromOrderId');
	const [dflt, max] = open ? FUTURES_LIMITS.openOrders : FUTURES_LIMITS.historyOrders;
	const limit = limitParam(p, dflt, max);
	const { startTime, endTime } = timeRange(p);
	const accountId = futuresAccountOf(auth.key);
	if (!accountId) return json(200, []);
	const days = open ? OPEN_ORDERS_DAYS : HISTORY_ORDERS_DAYS;
	const windowStart = services.now() - days * DAY_MS;
	const list = services.engine.futures.book.listOrders({
		accountId,
		symbol: c?.symbol,
		open,
		stop: type === 'STOP',
		beforeOrderId: before,
		startTime: Math.max(startTime ?? 0, windowStart),
		endTime: endTime ?? Number.MAX_SAFE_INTEGER,
		limit,
	});
	return json(
		200,
		list.map((o) => orderView(o, findContract(o.symbol)!)),
	);
}

export const openOrders: Handler = (_ctx, auth, services) => orderList(auth, services, true);
export const historyOrders: Handler = (_ctx, auth, services) => orderList(auth, services, false);

export const order: Handler = (_ctx, auth, { engine }) => {
	const p = auth.queryParams;
	const orderId = idParam(p, 'orderId');
	const clientOrderId = p.get('clientOrderId');
	if (orderId === undefined && (clientOrderId === undefined || clientOrderId === ''))
		throw fieldError('orderId', 'orderId or clientOrderId');
	const accountId = futuresAccountOf(auth.key);
	const found = accountId
		? engine.futures.book.findOrder(
				accountId,
				orderId !== undefined ? { orderId: orderId.toString() } : { clientOrderId },
			)
		: undefined;
	if (!found) throw apiError(CODES.orderNotFound);
	return json(200, orderView(found, findContract(found.symbol)!));
};

export const userTrades: Handler = (_ctx, auth, { engine, now }) => {
	const p = auth.queryParams;
	const c = contractParam(p, true);
	const [dflt, max] = FUTURES_LIMITS.userTrades;
	const limit = limitParam(p, dflt, max);
	const fromId = idParam(p, 'fromId');
	const toId = idParam(p, 'toId');
	const { startTime, endTime } = timeRange(p);
	// "Only supports the last 30 days timeframe": a bound before it is refused, as the spot fills
	const windowStart = now() - TRADES_DAYS * DAY_MS;
	if (startTime !== undefined && startTime < windowStart)
		throw apiError(CODES.searchLastMonthOnly, `startTime is before ${windowStart}`);
	if (endTime !== undefined && endTime < windowStart)
		throw apiError(CODES.searchLastMonthOnly, `endTime is before ${windowStart}`);
	const accountId = futuresAccountOf(auth.key);
	if (!accountId) return json(200, []);
	const list = engine.futures.book.listTrades({
		accountId,
		symbol: c.symbol,
		fromId,
		toId,
		startTime: startTime ?? windowStart,
		endTime: endTime ?? Number.MAX_SAFE_INTEGER,
		limit,
	});
	return json(200, list.map(tradeView));
};

export const leverage: Handler = (_ctx, auth, { engine }) => {
	const c = engine.futures.contract(contractParam(auth.queryParams, true).symbol);
	if (!futuresAccountOf(auth.key)) return json(200, []);
	return json(200, [{ symbolId: c.symbol, leverage: c.leverage, marginType: c.marginType }]);
};

export const commissionRate: Handler = (_ctx, auth) => {
	const c = contractParam(auth.queryParams, true);
	return json(200, {
		symbol: c.symbol,
		makerFeeRate: c.makerFeeRate,
		takerFeeRate: c.takerFeeRate,
	});
};
