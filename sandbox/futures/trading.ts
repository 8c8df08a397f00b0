/**
 * Futures orders at work (docs/api.md "Futures (write side)"): the checks that need the account
 * (client order IDs held by open orders, the LONG position, margin), an order written and worked
 * (MARKET and crossing LIMIT orders fill at once against the mark price as taker, the others
 * rest; IOC / FOK that cannot fill are cancelled), STOP orders triggered when the mark price
 * crosses, TP/SL children placed on a wholly filled parent (one cancels the other when it
 * triggers), a position's TP/SL, cancels and liquidations. Every order change pushes a
 * `contractExecutionReport`, every fill an `outboundContractPositionInfo` after it.
 *
 * There is no order book to trade with: a resting LIMIT order fills only when a test fills it
 * (sb.futures.fill with its orderId).
 */
import { CODES } from '../codes';
import * as D from '../decimal';
import { apiError } from '../errors';
import type { FuturesOrder } from '../types';
import type { FuturesBook } from './book';
import { floorToStep, type Contract } from './contracts';
import type { OrderRequest } from './orderParams';
import {
	executionReport,
	isStopOrder,
	orderView,
	positionEvent,
	positionView,
	type HeldOrder,
	type HeldPosition,
	type HeldTrade,
	type PositionStop,
	type TpSlLeg,
} from './views';

export interface TraderHost {
	readonly book: FuturesBook;
	now(): number;
	/** The contract with the leverage in force (POST /api/v2/futures/leverage). */
	contract(symbol: string): Contract;
	/** The mark price now. */
	mark(c: Contract): string;
	/** The account's available USDT (GET balance's availableBalance), open orders not counted. */
	available(accountId: string): D.Dec;
	/** An event for the listen keys of the futures owner's keys. */
	emit(event: Record<string, unknown>): void;
	/** Positions' TP/SL by `${accountId}/${symbol}`. */
	readonly stops: Map<string, PositionStop>;
}

/** Enough rounds for a trigger whose fill places children that trigger at once too. */
const MAX_TRIGGER_ROUNDS = 20;

export function orderCreateFailed(detail: string) {
	return apiError(CODES.orderCreateFailed, detail);
}

export class Trader {
	constructor(private readonly host: TraderHost) {}

	private get book(): FuturesBook {
		return this.host.book;
	}

	/** The mark price down to the contract's tick: what orders fill at. */
	markTick(c: Contract): string {
		return floorToStep(this.host.mark(c), c.tickSize);
	}

	private report(o: HeldOrder, fill?: HeldTrade): void {
		this.host.emit(executionReport(o, fill ? Number(fill.time) : this.host.now(), fill));
	}

	private held(accountId: string, symbol: string): D.Dec {
		return this.book.position(accountId, symbol)?.baseQty ?? D.ZERO;
	}

	/** Initial margin of a BUY: notional / leverage + the taker fee on the notional. */
	private margin(notional: D.Dec, leverage: string, c: Contract): D.Dec {
		const lev = D.parseDec(leverage)!;
		return D.add(D.divTrunc(notional, lev, 18), D.mul(notional, D.parseDec(c.takerFeeRate)!));
	}

	/** The margin the account's open non-reduce-only BUY orders (limit and stop) hold back. */
	reserved(accountId: string): D.Dec {
		let sum = D.ZERO;
		for (const o of this.book.openOrders(accountId)) {
			if (o.side !== 'BUY' || o.reduceOnly) continue;
			const c = this.host.contract(o.symbol);
			const remaining = D.sub(D.parseDec(o.quantity)!, o.executedQty);
			const px = o.price !== '0' ? o.price : (o.stopPrice ?? this.markTick(c));
			sum = D.add(sum, this.margin(D.mul(remaining, D.parseDec(px)!), o.leverage, c));
		}
		return sum;
	}

	/** What the account may still commit: available less the open orders' margin. */
	free(accountId: string): D.Dec {
		return D.sub(this.host.available(accountId), this.reserved(accountId));
	}

