import type { IDataObject } from 'n8n-workflow';

import { formatDecimal, parseDecimal, subtractDecimals } from '../helpers/decimals';

/**
 * The real-time trigger's events: what the user picks, how an exchange message (stream) or an
 * order read over REST (catch-up) becomes one, and its ID. An order event's ID is made of what
 * both sources carry, the order ID, its status and its filled quantity, so the same change seen
 * on the stream and again in a catch-up has one ID and is emitted once.
 */

export const STREAM_EVENT_KINDS = [
	{
		value: 'orderFilled',
		name: 'Order Filled',
		description: 'An order of yours is completely filled (status FILLED)',
	},
	{
		value: 'orderPartiallyFilled',
		name: 'Order Partially Filled',
		description: 'Part of an order of yours filled and the rest stays open (PARTIALLY_FILLED)',
	},
	{
		value: 'orderCancelled',
		name: 'Order Cancelled or Expired',
		description:
			'An order of yours ended without filling completely (CANCELED, PARTIALLY_CANCELED, EXPIRED)',
	},
	{
		value: 'orderUpdated',
		name: 'Any Order Update',
		description: 'Every change of one of your orders, placement (NEW) and rejection included',
	},
	{
		value: 'balanceChanged',
		name: 'Balance Changed',
		description: 'A coin balance of your trading account changed (free or locked)',
	},
] as const;

export type StreamEventKind = (typeof STREAM_EVENT_KINDS)[number]['value'];

const CANCELLED_STATUSES = ['CANCELED', 'PARTIALLY_CANCELED', 'EXPIRED'];

/** The specific kind of an order status, or undefined when only "Any Order Update" covers it. */
export function orderKindOf(status: string): StreamEventKind | undefined {
	if (status === 'FILLED') return 'orderFilled';
	if (status === 'PARTIALLY_FILLED') return 'orderPartiallyFilled';
	if (CANCELLED_STATUSES.includes(status)) return 'orderCancelled';
	return undefined;
}

export type EventSource = 'stream' | 'catchUp';

/** An order's state at one change, from either source. */
export interface OrderChange {
	id: string;
	source: EventSource;
	market: 'spot' | 'contract';
	/** The exchange's time of the change (ms). */
	time: number;
	orderId: string;
	clientOrderId?: string;
	symbol: string;
	side?: string;
	orderType?: string;
	status: string;
	price?: string;
	quantity?: string;
	executedQuantity: string;
	cumulativeQuoteQuantity?: string;
	averagePrice?: string;
	/** The fill that caused this change; the stream says, a catch-up cannot. */
	lastFill?: {
		quantity: string;
		price: string;
		fee?: string;
		feeCoin?: string;
		tradeId?: string;
		isMaker?: boolean;
	};
	orderTime?: string;
	raw: IDataObject;
}

/** One coin's balance after a change. */
export interface BalanceChange {
	id: string;
	source: EventSource;
	market: 'spot' | 'contract';
	time: number;
	coin: string;
	free: string;
	/** Absent where the exchange does not say (its contract balances). */
	locked?: string;
	raw: IDataObject;
}

export type StreamEvent =
	| ({ channel: 'order' } & OrderChange)
	| ({ channel: 'balance' } & BalanceChange);

/** A decimal's canonical text ("1.500" and "1.5" are one quantity), or the text as it came. */
function canonical(text: string): string {
	const value = parseDecimal(text);
	return value === undefined ? text : formatDecimal(value);
}

export function orderEventId(orderId: string, status: string, executedQuantity: string): string {
	return `order-${orderId}-${status}-${canonical(executedQuantity)}`;
}

const text = (value: unknown): string | undefined =>
	typeof value === 'string'
		? value
		: typeof value === 'number' || typeof value === 'bigint'
			? String(value)
			: undefined;

const time = (value: unknown, fallback: number): number => {
	const parsed = Number(text(value));
	return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : fallback;
};

