/**
 * The futures state as held (exact decimals) and the answer shapes of the UAE documentation built
 * from it: positions (REST and the `outboundContractPositionInfo` stream event), orders, fills.
 */
import * as D from '../decimal';
import type {
	FuturesOrder,
	FuturesOrderStatus,
	FuturesPosition,
	FuturesTimeInForce,
	FuturesTrade,
} from '../types';
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
	timeInForce: FuturesTimeInForce;
	status: FuturesOrderStatus;
	executedQty: D.Dec;
	executedQuote: D.Dec;
	/** Default LIMIT (the controls' orders). */
	type?: FuturesOrderType;
	/** STOP: the trigger price; `price` "0" for a stop-market. */
	stopPrice?: string;
	/** STOP: triggers when the mark is at or above stopPrice (else at or below). */
	triggerAbove?: boolean;
	stpMode?: 'EXPIRE_TAKER' | 'EXPIRE_MAKER';
	/** MARKET by quote: the quote quantity asked for. */
	quoteQty?: string;
	/** TP/SL to place on the order when wholly filled (an opening BUY). */
	tpsl?: OrderTpSl;
	/** A TP/SL child: the other child's order id (one cancels the other). */
	ocoOrderId?: string;
	isLiquidation?: boolean;
	ordCxlReason?: string;
}

export type FuturesOrderType = 'LIMIT' | 'MARKET' | 'LIMIT_MAKER' | 'STOP';

export interface TpSlLeg {
	triggerPrice: string;
	triggerBy: 'CONTRACT_PRICE' | 'MARK_PRICE';
	limitPrice?: string;
	clientOrderId?: string;
}

export interface OrderTpSl {
	tp?: TpSlLeg;
	sl?: TpSlLeg;
}

/** A position's TP/SL (POST position/trading-stop). */
export interface PositionStop {
	takeProfit?: { price: string; triggerBy: string; size?: string };
	stopLoss?: { price: string; triggerBy: string; size?: string };
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
	return o.status === 'NEW' || o.status === 'PARTIALLY_FILLED' || o.status === 'ORDER_NEW';
}

export function isStopOrder(o: HeldOrder): boolean {
	return o.type === 'STOP';
}

export function orderView(o: HeldOrder, c: Contract): FuturesOrder {
	const orig = D.parseDec(o.quantity)!;
	const price = D.parseDec(o.price)!;
	const avg = D.isPositive(o.executedQty)
		? D.divTrunc(o.executedQuote, o.executedQty, AVG_SCALE)
		: D.ZERO;
	const origQuote = o.quoteQty !== undefined ? D.parseDec(o.quoteQty)! : D.mul(orig, price);
	const view: FuturesOrder = {
		time: String(o.time),
		orderId: o.orderId,
		clientOrderId: o.clientOrderId,
		symbol: o.symbol,
		baseAsset: c.base,
		quoteAsset: c.quote,
		price: o.price,
		side: o.side,
		orderType: (o.type ?? 'LIMIT').toLowerCase(),
		reduceOnly: o.reduceOnly,
		leverage: o.leverage,
		originalBaseQty: o.quantity,
		executedBaseQty: D.fmt(o.executedQty),
		originalQuoteQty: D.fmt(origQuote),
		executedQuoteQty: D.fmt(o.executedQuote),
		avgPrice: D.fmt(avg),
		timeInForce: o.timeInForce,
		status: o.status,
		stpMode: o.stpMode ?? 'EXPIRE_TAKER',
		ordCxlReason: o.ordCxlReason ?? '',
		isLiquidationOrder: o.isLiquidation === true,
		liquidationType: o.isLiquidation === true ? 'LIQUIDATION_TAKER' : '',
		slTriggerPrice: o.tpsl?.sl?.triggerPrice ?? '',
		slTriggerBy: o.tpsl?.sl?.triggerBy ?? '',
		tpTriggerPrice: o.tpsl?.tp?.triggerPrice ?? '',
		tpTriggerBy: o.tpsl?.tp?.triggerBy ?? '',
	};
	if (o.type === 'STOP') view.stopPrice = o.stopPrice;
	return view;
}

/**
 * The `contractExecutionReport` event of an order's state now, with the fill that brought it
 * there if any (docs/api.md "Futures (write side)"): every value a string but the flags.
 */
export function executionReport(
	o: HeldOrder,
	E: number,
	fill?: HeldTrade,
): Record<string, unknown> {
	return {
		e: 'contractExecutionReport',
		E: String(E),
		s: o.symbol,
		c: o.clientOrderId,
		S: o.side,
		o: o.type ?? 'LIMIT',
		f: o.timeInForce,
		q: o.quantity,
		p: o.price,
		X: o.status,
		i: o.orderId,
		l: fill ? fill.quantity : '0',
		z: D.fmt(o.executedQty),
		L: fill ? fill.price : '0',
		n: fill ? fill.commission : '0',
		N: 'USDT',
		T: fill ? fill.time : '',
		t: fill ? fill.tradeId : '',
		m: fill ? fill.isMaker : false,
		O: String(o.time),
		Z: D.fmt(o.executedQuote),
		C: o.reduceOnly,
		v: o.leverage,
		lo: o.isLiquidation === true,
		lt: o.isLiquidation === true ? 'LIQUIDATION_TAKER' : '',
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
export function positionView(
	p: HeldPosition,
	c: Contract,
	mark: string,
	stop: PositionStop = {},
): FuturesPosition {
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
		takeProfit: stop.takeProfit?.price ?? '',
		stopLoss: stop.stopLoss?.price ?? '',
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
