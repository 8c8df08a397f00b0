/**
 * The checks and order writing the sb.futures controls share (futures.ts): a contract that trades,
 * a side, a client order ID (the documentation's characters, at most 100, unique among the
 * account's open orders), a resting order to fill, a SELL within the LONG position, a new order.
 * Each refusal is an Error naming the problem; nothing is written before every check passed.
 */
import * as D from '../decimal';
import type { FuturesFillInput } from '../types';
import { checkOnGrid, type FuturesBook } from './book';
import { findContract, type Contract } from './contracts';
import type { HeldOrder } from './views';

/** The documentation's clientOrderId rule: "^[.A-Z:/a-z0-9_-]", "Max length 100". */
const CLIENT_ORDER_ID_RE = /^[.A-Z:/a-z0-9_-]{1,100}$/;

export function tradableContract(symbol: string, side: string): Contract {
	const c = findContract(symbol);
	if (!c) throw new Error(`unknown contract ${symbol}`);
	if (c.status !== 'TRADING') throw new Error(`${symbol} is ${c.status}: it does not trade`);
	if (side !== 'BUY' && side !== 'SELL') throw new Error('side must be BUY or SELL');
	return c;
}

export function checkClientOrderId(
	book: FuturesBook,
	accountId: string,
	clientOrderId: string | undefined,
): void {
	if (clientOrderId === undefined) return;
	if (!CLIENT_ORDER_ID_RE.test(clientOrderId))
		throw new Error(`clientOrderId '${clientOrderId}': 1 to 100 of . A-Z : / a-z 0-9 _ -`);
	if (book.openClientOrderId(accountId, clientOrderId))
		throw new Error(`clientOrderId '${clientOrderId}' is held by an open order`);
}

/** The resting order `input.orderId` names and the quantity to fill (default: what remains). */
export function restingOrderToFill(
	book: FuturesBook,
	accountId: string,
	c: Contract,
	input: FuturesFillInput & { orderId: string },
): { order: HeldOrder; quantity: string } {
	const order = book.findOrder(accountId, { orderId: input.orderId });
	if (!order || order.symbol !== c.symbol || order.side !== input.side)
		throw new Error(`no ${input.side} order ${input.orderId} of ${c.symbol} on this account`);
	if (order.status !== 'NEW' && order.status !== 'PARTIALLY_FILLED')
		throw new Error(`order ${input.orderId} is ${order.status}`);
	if (input.price !== undefined && D.canon(input.price) !== order.price)
		throw new Error(`a resting order fills at its price ${order.price}`);
	const quantity =
		input.quantity === undefined
			? D.fmt(D.sub(D.parseDec(order.quantity)!, order.executedQty))
			: checkOnGrid(input.quantity, 'quantity', c.stepSize);
	return { order, quantity };
}

/** A SELL may not exceed the LONG position (no short exists). */
export function checkWithinPosition(
	book: FuturesBook,
	accountId: string,
	c: Contract,
	side: 'BUY' | 'SELL',
	quantity: string,
): void {
	const held = book.position(accountId, c.symbol)?.baseQty ?? D.ZERO;
	if (side === 'SELL' && D.cmp(D.parseDec(quantity)!, held) > 0)
		throw new Error(
			`selling ${quantity} ${c.symbol} exceeds the LONG position of ${D.fmt(held)} (only LONG positions exist)`,
		);
}

/** A new NEW order of the contract, nothing executed yet. */
export function newOrder(
	book: FuturesBook,
	c: Contract,
	o: {
		accountId: string;
		time: number;
		side: 'BUY' | 'SELL';
		price: string;
		quantity: string;
		clientOrderId?: string;
		reduceOnly?: boolean;
		timeInForce?: 'GTC' | 'IOC' | 'FOK';
	},
): HeldOrder {
	return book.addOrder({
		accountId: o.accountId,
		time: o.time,
		side: o.side,
		price: o.price,
		quantity: o.quantity,
		clientOrderId: o.clientOrderId,
		symbol: c.symbol,
		leverage: c.leverage,
		reduceOnly: o.reduceOnly ?? false,
		timeInForce: o.timeInForce ?? 'GTC',
		status: 'NEW',
		executedQty: D.ZERO,
		executedQuote: D.ZERO,
	});
}
