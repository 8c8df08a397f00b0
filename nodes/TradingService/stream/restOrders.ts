import type { IDataObject } from 'n8n-workflow';

import { OPEN_ORDER_STATUSES } from '../constants';
import {
	compareDecimals,
	formatDecimal,
	parseDecimal,
	subtractDecimals,
	type Decimal,
} from '../helpers/decimals';
import { compareTradeIds } from '../helpers/trades';
import { exchangeTime, orderEventId, stampOf, text, type OrderChange } from './events';

/**
 * Orders read over REST as events (the exchange cannot replay its stream): each fill read becomes
 * the event the stream sent for it, with the same ID, and each order's state now one more event,
 * unless a fill event stands for it or it is no news (docs/trigger.md, "No gaps, no repeats").
 */

/** One order as a list or a lookup gave it, and when its request was sent (n8n's clock). */
export type OrderRecord = { order: IDataObject; sentAt: number };

const decimalOf = (value: unknown): Decimal | undefined => parseDecimal(text(value) ?? '');

const addDecimals = (a: Decimal, b: Decimal): Decimal =>
	subtractDecimals(a, { units: -b.units, scale: b.scale });

/**
 * An order as the REST order endpoints give it (query, open orders, past orders), read by a request
 * sent at `sentAt`: its time is its update time, or, without one, `sentAt` on n8n's clock.
 */
export function orderChangeOfOrder(order: IDataObject, sentAt: number): OrderChange | undefined {
	const orderId = text(order.orderId);
	const status = text(order.status);
	const symbol = text(order.symbol);
	const executed = text(order.executedQty);
	if (!orderId || !status || !symbol || executed === undefined) return undefined;
	return {
		id: orderEventId(orderId, status, executed),
		source: 'catchUp',
		market: 'spot',
		...stampOf(order.updateTime, sentAt),
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
	sentAt: number,
): OrderChange[] {
	const base = orderChangeOfOrder(order, sentAt);
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
			...stampOf(fill.time, base.seenAt),
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

function fillsByOrder(fills: IDataObject[]): Map<string, IDataObject[]> {
	const byOrder = new Map<string, IDataObject[]>();
	for (const fill of fills) {
		const orderId = text(fill.orderId);
		if (orderId === undefined) continue;
		const list = byOrder.get(orderId) ?? [];
		list.push(fill);
		byOrder.set(orderId, list);
	}
	return byOrder;
}

export interface OrderEvents {
	/** Fill events and order states that are news, oldest first. */
	changes: OrderChange[];
	/** Open orders that have not changed since before `since`: kept as open, not emitted. */
	unchanged: OrderChange[];
}

/**
 * Whether an order's state now is news: it changed since `since` (its update time, else its
 * creation time), or it ended and was followed (last seen open, or filled in the range). An order
 * the past orders' lower pages list that ended before the range and was not followed is not.
 */
function isNews(
	record: OrderRecord,
	state: OrderChange,
	since: number,
	followed: boolean,
): boolean {
	const changedAt = exchangeTime(record.order.updateTime) ?? exchangeTime(record.order.time);
	if (changedAt === undefined || changedAt >= since) return true;
	return followed && !OPEN_ORDER_STATUSES.includes(state.status);
}

/**
 * The fill events of every order read, then each order's state now unless a fill event stands for
 * it or it is no news (isNews). `lastSeenOpen`: the orders the trigger last saw open.
 */
export function orderEventsOf(
	fills: IDataObject[],
	records: { entries(): Iterable<[string, OrderRecord]> },
	range: { since: number; lastSeenOpen: ReadonlySet<string> },
): OrderEvents {
	const byOrder = fillsByOrder(fills);
	const changes = new Map<string, OrderChange>();
	const states: Array<[OrderRecord, OrderChange, boolean]> = [];
	for (const [orderId, record] of records.entries()) {
		const state = orderChangeOfOrder(record.order, record.sentAt);
		if (state === undefined) continue;
		const own = byOrder.get(orderId);
		states.push([record, state, own !== undefined || range.lastSeenOpen.has(orderId)]);
		if (own === undefined) continue;
		for (const change of fillChangesOfOrder(record.order, own, record.sentAt))
			changes.set(change.id, change);
	}
	const unchanged: OrderChange[] = [];
	for (const [record, state, followed] of states) {
		if (changes.has(state.id)) continue;
		if (isNews(record, state, range.since, followed)) changes.set(state.id, state);
		else if (OPEN_ORDER_STATUSES.includes(state.status)) unchanged.push(state);
	}
	return { changes: [...changes.values()].sort((a, b) => a.time - b.time), unchanged };
}
