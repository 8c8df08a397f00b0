/**
 * The parameters of a futures order (POST /api/v2/futures/order, and each item of
 * POST /api/v2/futures/batchOrders), checked without looking at the account: every refusal is an
 * ApiError naming the field (0001), or the contract's own code (0201 unknown, -1151 not trading,
 * 0209 price off the tick, -1137 quantity off the step, -1136 / -1135 below / above the limits).
 * What needs the account (client order IDs in use, the position, margin) is trading.ts's.
 * docs/api.md "Futures (write side)".
 */
import { CODES } from '../codes';
import * as D from '../decimal';
import { apiError, fieldError } from '../errors';
import type { FuturesTimeInForce } from '../types';
import { floorToStep, findContract, onStep, type Contract } from './contracts';
import type { FuturesOrderType, OrderTpSl, TpSlLeg } from './views';

/** The documentation's clientOrderId rule: "^[.A-Z:/a-z0-9_-]", "Max length 100". */
export const CLIENT_ORDER_ID_RE = /^[.A-Z:/a-z0-9_-]{1,100}$/;
/** The sandbox's leverage range (a contract's riskLimits do not say; the documentation's examples stay within 20). */
export const MAX_LEVERAGE = 20;

export const ORDER_TYPES = ['LIMIT', 'MARKET', 'LIMIT_MAKER', 'STOP'] as const;
const TIME_IN_FORCE = ['GTC', 'FOK', 'IOC', 'LIMIT_MAKER'] as const;
const STP_MODES = ['EXPIRE_TAKER', 'EXPIRE_MAKER'] as const;
export const TRIGGER_BY = ['CONTRACT_PRICE', 'MARK_PRICE'] as const;

/** One parameter by name: undefined when absent; throws 0001 when present but not a scalar. */
export type ParamGetter = (name: string) => string | undefined;

/** A checked order, its quantity in base coin (a quote quantity converted at the mark). */
export interface OrderRequest {
	c: Contract;
	side: 'BUY' | 'SELL';
	type: FuturesOrderType;
	quantity: string;
	/** The quote quantity asked for (quoteQty), when the order was sent by quote. */
	quoteQty?: string;
	/** "0" for MARKET and stop-market. */
	price: string;
	stopPrice?: string;
	leverage: string;
	reduceOnly: boolean;
	timeInForce: FuturesTimeInForce;
	stpMode: 'EXPIRE_TAKER' | 'EXPIRE_MAKER';
	clientOrderId?: string;
	tpsl?: OrderTpSl;
}

export function oneOf<T extends string>(
	get: ParamGetter,
	name: string,
	allowed: readonly T[],
	dflt?: T,
): T {
	const v = get(name);
	if (v === undefined) {
		if (dflt !== undefined) return dflt;
		throw fieldError(name, allowed.join(' or '));
	}
	if (!(allowed as readonly string[]).includes(v))
		throw fieldError(name, `${allowed.join(' or ')}, not '${v}'`);
	return v as T;
}

/** A positive plain decimal, canonical; undefined when absent. */
export function decimalParam(get: ParamGetter, name: string): string | undefined {
	const v = get(name);
	if (v === undefined) return undefined;
	if (!D.PLAIN_DECIMAL_RE.test(v) || (v.split('.')[1] ?? '').length > D.MAX_SCALE)
		throw fieldError(name, `a positive plain decimal string, not '${v}'`);
	const d = D.parseDec(v)!;
	if (!D.isPositive(d)) throw fieldError(name, 'must be above 0');
	return D.fmt(d);
}

/** A price on the contract's tick (0209 off it); undefined when absent. */
export function priceParam(get: ParamGetter, name: string, c: Contract): string | undefined {
	const v = decimalParam(get, name);
	if (v !== undefined && !onStep(v, c.tickSize))
		throw apiError(
			CODES.invalidPricePrecision,
			`${name} ${v} is not a multiple of the tick ${c.tickSize}`,
		);
	return v;
}

export function booleanParam(get: ParamGetter, name: string): boolean {
	const v = get(name);
	if (v === undefined) return false;
	if (v !== 'true' && v !== 'false') throw fieldError(name, `true or false, not '${v}'`);
	return v === 'true';
}

/** leverage: an integer 1 to 20; `dflt` when absent. */
export function leverageParam(get: ParamGetter, dflt: string | undefined): string {
	const v = get('leverage');
	if (v === undefined && dflt !== undefined) return dflt;
	if (v === undefined || !/^\d{1,3}$/.test(v) || Number(v) < 1 || Number(v) > MAX_LEVERAGE)
		throw fieldError('leverage', `an integer from 1 to ${MAX_LEVERAGE}, not '${String(v)}'`);
	return String(Number(v));
}

