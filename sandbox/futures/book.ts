/**
 * The futures book of the contract accounts: orders (resting ones placed by a test, and the orders
 * fills create), fills and positions (net mode, LONG only). A BUY fill opens or adds to the LONG
 * position (the average price moves); a SELL fill reduces it and realizes (price − average) ×
 * quantity; selling more than is held is refused. Every fill's commission (maker or taker rate of
 * the contract, in USDT) is taken from its realized PnL. No HTTP here, no wallet: futures.ts moves
 * the contract account's balance at funding settlements.
 */
import * as D from '../decimal';
import type { FuturesOrderStatus } from '../types';
import { onStep, type Contract } from './contracts';
import type { HeldOrder, HeldPosition, HeldTrade } from './views';
import { isOpenOrder, isStopOrder } from './views';

/** First ids: 19 digits above Number.MAX_SAFE_INTEGER, not multiples of 256 (like the spot ids). */
export const FUTURES_ORDER_ID_BASE = 2_130_000_000_000_000_041n;
export const FUTURES_TRADE_ID_BASE = 2_132_000_000_000_000_057n;
export const FUTURES_TICKET_ID_BASE = 4_650_000_000_000_000_073n;

export interface OrderQuery {
	accountId: string;
	symbol?: string;
	open: boolean;
	/** STOP orders (true) or the others (false); both when absent. */
	stop?: boolean;
	side?: 'BUY' | 'SELL';
	/** Orders strictly older than this id (fromOrderId). */
	beforeOrderId?: bigint;
	startTime: number;
	endTime: number;
	limit: number;
}

export interface TradeQuery {
	accountId: string;
	symbol: string;
	fromId?: bigint;
	toId?: bigint;
	startTime: number;
	endTime: number;
	limit: number;
}

export class FuturesBook {
	/** Oldest first (ids and times ascending). */
	private orders: HeldOrder[] = [];
	/** Oldest first. */
	private trades: HeldTrade[] = [];
	private positions = new Map<string, HeldPosition>();
	private orderSeq = FUTURES_ORDER_ID_BASE;
	private tradeSeq = FUTURES_TRADE_ID_BASE;
	private ticketSeq = FUTURES_TICKET_ID_BASE;

	clear(): void {
		this.orders = [];
		this.trades = [];
		this.positions.clear();
		this.orderSeq = FUTURES_ORDER_ID_BASE;
		this.tradeSeq = FUTURES_TRADE_ID_BASE;
		this.ticketSeq = FUTURES_TICKET_ID_BASE;
	}

	get newestOrderTime(): number {
		return this.orders.length === 0 ? -Infinity : this.orders[this.orders.length - 1].time;
	}

	/** A new order (NEW, or FILLED by the caller's fill at once); its id grows with time. */
	addOrder(
		o: Omit<HeldOrder, 'orderId' | 'clientOrderId'> & { clientOrderId?: string },
	): HeldOrder {
		const orderId = (this.orderSeq++).toString();
		const held: HeldOrder = { ...o, orderId, clientOrderId: o.clientOrderId ?? orderId };
		this.orders.push(held);
		return held;
	}

	/** Every order of the account, oldest first. */
	ordersOf(accountId: string): HeldOrder[] {
		return this.orders.filter((o) => o.accountId === accountId);
	}

	/** The account's open orders (limit and stop), oldest first. */
	openOrders(accountId: string): HeldOrder[] {
		return this.orders.filter((o) => o.accountId === accountId && isOpenOrder(o));
	}

	/** Every open order of every account, oldest first. */
	allOpenOrders(): HeldOrder[] {
		return this.orders.filter(isOpenOrder);
	}

	openClientOrderId(accountId: string, clientOrderId: string): boolean {
		return this.orders.some(
			(o) => o.accountId === accountId && o.clientOrderId === clientOrderId && isOpenOrder(o),
		);
	}

	findOrder(
		accountId: string,
		by: { orderId?: string; clientOrderId?: string },
	): HeldOrder | undefined {
		const mine = this.orders.filter((o) => o.accountId === accountId);
		if (by.orderId !== undefined) return mine.find((o) => o.orderId === by.orderId);
		const withId = mine.filter((o) => o.clientOrderId === by.clientOrderId);
		// the open order holding it, else the newest that used it (the spot rule)
		return withId.find(isOpenOrder) ?? withId[withId.length - 1];
	}

	/** Orders newest first, filtered, at most `limit`. */
	listOrders(q: OrderQuery): HeldOrder[] {
		const out: HeldOrder[] = [];
		for (let i = this.orders.length - 1; i >= 0 && out.length < q.limit; i--) {
			const o = this.orders[i];
			if (o.accountId !== q.accountId || isOpenOrder(o) !== q.open) continue;
			if (q.symbol !== undefined && o.symbol !== q.symbol) continue;
			if (q.stop !== undefined && isStopOrder(o) !== q.stop) continue;
			if (q.side !== undefined && o.side !== q.side) continue;
			if (q.beforeOrderId !== undefined && BigInt(o.orderId) >= q.beforeOrderId) continue;
			if (o.time < q.startTime || o.time > q.endTime) continue;
			out.push(o);
		}
		return out;
	}

