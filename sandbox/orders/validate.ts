/**
 * The checks of one order before it is placed: its fields (in the order the exchange reports the
 * first bad one), then the symbol's rules (realistic mode), then whether the account's free
 * balance pays for it. Throws OrderFail.
 */
import { BASE_QTY_SCALE, FEE_RATE, MAX_CLIENT_ORDER_ID_LENGTH } from '../constants';
import { CODES, type CodeInfo } from '../codes';
import * as D from '../decimal';
import { OrderFail, orderFieldFail, positiveDecimal } from '../errors';
import type { MarketSymbol, SymbolRules } from '../market/catalogue';
import type { Market } from '../market/market';
import type { OrderSide, OrderType, TimeInForce } from '../types';
import type { OrderInput, StpMode } from './state';

/** An order whose fields passed the checks; decimals canonical, null when not sent. */
export interface CheckedOrder {
	symbol: string;
	info: MarketSymbol;
	side: OrderSide;
	type: OrderType;
	timeInForce: TimeInForce;
	price: string | null;
	quantity: string | null;
	amount: string | null;
	stpMode: StpMode | null;
	clientOrderId: string | null;
}

function optString(input: OrderInput, name: string): string | null {
	const v = input[name];
	if (v === undefined || v === null) return null;
	if (typeof v === 'string') return v;
	throw orderFieldFail(name, 'must be a string');
}

/**
 * The time in force each type takes: /api/v1/spot/new/order and its batch one each; the unified
 * endpoints (/api/v1.1/spot/order, batchOrders: the family's "Create Order v1.1" page) also IOC
 * and FOK for LIMIT ("GTC" for limit and limit maker, "IOC" for limit and market, "FOK" for limit).
 */
const TIME_IN_FORCE: Record<'v1' | 'v1.1', Record<OrderType, readonly TimeInForce[]>> = {
	v1: { LIMIT: ['GTC'], LIMIT_MAKER: ['GTC'], MARKET: ['IOC'] },
	'v1.1': { LIMIT: ['GTC', 'IOC', 'FOK'], LIMIT_MAKER: ['GTC'], MARKET: ['IOC'] },
};

/**
 * Check every field of one order, then (realistic mode) the symbol's rules; the client order ID's
 * uniqueness is the book's to check. `unified`: sent to a v1.1 endpoint, which takes a MARKET
 * order by amount on either side and IOC or FOK for LIMIT.
 */
export function checkOrderFields(input: OrderInput, market: Market, unified = false): CheckedOrder {
	const symbolV = input.symbol;
	if (typeof symbolV !== 'string' || symbolV === '') throw orderFieldFail('symbol');
	const info = market.tradable(symbolV);
	if (!info)
		throw new OrderFail('symbol', `${CODES.instrumentNotFound.msg}: '${symbolV}'`, 'symbol');

	const side = optString(input, 'side');
	if (side !== 'BUY' && side !== 'SELL') throw orderFieldFail('side', 'BUY or SELL');
	const type = optString(input, 'type');
	if (type !== 'LIMIT' && type !== 'MARKET' && type !== 'LIMIT_MAKER')
		throw orderFieldFail('type', 'LIMIT, MARKET or LIMIT_MAKER');

	const tifIn = optString(input, 'timeInForce');
	const allowed = TIME_IN_FORCE[unified ? 'v1.1' : 'v1'][type];
	if (tifIn !== null && !allowed.includes(tifIn as TimeInForce))
		throw orderFieldFail('timeInForce', `${type} orders take ${allowed.join(' or ')}`);
	const tif: TimeInForce = tifIn === null ? allowed[0] : (tifIn as TimeInForce);

	const price = positiveDecimal(input.price, 'price', orderFieldFail);
	const quantity = positiveDecimal(input.quantity, 'quantity', orderFieldFail);
	const amount = positiveDecimal(input.amount, 'amount', orderFieldFail);
	if (type === 'MARKET') {
		if (price !== null) throw orderFieldFail('price', 'MARKET orders take no price');
		if (quantity !== null && amount !== null)
			throw orderFieldFail('amount', 'MARKET orders take exactly one of quantity or amount');
		if (quantity === null && amount === null)
			throw orderFieldFail('quantity', 'MARKET orders need quantity or amount');
		if (amount !== null && side !== 'BUY' && !unified)
			throw orderFieldFail('amount', 'amount (quote cash) is for MARKET BUY orders only');
	} else {
		if (price === null) throw orderFieldFail('price', `${type} orders need price`);
		if (quantity === null) throw orderFieldFail('quantity', `${type} orders need quantity`);
		if (amount !== null) throw orderFieldFail('amount', 'amount is for MARKET orders only');
	}

	const stp = optString(input, 'stpMode');
	if (stp !== null && stp !== 'EXPIRE_TAKER' && stp !== 'EXPIRE_MAKER')
		throw orderFieldFail('stpMode', 'EXPIRE_TAKER or EXPIRE_MAKER');

	const clientOrderId = optString(input, 'newClientOrderId');
	if (
		clientOrderId !== null &&
		(clientOrderId.length === 0 || clientOrderId.length > MAX_CLIENT_ORDER_ID_LENGTH)
	) {
		throw orderFieldFail('newClientOrderId', `1 to ${MAX_CLIENT_ORDER_ID_LENGTH} characters`);
	}
	const checked: CheckedOrder = {
		symbol: symbolV,
		info,
		side,
		type,
		timeInForce: tif,
		price,
		quantity,
		amount,
		stpMode: stp,
		clientOrderId,
	};
	if (market.mode === 'realistic') checkSymbolRules(checked, market.rules(info));
	return checked;
}

