/**
 * Filling a resting order at its limit price, on the test's schedule (the sandbox has no matching
 * engine): balances, locks, TRADE/FEE history records and the fill (trades.ts) follow each fill.
 */
import { FEE_RATE } from '../constants';
import { MENA_CATALOGUE } from '../market/catalogue';
import * as D from '../decimal';
import type { StreamEvents } from '../stream/events';
import { isOpen, type OrderState, type Wallet } from './state';
import type { TradeBook } from './trades';

export interface FillContext {
	wallet: Wallet;
	clock: () => number;
	/** Free the client order ID a now filled order held. */
	release(o: OrderState): void;
	/** Where each fill is written (GET /api/v1/account/trades). */
	trades: TradeBook;
	/** The user data stream's events of each fill. */
	events: StreamEvents;
}

/**
 * Fill `quantity` (default: all that remains) of a resting order at its limit price. The fee
 * (FEE_RATE) is charged in the coin received, as the family does ("feeSide: get").
 */
export function fillOrder(o: OrderState, quantity: string | undefined, ctx: FillContext): void {
	if (!isOpen(o.status)) throw new Error(`order ${o.orderId} is ${o.status}, not open`);
	// the cancel is accepted: the matching engine no longer fills it
	if (o.status === 'PENDING_CANCEL')
		throw new Error(`order ${o.orderId} is PENDING_CANCEL: its cancel is accepted, it cannot fill`);
	const orig = D.parseDec(o.origQty)!;
	const remaining = D.sub(orig, o.executedQty);
	let q = remaining;
	if (quantity !== undefined) {
		const d = D.parseDec(quantity);
		if (!d || !D.isPositive(d))
			throw new Error(`fill quantity must be a positive decimal string: ${quantity}`);
		if (D.cmp(d, remaining) > 0)
			throw new Error(`fill quantity ${quantity} exceeds the remaining ${D.fmt(remaining)}`);
		q = d;
	}
	const { wallet } = ctx;
	const info = MENA_CATALOGUE[o.symbol];
	const price = D.parseDec(o.price)!;
	const value = D.mul(q, price);
	const feeRate = D.parseDec(FEE_RATE)!;
	const now = ctx.clock();
	const created = String(now);
	let fee: D.Dec;
	if (o.side === 'BUY') {
		fee = D.mul(q, feeRate);
		wallet.unlock(o.accountId, info.quote, value);
		o.locked = D.sub(o.locked, value);
		wallet.move(o.accountId, info.base, 1, q, created, o.symbol);
		wallet.move(o.accountId, info.quote, 1, D.neg(value), created, o.symbol);
		wallet.move(o.accountId, info.base, 2, D.neg(fee), created, o.symbol);
		o.fee = D.add(o.fee, fee);
		o.feeCoin = info.base;
	} else {
		fee = D.mul(value, feeRate);
		wallet.unlock(o.accountId, info.base, q);
		o.locked = D.sub(o.locked, q);
		wallet.move(o.accountId, info.base, 1, D.neg(q), created, o.symbol);
		wallet.move(o.accountId, info.quote, 1, value, created, o.symbol);
		wallet.move(o.accountId, info.quote, 2, D.neg(fee), created, o.symbol);
		o.fee = D.add(o.fee, fee);
		o.feeCoin = info.quote;
	}
	// the resting order is filled by the market (no order of the user's on the other side): one
	// fill, the maker's
	const [trade] = ctx.trades.record([
		{
			accountId: o.accountId,
			orderId: o.orderId,
			clientOrderId: o.clientOrderId,
			symbol: o.symbol,
			side: o.side,
			price,
			qty: q,
			fee,
			feeCoin: o.feeCoin,
			isMaker: true,
			time: now,
		},
	]);
	o.executedQty = D.add(o.executedQty, q);
	o.cumQuote = D.add(o.cumQuote, value);
	o.updateTime = now;
	if (D.cmp(o.executedQty, orig) === 0) {
		o.status = 'FILLED';
		if (D.isPositive(o.locked)) wallet.unlock(o.accountId, o.lockCoin, o.locked);
		o.locked = D.ZERO;
		ctx.release(o);
	} else {
		o.status = 'PARTIALLY_FILLED';
	}
	ctx.events.order(o, trade);
	ctx.events.commit();
}

/**
 * The quantity of one advance step: NEW fills half its quantity (truncated to 8 decimals, or all
 * of it when that is zero), PARTIALLY_FILLED fills the rest (undefined: all that remains).
 */
export function advanceStep(o: OrderState): string | undefined {
	if (o.status !== 'NEW') return undefined;
	const half = D.divTrunc(D.parseDec(o.origQty)!, { v: 2n, s: 0 }, 8);
	return D.isPositive(half) ? D.fmt(half) : undefined;
}
