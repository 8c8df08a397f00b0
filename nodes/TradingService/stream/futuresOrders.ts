import type { IDataObject } from 'n8n-workflow';

import {
	compareDecimals,
	formatDecimal,
	parseDecimal,
	subtractDecimals,
} from '../helpers/decimals';
import type { Decimal } from '../helpers/decimals';
import { compareTradeIds } from '../helpers/trades';
import { exchangeTime, futuresFillId, orderEventId, stampOf, text } from './events';
import type { OrderChange } from './events';
import type { OrderEvents } from './restOrders';
import { FUTURES_OPEN_STATUSES } from './streamState';

/**
 * Futures orders and fills read over REST as the events the stream's contractExecutionReport makes
 * of them (docs/trigger.md, "Futures orders"): a fill is one event whose ID is its trade ID, so it
 * does not depend on the order's totals at either read; an order's state now is one more event
 * when it is news and not a fill status (a fill event stands for FILLED and PARTIALLY_FILLED).
 */

/** One futures order read, the list type it belongs to, and when its request was sent (n8n). */
export type FuturesRecord = { order: IDataObject; list: 'LIMIT' | 'STOP'; sentAt: number };

const FILL_STATUSES = ['FILLED', 'PARTIALLY_FILLED'];

const decimalOf = (value: unknown): Decimal | undefined => parseDecimal(text(value) ?? '');

const ZERO: Decimal = { units: 0n, scale: 0 };

const addDecimals = (a: Decimal, b: Decimal): Decimal =>
	subtractDecimals(a, { units: -b.units, scale: b.scale });

function flag(value: unknown): boolean | undefined {
	if (typeof value === 'boolean') return value;
	return value === 'true' || value === 'false' ? value === 'true' : undefined;
}

/**
 * A futures order as GET /api/v2/futures/order, openOrders and historyOrders give it. Its time is
 * the read's (n8n's clock): the futures order carries its creation time only, no update time.
 */
export function futuresOrderChange(order: IDataObject, sentAt: number): OrderChange | undefined {
	const orderId = text(order.orderId);
	const status = text(order.status);
	const symbol = text(order.symbol);
	const executed = text(order.executedBaseQty);
	if (!orderId || !status || !symbol || executed === undefined) return undefined;
	return {
		id: orderEventId(orderId, status, executed),
		source: 'catchUp',
		market: 'contract',
		...stampOf(undefined, sentAt),
		orderId,
		clientOrderId: text(order.clientOrderId),
		symbol,
		side: text(order.side),
		// The answers write the type in lower case; the stream in upper case.
		orderType: text(order.orderType)?.toUpperCase(),
		status,
		price: text(order.price),
		quantity: text(order.originalBaseQty),
		executedQuantity: executed,
		cumulativeQuoteQuantity: text(order.executedQuoteQty),
		averagePrice: text(order.avgPrice),
		orderTime: text(order.time),
		reduceOnly: flag(order.reduceOnly),
		leverage: text(order.leverage) || undefined,
		isLiquidation: flag(order.isLiquidationOrder),
		liquidationType: text(order.liquidationType) || undefined,
		raw: order,
	};
}

/**
 * The fill events of one order, oldest first. The filled quantity after each fill: counted from 0
 * for an order created in the range (every fill of it is in the range), else back from its filled
 * quantity now, never below 0 (a fill listed after the order was read is not in that quantity yet:
 * the stream, connected by then, brings it too, under the same trade ID).
 */