	/** The checks that need the account; throws the first refusal, writes nothing. */
	check(accountId: string, r: OrderRequest): void {
		const { c } = r;
		const qty = D.parseDec(r.quantity)!;
		const held = this.held(accountId, c.symbol);
		if (r.reduceOnly && r.side === 'BUY')
			throw orderCreateFailed(
				'ReduceOnly order would increase the position: a reduce-only order of a LONG is a SELL',
			);
		if (r.side === 'SELL' && D.cmp(qty, held) > 0) {
			throw orderCreateFailed(
				r.reduceOnly
					? `ReduceOnly order would increase the position: selling ${r.quantity} exceeds the LONG position of ${D.fmt(held)}`
					: `only LONG positions are supported: a SELL may only reduce the LONG position (selling ${r.quantity}, position ${D.fmt(held)})`,
			);
		}
		const mark = D.parseDec(this.markTick(c))!;
		if (r.type === 'STOP') {
			const stop = D.parseDec(r.stopPrice!)!;
			const now = r.side === 'BUY' ? D.cmp(mark, stop) >= 0 : D.cmp(mark, stop) <= 0;
			if (now)
				throw orderCreateFailed(
					`the stop would trigger at once: a ${r.side} stop needs stopPrice ${r.side === 'BUY' ? 'above' : 'below'} the mark price ${D.fmt(mark)}`,
				);
		}
		if (
			(r.type === 'LIMIT_MAKER' || r.timeInForce === 'LIMIT_MAKER') &&
			this.crosses(r.side, r.price, mark)
		)
			throw orderCreateFailed(
				`LIMIT_MAKER order would immediately match: price ${r.price} against the mark price ${D.fmt(mark)}`,
			);
		const ids: [string, string | undefined][] = [
			['clientOrderId', r.clientOrderId],
			['tpClientOrderId', r.tpsl?.tp?.clientOrderId],
			['slClientOrderId', r.tpsl?.sl?.clientOrderId],
		];
		for (const [name, id] of ids) {
			if (id !== undefined && this.book.openClientOrderId(accountId, id))
				throw apiError(
					CODES.duplicateOrder,
					`${name} '${id}' is held by an open order of this account`,
				);
		}
		if (r.side === 'BUY' && !r.reduceOnly) {
			const px = r.price !== '0' ? r.price : (r.stopPrice ?? D.fmt(mark));
			const need = this.margin(D.mul(qty, D.parseDec(px)!), r.leverage, c);
			const free = this.free(accountId);
			if (D.cmp(need, free) > 0)
				throw apiError(
					CODES.insufficientAsset,
					`insufficient balance: the order needs ${D.fmt(need)} ${c.quote} of margin at leverage ${r.leverage}, ${D.fmt(D.isPositive(free) ? free : D.ZERO)} available`,
				);
		}
	}

	private crosses(side: 'BUY' | 'SELL', price: string, mark: D.Dec): boolean {
		const p = D.parseDec(price)!;
		return side === 'BUY' ? D.cmp(p, mark) >= 0 : D.cmp(p, mark) <= 0;
	}

	private orderTime(): number {
		return Math.max(this.host.now(), this.book.newestOrderTime);
	}

	/**
	 * Check (throws before anything is written), write, report and work a new order. The answer is
	 * the order as accepted: PENDING_NEW (limit types), ORDER_NEW (stop), nothing executed yet.
	 */
	place(accountId: string, r: OrderRequest): FuturesOrder {
		this.check(accountId, r);
		const stop = r.type === 'STOP';
		const o = this.book.addOrder({
			accountId,
			time: this.orderTime(),
			side: r.side,
			price: r.price,
			quantity: r.quantity,
			clientOrderId: r.clientOrderId,
			symbol: r.c.symbol,
			leverage: r.leverage,
			reduceOnly: r.reduceOnly,
			timeInForce: r.timeInForce,
			status: stop ? 'ORDER_NEW' : 'NEW',
			executedQty: D.ZERO,
			executedQuote: D.ZERO,
			type: r.type,
			stpMode: r.stpMode,
			...(stop ? { stopPrice: r.stopPrice, triggerAbove: r.side === 'BUY' } : {}),
			...(r.quoteQty !== undefined && r.type === 'MARKET' ? { quoteQty: r.quoteQty } : {}),
			...(r.tpsl ? { tpsl: r.tpsl } : {}),
		});
		const answer = orderView(o, r.c);
		if (!stop) answer.status = 'PENDING_NEW';
		this.report(o);
		if (!stop) this.work(o, r.c);
		return answer;
	}

