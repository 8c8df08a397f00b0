import type { IDataObject, INode } from 'n8n-workflow';

import { DAY_MS, ERROR_CODES, LIMITS, USER_STREAM } from '../constants';
import { inScope, type AccountScope } from '../helpers/accountScope';
import {
	compareDecimals,
	formatDecimal,
	parseDecimal,
	subtractDecimals,
	type Decimal,
} from '../helpers/decimals';
import { TradesWalk, compareTradeIds } from '../helpers/trades';
import { ENDPOINTS, isServiceRejection, type Pager, type ServiceClient } from '../transport';
import { orderChangeOfOrder, orderEventId, type BalanceChange, type OrderChange } from './events';
import type { StreamState } from './state';

/**
 * What happened while the stream was not listening, read over REST (at activation after a
 * restart, and after every reconnect). The exchange cannot replay its stream, so a catch-up reads:
 * - the fills since the cursor (account trades): each fill becomes the event the stream sent for
 *   it (PARTIALLY_FILLED, or FILLED for the one that completed the order) with the same ID, so a
 *   fill the stream already brought is not emitted again, and one it did not bring is emitted once,
 *   whatever the order did after it (filled on, or cancelled);
 * - the open orders now, and the past orders placed since the cursor: what was placed, and what
 *   was placed and ended, while the stream was down;
 * - the orders last seen open that are now in neither list: looked up one by one (cancelled or
 *   filled while the stream was down).
 * Each order's state now is one more event (its cancellation, say); one that a fill event already
 * stands for is not repeated. Balances cannot be replayed: each coin whose balance differs from
 * the last known one becomes one snapshot.
 *
 * Every request names the account the trigger follows (`accountId`), and a record that names
 * another account is dropped: a master key's lists also hold its sub accounts' orders.
 */

export interface CatchUpResult {
	/** Fill and state events, oldest first. */
	orders: OrderChange[];
	/** The open orders now (order ID → symbol). */
	open: Record<string, string>;
	/** Orders that could not be read, by ID, with why (they are tried again at the next catch-up). */
	failed: Array<{ orderId: string; reason: string }>;
	/** Orders last seen open that the exchange says do not exist (or are another account's): forgotten. */
	gone: string[];
}

/** Lookups in flight at once: the same order-of-magnitude as the node's other lookups. */
const LOOKUPS_AT_ONCE = 8;

const NOT_FOUND_CODES = [ERROR_CODES.orderNotFound, ERROR_CODES.orderDoesNotExist];

const text = (value: unknown): string | undefined =>
	typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;

const decimalOf = (value: unknown): Decimal | undefined => {
	const raw = text(value);
	return raw === undefined ? undefined : parseDecimal(raw);
};

const addDecimals = (a: Decimal, b: Decimal): Decimal =>
	subtractDecimals(a, { units: -b.units, scale: b.scale });

/** The trade list of one account: the walk's own requests, each naming the account. */
function scopedPager(walk: TradesWalk, scope: AccountScope): Pager {
	return {
		next: () => {
			const request = walk.next();
			if (request === undefined) return undefined;
			return { ...request, qs: { ...request.qs, accountId: scope.accountId } };
		},
		take: (page) => walk.take(page),
	};
}

/**
 * The fill events of one order, from its fills in the catch-up's range (any order) and its state
 * now. The filled quantity after each fill is counted back from the order's filled quantity now:
 * exact whatever filled before the range. A fill listed with a time after the order's last update
 * is not in that quantity yet (it came between the two reads) and is counted forward instead.
 */
