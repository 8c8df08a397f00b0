import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import {
	DEFAULT_STP_MODE,
	LIMITS,
	ORDER_SIDES,
	ORDER_TYPES,
	STP_MODES,
	TIME_IN_FORCE_BY_TYPE,
	type OrderType,
} from '../constants';
import { inputError, oneOf, positiveDecimal, symbol } from '../helpers/validation';
import { withOutcome } from '../writes/outcomes';

/** An order ready to send: every value a string, in the order the service documents them. */
export interface OrderParams extends IDataObject {
	symbol: string;
	side: string;
	type: string;
	timeInForce: string;
	quantity?: string;
	amount?: string;
	price?: string;
	newClientOrderId?: string;
	stpMode: string;
}

/** One value Fit to Symbol Rules changed. */
export interface FittedValue extends IDataObject {
	field: 'price' | 'quantity' | 'amount';
	given: string;
	sent: string;
	rule: string;
}

/** The fields an order may carry (spec §4.3). Anything else is refused rather than dropped. */
export const ORDER_FIELDS = [
	'symbol',
	'side',
	'type',
	'quantity',
	'amount',
	'price',
	'newClientOrderId',
	'timeInForce',
	'stpMode',
] as const;

const CLIENT_ORDER_ID = /^[\x21-\x7e]+$/;

/** Names output items, the exchange's answers and lookups use for an order field. */
const ORDER_FIELD_ALIASES: Record<string, (typeof ORDER_FIELDS)[number]> = {
	clientOrderId: 'newClientOrderId',
	origClientOrderId: 'newClientOrderId',
	origQty: 'quantity',
};

/** A key folded for comparison: lower case, without spaces, underscores, hyphens or zero-width characters. */
function folded(key: string): string {
	return key.toLowerCase().replace(/[\s_\-\u200b-\u200d]/g, '');
}

const ORDER_FIELD_NAMES: ReadonlySet<string> = new Set(ORDER_FIELDS);
const FIELD_OF_FOLDED = new Map<string, string>([
	...ORDER_FIELDS.map((field): [string, string] => [folded(field), field]),
	...Object.entries(ORDER_FIELD_ALIASES).map(([alias, field]): [string, string] => [
		folded(alias),
		field,
	]),
]);
/** What orderFieldOf found for keys that are not order fields ('' for none), bounded. */
const NEAR_MISSES = new Map<string, string>();
const NEAR_MISSES_KEPT = 1024;
/** Keys longer than this cannot be a near miss (the longest name, plus a few separators). */
const LONGEST_NEAR_MISS =
	Math.max(...[...ORDER_FIELDS, ...Object.keys(ORDER_FIELD_ALIASES)].map((name) => name.length)) +
	4;

/**
 * The order field a key names: exactly (returned as is), or as a near miss that would otherwise be
 * dropped unnoticed: another case, spaces, underscores or hyphens, or an alias. Undefined for any
 * other key. Called for every key of every auto-mapped item, so each costs a lookup or two.
 */
export function orderFieldOf(key: string): string | undefined {
	if (ORDER_FIELD_NAMES.has(key)) return key;
	if (key.length > LONGEST_NEAR_MISS) return undefined;
	// Items of one input share their keys (a sheet's columns): each key is folded once.
	const known = NEAR_MISSES.get(key);
	if (known !== undefined) return known === '' ? undefined : known;
	const field = FIELD_OF_FOLDED.get(folded(key)) ?? '';
	if (NEAR_MISSES.size >= NEAR_MISSES_KEPT) NEAR_MISSES.clear();
	NEAR_MISSES.set(key, field);
	return field === '' ? undefined : field;
}

/** A key as errors show it: quoted when it holds anything but letters, digits, "_" and "-" (a trailing space). */
export function shownKey(key: string): string {
	return /^[\w-]+$/.test(key) ? key : JSON.stringify(key);
}