	/** A new (or just triggered) order against the mark: fill at once, rest, or expire. */
	private work(o: HeldOrder, c: Contract): void {
		const mark = this.markTick(c);
		const remaining = D.sub(D.parseDec(o.quantity)!, o.executedQty);
		const fills = o.type === 'MARKET' || this.crosses(o.side, o.price, D.parseDec(mark)!);
		if (fills && o.side === 'SELL' && D.cmp(remaining, this.held(o.accountId, o.symbol)) > 0) {
			// the position shrank since the order was accepted: it may no longer sell that much
			this.cancel(o, 'the LONG position is smaller than the order');
			return;
		}
		if (fills) this.fill(o, c, D.fmt(remaining), mark, false);
		else if (o.timeInForce === 'IOC' || o.timeInForce === 'FOK') this.cancel(o);
	}

	/**
	 * Fill `quantity` of `o` at `price`: the fill, its report, the position event; then the
	 * children of a wholly filled TP/SL parent, and a closed position's reduce-only orders and
	 * TP/SL cancelled.
	 */
	fill(
		o: HeldOrder,
		c: Contract,
		quantity: string,
		price: string,
		isMaker: boolean,
		now: number = this.host.now(),
	): { trade: HeldTrade; position: HeldPosition } {
		const { trade, position } = this.book.fill(o, c, quantity, price, isMaker, now);
		this.report(o, trade);
		const key = `${o.accountId}/${o.symbol}`;
		const view = positionView(position, c, this.host.mark(c), this.host.stops.get(key));
		this.host.emit(positionEvent(view, o.accountId, now));
		if (o.status === 'FILLED' && o.tpsl) this.placeChildren(o);
		if (!D.isPositive(position.baseQty)) {
			this.host.stops.delete(key);
			for (const other of this.book.openOrders(o.accountId)) {
				if (other.symbol === o.symbol && other.reduceOnly)
					this.cancel(other, 'the position is closed');
			}
		}
		return { trade, position };
	}

	/** The TP and SL STOP orders of a wholly filled parent: reduce-only SELLs of its quantity. */
	private placeChildren(parent: HeldOrder): void {
		const legs: [TpSlLeg | undefined, boolean][] = [
			[parent.tpsl?.tp, true],
			[parent.tpsl?.sl, false],
		];
		const placed: HeldOrder[] = [];
		for (const [leg, above] of legs) {
			if (!leg) continue;
			const id = leg.clientOrderId;
			const child = this.book.addOrder({
				accountId: parent.accountId,
				time: this.orderTime(),
				side: 'SELL',
				price: leg.limitPrice ?? '0',
				quantity: D.fmt(parent.executedQty),
				// an ID taken meanwhile by another open order is not given twice: the child then has
				// none, and cannot be found by the ID the parent's answer carried (docs/api.md)
				clientOrderId:
					id !== undefined && !this.book.openClientOrderId(parent.accountId, id) ? id : undefined,
				symbol: parent.symbol,
				leverage: parent.leverage,
				reduceOnly: true,
				timeInForce: leg.limitPrice !== undefined ? 'GTC' : 'IOC',
				status: 'ORDER_NEW',
				executedQty: D.ZERO,
				executedQuote: D.ZERO,
				type: 'STOP',
				stopPrice: leg.triggerPrice,
				triggerAbove: above,
				stpMode: parent.stpMode,
			});
			placed.push(child);
			this.report(child);
		}
		if (placed.length === 2) {
			placed[0].ocoOrderId = placed[1].orderId;
			placed[1].ocoOrderId = placed[0].orderId;
		}
	}

	/** Cancel an open order: CANCELED (PARTIALLY_CANCELED after a fill) or ORDER_CANCELED (stop). */
	cancel(o: HeldOrder, reason?: string): void {
		if (isStopOrder(o)) o.status = 'ORDER_CANCELED';
		else o.status = D.isPositive(o.executedQty) ? 'PARTIALLY_CANCELED' : 'CANCELED';
		if (reason) o.ordCxlReason = reason;
		this.report(o);
	}

	/** Trigger what the mark price has crossed, round after round; whether anything triggered. */
	checkTriggers(): boolean {
		let any = false;
		for (let round = 0; round < MAX_TRIGGER_ROUNDS; round++) {
			let hit = false;
			for (const o of this.book.allOpenOrders()) {
				if (!isStopOrder(o) || o.status !== 'ORDER_NEW') continue;
				if (this.crossed(o.symbol, o.stopPrice!, o.triggerAbove === true)) {
					this.trigger(o);
					hit = true;
				}
			}
			for (const [key, stop] of [...this.host.stops]) {
				const [accountId, symbol] = key.split('/');
				if (stop.takeProfit && this.crossed(symbol, stop.takeProfit.price, true)) {
					this.closeBy(accountId, symbol, stop, 'takeProfit');
					hit = true;
				} else if (stop.stopLoss && this.crossed(symbol, stop.stopLoss.price, false)) {
					this.closeBy(accountId, symbol, stop, 'stopLoss');
					hit = true;
				}
			}
			if (!hit) break;
			any = true;
		}
		return any;
	}