const nonZero = (value: string | undefined): boolean => {
	const parsed = value === undefined ? undefined : parseDecimal(value);
	return parsed !== undefined && parsed.units !== 0n;
};

/** A flag sent as a JSON boolean or as the text "true" / "false"; anything else is unknown. */
const flag = (value: unknown): boolean | undefined =>
	typeof value === 'boolean'
		? value
		: value === 'true'
			? true
			: value === 'false'
				? false
				: undefined;

/**
 * The cumulative filled quantity of a report: `z`, or, in a report without it (the UAE
 * documentation's contract report lists the order quantity and what remains of it, not what
 * filled), the order quantity less the remaining quantity. An order that just rests has filled
 * nothing.
 */
function executedOfReport(report: IDataObject, status: string): string | undefined {
	const cumulative = text(report.z);
	if (cumulative !== undefined && cumulative !== '') return cumulative;
	const ordered = parseDecimal(text(report.q) ?? '');
	const remaining = parseDecimal(text(report.r) ?? '');
	if (ordered !== undefined && remaining !== undefined) {
		const executed = subtractDecimals(ordered, remaining);
		if (executed.units >= 0n) return formatDecimal(executed);
	}
	return status === 'NEW' || status === 'PENDING_NEW' ? '0' : undefined;
}

/**
 * The account a stream event names, if any: `accountId`, or `a`, the account field of the family's
 * ticketInfo. A listen key carries the events of the key's own trading account; an event that
 * names another account is not this trigger's.
 */
export function accountOfEvent(event: IDataObject): string | undefined {
	const named = text(event.accountId) ?? text(event.a);
	return named !== undefined && /^\d{1,20}$/.test(named) ? named : undefined;
}

/** An executionReport (spot) or contractExecutionReport; undefined when it lacks what an ID needs. */
export function orderChangeOfReport(
	report: IDataObject,
	receivedAt: number,
): OrderChange | undefined {
	const orderId = text(report.i);
	const status = text(report.X);
	const symbol = text(report.s);
	if (!orderId || !status || !symbol) return undefined;
	const executed = executedOfReport(report, status);
	if (executed === undefined) return undefined;
	const lastQuantity = text(report.l);
	const change: OrderChange = {
		id: orderEventId(orderId, status, executed),
		source: 'stream',
		market: report.e === 'contractExecutionReport' ? 'contract' : 'spot',
		time: time(report.E, receivedAt),
		orderId,
		clientOrderId: text(report.c),
		symbol,
		side: text(report.S),
		orderType: text(report.o),
		status,
		price: text(report.p),
		quantity: text(report.q),
		executedQuantity: executed,
		cumulativeQuoteQuantity: text(report.Z),
		averagePrice: text(report.V),
		orderTime: text(report.O),
		raw: report,
	};
	if (nonZero(lastQuantity)) {
		change.lastFill = {
			quantity: lastQuantity as string,
			price: text(report.L) ?? '',
			fee: text(report.n),
			feeCoin: text(report.N) || undefined,
			tradeId: text(report.d) || undefined,
			isMaker: flag(report.m),
		};
	}
	return change;
}

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

/** The balances of an outboundAccountInfo (or its contract twin), one change per coin. */
export function balanceChangesOfUpdate(update: IDataObject, receivedAt: number): BalanceChange[] {
	const lines = Array.isArray(update.B) ? (update.B as unknown[]) : [];
	const at = time(update.E, receivedAt);
	const market = update.e === 'outboundContractAccountInfo' ? 'contract' : 'spot';
	return lines.flatMap((line) => {
		if (line === null || typeof line !== 'object') return [];
		const entry = line as IDataObject;
		const coin = text(entry.a);
		const free = text(entry.f);
		// The UAE documentation's contract balance lists no locked amount: unknown, not zero.
		const locked = text(entry.l);
		if (!coin || free === undefined || (locked === undefined && market === 'spot')) return [];
		return [
			{
				id: `balance-${market}-${at}-${coin}-${canonical(free)}-${locked === undefined ? '' : canonical(locked)}`,
				source: 'stream' as const,
				market,
				time: at,
				coin,
				free,
				locked,
				raw: entry,
			},
		];
	});
}