export function clientIdParam(get: ParamGetter, name: string): string | undefined {
	const v = get(name);
	if (v === undefined) return undefined;
	if (!CLIENT_ORDER_ID_RE.test(v))
		throw fieldError(name, `1 to 100 of . A-Z : / a-z 0-9 _ -, not '${v}'`);
	return v;
}

/** The contract `symbol` names: 0001 absent, 0201 unknown, -1151 not trading. */
export function tradingContract(get: ParamGetter, leverageOf: (c: Contract) => Contract): Contract {
	const name = get('symbol');
	if (name === undefined || name === '') throw fieldError('symbol');
	const found = findContract(name);
	if (!found) throw apiError(CODES.instrumentNotFound, `'${name}' is not a listed contract`);
	if (found.status !== 'TRADING')
		throw apiError(CODES.symbolNotOpen, `${name} is ${found.status}: it does not trade`);
	return leverageOf(found);
}

/** A base quantity against the contract's LOT_SIZE (market orders: the market limits). */
function checkQuantity(q: string, name: string, c: Contract, market: boolean): void {
	if (!onStep(q, c.stepSize))
		throw apiError(
			CODES.quantityPrecision,
			`${name} ${q} is not a multiple of the step ${c.stepSize}`,
		);
	const min = market ? c.marketOrderMinQty : c.minQty;
	const max = market ? c.marketOrderMaxQty : c.maxQty;
	const d = D.parseDec(q)!;
	if (D.cmp(d, D.parseDec(min)!) < 0)
		throw apiError(CODES.quantityTooSmall, `${name}: ${q} ${c.base} is below the minimum ${min}`);
	if (D.cmp(d, D.parseDec(max)!) > 0)
		throw apiError(CODES.quantityTooLarge, `${name}: ${q} ${c.base} is above the maximum ${max}`);
}

function tpslLeg(get: ParamGetter, c: Contract, p: 'tp' | 'sl', ref: string): TpSlLeg | undefined {
	const trigger = priceParam(get, `${p}TriggerPrice`, c);
	const by = get(`${p}TriggerBy`);
	const limit = priceParam(get, `${p}LimitPrice`, c);
	const clientOrderId = clientIdParam(get, `${p}ClientOrderId`);
	if (trigger === undefined) {
		for (const [name, v] of [
			[`${p}TriggerBy`, by],
			[`${p}LimitPrice`, limit],
			[`${p}ClientOrderId`, clientOrderId],
		] as const) {
			if (v !== undefined) throw fieldError(name, `sent without ${p}TriggerPrice`);
		}
		return undefined;
	}
	const above = D.cmp(D.parseDec(trigger)!, D.parseDec(ref)!) > 0;
	if (p === 'tp' && !above)
		throw fieldError('tpTriggerPrice', `a LONG's take-profit must be above ${ref}, not ${trigger}`);
	if (p === 'sl' && (above || trigger === ref))
		throw fieldError('slTriggerPrice', `a LONG's stop-loss must be below ${ref}, not ${trigger}`);
	const leg: TpSlLeg = {
		triggerPrice: trigger,
		triggerBy: oneOf(get, `${p}TriggerBy`, TRIGGER_BY, 'CONTRACT_PRICE'),
	};
	if (limit !== undefined) leg.limitPrice = limit;
	if (clientOrderId !== undefined) leg.clientOrderId = clientOrderId;
	return leg;
}

const TPSL_NAMES = ['TriggerPrice', 'TriggerBy', 'LimitPrice', 'ClientOrderId'];

/** TP/SL of an opening BUY, the trigger prices on the right side of `ref` (the order's price). */
function tpslParams(
	get: ParamGetter,
	c: Contract,
	opening: boolean,
	ref: string,
): OrderTpSl | undefined {
	if (!opening) {
		for (const p of ['tp', 'sl']) {
			for (const n of TPSL_NAMES) {
				if (get(`${p}${n}`) !== undefined)
					throw fieldError(
						`${p}${n}`,
						"take-profit and stop-loss go only on an opening BUY (not reduceOnly); set a position's with position/trading-stop",
					);
			}
		}
		return undefined;
	}
	const tp = tpslLeg(get, c, 'tp', ref);
	const sl = tpslLeg(get, c, 'sl', ref);
	if (!tp && !sl) return undefined;
	return { ...(tp ? { tp } : {}), ...(sl ? { sl } : {}) };
}

