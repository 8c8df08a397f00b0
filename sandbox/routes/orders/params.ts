/** Parameters the order endpoints share: which accounts a key reads, list filters, limits. */
import { CODES } from '../../codes';
import { ACCOUNT_TYPES, accountsOf, tradingAccountOf } from '../../constants';
import { MENA_CATALOGUE } from '../../market/catalogue';
import { apiError, fieldError } from '../../errors';
import type { OrderListFilter } from '../../orders/state';
import type { DemoKey, OrderSide } from '../../types';

/** The spot trading accounts a key may read orders of: master sees its sub account's orders too. */
export function orderAccountsOf(key: DemoKey): string[] {
	return key.kind === 'master'
		? accountsOf(key).filter((a) => ACCOUNT_TYPES[a] === 1)
		: [tradingAccountOf(key)];
}

/** The trading accounts an order read covers: the optional accountId (must be visible to the key) or all visible. */
export function orderAccounts(key: DemoKey, accountId: string | undefined): string[] {
	const visible = orderAccountsOf(key);
	if (accountId === undefined) return visible;
	if (!/^\d{1,20}$/.test(accountId)) throw fieldError('accountId', 'numeric account id');
	if (!visible.includes(accountId))
		throw apiError(CODES.accountNotAllowed, `'${accountId}' is not a trading account of this key`);
	return [accountId];
}

/**
 * Optional symbol (known, else 0201), side and paging order id (`pageParam`; none when the endpoint
 * takes no paging parameter) of the order lists.
 */
export function orderFilter(p: Map<string, string>, pageParam?: string): OrderListFilter {
	const f: OrderListFilter = {};
	const symbol = p.get('symbol');
	if (symbol !== undefined) {
		if (symbol === '') throw fieldError('symbol');
		if (!Object.prototype.hasOwnProperty.call(MENA_CATALOGUE, symbol))
			throw apiError(CODES.instrumentNotFound, `'${symbol}'`);
		f.symbol = symbol;
	}
	const side = p.get('side');
	if (side !== undefined) {
		if (side !== 'BUY' && side !== 'SELL') throw fieldError('side', 'BUY or SELL');
		f.side = side as OrderSide;
	}
	const from = pageParam === undefined ? undefined : p.get(pageParam);
	if (pageParam !== undefined && from !== undefined) {
		if (!/^\d{1,20}$/.test(from)) throw fieldError(pageParam, 'numeric order id');
		f.beforeOrderId = from;
	}
	return f;
}

/** `limit`: `dflt` when absent; above `max` it is cut to `max` with `cap`, else rejected. */
export function limitParam(
	p: Map<string, string>,
	dflt: number,
	max: number,
	cap: boolean,
): number {
	const raw = p.get('limit');
	if (raw === undefined) return dflt;
	if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1 || (!cap && Number(raw) > max))
		throw fieldError('limit', `1 to ${max}`);
	return Math.min(Number(raw), max);
}
