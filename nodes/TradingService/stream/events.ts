import type { IDataObject } from 'n8n-workflow';

import { formatDecimal, parseDecimal } from '../helpers/decimals';

/**
 * The real-time trigger's events: what the user picks, what an event holds, its ID and its item.
 * An order event's ID is made of what both sources carry, the order ID, its status and its filled
 * quantity, so the same change seen on the stream and again in a catch-up has one ID.
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
	{
		value: 'positionChanged',
		name: 'Position Changed',
		description: 'A futures position of yours was opened, added to, reduced or closed',
	},
	{
		value: 'futuresOrderFilled',
		name: 'Futures Order Filled',
		description:
			'A futures order of yours is completely filled (FILLED); for a stop order, when the order it places fills',
	},
	{
		value: 'futuresOrderPartiallyFilled',
		name: 'Futures Order Partially Filled',
		description:
			'Part of a futures order of yours filled and the rest stays open (PARTIALLY_FILLED)',
	},
	{
		value: 'futuresOrderCanceled',
		name: 'Futures Order Cancelled',
		description:
			'A futures order of yours ended without filling completely (CANCELED, PARTIALLY_CANCELED, ORDER_CANCELED)',
	},
	{
		value: 'futuresLiquidation',
		name: 'Liquidation',
		description: 'A fill of a liquidation order on your futures account: one event per fill',
	},
] as const;

/** The kinds that follow the key's own futures account (its contract orders and positions). */
export const FUTURES_KINDS: readonly StreamEventKind[] = [
	'positionChanged',
	'futuresOrderFilled',
	'futuresOrderPartiallyFilled',
	'futuresOrderCanceled',
	'futuresLiquidation',
];

/** Whether a chosen kind needs the futures account (and, but for positions, its orders' catch-up). */
export const followsFutures = (kinds: ReadonlySet<StreamEventKind>, orders = false): boolean =>
	FUTURES_KINDS.some((kind) => kinds.has(kind) && (!orders || kind !== 'positionChanged'));

export type StreamEventKind = (typeof STREAM_EVENT_KINDS)[number]['value'];

const CANCELLED_STATUSES = ['CANCELED', 'PARTIALLY_CANCELED', 'EXPIRED'];

/** The specific kind of an order status, or undefined when only "Any Order Update" covers it. */
function orderKindOf(status: string): StreamEventKind | undefined {
	if (status === 'FILLED') return 'orderFilled';
	if (status === 'PARTIALLY_FILLED') return 'orderPartiallyFilled';
	if (CANCELLED_STATUSES.includes(status)) return 'orderCancelled';
	return undefined;
}

/**
 * The futures kind of a contract order's change: a liquidation order's fill, else by status (limit
 * and stop orders have their own words). A stop's trigger (ORDER_FILLED, nothing filled) is none:
 * the order it places fills, as the polling twin sees it. A contract order no futures kind was
 * chosen for falls back to the order kinds, which have always covered contract reports.
 */
function futuresKindsOf(change: OrderChange): StreamEventKind[] {
	const kinds: StreamEventKind[] = [];
	if (change.isLiquidation === true && change.lastFill !== undefined)
		kinds.push('futuresLiquidation');
	if (change.status === 'FILLED') kinds.push('futuresOrderFilled');
	if (change.status === 'PARTIALLY_FILLED') kinds.push('futuresOrderPartiallyFilled');
	if (['CANCELED', 'PARTIALLY_CANCELED', 'ORDER_CANCELED'].includes(change.status))
		kinds.push('futuresOrderCanceled');
	return kinds;
}

/**
 * What every event has. When is told twice (emitter.ts, Stamps): `time`, the change's (ms) on
 * `clock`, the exchange's, or, for a REST answer that gives none (balances, positions), n8n's when
 * its request was sent; and `seenAt`, n8n's when the push arrived or the request was sent.
 */
interface EventBasics {
	id: string;
	source: 'stream' | 'catchUp';
	market: 'spot' | 'contract';
	time: number;
	clock: 'exchange' | 'n8n';
	seenAt: number;
	raw: IDataObject;
}

type EventTime = Pick<EventBasics, 'time' | 'clock' | 'seenAt'>;