export function futuresFillChanges(
	record: FuturesRecord,
	fills: IDataObject[],
	since: number,
): OrderChange[] {
	const base = futuresOrderChange(record.order, record.sentAt);
	if (base === undefined) return [];
	const ordered = decimalOf(record.order.originalBaseQty);
	const executedNow = decimalOf(record.order.executedBaseQty) ?? ZERO;
	const sorted = fills
		.filter((fill) => decimalOf(fill.quantity) !== undefined && text(fill.tradeId) !== undefined)
		.sort((a, b) => compareTradeIds(String(a.tradeId), String(b.tradeId)));
	const inRange = sorted.reduce((sum, fill) => addDecimals(sum, decimalOf(fill.quantity)!), ZERO);
	const createdAt = exchangeTime(record.order.time);
	let before =
		createdAt !== undefined && createdAt >= since ? ZERO : subtractDecimals(executedNow, inRange);
	if (before.units < 0n) before = ZERO;
	const newest = sorted[sorted.length - 1];
	return sorted.map((fill) => {
		const after = addDecimals(before, decimalOf(fill.quantity)!);
		before = after;
		const complete =
			ordered !== undefined && ordered.units > 0n
				? compareDecimals(after, ordered) >= 0
				: fill === newest && base.status === 'FILLED';
		const tradeId = String(fill.tradeId);
		const status = complete ? 'FILLED' : 'PARTIALLY_FILLED';
		const change: OrderChange = {
			...base,
			id: futuresFillId(tradeId),
			otherId: orderEventId(base.orderId, status, formatDecimal(after)),
			...stampOf(fill.time, base.seenAt),
			status,
			executedQuantity: formatDecimal(after),
			lastFill: {
				quantity: String(fill.quantity),
				price: text(fill.price) ?? '',
				fee: text(fill.commission),
				feeCoin: text(fill.commissionAsset) || undefined,
				tradeId,
				isMaker: flag(fill.isMaker),
			},
			raw: fill,
		};
		// The order's totals now say nothing of an earlier fill's moment.
		if (compareDecimals(after, executedNow) !== 0) {
			delete change.cumulativeQuoteQuantity;
			delete change.averagePrice;
		}
		return change;
	});
}

/**
 * The orders whose fills a catch-up cannot count from one read: created before the range (counted
 * back from the filled quantity at their read), still working then, with fills listed. A fill made
 * between the order's read and the fill list's is listed but not in that quantity: such an order is
 * read again after the fill list (futuresCatchUp.ts), and its fills count only if it did not move.
 */
export function ordersToSettle(
	fills: IDataObject[],
	records: Iterable<[string, FuturesRecord]>,
	since: number,
): string[] {
	const filled = new Set(fills.map((fill) => text(fill.orderId)));
	return [...records]
		.filter(
			([orderId, { order }]) =>
				filled.has(orderId) &&
				FUTURES_OPEN_STATUSES.includes(text(order.status) ?? '') &&
				!((exchangeTime(order.time) ?? 0) >= since),
		)
		.map(([orderId]) => orderId);
}

/**
 * The fill events of every order read, then each order's state now when it is news: not a fill
 * status, and created in the range or followed (last seen open) and ended. The others are kept
 * (`unchanged`: open ones stay followed, filled ones leave) but not emitted. An order `reread`
 * after the fill list with another filled quantity gives nothing: it is `unsettled`, read again.
 */
export function futuresEventsOf(
	fills: IDataObject[],
	records: Iterable<[string, FuturesRecord]>,
	range: {
		since: number;
		lastSeenOpen: ReadonlySet<string>;
		reread?: ReadonlyMap<string, IDataObject>;
	},
): OrderEvents & { unsettled: string[] } {
	const byOrder = new Map<string, IDataObject[]>();
	for (const fill of fills) {
		const orderId = text(fill.orderId);
		if (orderId !== undefined) byOrder.set(orderId, [...(byOrder.get(orderId) ?? []), fill]);
	}
	const changes = new Map<string, OrderChange>();
	const unchanged: OrderChange[] = [];
	const unsettled: string[] = [];
	for (const [orderId, record] of records) {
		const state = futuresOrderChange(record.order, record.sentAt);
		if (state === undefined) continue;
		const again = range.reread?.get(orderId);
		const executed = (order: IDataObject) => decimalOf(order.executedBaseQty) ?? ZERO;
		if (again !== undefined && compareDecimals(executed(again), executed(record.order)) !== 0) {
			unsettled.push(orderId);
			continue;
		}
		for (const change of futuresFillChanges(record, byOrder.get(orderId) ?? [], range.since))
			changes.set(change.id, change);
		const open = FUTURES_OPEN_STATUSES.includes(state.status);
		const created = exchangeTime(record.order.time);
		const news =
			!FILL_STATUSES.includes(state.status) &&
			((created !== undefined && created >= range.since) ||
				(!open && range.lastSeenOpen.has(orderId)));
		if (news) changes.set(state.id, state);
		else if (open || FILL_STATUSES.includes(state.status)) unchanged.push(state);
	}
	return { changes: [...changes.values()].sort((a, b) => a.time - b.time), unchanged, unsettled };
}
