import type { IDataObject, INode } from 'n8n-workflow';

import { DAY_MS, LIMITS, USER_STREAM } from '../constants';
import { TradesWalk } from '../helpers/trades';
import { ENDPOINTS, type ServiceClient } from '../transport';
import { orderChangeOfOrder, type BalanceChange, type OrderChange } from './events';
import type { StreamState } from './state';

/**
 * What happened while the stream was not listening, read over REST (at activation after a
 * restart, and after every reconnect). The exchange cannot replay its stream, so a catch-up reads
 * each order's state now:
 * - the fills since the cursor (account trades): the orders that filled, in part or in full;
 * - the open orders now, and the past orders placed since the cursor: what was placed, and what
 *   was placed and ended, while the stream was down;
 * - the orders last seen open that are now in neither list: looked up one by one (cancelled or
 *   filled while the stream was down).
 * Each order becomes one event with its current status; two partial fills during an outage thus
 * come as one event. Balances cannot be replayed: each coin whose balance differs from the last
 * known one becomes one snapshot.
 */

export interface CatchUpResult {
	orders: OrderChange[];
	/** The open orders now (order ID → symbol). */
	open: Record<string, string>;
	/** Orders that could not be read, by ID, with why (they are tried again at the next catch-up). */
	failed: Array<{ orderId: string; reason: string }>;
}

/** Lookups in flight at once: the same order-of-magnitude as the node's other lookups. */
const LOOKUPS_AT_ONCE = 8;

const text = (value: unknown): string | undefined =>
	typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;

export async function catchUpOrders(
	client: ServiceClient,
	node: INode,
	state: StreamState,
	now: number,
): Promise<CatchUpResult> {
	const oldestTrade = now - LIMITS.accountTradesRetentionDays * DAY_MS + LIMITS.maxRecvWindowMs;
	const since = Math.max(state.cursor - USER_STREAM.catchUpOverlapMs, oldestTrade);
	const walk = new TradesWalk(node, { startTime: since, endTime: now + LIMITS.maxRecvWindowMs });
	await client.requestAllPages(ENDPOINTS.accountTrades, walk);

	const openList = (await client.request(ENDPOINTS.openOrders, {
		qs: { limit: LIMITS.ordersPageSize },
	})) as IDataObject[];
	const pastList = (await client.request(ENDPOINTS.tradeOrders, {
		qs: { startTime: since, limit: LIMITS.ordersPageSize },
	})) as IDataObject[];

	const known = new Map<string, OrderChange>();
	const open: Record<string, string> = {};
	for (const order of [...pastList, ...openList]) {
		const change = orderChangeOfOrder(order, now);
		if (change === undefined) continue;
		known.set(change.orderId, change);
	}
	for (const order of openList) {
		const change = orderChangeOfOrder(order, now);
		if (change !== undefined) open[change.orderId] = change.symbol;
	}

	const toLookUp = new Map<string, string>();
	for (const trade of walk.trades) {
		const orderId = text(trade.orderId);
		const symbol = text(trade.symbol);
		if (orderId && symbol && !known.has(orderId)) toLookUp.set(orderId, symbol);
	}
	for (const [orderId, symbol] of Object.entries(state.open)) {
		if (!known.has(orderId)) toLookUp.set(orderId, symbol);
	}

	const failed: CatchUpResult['failed'] = [];
	const queue = [...toLookUp.entries()];
	const lookUp = async (): Promise<void> => {
		for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
			const [orderId, symbol] = next;
			try {
				const order = (await client.request(ENDPOINTS.queryOrder, {
					qs: { orderId },
				})) as IDataObject;
				const change = orderChangeOfOrder(order, now);
				if (change !== undefined) known.set(orderId, change);
			} catch (error) {
				failed.push({ orderId, reason: (error as Error).message });
				// Still open as far as anyone knows: the next catch-up tries it again.
				open[orderId] ??= symbol;
			}
		}
	};
	await Promise.all(Array.from({ length: LOOKUPS_AT_ONCE }, lookUp));

	const orders = [...known.values()]
		// An open order that has not changed since before the cursor is no event; one looked up
		// changed (it filled, or it is no longer open).
		.filter((change) => change.time >= since || toLookUp.has(change.orderId))
		.sort((a, b) => a.time - b.time);
	return { orders, open, failed };
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