export function fillChangesOfOrder(
	order: IDataObject,
	fills: IDataObject[],
	readAt: number,
): OrderChange[] {
	const base = orderChangeOfOrder(order, readAt);
	const executedNow = decimalOf(order.executedQty);
	if (base === undefined || executedNow === undefined) return [];
	const ordered = decimalOf(order.origQty);
	const updatedAt = Number(text(order.updateTime) ?? Number.NaN);
	const sorted = fills
		.filter((fill) => decimalOf(fill.qty) !== undefined && text(fill.id) !== undefined)
		.sort((a, b) => compareTradeIds(String(a.id), String(b.id)));
	const isLate = (fill: IDataObject): boolean =>
		Number.isFinite(updatedAt) && Number(text(fill.time)) > updatedAt;
	const counted = sorted.filter((fill) => !isLate(fill));
	const late = sorted.filter(isLate);
	const after = new Map<IDataObject, Decimal>();
	let remaining = executedNow;
	for (let index = counted.length - 1; index >= 0; index--) {
		after.set(counted[index], remaining);
		remaining = subtractDecimals(remaining, decimalOf(counted[index].qty) as Decimal);
	}
	if (remaining.units < 0n) return [];
	let forward = executedNow;
	for (const fill of late) {
		forward = addDecimals(forward, decimalOf(fill.qty) as Decimal);
		after.set(fill, forward);
	}
	const newest = sorted[sorted.length - 1];
	return sorted.map((fill) => {
		const executed = after.get(fill) as Decimal;
		const complete =
			ordered !== undefined && ordered.units > 0n
				? compareDecimals(executed, ordered) >= 0
				: fill === newest && base.status === 'FILLED' && !isLate(fill);
		const status = complete ? 'FILLED' : 'PARTIALLY_FILLED';
		const executedQuantity = formatDecimal(executed);
		const change: OrderChange = {
			...base,
			id: orderEventId(base.orderId, status, executedQuantity),
			time: Number(text(fill.time)) || base.time,
			status,
			executedQuantity,
			lastFill: {
				quantity: String(fill.qty),
				price: text(fill.price) ?? '',
				fee: text(fill.commission),
				feeCoin: text(fill.commissionAsset) || undefined,
				tradeId: String(fill.id),
				isMaker: typeof fill.isMaker === 'boolean' ? fill.isMaker : undefined,
			},
			raw: fill,
		};
		// The order's state now is the state right after its newest counted fill; of an earlier
		// fill's moment it says nothing, so its totals are left out there.
		if (isLate(fill) || compareDecimals(executed, executedNow) !== 0) {
			delete change.cumulativeQuoteQuantity;
			delete change.averagePrice;
		}
		return change;
	});
}