/** Whether an event without a name carries an order update's fields (order ID, status, symbol). */
const looksLikeOrderUpdate = (event: IDataObject): boolean =>
	text(event.i) !== undefined && text(event.X) !== undefined && text(event.s) !== undefined;

/**
 * The events of one stream message: an array of events, each one change. Unknown events are
 * skipped. `account`: the trading account the trigger follows; an event that names another one
 * (accountOfEvent) is counted in `foreign` and dropped.
 */
export function eventsOfMessage(
	message: unknown,
	receivedAt: number,
	account?: string,
): { events: StreamEvent[]; skipped: number; foreign: number } {
	const entries = Array.isArray(message) ? message : [message];
	const events: StreamEvent[] = [];
	let skipped = 0;
	let foreign = 0;
	for (const entry of entries) {
		if (entry === null || typeof entry !== 'object') {
			skipped++;
			continue;
		}
		const event = entry as IDataObject;
		const name = event.e;
		const unnamed = name === undefined || name === null || name === '';
		const isOrder =
			name === 'executionReport' ||
			name === 'contractExecutionReport' ||
			(unnamed && looksLikeOrderUpdate(event));
		const isBalance = name === 'outboundAccountInfo' || name === 'outboundContractAccountInfo';
		// ticketInfo repeats a fill the executionReport already carries; positions are not events here.
		if (!isOrder && !isBalance) continue;
		const named = accountOfEvent(event);
		if (account !== undefined && named !== undefined && named !== account) {
			foreign++;
			continue;
		}
		if (isOrder) {
			const change = orderChangeOfReport(event, receivedAt);
			if (change === undefined) skipped++;
			else events.push({ channel: 'order', ...change });
		} else {
			for (const change of balanceChangesOfUpdate(event, receivedAt))
				events.push({ channel: 'balance', ...change });
		}
	}
	return { events, skipped, foreign };
}

/** Which of the chosen kinds an event is, or undefined when none was chosen for it. */
export function kindOf(
	event: StreamEvent,
	chosen: ReadonlySet<StreamEventKind>,
): StreamEventKind | undefined {
	if (event.channel === 'balance')
		return chosen.has('balanceChanged') ? 'balanceChanged' : undefined;
	const specific = orderKindOf(event.status);
	if (specific !== undefined && chosen.has(specific)) return specific;
	return chosen.has('orderUpdated') ? 'orderUpdated' : undefined;
}

/** The item of an event: readable names first, the exchange's own record under `raw`. */
export function itemOf(event: StreamEvent, kind: StreamEventKind): IDataObject {
	const common: IDataObject = {
		event: kind,
		eventId: event.id,
		source: event.source,
		market: event.market,
		eventTime: String(event.time),
	};
	if (event.channel === 'balance') {
		const balance: IDataObject = { ...common, coin: event.coin, free: event.free };
		if (event.locked !== undefined) balance.locked = event.locked;
		balance.raw = event.raw;
		return balance;
	}
	const item: IDataObject = {
		...common,
		orderId: event.orderId,
		clientOrderId: event.clientOrderId,
		symbol: event.symbol,
		side: event.side,
		orderType: event.orderType,
		status: event.status,
		price: event.price,
		quantity: event.quantity,
		executedQuantity: event.executedQuantity,
		cumulativeQuoteQuantity: event.cumulativeQuoteQuantity,
		averagePrice: event.averagePrice,
		orderTime: event.orderTime,
	};
	if (event.lastFill) item.lastFill = { ...event.lastFill };
	item.raw = event.raw;
	for (const key of Object.keys(item)) if (item[key] === undefined) delete item[key];
	return item;
}