/** An order's state at one change, from either source. */
export interface OrderChange extends EventBasics {
	/**
	 * A futures fill's other name, its order's state ID (order, status, filled quantity): a report
	 * without a trade ID has only that one. Seen under either ID, the fill is emitted once.
	 */
	otherId?: string;
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
	/** Contract orders only: the report's `C`, `v`, `lo`, `lt` (the order's fields over REST). */
	reduceOnly?: boolean;
	leverage?: string;
	isLiquidation?: boolean;
	liquidationType?: string;
}

export interface BalanceChange extends EventBasics {
	coin: string;
	free: string;
	/** Absent where the exchange does not say (its contract balances). */
	locked?: string;
}

/** One futures position after a change; a field the source does not give is left out. */
export interface PositionChange extends EventBasics {
	symbol: string;
	/** LONG or SHORT. */
	side: string;
	avgPrice?: string;
	/** The position's size (the stream's `P`, the list's `baseQty`); "0" once closed. */
	position: string;
	/** Only when the exchange sends it (`a`; the UAE documentation does not list it). */
	available?: string;
	liquidationPrice?: string;
	margin?: string;
	realizedPnL?: string;
	unrealizedPnL?: string;
	profitRate?: string;
	positionValue?: string;
	leverage?: string;
	marginType?: string;
	accountId: string;
}

export type StreamEvent =
	| ({ channel: 'order' } & OrderChange)
	| ({ channel: 'balance' } & BalanceChange)
	| ({ channel: 'position' } & PositionChange);

/** A decimal's canonical text ("1.500" and "1.5" are one quantity), or the text as it came. */
export function canonical(text: string): string {
	const value = parseDecimal(text);
	return value === undefined ? text : formatDecimal(value);
}

export function orderEventId(orderId: string, status: string, executedQuantity: string): string {
	return `order-${orderId}-${status}-${canonical(executedQuantity)}`;
}

/**
 * A futures fill's ID: its trade ID, which the report (`t`, else `d`) and the fill list (`tradeId`)
 * both carry, so that a fill seen both ways is one event whatever the order's totals were at each
 * read. Each fill also carries its order's state ID as `otherId`, for a report without a trade ID.
 */
export const futuresFillId = (tradeId: string): string => `futures-fill-${tradeId}`;

/** A field the exchange sends as text or as a number, as text. */
export function text(value: unknown): string | undefined {
	if (typeof value === 'string') return value;
	return typeof value === 'number' || typeof value === 'bigint' ? String(value) : undefined;
}

/** An exchange time (ms), or undefined when the field holds none. */
export function exchangeTime(value: unknown): number | undefined {
	const parsed = Number(text(value));
	return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : undefined;
}

/** When a change happened: the exchange's stamp when the record has one, else `seenAt` on n8n's clock. */
export function stampOf(value: unknown, seenAt: number): EventTime {
	const stamped = exchangeTime(value);
	return stamped === undefined
		? { time: seenAt, clock: 'n8n', seenAt }
		: { time: stamped, clock: 'exchange', seenAt };
}

/** Which of the chosen kinds an event is, or undefined when none was chosen for it. */
export function kindOf(
	event: StreamEvent,
	chosen: ReadonlySet<StreamEventKind>,
): StreamEventKind | undefined {
	if (event.channel === 'balance')
		return chosen.has('balanceChanged') ? 'balanceChanged' : undefined;
	if (event.channel === 'position')
		return chosen.has('positionChanged') ? 'positionChanged' : undefined;
	if (event.market === 'contract') {
		const futures = futuresKindsOf(event).find((kind) => chosen.has(kind));
		if (futures !== undefined) return futures;
	}
	const specific = orderKindOf(event.status);
	if (specific !== undefined && chosen.has(specific)) return specific;
	return chosen.has('orderUpdated') ? 'orderUpdated' : undefined;
}

/** The item of an event: readable names first, the exchange's own record under `raw`. */
export function itemOf(event: StreamEvent, kind: StreamEventKind): IDataObject {
	// `clock` and `seenAt` are the trigger's own bookkeeping (Stamps), not the event's.
	const { channel, id, source, market, time, clock, seenAt, raw, ...fields } = event;
	delete (fields as Partial<OrderChange>).otherId;
	const item: IDataObject = { event: kind, eventId: id, source, market, eventTime: String(time) };
	// Every field the event has, in its order; the fill is copied, not shared.
	for (const [key, value] of Object.entries(fields))
		if (value !== undefined) item[key] = typeof value === 'object' ? { ...value } : value;
	item.raw = raw;
	return item;
}