const dec = (s: string): D.Dec => D.parseDec(s)!;

/** Whether `x` is a whole multiple of `step` (a step of 0 allows anything). */
export function isMultiple(x: D.Dec, step: D.Dec): boolean {
	if (step.v === 0n) return true;
	const s = Math.max(x.s, step.s);
	const xv = x.v * 10n ** BigInt(s - x.s);
	const sv = step.v * 10n ** BigInt(s - step.s);
	return xv % sv === 0n;
}

/** The multiples of `step` either side of `x`, for a message: "nearest 50000 or 50000.01". */
function nearest(x: D.Dec, step: D.Dec): string {
	const down = D.mul(D.divTrunc(x, step, 0), step);
	return `nearest ${D.fmt(down)} or ${D.fmt(D.add(down, step))}`;
}

function ruleFail(code: CodeInfo, field: string, detail: string): OrderFail {
	return new OrderFail('rule', `${code.msg} (${detail})`, field, code);
}

/** A maximum that is "0" or empty sets no limit. */
const over = (x: D.Dec, max: string) => max !== '' && max !== '0' && D.cmp(x, dec(max)) > 0;
const under = (x: D.Dec, min: string) => min !== '' && D.cmp(x, dec(min)) < 0;

/**
 * The symbol's rules (exchange information filters) with the UAE documentation's codes: status
 * (HALT -1155, IN_PREVIEW -1151); LIMIT and LIMIT_MAKER: price tick 0209, quantity step -1137,
 * minQty/maxQty -1136/-1135, price × quantity below minNotional or minAmount -1140, above
 * maxAmount -1206; MARKET by quantity: step -1137, marketOrderMinQty/MaxQty -1136/-1135; MARKET
 * by amount: quotePrecision -1148, marketOrderMinAmount/MaxAmount -1140/-1206.
 */