const FOLDED_ALIASES: ReadonlySet<string> = new Set(Object.keys(ORDER_FIELD_ALIASES).map(folded));

/** Whether `key` is an alias of an order field (a name output items use), not a spelling of one. */
export function isOrderFieldAlias(key: string): boolean {
	return FOLDED_ALIASES.has(folded(key));
}

function isAbsent(value: unknown): boolean {
	return value === undefined || value === null || value === '';
}

/** Throws the error of an order field: what is wrong with it, and how to fix it. */
type Refuse = (field: string, problem: string, fix: string) => never;

/** A field that is no order field is refused, naming the field meant when it is a near miss. */
function checkFieldNames(raw: IDataObject, refuse: Refuse): void {
	for (const key of Object.keys(raw)) {
		if (ORDER_FIELD_NAMES.has(key)) continue;
		const meant = orderFieldOf(key);
		const fields = `Order fields are: ${ORDER_FIELDS.join(', ')}.`;
		if (meant === undefined) refuse(shownKey(key), 'is not an order field', `Remove it. ${fields}`);
		refuse(
			shownKey(key),
			`is not an order field, but ${meant} is`,
			`Rename it to ${meant}: field names are read exactly. ${fields}`,
		);
	}
}

/** A MARKET order: no price, and exactly one of Quantity and Amount. */
function marketSize(raw: IDataObject, refuse: Refuse): 'quantity' | 'amount' {
	if (!isAbsent(raw.price))
		refuse('price', 'is not used by MARKET orders', 'Remove the price, or use a LIMIT order.');
	const hasQuantity = !isAbsent(raw.quantity);
	if (hasQuantity === !isAbsent(raw.amount)) {
		refuse(
			hasQuantity ? 'amount' : 'quantity',
			hasQuantity
				? 'MARKET orders take Quantity or Amount, not both'
				: 'a MARKET order needs Quantity or Amount',
			'Give exactly one: Quantity (in the base coin) or Amount (cash in the quote coin).',
		);
	}
	return hasQuantity ? 'quantity' : 'amount';
}

/** A LIMIT or LIMIT_MAKER order: Price and Quantity, no Amount. */
function limitFields(raw: IDataObject, type: OrderType, refuse: Refuse): void {
	const required = `is required for ${type} orders`;
	if (!isAbsent(raw.amount))
		refuse(
			'amount',
			'is for MARKET orders only',
			`${type} orders take Quantity and Price; remove Amount.`,
		);
	if (isAbsent(raw.price))
		refuse('price', required, 'Enter the limit price as a decimal, e.g. 50000.5.');
	if (isAbsent(raw.quantity))
		refuse('quantity', required, 'Enter the quantity in the base coin as a decimal, e.g. 0.01.');
}

/** The client order ID as given: 1 to LIMITS.clientOrderIdLength printable characters. */
function clientOrderIdOf(value: unknown, refuse: Refuse): string {
	const tooLong = typeof value === 'string' && value.length > LIMITS.clientOrderIdLength;
	if (typeof value !== 'string' || tooLong || !CLIENT_ORDER_ID.test(value)) {
		refuse(
			'newClientOrderId',
			tooLong ? `is ${(value as string).length} characters long` : 'is not a valid client order ID',
			`Use 1 to ${LIMITS.clientOrderIdLength} printable characters without spaces.`,
		);
	}
	return value;
}

/**
 * The time in force each type takes on the unified endpoints (version 2; the family's "Create
 * Order v1.1": GTC for LIMIT and LIMIT_MAKER, IOC for LIMIT and MARKET, FOK for LIMIT). The v1
 * endpoints take one per type (TIME_IN_FORCE_BY_TYPE), the first here.
 */
export const UNIFIED_TIME_IN_FORCE: Record<OrderType, readonly string[]> = {
	LIMIT: ['GTC', 'IOC', 'FOK'],
	LIMIT_MAKER: ['GTC'],
	MARKET: ['IOC'],
};

