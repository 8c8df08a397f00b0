/**
 * GET /api/v1/account/trades (weight 5, signed, read): the fills of one trading account, as the
 * UAE documentation describes its "Get Account Trade List": newest first (id descending) whatever
 * the bounds, `fromId` and `toId` exclusive, `limit` default 500 and at most 1000, the last 30 days
 * only. Where the documentation is silent the sandbox takes the strictest reading (docs/api.md).
 */
import { CODES } from '../codes';
import {
	ACCOUNT_TYPES,
	DAY_MS,
	DEFAULT_TRADES_LIMIT,
	MAX_CLIENT_ORDER_ID_LENGTH,
	MAX_TRADES_LIMIT,
	TRADES_DAYS,
	accountsOf,
	tradingAccountOf,
} from '../constants';
import { apiError, fieldError } from '../errors';
import { MENA_CATALOGUE } from '../market/catalogue';
import type { TradeQuery } from '../orders/trades';
import { json, type Resp } from '../response';
import type { Authed, RequestContext, Services } from './route';

/**
 * Whose fills: the key's own trading account, or `accountId`, one of the key's spot trading
 * accounts (a master key may name its sub account's); any other account is refused 0104.
 */
function tradesAccount(auth: Authed): string {
	const accountId = auth.queryParams.get('accountId');
	if (accountId === undefined) return tradingAccountOf(auth.key);
	if (!/^\d{1,20}$/.test(accountId)) throw fieldError('accountId', 'numeric account id');
	const visible = accountsOf(auth.key).filter((a) => ACCOUNT_TYPES[a] === 1);
	if (!visible.includes(accountId))
		throw apiError(CODES.accountNotAllowed, `'${accountId}' is not a trading account of this key`);
	return accountId;
}

export function accountTrades(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const { engine, now } = services;
	const p = auth.queryParams;
	const accountId = tradesAccount(auth);
	const q: TradeQuery = {
		accountId,
		startTime: 0,
		endTime: Number.MAX_SAFE_INTEGER,
		limit: DEFAULT_TRADES_LIMIT,
	};
	const symbol = p.get('symbol');
	if (symbol !== undefined) {
		if (symbol === '') throw fieldError('symbol');
		if (!Object.prototype.hasOwnProperty.call(MENA_CATALOGUE, symbol))
			throw apiError(CODES.instrumentNotFound, `'${symbol}'`);
		q.symbol = symbol;
	}
	const clientOrderId = p.get('clientOrderId');
	if (clientOrderId !== undefined) {
		if (clientOrderId === '' || clientOrderId.length > MAX_CLIENT_ORDER_ID_LENGTH)
			throw fieldError('clientOrderId', `1 to ${MAX_CLIENT_ORDER_ID_LENGTH} characters`);
		q.clientOrderId = clientOrderId;
	}
	for (const name of ['fromId', 'toId'] as const) {
		const v = p.get(name);
		if (v === undefined) continue;
		if (!/^\d{1,20}$/.test(v)) throw fieldError(name, 'numeric trade id');
		q[name] = v.replace(/^0+(?=\d)/, '');
	}
	const ms = (name: string): number | undefined => {
		const v = p.get(name);
		if (v === undefined) return undefined;
		if (!/^\d{1,16}$/.test(v)) throw fieldError(name, 'millisecond timestamp');
		return Number(v);
	};
	const startTime = ms('startTime');
	const endTime = ms('endTime');
	const limRaw = p.get('limit');
	if (limRaw !== undefined) {
		if (!/^\d{1,6}$/.test(limRaw) || Number(limRaw) < 1 || Number(limRaw) > MAX_TRADES_LIMIT)
			throw fieldError('limit', `1 to ${MAX_TRADES_LIMIT}`);
		q.limit = Number(limRaw);
	}
	if (startTime !== undefined && endTime !== undefined && startTime > endTime)
		throw fieldError('startTime', 'startTime must not be after endTime');
	// "Only supports the last 30 days timeframe": a bound before it is refused, not cut short, so a
	// client that asks for more learns it gets less
	const windowStart = now() - TRADES_DAYS * DAY_MS;
	if (startTime !== undefined && startTime < windowStart)
		throw apiError(CODES.searchLastMonthOnly, `startTime is before ${windowStart}`);
	if (endTime !== undefined && endTime < windowStart)
		throw apiError(CODES.searchLastMonthOnly, `endTime is before ${windowStart}`);
	q.startTime = startTime ?? windowStart;
	if (endTime !== undefined) q.endTime = endTime;
	return json(200, engine.orders.trades.query(q));
}