export function checkSymbolRules(o: CheckedOrder, r: SymbolRules): void {
	if (r.status === 'HALT')
		throw ruleFail(CODES.symbolNotForApi, 'symbol', `${o.symbol} is HALT: trading suspended`);
	if (r.status === 'IN_PREVIEW')
		throw ruleFail(CODES.symbolNotOpen, 'symbol', `${o.symbol} is IN_PREVIEW`);
	const checkQty = (q: D.Dec, min: string, max: string, what: string) => {
		const step = dec(r.stepSize);
		if (!isMultiple(q, step))
			throw ruleFail(
				CODES.quantityPrecision,
				'quantity',
				`quantity ${D.fmt(q)} is not a multiple of the step size ${r.stepSize}; ${nearest(q, step)}`,
			);
		if (under(q, min))
			throw ruleFail(
				CODES.quantityTooSmall,
				'quantity',
				`quantity ${D.fmt(q)} is below the ${what}minimum ${min}`,
			);
		if (over(q, max))
			throw ruleFail(
				CODES.quantityTooLarge,
				'quantity',
				`quantity ${D.fmt(q)} is above the ${what}maximum ${max}`,
			);
	};
	if (o.type === 'MARKET') {
		if (o.quantity !== null) {
			checkQty(dec(o.quantity), r.marketOrderMinQty, r.marketOrderMaxQty, 'market order ');
			return;
		}
		const amount = dec(o.amount!);
		const step = dec(r.quotePrecision);
		if (!isMultiple(amount, step))
			throw ruleFail(
				CODES.amountPrecision,
				'amount',
				`amount ${D.fmt(amount)} is not a multiple of ${r.quotePrecision}; ${nearest(amount, step)}`,
			);
		if (under(amount, r.marketOrderMinAmount))
			throw ruleFail(
				CODES.amountTooSmall,
				'amount',
				`amount ${D.fmt(amount)} is below the market order minimum ${r.marketOrderMinAmount}`,
			);
		if (over(amount, r.marketOrderMaxAmount))
			throw ruleFail(
				CODES.amountTooLarge,
				'amount',
				`amount ${D.fmt(amount)} is above the market order maximum ${r.marketOrderMaxAmount}`,
			);
		return;
	}
	const price = dec(o.price!);
	const tick = dec(r.tickSize);
	if (!isMultiple(price, tick))
		throw ruleFail(
			CODES.invalidPricePrecision,
			'price',
			`price ${D.fmt(price)} is not a multiple of the tick size ${r.tickSize}; ${nearest(price, tick)}`,
		);
	const qty = dec(o.quantity!);
	checkQty(qty, r.minQty, r.maxQty, '');
	const notional = D.mul(price, qty);
	const n = D.fmt(notional);
	if (under(notional, r.minNotional))
		throw ruleFail(
			CODES.amountTooSmall,
			'quantity',
			`price × quantity ${n} is below the minimum notional ${r.minNotional}`,
		);
	if (under(notional, r.minAmount))
		throw ruleFail(
			CODES.amountTooSmall,
			'quantity',
			`price × quantity ${n} is below the minimum amount ${r.minAmount}`,
		);
	if (over(notional, r.maxAmount))
		throw ruleFail(
			CODES.amountTooLarge,
			'quantity',
			`price × quantity ${n} is above the maximum amount ${r.maxAmount}`,
		);
}

/**
 * What an order takes from its account: a MARKET order fills at once (quantity, cost and fee at
 * the symbol's last price), a resting order locks `lockAmount` of `lockCoin`.
 */
export interface OrderFunds {
	execQty: D.Dec;
	cost: D.Dec;
	fee: D.Dec;
	lockCoin: string;
	lockAmount: D.Dec;
}

/**
 * The funds an order needs, a MARKET order at `lastPrice`; throws OrderFail 'insufficient' when
 * the free balance is short.
 */
export function fundsFor(
	o: CheckedOrder,
	free: (coin: string) => D.Dec,
	lastPrice: string,
): OrderFunds {
	// only what is free (not locked by resting orders) can be spent
	const { base, quote } = o.info;
	const last = D.parseDec(lastPrice)!;
	const feeRate = D.parseDec(FEE_RATE)!;
	const short = () =>
		new OrderFail(
			'insufficient',
			CODES.insufficientAsset.msg,
			o.amount !== null ? 'amount' : 'quantity',
		);
	const funds: OrderFunds = {
		execQty: D.ZERO,
		cost: D.ZERO,
		fee: D.ZERO,
		lockCoin: '',
		lockAmount: D.ZERO,
	};
	if (o.type === 'MARKET') {
		const execQty =
			o.quantity !== null
				? D.parseDec(o.quantity)!
				: D.divTrunc(D.parseDec(o.amount!)!, last, BASE_QTY_SCALE);
		if (!D.isPositive(execQty))
			throw orderFieldFail('amount', 'too small for one unit step of the base coin');
		funds.execQty = execQty;
		funds.cost = D.mul(execQty, last);
		funds.fee = D.mul(funds.cost, feeRate);
		if (o.side === 'BUY') {
			if (D.cmp(free(quote), D.add(funds.cost, funds.fee)) < 0) throw short();
		} else if (D.cmp(free(base), execQty) < 0) {
			throw short();
		}
	} else {
		const q = D.parseDec(o.quantity!)!;
		funds.lockCoin = o.side === 'BUY' ? quote : base;
		funds.lockAmount = o.side === 'BUY' ? D.mul(q, D.parseDec(o.price!)!) : q;
		if (D.cmp(free(funds.lockCoin), funds.lockAmount) < 0) throw short();
	}
	return funds;
}