export async function catchUpOrders(
	client: ServiceClient,
	node: INode,
	state: StreamState,
	now: number,
	scope: AccountScope,
): Promise<CatchUpResult> {
	const oldestTrade = now - LIMITS.accountTradesRetentionDays * DAY_MS + LIMITS.maxRecvWindowMs;
	const since = Math.max(state.cursor - USER_STREAM.catchUpOverlapMs, oldestTrade);
	const walk = new TradesWalk(node, { startTime: since, endTime: now + LIMITS.maxRecvWindowMs });
	await client.requestAllPages(ENDPOINTS.accountTrades, scopedPager(walk, scope));
	const trades = walk.trades.filter((trade) => inScope(scope, trade));

	const openList = (
		(await client.request(ENDPOINTS.openOrders, {
			qs: { limit: LIMITS.ordersPageSize, accountId: scope.accountId },
		})) as IDataObject[]
	).filter((order) => inScope(scope, order));
	const pastList = (
		(await client.request(ENDPOINTS.tradeOrders, {
			qs: { startTime: since, limit: LIMITS.ordersPageSize, accountId: scope.accountId },
		})) as IDataObject[]
	).filter((order) => inScope(scope, order));

	const records = new Map<string, IDataObject>();
	const open: Record<string, string> = {};
	for (const order of [...pastList, ...openList]) {
		const orderId = text(order.orderId);
		if (orderId !== undefined && orderChangeOfOrder(order, now) !== undefined)
			records.set(orderId, order);
	}
	for (const order of openList) {
		const change = orderChangeOfOrder(order, now);
		if (change !== undefined) open[change.orderId] = change.symbol;
	}

	const toLookUp = new Map<string, string>();
	for (const trade of trades) {
		const orderId = text(trade.orderId);
		const symbol = text(trade.symbol);
		if (orderId && symbol && !records.has(orderId)) toLookUp.set(orderId, symbol);
	}
	for (const [orderId, symbol] of Object.entries(state.open)) {
		if (!records.has(orderId)) toLookUp.set(orderId, symbol);
	}

	const failed: CatchUpResult['failed'] = [];
	const gone: string[] = [];
	const queue = [...toLookUp.entries()];
	const lookUp = async (): Promise<void> => {
		for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
			const [orderId, symbol] = next;
			try {
				const order = (await client.request(ENDPOINTS.queryOrder, {
					qs: { orderId, accountId: scope.accountId },
				})) as IDataObject;
				if (!inScope(scope, order)) gone.push(orderId);
				else if (orderChangeOfOrder(order, now) !== undefined) records.set(orderId, order);
			} catch (error) {
				if (NOT_FOUND_CODES.some((code) => isServiceRejection(error, code))) {
					// Asked by ID in its account: the exchange says it has no such order, so asking
					// again at every reconnect would only get the same answer.
					gone.push(orderId);
					continue;
				}
				failed.push({ orderId, reason: (error as Error).message });
				// Still open as far as anyone knows: the next catch-up tries it again.
				open[orderId] ??= symbol;
			}
		}
	};
	await Promise.all(Array.from({ length: LOOKUPS_AT_ONCE }, lookUp));

	const fillsByOrder = new Map<string, IDataObject[]>();
	for (const trade of trades) {
		const orderId = text(trade.orderId);
		if (orderId === undefined) continue;
		const list = fillsByOrder.get(orderId) ?? [];
		list.push(trade);
		fillsByOrder.set(orderId, list);
	}

	const changes = new Map<string, OrderChange>();
	for (const [orderId, fills] of fillsByOrder) {
		const order = records.get(orderId);
		if (order === undefined) continue;
		for (const change of fillChangesOfOrder(order, fills, now)) changes.set(change.id, change);
	}
	for (const [orderId, order] of records) {
		const change = orderChangeOfOrder(order, now);
		if (change === undefined || changes.has(change.id)) continue;
		// An open order that has not changed since before the cursor is no event; one looked up
		// changed (it filled, or it is no longer open).
		if (change.time < since && !toLookUp.has(orderId)) continue;
		changes.set(change.id, change);
	}
	const orders = [...changes.values()].sort((a, b) => a.time - b.time);
	return { orders, open, failed, gone };
}

/** A coin's balance read now, as a snapshot event. */
function snapshot(
	coin: string,
	free: string,
	locked: string,
	now: number,
	raw: IDataObject,
): BalanceChange {
	return {
		id: `balance-snapshot-${now}-${coin}`,
		source: 'catchUp',
		market: 'spot',
		time: now,
		coin,
		free,
		locked,
		raw,
	};
}

/** One snapshot per coin whose free or locked balance differs from the last known one. */
export async function catchUpBalances(
	client: ServiceClient,
	lastKnown: Record<string, string>,
	now: number,
	same: (coin: string, free: string, locked: string) => boolean,
): Promise<BalanceChange[]> {
	const answer = (await client.request(ENDPOINTS.account)) as { balances: IDataObject[] };
	const changes: BalanceChange[] = [];
	const listed = new Set<string>();
	for (const line of answer.balances) {
		const coin = text(line.asset) ?? text(line.coin);
		const free = text(line.free);
		const locked = text(line.locked);
		if (!coin || free === undefined || locked === undefined) continue;
		listed.add(coin);
		if (!same(coin, free, locked)) changes.push(snapshot(coin, free, locked, now, line));
	}
	// A coin the account no longer lists went to zero.
	for (const coin of Object.keys(lastKnown)) {
		if (listed.has(coin) || same(coin, '0', '0')) continue;
		changes.push(snapshot(coin, '0', '0', now, { asset: coin, free: '0', locked: '0' }));
	}
	return changes;
}