	/** Whether any stop order or position TP/SL waits for the mark price. */
	get waiting(): boolean {
		return this.host.stops.size > 0 || this.book.allOpenOrders().some(isStopOrder);
	}

	private crossed(symbol: string, trigger: string, above: boolean): boolean {
		const m = D.parseDec(this.host.mark(this.host.contract(symbol)))!;
		const t = D.parseDec(trigger)!;
		return above ? D.cmp(m, t) >= 0 : D.cmp(m, t) <= 0;
	}

	/**
	 * A stop order triggered: ORDER_FILLED, its OCO sibling cancelled, and a LIMIT (stop-limit) or
	 * MARKET (stop-market) order placed with its client order ID, quantity (a SELL cut to the
	 * position), leverage, flags and TP/SL, worked at once.
	 */
	private trigger(o: HeldOrder): void {
		const c = this.host.contract(o.symbol);
		if (o.ocoOrderId !== undefined) {
			const sibling = this.book.findOrder(o.accountId, { orderId: o.ocoOrderId });
			if (sibling && sibling.status === 'ORDER_NEW')
				this.cancel(sibling, 'the other of its TP/SL pair triggered');
		}
		let qty = D.parseDec(o.quantity)!;
		if (o.side === 'SELL') {
			const held = this.held(o.accountId, o.symbol);
			if (!D.isPositive(held)) {
				this.cancel(o, 'no position to reduce');
				return;
			}
			if (D.cmp(qty, held) > 0) qty = held;
		}
		o.status = 'ORDER_FILLED';
		this.report(o);
		const child = this.book.addOrder({
			accountId: o.accountId,
			time: this.orderTime(),
			side: o.side,
			price: o.price,
			quantity: D.fmt(qty),
			clientOrderId: o.clientOrderId,
			symbol: o.symbol,
			leverage: o.leverage,
			reduceOnly: o.reduceOnly,
			timeInForce: o.timeInForce,
			status: 'NEW',
			executedQty: D.ZERO,
			executedQuote: D.ZERO,
			type: o.price === '0' ? 'MARKET' : 'LIMIT',
			stpMode: o.stpMode,
			...(o.tpsl ? { tpsl: o.tpsl } : {}),
		});
		this.report(child);
		this.work(child, c);
	}

	/** A position's TP or SL reached: a reduce-only MARKET SELL of its size (default all). */
	private closeBy(
		accountId: string,
		symbol: string,
		stop: PositionStop,
		leg: keyof PositionStop,
	): void {
		const size = stop[leg]!.size;
		delete stop[leg];
		const key = `${accountId}/${symbol}`;
		if (!stop.takeProfit && !stop.stopLoss) this.host.stops.delete(key);
		const held = this.held(accountId, symbol);
		if (!D.isPositive(held)) return;
		const qty = size !== undefined && D.cmp(D.parseDec(size)!, held) < 0 ? size : D.fmt(held);
		this.marketSell(accountId, this.host.contract(symbol), qty, false);
	}

	/** A reduce-only MARKET SELL filled at once at the mark (a TP/SL or a liquidation). */
	marketSell(
		accountId: string,
		c: Contract,
		quantity: string,
		liquidation: boolean,
	): { order: HeldOrder; trade: HeldTrade; position: HeldPosition } {
		const order = this.book.addOrder({
			accountId,
			time: this.orderTime(),
			side: 'SELL',
			price: '0',
			quantity,
			symbol: c.symbol,
			leverage: c.leverage,
			reduceOnly: true,
			timeInForce: 'IOC',
			status: 'NEW',
			executedQty: D.ZERO,
			executedQuote: D.ZERO,
			type: 'MARKET',
			...(liquidation ? { isLiquidation: true } : {}),
		});
		this.report(order);
		const { trade, position } = this.fill(order, c, quantity, this.markTick(c), false);
		return { order, trade, position };
	}
}