	/** Fills newest first (id descending), fromId and toId exclusive, at most `limit`. */
	listTrades(q: TradeQuery): HeldTrade[] {
		const out: HeldTrade[] = [];
		for (let i = this.trades.length - 1; i >= 0 && out.length < q.limit; i--) {
			const t = this.trades[i];
			if (t.accountId !== q.accountId || t.symbol !== q.symbol) continue;
			const id = BigInt(t.tradeId);
			if (q.toId !== undefined && id >= q.toId) continue;
			if (q.fromId !== undefined && id <= q.fromId) continue;
			const time = Number(t.time);
			if (time < q.startTime || time > q.endTime) continue;
			out.push(t);
		}
		return out;
	}

	position(accountId: string, symbol: string): HeldPosition | undefined {
		return this.positions.get(`${accountId}/${symbol}`);
	}

	/** Open positions (baseQty above 0) of an account, in the order they were first opened. */
	openPositions(accountId: string): HeldPosition[] {
		return [...this.positions.values()].filter(
			(p) => p.accountId === accountId && D.isPositive(p.baseQty),
		);
	}

	/**
	 * Fill `quantity` of `order` at `price` (both checked by the caller against the contract):
	 * the order's state, a fill, the position. Throws when a SELL exceeds the position.
	 */
	fill(
		order: HeldOrder,
		c: Contract,
		quantity: string,
		price: string,
		isMaker: boolean,
		time: number,
	): { trade: HeldTrade; position: HeldPosition } {
		const qty = D.parseDec(quantity)!;
		const px = D.parseDec(price)!;
		const remaining = D.sub(D.parseDec(order.quantity)!, order.executedQty);
		if (D.cmp(qty, remaining) > 0)
			throw new Error(`fill of ${quantity} exceeds what remains of order ${order.orderId}`);
		const key = `${order.accountId}/${order.symbol}`;
		const pos = this.positions.get(key) ?? {
			accountId: order.accountId,
			symbol: order.symbol,
			baseQty: D.ZERO,
			avgPrice: D.ZERO,
			realizedPnL: D.ZERO,
		};
		if (order.side === 'SELL' && D.cmp(qty, pos.baseQty) > 0)
			throw new Error(
				`selling ${quantity} ${order.symbol} exceeds the LONG position of ${D.fmt(pos.baseQty)} (only LONG positions exist)`,
			);
		const rate = D.parseDec(isMaker ? c.makerFeeRate : c.takerFeeRate)!;
		const commission = D.mul(D.mul(px, qty), rate);
		let closing = D.ZERO;
		if (order.side === 'BUY') {
			const total = D.add(pos.baseQty, qty);
			const cost = D.add(D.mul(pos.avgPrice, pos.baseQty), D.mul(px, qty));
			pos.avgPrice = D.divTrunc(cost, total, 18);
			pos.baseQty = total;
		} else {
			closing = D.mul(D.sub(px, pos.avgPrice), qty);
			pos.baseQty = D.sub(pos.baseQty, qty);
			if (!D.isPositive(pos.baseQty)) pos.avgPrice = D.ZERO;
		}
		const realized = D.sub(closing, commission);
		pos.realizedPnL = D.add(pos.realizedPnL, realized);
		this.positions.set(key, pos);
		order.executedQty = D.add(order.executedQty, qty);
		order.executedQuote = D.add(order.executedQuote, D.mul(px, qty));
		const status: FuturesOrderStatus =
			D.cmp(order.executedQty, D.parseDec(order.quantity)!) >= 0 ? 'FILLED' : 'PARTIALLY_FILLED';
		order.status = status;
		const trade: HeldTrade = {
			accountId: order.accountId,
			time: String(time),
			tradeId: (this.tradeSeq++).toString(),
			orderId: order.orderId,
			symbol: order.symbol,
			price: D.fmt(px),
			quantity: D.fmt(qty),
			commissionAsset: c.quote,
			commission: D.fmt(commission),
			makerRebate: '0',
			type: (order.type ?? 'LIMIT').toLowerCase(),
			side: order.side,
			realizedPnl: D.fmt(realized),
			isMaker,
			ticketId: (this.ticketSeq++).toString(),
		};
		this.trades.push(trade);
		return { trade, position: pos };
	}
}

/** A positive decimal on the contract's step (quantity) or tick (price); throws naming it. */
export function checkOnGrid(value: string | undefined, name: string, step: string): string {
	if (value === undefined || !D.PLAIN_DECIMAL_RE.test(value))
		throw new Error(`${name} must be a positive plain decimal string, not ${String(value)}`);
	const d = D.parseDec(value)!;
	if (!D.isPositive(d)) throw new Error(`${name} must be above 0`);
	if (!onStep(value, step)) throw new Error(`${name} ${value} is not a multiple of ${step}`);
	return D.fmt(d);
}