function timeInForceOf(
	get: ParamGetter,
	type: FuturesOrderType,
	price: string | undefined,
): FuturesTimeInForce {
	if (type === 'LIMIT_MAKER') return oneOf(get, 'timeInForce', ['LIMIT_MAKER'], 'LIMIT_MAKER');
	// a MARKET order, or a stop-market's, takes what the market has at once
	if (type === 'MARKET' || (type === 'STOP' && price === undefined))
		return oneOf(get, 'timeInForce', ['IOC'], 'IOC');
	if (type === 'STOP') return oneOf(get, 'timeInForce', ['GTC', 'FOK', 'IOC'], 'GTC');
	return oneOf(get, 'timeInForce', TIME_IN_FORCE, 'GTC');
}

/**
 * Every check of one order that needs no account, in a fixed order (symbol, side, type, quantity,
 * price, stopPrice, leverage, flags, client order ID, TP/SL). `mark` is the contract's mark price
 * now (a quote quantity's price, a MARKET order's TP/SL reference).
 */
export function parseOrder(
	get: ParamGetter,
	contractOf: (c: Contract) => Contract,
	markOf: (c: Contract) => string,
): OrderRequest {
	const c = tradingContract(get, contractOf);
	const side = oneOf(get, 'side', ['BUY', 'SELL'] as const);
	const type = oneOf(get, 'type', ORDER_TYPES);
	const base = decimalParam(get, 'baseQty');
	const quote = decimalParam(get, 'quoteQty');
	if ((base === undefined) === (quote === undefined))
		throw fieldError(
			base === undefined ? 'baseQty' : 'quoteQty',
			'send exactly one of baseQty and quoteQty',
		);
	const mark = floorToStep(markOf(c), c.tickSize);
	let quantity = base;
	if (quote !== undefined) {
		// valued at the mark price, down to the step
		const steps = D.divTrunc(
			D.divTrunc(D.parseDec(quote)!, D.parseDec(mark)!, 18),
			D.parseDec(c.stepSize)!,
			0,
		);
		quantity = D.fmt(D.mul(steps, D.parseDec(c.stepSize)!));
		if (!D.isPositive(D.parseDec(quantity)!))
			throw apiError(
				CODES.quantityTooSmall,
				`quoteQty ${quote} buys less than one step (${c.stepSize} ${c.base}) at the mark price ${mark}`,
			);
	}
	checkQuantity(quantity!, quote !== undefined ? 'quoteQty' : 'baseQty', c, type === 'MARKET');
	const price = priceParam(get, 'price', c);
	if (price === undefined && (type === 'LIMIT' || type === 'LIMIT_MAKER'))
		throw fieldError('price', `required for a ${type} order`);
	if (price !== undefined && type === 'MARKET')
		throw fieldError('price', 'a MARKET order takes no price (it fills at the mark price)');
	const stopPrice = priceParam(get, 'stopPrice', c);
	if (type === 'STOP' && stopPrice === undefined)
		throw fieldError('stopPrice', 'required for a STOP order');
	if (type !== 'STOP' && stopPrice !== undefined)
		throw fieldError('stopPrice', 'only a STOP order takes a stopPrice');
	const leverage = leverageParam(get, c.leverage);
	const reduceOnly = booleanParam(get, 'reduceOnly');
	const timeInForce = timeInForceOf(get, type, price);
	const stpMode = oneOf(get, 'stpMode', STP_MODES, 'EXPIRE_TAKER');
	const clientOrderId = clientIdParam(get, 'clientOrderId');
	const ref = price ?? (type === 'STOP' ? stopPrice! : mark);
	const tpsl = tpslParams(get, c, side === 'BUY' && !reduceOnly, ref);
	const tpId = tpsl?.tp?.clientOrderId;
	const slId = tpsl?.sl?.clientOrderId;
	if (tpId !== undefined && tpId === clientOrderId)
		throw fieldError('tpClientOrderId', 'must differ from clientOrderId');
	if (slId !== undefined && (slId === clientOrderId || slId === tpId))
		throw fieldError('slClientOrderId', 'must differ from clientOrderId and tpClientOrderId');
	const req: OrderRequest = {
		c,
		side,
		type,
		quantity: quantity!,
		price: price ?? '0',
		leverage,
		reduceOnly,
		timeInForce,
		stpMode,
	};
	if (quote !== undefined) req.quoteQty = quote;
	if (stopPrice !== undefined) req.stopPrice = stopPrice;
	if (clientOrderId !== undefined) req.clientOrderId = clientOrderId;
	if (tpsl) req.tpsl = tpsl;
	return req;
}
