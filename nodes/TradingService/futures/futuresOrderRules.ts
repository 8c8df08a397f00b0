import type { IDataObject, INode } from 'n8n-workflow';

import { compareDecimals, parseDecimal } from '../helpers/decimals';
import { inputError, oneOf, positiveDecimal, strictBoolean } from '../helpers/validation';
import { contractSymbol } from './contracts';
import { FUTURES_CLIENT_ORDER_ID } from './futuresOrderFind';

// Nothing unknown is dropped.

const FUTURES_ORDER_KINDS = ['LIMIT', 'MARKET', 'LIMIT_MAKER', 'STOP'] as const;
type FuturesOrderKind = (typeof FUTURES_ORDER_KINDS)[number];
const TIME_IN_FORCE = ['GTC', 'FOK', 'IOC', 'LIMIT_MAKER'] as const;
const STP_MODES = ['EXPIRE_TAKER', 'EXPIRE_MAKER'] as const;
const TRIGGER_BY = ['CONTRACT_PRICE', 'MARK_PRICE'] as const;
/** What the node appends to an order's client order ID to name its take-profit and stop-loss orders. */
const CHILD_SUFFIXES = { tp: '-tp', sl: '-sl' } as const;

/** The fields one order may carry (Create Many's items and JSON). */
export const FUTURES_ORDER_FIELDS = [
	'symbol',
	'side',
	'type',
	'baseQty',
	'quoteQty',
	'price',
	'stopPrice',
	'leverage',
	'reduceOnly',
	'timeInForce',
	'stpMode',
	'clientOrderId',
	'tpTriggerPrice',
	'tpTriggerBy',
	'tpLimitPrice',
	'slTriggerPrice',
	'slTriggerBy',
	'slLimitPrice',
] as const;

export interface FuturesOrder extends IDataObject {
	symbol: string;
	side: 'BUY' | 'SELL';
	type: FuturesOrderKind;
	baseQty?: string;
	quoteQty?: string;
	price?: string;
	stopPrice?: string;
	leverage?: string;
	reduceOnly?: boolean;
	timeInForce?: string;
	stpMode?: string;
	clientOrderId?: string;
	tpTriggerPrice?: string;
	tpTriggerBy?: string;
	tpLimitPrice?: string;
	tpClientOrderId?: string;
	slTriggerPrice?: string;
	slTriggerBy?: string;
	slLimitPrice?: string;
	slClientOrderId?: string;
}

export const PRICE_FIELDS = [
	'price',
	'stopPrice',
	'tpTriggerPrice',
	'tpLimitPrice',
	'slTriggerPrice',
	'slLimitPrice',
] as const;

const isAbsent = (value: unknown) => value === undefined || value === null || value === '';

type Refuse = (field: string, problem: string, fix: string) => never;

function checkSize(raw: IDataObject, refuse: Refuse): 'baseQty' | 'quoteQty' {
	const hasBase = !isAbsent(raw.baseQty);
	if (hasBase === !isAbsent(raw.quoteQty))
		refuse(
			hasBase ? 'quoteQty' : 'baseQty',
			hasBase ? 'is given with a base quantity' : 'is empty, and so is the quote quantity',
			'Give exactly one: a quantity in the base coin (e.g. 0.01 BTC), or in the quote coin (e.g. 100 USDT, valued by the exchange at the mark price).',
		);
	return hasBase ? 'baseQty' : 'quoteQty';
}

function checkPrices(raw: IDataObject, type: FuturesOrderKind, refuse: Refuse): void {
	if (type === 'MARKET' && !isAbsent(raw.price))
		refuse('price', 'is not used by MARKET orders', 'Remove the price, or use a LIMIT order.');
	if ((type === 'LIMIT' || type === 'LIMIT_MAKER') && isAbsent(raw.price))
		refuse('price', `is required for ${type} orders`, 'Enter the limit price, e.g. 60000.5.');
	if (type === 'STOP' && isAbsent(raw.stopPrice))
		refuse(
			'stopPrice',
			'is required for STOP orders',
			'Enter the mark price that triggers the order; add a Price for a stop-limit order, leave it empty for a stop-market one.',
		);
	if (type !== 'STOP' && !isAbsent(raw.stopPrice))
		refuse('stopPrice', `is not used by ${type} orders`, 'Remove it, or use a STOP order.');
}

