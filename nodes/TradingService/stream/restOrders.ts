import type { IDataObject, INode } from 'n8n-workflow';

import { DAY_MS, ERROR_CODES, LIMITS } from '../constants';
import { USER_STREAM } from './activation';
import { inScope, type AccountScope } from '../helpers/accountScope';
import {
	compareDecimals,
	formatDecimal,
	parseDecimal,
	subtractDecimals,
	type Decimal,
} from '../helpers/decimals';
import { TradesWalk, compareTradeIds } from '../helpers/trades';
import { ENDPOINTS, isServiceRejection, type ServiceClient } from '../transport';
import { orderEventId, text, time, type OrderChange } from './events';
import type { StreamState } from './state';

/**
 * The orders of what happened while the stream was not listening, read over REST (the exchange
 * cannot replay its stream):
 * - the fills since the cursor (account trades): each fill becomes the event the stream sent for
 *   it (PARTIALLY_FILLED, or FILLED for the one that completed the order) with the same ID, so a
 *   fill the stream already brought is not emitted again, and one it did not bring is emitted once,
 *   whatever the order did after it (filled on, or cancelled);
 * - the open orders now, and the past orders placed since the cursor: what was placed, and what
 *   was placed and ended, while the stream was down;
 * - the orders last seen open that are now in neither list: looked up one by one (cancelled or
 *   filled while the stream was down).
 * Each order's state now is one more event (its cancellation, say); one that a fill event already
 * stands for is not repeated.
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

const decimalOf = (value: unknown): Decimal | undefined => {
	const raw = text(value);
	return raw === undefined ? undefined : parseDecimal(raw);
};

const addDecimals = (a: Decimal, b: Decimal): Decimal =>
	subtractDecimals(a, { units: -b.units, scale: b.scale });

/** An order as the REST order endpoints give it (query, open orders, past orders). */
export function orderChangeOfOrder(order: IDataObject, readAt: number): OrderChange | undefined {
	const orderId = text(order.orderId);
	const status = text(order.status);
	const symbol = text(order.symbol);
	const executed = text(order.executedQty);
	if (!orderId || !status || !symbol || executed === undefined) return undefined;
	return {
		id: orderEventId(orderId, status, executed),
		source: 'catchUp',
		market: 'spot',
		time: time(order.updateTime, time(order.time, readAt)),
		orderId,
		clientOrderId: text(order.clientOrderId),
		symbol,
		side: text(order.side),
		orderType: text(order.type),
		status,
		price: text(order.price),
		quantity: text(order.origQty),
		executedQuantity: executed,
		cumulativeQuoteQuantity: text(order.cummulativeQuoteQty ?? order.cumulativeQuoteQty),
		averagePrice: text(order.avgPrice),
		orderTime: text(order.time),
		raw: order,
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

/**
 * Looks up each order of `toLookUp` by ID, `LOOKUPS_AT_ONCE` at a time: what is found goes to
 * `records`; what cannot be read stays in `open`, to be tried again at the next catch-up.
 */
async function lookUpOrders(
	client: ServiceClient,
	scope: AccountScope,
	toLookUp: Map<string, string>,
	now: number,
	{ records, open }: { records: Map<string, IDataObject>; open: Record<string, string> },
): Promise<Pick<CatchUpResult, 'failed' | 'gone'>> {
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
	return { failed, gone };
}

/** The fill events of every order read, then each order's state now unless it is no news. */
function orderChangesOf(
	trades: IDataObject[],
	records: Map<string, IDataObject>,
	lookedUp: Map<string, string>,
	since: number,
	now: number,
): OrderChange[] {
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
		if (change.time < since && !lookedUp.has(orderId)) continue;
		changes.set(change.id, change);
	}
	return [...changes.values()].sort((a, b) => a.time - b.time);
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
	await client.requestAllPages(ENDPOINTS.accountTrades, {
		// The walk's own requests, each naming the account.
		next: () => {
			const request = walk.next();
			return request && { ...request, qs: { ...request.qs, accountId: scope.accountId } };
		},
		take: (page) => walk.take(page),
	});
	const trades = walk.trades.filter((trade) => inScope(scope, trade));
	const ordersOf = async (endpoint: 'openOrders' | 'tradeOrders', qs: IDataObject = {}) =>
		(
			(await client.request(ENDPOINTS[endpoint], {
				qs: { ...qs, limit: LIMITS.ordersPageSize, accountId: scope.accountId },
			})) as IDataObject[]
		).filter((order) => inScope(scope, order));
	const openList = await ordersOf('openOrders');
	const pastList = await ordersOf('tradeOrders', { startTime: since });
	const records = new Map<string, IDataObject>();
	const open: Record<string, string> = {};
	for (const order of [...pastList, ...openList]) {
		const change = orderChangeOfOrder(order, now);
		if (change !== undefined) records.set(change.orderId, order);
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
	for (const [orderId, symbol] of Object.entries(state.open))
		if (!records.has(orderId)) toLookUp.set(orderId, symbol);
	const { failed, gone } = await lookUpOrders(client, scope, toLookUp, now, { records, open });
	const orders = orderChangesOf(trades, records, toLookUp, since, now);
	return { orders, open, failed, gone };
}
