/**
 * The checks of one order before it is placed: its fields (in the order the exchange reports the
 * first bad one), then whether the account's free balance pays for it. Throws OrderFail.
 */
import {
	BASE_QTY_SCALE,
	FEE_RATE,
	MAX_CLIENT_ORDER_ID_LENGTH,
	SYMBOLS,
	type SymbolInfo,
} from '../constants';
import { CODES } from '../codes';
import * as D from '../decimal';
import { OrderFail, orderFieldFail, positiveDecimal } from '../errors';
import type { OrderSide, OrderType, TimeInForce } from '../types';
import type { OrderInput, StpMode } from './state';

/** An order whose fields passed the checks; decimals canonical, null when not sent. */
export interface CheckedOrder {
	symbol: string;
	info: SymbolInfo;
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

/** Check every field of one order; the client order ID's uniqueness is the book's to check. */
export function checkOrderFields(input: OrderInput): CheckedOrder {
	const symbolV = input.symbol;
	if (typeof symbolV !== 'string' || symbolV === '') throw orderFieldFail('symbol');
	const info = SYMBOLS[symbolV];
	if (!info)
		throw new OrderFail('symbol', `${CODES.instrumentNotFound.msg}: '${symbolV}'`, 'symbol');

	const side = optString(input, 'side');
	if (side !== 'BUY' && side !== 'SELL') throw orderFieldFail('side', 'BUY or SELL');
	const type = optString(input, 'type');
	if (type !== 'LIMIT' && type !== 'MARKET' && type !== 'LIMIT_MAKER')
		throw orderFieldFail('type', 'LIMIT, MARKET or LIMIT_MAKER');

	const tifIn = optString(input, 'timeInForce');
	const tif: TimeInForce = type === 'MARKET' ? 'IOC' : 'GTC';
	if (tifIn !== null && tifIn !== tif)
		throw orderFieldFail('timeInForce', `${type} orders take ${tif}`);

	const price = positiveDecimal(input.price, 'price', orderFieldFail);
	const quantity = positiveDecimal(input.quantity, 'quantity', orderFieldFail);
	const amount = positiveDecimal(input.amount, 'amount', orderFieldFail);
	if (type === 'MARKET') {
		if (price !== null) throw orderFieldFail('price', 'MARKET orders take no price');
		if (quantity !== null && amount !== null)
			throw orderFieldFail('amount', 'MARKET orders take exactly one of quantity or amount');
		if (quantity === null && amount === null)
			throw orderFieldFail('quantity', 'MARKET orders need quantity or amount');
		if (amount !== null && side !== 'BUY')
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
	return {
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

/** The funds an order needs; throws OrderFail 'insufficient' when the free balance is short. */
export function fundsFor(o: CheckedOrder, free: (coin: string) => D.Dec): OrderFunds {
	// only what is free (not locked by resting orders) can be spent
	const { base, quote } = o.info;
	const last = D.parseDec(o.info.last)!;
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