/** The take-profit and stop-loss of an opening BUY: trigger above and below its price. */
function checkTpSl(
	raw: IDataObject,
	order: FuturesOrder,
	refuse: Refuse,
	label: (field: string) => string,
): void {
	for (const leg of ['tp', 'sl'] as const) {
		const trigger = `${leg}TriggerPrice`;
		for (const other of [`${leg}TriggerBy`, `${leg}LimitPrice`]) {
			if (isAbsent(raw[trigger]) && !isAbsent(raw[other]))
				refuse(
					other,
					`is given without ${label(trigger)}`,
					`Give ${label(trigger)} too, or remove it.`,
				);
		}
	}
	if (isAbsent(raw.tpTriggerPrice) && isAbsent(raw.slTriggerPrice)) return;
	const leg = isAbsent(raw.tpTriggerPrice) ? 'slTriggerPrice' : 'tpTriggerPrice';
	if (order.side !== 'BUY' || order.reduceOnly === true)
		refuse(
			leg,
			'is for an opening BUY only',
			'Take profit and stop loss protect a LONG position the order opens: use them on a BUY that is not reduce-only, or set a position’s TP/SL with Set Position TP/SL.',
		);
	const misplaced = misplacedTpSl(order);
	if (misplaced !== undefined) refuse(misplaced.field, misplaced.problem, misplaced.fix);
}

/** Checked as given, and again after Fit to Contract Rules rounded them. */
export function misplacedTpSl(
	order: FuturesOrder,
): { field: 'tpTriggerPrice' | 'slTriggerPrice'; problem: string; fix: string } | undefined {
	const reference = order.price ?? order.stopPrice;
	if (reference === undefined) return undefined;
	const above = (field: 'tpTriggerPrice' | 'slTriggerPrice') =>
		compareDecimals(parseDecimal(order[field]!)!, parseDecimal(reference)!);
	if (order.tpTriggerPrice !== undefined && above('tpTriggerPrice') <= 0)
		return {
			field: 'tpTriggerPrice',
			problem: `${order.tpTriggerPrice} is not above the order’s price ${reference}`,
			fix: 'A take profit of a LONG triggers above the entry: raise it, or lower the price.',
		};
	if (order.slTriggerPrice !== undefined && above('slTriggerPrice') >= 0)
		return {
			field: 'slTriggerPrice',
			problem: `${order.slTriggerPrice} is not below the order’s price ${reference}`,
			fix: 'A stop loss of a LONG triggers below the entry: lower it, or raise the price.',
		};
	return undefined;
}

function leverageOf(value: unknown, refuse: Refuse): string {
	const text = typeof value === 'number' ? String(value) : value;
	const number = Number(text);
	// Only a whole number of at least 1: the exchange refuses more than the contract allows.
	if (
		typeof text !== 'string' ||
		!/^\d+$/.test(text) ||
		!Number.isSafeInteger(number) ||
		number < 1
	)
		refuse(
			'leverage',
			`${JSON.stringify(value)} is not a leverage`,
			'Give a whole number of at least 1, e.g. 5 (at most what the contract allows); leave it empty to use the contract’s current leverage.',
		);
	return String(number);
}