/**
 * One order checked against the spec's rules, as it is sent; `label` names a field for the user.
 * `unified`: sent to the v1.1 endpoints (version 2), which take IOC and FOK for LIMIT orders.
 */
export function validateOrder(
	node: INode,
	raw: IDataObject,
	label: (field: string) => string,
	itemIndex?: number,
	unified = false,
): OrderParams {
	const refuse: Refuse = (field, problem, fix) => {
		throw inputError(node, label(field), problem, fix, itemIndex);
	};
	checkFieldNames(raw, refuse);
	const symbolName = symbol(node, label('symbol'), raw.symbol, itemIndex);
	const side = oneOf(node, label('side'), raw.side, ORDER_SIDES, itemIndex);
	const type = oneOf(node, label('type'), raw.type, ORDER_TYPES, itemIndex) as OrderType;
	const order: OrderParams = {
		symbol: symbolName,
		side,
		type,
		timeInForce: TIME_IN_FORCE_BY_TYPE[type],
		stpMode: DEFAULT_STP_MODE,
	};
	const allowed = unified ? UNIFIED_TIME_IN_FORCE[type] : [order.timeInForce];
	if (!isAbsent(raw.timeInForce) && !allowed.includes(raw.timeInForce as string)) {
		refuse(
			'timeInForce',
			`"${String(raw.timeInForce)}" is not allowed for ${type} orders`,
			unified
				? `${type} orders take time in force ${allowed.join(', ')} (GTC, IOC or FOK for LIMIT; GTC for LIMIT_MAKER; IOC for MARKET).`
				: `${type} orders take time in force ${order.timeInForce} only (GTC for LIMIT and LIMIT_MAKER, IOC for MARKET).`,
		);
	}
	if (!isAbsent(raw.timeInForce)) order.timeInForce = raw.timeInForce as string;
	const decimal = (field: 'price' | 'quantity' | 'amount') =>
		positiveDecimal(node, label(field), raw[field], itemIndex);
	if (type === 'MARKET') {
		const size = marketSize(raw, refuse);
		order[size] = decimal(size);
	} else {
		limitFields(raw, type, refuse);
		order.quantity = decimal('quantity');
		order.price = decimal('price');
	}
	if (!isAbsent(raw.stpMode))
		order.stpMode = oneOf(node, label('stpMode'), raw.stpMode, STP_MODES, itemIndex);
	if (!isAbsent(raw.newClientOrderId))
		order.newClientOrderId = clientOrderIdOf(raw.newClientOrderId, refuse);
	return order;
}

const ORDER_FIELD_LABELS: Record<string, string> = {
	symbol: 'Symbol',
	side: 'Side',
	type: 'Type',
	price: 'Price',
	quantity: 'Quantity',
	amount: 'Amount',
	timeInForce: 'Time In Force',
	newClientOrderId: 'Client Order ID',
	stpMode: 'Self-Trade Prevention',
};

export function parameterLabel(field: string): string {
	return ORDER_FIELD_LABELS[field] ?? field;
}

/** The error of a write refused before it was sent (outcome rejected): what, why and the fix. */
export function refusedError(
	node: INode,
	message: string,
	description: string,
	itemIndex: number,
): NodeOperationError {
	return withOutcome(new NodeOperationError(node, message, { description, itemIndex }), 'rejected');
}

/** Two orders of one run with the same client order ID: refused before anything is sent. */
export function duplicateClientOrderIdError(
	node: INode,
	clientOrderId: string,
	firstItem: number,
	itemIndex: number,
) {
	return inputError(
		node,
		'Client Order ID',
		`"${clientOrderId}" is used by more than one order (items ${firstItem} and ${itemIndex})`,
		'Give every order its own client order ID: the service refuses an ID an open order holds, so the second order would not be placed and would be reported as the first.',
		itemIndex,
	);
}
