/**
 * The futures state as held (exact decimals) and the answer shapes of the UAE documentation built
 * from it: positions (REST and the `outboundContractPositionInfo` stream event), orders, fills.
 */
import * as D from '../decimal';
import type { FuturesOrder, FuturesOrderStatus, FuturesPosition, FuturesTrade } from '../types';
import type { Contract } from './contracts';

/** Fractional digits of a margin, PnL ratio or average (the documentation's marginPrecision 0.0001). */
const MARGIN_SCALE = 4;
/** Fractional digits of an average price. */
const AVG_SCALE = 8;

export interface HeldOrder {
	accountId: string;
	time: number;
	orderId: string;
	clientOrderId: string;
	symbol: string;
	side: 'BUY' | 'SELL';
	price: string;
	quantity: string;
	leverage: string;
	reduceOnly: boolean;
	timeInForce: 'GTC' | 'IOC' | 'FOK';
	status: FuturesOrderStatus;
	executedQty: D.Dec;
	executedQuote: D.Dec;
}

export interface HeldTrade extends FuturesTrade {
	accountId: string;
}

export interface HeldPosition {
	accountId: string;
	symbol: string;
	baseQty: D.Dec;
	avgPrice: D.Dec;
	/** Cumulative realized PnL of the symbol (closing PnL less commissions), kept when closed. */
	realizedPnL: D.Dec;
}

export function isOpenOrder(o: HeldOrder): boolean {
	return o.status === 'NEW' || o.status === 'PARTIALLY_FILLED';
}

export function orderView(o: HeldOrder, c: Contract): FuturesOrder {
	const orig = D.parseDec(o.quantity)!;
	const price = D.parseDec(o.price)!;
	const avg = D.isPositive(o.executedQty)
		? D.divTrunc(o.executedQuote, o.executedQty, AVG_SCALE)
		: D.ZERO;
	return {
		time: String(o.time),
		orderId: o.orderId,
		clientOrderId: o.clientOrderId,
		symbol: o.symbol,
		baseAsset: c.base,
		quoteAsset: c.quote,
		price: o.price,
		side: o.side,
		orderType: 'limit',
		reduceOnly: o.reduceOnly,
		leverage: o.leverage,
		originalBaseQty: o.quantity,
		executedBaseQty: D.fmt(o.executedQty),
		originalQuoteQty: D.fmt(D.mul(orig, price)),
		executedQuoteQty: D.fmt(o.executedQuote),
		avgPrice: D.fmt(avg),
		timeInForce: o.timeInForce,
		status: o.status,
		stpMode: 'EXPIRE_TAKER',
		ordCxlReason: '',
		isLiquidationOrder: false,
		liquidationType: '',
		slTriggerPrice: '',
		slTriggerBy: '',
		tpTriggerPrice: '',
		tpTriggerBy: '',
	};
}

export function tradeView(t: HeldTrade): FuturesTrade {
	const view: FuturesTrade & { accountId?: string } = { ...t };
	delete view.accountId;
	return view;
}

function truncTo(d: D.Dec, scale: number): D.Dec {
	return D.divTrunc(d, { v: 1n, s: 0 }, scale);
}

/** A multiple of `tick` at or below `d` (a long's liquidation price, never rounded toward safety). */
function floorToTick(d: D.Dec, tick: string): D.Dec {
	const t = D.parseDec(tick)!;
	const steps = D.divTrunc(d, t, 0);
	return D.mul(steps, t);
}

/**
 * A LONG position at mark price `mark`:
 * - quoteQty = baseQty × mark (the position's value), margin = quoteQty / leverage (4 decimals);
 * - unrealizedPnL = (mark − avgPrice) × baseQty; profitRate = unrealizedPnL over the opening
 *   margin (avgPrice × baseQty / leverage), 4 decimals;
 * - ISOLATED: liquidationPrice = avgPrice × (1 − 1/leverage + maintMargin of the first risk
 *   limit) down to the tick, marginRate = (margin + unrealizedPnL) / quoteQty (4 decimals);
 * - CROSS: liquidationPrice "0" and marginRate "", as the documentation's example answers.
 */
export function positionView(p: HeldPosition, c: Contract, mark: string): FuturesPosition {
	const markDec = D.parseDec(mark)!;
	const lev = D.parseDec(c.leverage)!;
	const quoteQty = D.mul(p.baseQty, markDec);
	const margin = D.divTrunc(quoteQty, lev, MARGIN_SCALE);
	const unrealized = D.mul(D.sub(markDec, p.avgPrice), p.baseQty);
	const openMargin = D.divTrunc(D.mul(p.avgPrice, p.baseQty), lev, MARGIN_SCALE);
	const profitRate = D.isPositive(openMargin)
		? D.divTrunc(unrealized, openMargin, MARGIN_SCALE)
		: D.ZERO;
	let liquidationPrice = '0';
	let marginRate = '';
	if (c.marginType === 'ISOLATED') {
		const maint = D.parseDec(c.riskLimits[0].maintMargin)!;
		const one = { v: 1n, s: 0 };
		const factor = D.add(D.sub(one, D.divTrunc(one, lev, 18)), maint);
		liquidationPrice = D.fmt(floorToTick(D.mul(p.avgPrice, factor), c.tickSize));
		marginRate = D.isPositive(quoteQty)
			? D.fmt(D.divTrunc(D.add(margin, unrealized), quoteQty, MARGIN_SCALE))
			: '0';
	}
	return {
		symbol: p.symbol,
		baseAsset: c.base,
		quoteAsset: c.quote,
		avgPrice: D.fmt(truncTo(p.avgPrice, AVG_SCALE)),
		leverage: c.leverage,
		lastPrice: mark,
		baseQty: D.fmt(p.baseQty),
		quoteQty: D.fmt(quoteQty),
		markPrice: mark,
		liquidationPrice,
		margin: D.fmt(margin),
		marginRate,
		profitRate: D.fmt(profitRate),
		unrealizedPnL: D.fmt(unrealized),
		realizedPnL: D.fmt(p.realizedPnL),
		marginType: c.marginType,
		positionMode: 'net',
		positionSide: 'LONG',
	};
}

/** The `outboundContractPositionInfo` event of a position (the UAE documentation's Position Push). */
export function positionEvent(
	p: FuturesPosition,
	accountId: string,
	E: number,
): Record<string, unknown> {
	return {
		e: 'outboundContractPositionInfo',
		E: String(E),
		A: accountId,
		s: p.symbol,
		S: p.positionSide,
		p: p.avgPrice,
		P: p.baseQty,
		f: p.liquidationPrice,
		m: p.margin,
		r: p.realizedPnL,
		up: p.unrealizedPnL,
		pr: p.profitRate,
		pv: p.quoteQty,
		v: p.leverage,
		mt: p.marginType,
	};
}