function clientOrderIdOf(value: unknown, children: boolean, refuse: Refuse): string {
	const room = children ? 100 - CHILD_SUFFIXES.tp.length : 100;
	if (typeof value !== 'string' || !FUTURES_CLIENT_ORDER_ID.test(value) || value.length > room)
		refuse(
			'clientOrderId',
			typeof value === 'string' && value.length > room
				? `is ${value.length} characters long`
				: `${JSON.stringify(value)} is not a futures client order ID`,
			`Use 1 to ${room} characters: letters, digits and . : / _ -${children ? ` (the node names the take-profit and stop-loss orders <ID>${CHILD_SUFFIXES.tp} and <ID>${CHILD_SUFFIXES.sl}, within the exchange's 100)` : ''}.`,
		);
	return value;
}

/** One order checked against the documented rules; `label` names a field as the user knows it. */
export function validateFuturesOrder(
	node: INode,
	raw: IDataObject,
	label: (field: string) => string,
	itemIndex?: number,
): FuturesOrder {
	const refuse: Refuse = (field, problem, fix) => {
		throw inputError(node, label(field), problem, fix, itemIndex);
	};
	for (const key of Object.keys(raw))
		if (!(FUTURES_ORDER_FIELDS as readonly string[]).includes(key))
			refuse(
				key,
				'is not a futures order field',
				`Remove or rename it. Order fields are: ${FUTURES_ORDER_FIELDS.join(', ')}.`,
			);
	const order: FuturesOrder = {
		symbol: contractSymbol(node, label('symbol'), raw.symbol, itemIndex),
		side: oneOf(node, label('side'), raw.side, ['BUY', 'SELL'] as const, itemIndex),
		type: oneOf(node, label('type'), raw.type, FUTURES_ORDER_KINDS, itemIndex),
	};
	const size = checkSize(raw, refuse);
	order[size] = positiveDecimal(node, label(size), raw[size], itemIndex);
	checkPrices(raw, order.type, refuse);
	for (const field of PRICE_FIELDS)
		if (!isAbsent(raw[field]))
			order[field] = positiveDecimal(node, label(field), raw[field], itemIndex);
	if (!isAbsent(raw.leverage)) order.leverage = leverageOf(raw.leverage, refuse);
	if (!isAbsent(raw.reduceOnly))
		order.reduceOnly = strictBoolean(node, label('reduceOnly'), raw.reduceOnly, itemIndex);
	if (!isAbsent(raw.timeInForce)) {
		order.timeInForce = oneOf(
			node,
			label('timeInForce'),
			raw.timeInForce,
			TIME_IN_FORCE,
			itemIndex,
		);
		if (order.type === 'MARKET' && order.timeInForce !== 'IOC')
			refuse(
				'timeInForce',
				`${order.timeInForce} is not allowed for MARKET orders`,
				'MARKET orders are IOC: remove the time in force or choose IOC.',
			);
	}
	if (!isAbsent(raw.stpMode))
		order.stpMode = oneOf(node, label('stpMode'), raw.stpMode, STP_MODES, itemIndex);
	for (const field of ['tpTriggerBy', 'slTriggerBy'] as const)
		if (!isAbsent(raw[field]))
			order[field] = oneOf(node, label(field), raw[field], TRIGGER_BY, itemIndex);
	checkTpSl(raw, order, refuse, label);
	const children = order.tpTriggerPrice !== undefined || order.slTriggerPrice !== undefined;
	if (!isAbsent(raw.clientOrderId))
		order.clientOrderId = clientOrderIdOf(raw.clientOrderId, children, refuse);
	return order;
}

type IdField = 'clientOrderId' | 'tpClientOrderId' | 'slClientOrderId';

export function orderIds(
	order: FuturesOrder,
): Array<{ id: string; field: IdField; whose: string }> {
	const id = order.clientOrderId;
	if (id === undefined) return [];
	const ids = [{ id, field: 'clientOrderId' as IdField, whose: 'client order ID' }];
	if (order.tpTriggerPrice !== undefined)
		ids.push({
			id: id + CHILD_SUFFIXES.tp,
			field: 'tpClientOrderId',
			whose: 'take-profit order’s ID',
		});
	if (order.slTriggerPrice !== undefined)
		ids.push({
			id: id + CHILD_SUFFIXES.sl,
			field: 'slClientOrderId',
			whose: 'stop-loss order’s ID',
		});
	return ids;
}

/** The client order IDs of the take-profit and stop-loss orders: derived, so they can be found again. */
export function nameChildren(order: FuturesOrder): void {
	for (const { id, field } of orderIds(order).slice(1)) order[field] = id;
}
