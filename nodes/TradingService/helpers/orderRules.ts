import type { IDataObject, INode } from 'n8n-workflow';

import {
	DEFAULT_STP_MODE,
	LIMITS,
	ORDER_SIDES,
	ORDER_TYPES,
	STP_MODES,
	TIME_IN_FORCE_BY_TYPE,
	type OrderType,
} from '../constants';
import { inputError, integerInRange, oneOf, positiveDecimal, symbol } from './validation';

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

function isAbsent(value: unknown): boolean {
	return value === undefined || value === null || value === '';
}

/**
 * Checks one order against the spec's rules and builds what is sent. `label` turns a field name
 * into what the user calls it (a parameter's display name, or `orders[3].price` in JSON).
 */
export function validateOrder(
	node: INode,
	raw: IDataObject,
	label: (field: string) => string,
	itemIndex?: number,
): OrderParams {
	for (const key of Object.keys(raw)) {
		if (!(ORDER_FIELDS as readonly string[]).includes(key)) {
			throw inputError(
				node,
				label(key),
				'is not an order field',
				`Remove it. Order fields are: ${ORDER_FIELDS.join(', ')}.`,
				itemIndex,
			);
		}
	}
	const order: OrderParams = {
		symbol: symbol(node, label('symbol'), raw.symbol, itemIndex),
		side: oneOf(node, label('side'), raw.side, ORDER_SIDES, itemIndex),
		type: oneOf(node, label('type'), raw.type, ORDER_TYPES, itemIndex),
		timeInForce: '',
		stpMode: DEFAULT_STP_MODE,
	};
	const type = order.type as OrderType;
	const allowedTimeInForce = TIME_IN_FORCE_BY_TYPE[type];
	if (isAbsent(raw.timeInForce)) {
		order.timeInForce = allowedTimeInForce;
	} else if (raw.timeInForce !== allowedTimeInForce) {
		throw inputError(
			node,
			label('timeInForce'),
			`"${String(raw.timeInForce)}" is not allowed for ${type} orders`,
			`${type} orders take time in force ${allowedTimeInForce} only (GTC for LIMIT and LIMIT_MAKER, IOC for MARKET).`,
			itemIndex,
		);
	} else {
		order.timeInForce = allowedTimeInForce;
	}

	if (type === 'MARKET') {
		if (!isAbsent(raw.price)) {
			throw inputError(
				node,
				label('price'),
				'is not used by MARKET orders',
				'Remove the price, or use a LIMIT order.',
				itemIndex,
			);
		}
		const hasQuantity = !isAbsent(raw.quantity);
		const hasAmount = !isAbsent(raw.amount);
		if (hasQuantity === hasAmount) {
			throw inputError(
				node,
				label(hasQuantity ? 'amount' : 'quantity'),
				hasQuantity
					? 'MARKET orders take Quantity or Amount, not both'
					: 'a MARKET order needs Quantity or Amount',
				'Give exactly one: Quantity (in the base coin) or Amount (cash in the quote coin).',
				itemIndex,
			);
		}
		if (hasQuantity)
			order.quantity = positiveDecimal(node, label('quantity'), raw.quantity, itemIndex);
		else order.amount = positiveDecimal(node, label('amount'), raw.amount, itemIndex);
	} else {
		if (!isAbsent(raw.amount)) {
			throw inputError(
				node,
				label('amount'),
				`is for MARKET orders only`,
				`${type} orders take Quantity and Price; remove Amount.`,
				itemIndex,
			);
		}
		if (isAbsent(raw.price)) {
			throw inputError(
				node,
				label('price'),
				`is required for ${type} orders`,
				'Enter the limit price as a decimal, e.g. 50000.5.',
				itemIndex,
			);
		}
		if (isAbsent(raw.quantity)) {
			throw inputError(
				node,
				label('quantity'),
				`is required for ${type} orders`,
				'Enter the quantity in the base coin as a decimal, e.g. 0.01.',
				itemIndex,
			);
		}
		order.quantity = positiveDecimal(node, label('quantity'), raw.quantity, itemIndex);
		order.price = positiveDecimal(node, label('price'), raw.price, itemIndex);
	}

	if (!isAbsent(raw.stpMode))
		order.stpMode = oneOf(node, label('stpMode'), raw.stpMode, STP_MODES, itemIndex);
	if (!isAbsent(raw.newClientOrderId)) {
		const clientOrderId = raw.newClientOrderId;
		if (
			typeof clientOrderId !== 'string' ||
			clientOrderId.length > LIMITS.clientOrderIdLength ||
			!CLIENT_ORDER_ID.test(clientOrderId)
		) {
			throw inputError(
				node,
				label('newClientOrderId'),
				typeof clientOrderId === 'string' && clientOrderId.length > LIMITS.clientOrderIdLength
					? `is ${clientOrderId.length} characters long`
					: 'is not a valid client order ID',
				`Use 1 to ${LIMITS.clientOrderIdLength} printable characters without spaces.`,
				itemIndex,
			);
		}
		order.newClientOrderId = clientOrderId;
	}
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

// ------------------------------------------------------------------ guardrails

/**
 * Limits the workflow's author sets on the orders a node may place (Create, Create Many): for
 * people, and above all for AI agents calling the node as a tool, which fill the order fields
 * themselves. They sit in the node's options rather than the credential: each node (each tool an
 * agent gets) can have its own, narrower than the key allows, and an agent fills order fields, never
 * options. An order outside them is refused before anything is sent.
 */
export interface Guardrails {
	allowedSymbols?: string[];
	maxOrderQuantity?: string;
	maxOrderAmount?: string;
}

/** The option values as the user typed them. */
export interface GuardrailOptions {
	allowedSymbols?: unknown;
	maxOrderQuantity?: unknown;
	maxOrderAmount?: unknown;
}

function isSet(value: unknown): boolean {
	return value !== undefined && value !== null && value !== '';
}

/** The guardrails of the options, each checked itself (a malformed limit refuses every order). */
export function readGuardrails(
	node: INode,
	options: GuardrailOptions,
	itemIndex?: number,
): Guardrails {
	const guardrails: Guardrails = {};
	if (isSet(options.allowedSymbols)) {
		const list = Array.isArray(options.allowedSymbols)
			? options.allowedSymbols
			: String(options.allowedSymbols)
					.split(/[\s,]+/)
					.filter((part) => part !== '');
		guardrails.allowedSymbols = list.map((entry) =>
			symbol(node, 'Allowed Symbols', entry, itemIndex),
		);
	}
	if (isSet(options.maxOrderQuantity))
		guardrails.maxOrderQuantity = positiveDecimal(
			node,
			'Max Order Quantity',
			options.maxOrderQuantity,
			itemIndex,
		);
	if (isSet(options.maxOrderAmount))
		guardrails.maxOrderAmount = positiveDecimal(
			node,
			'Max Order Amount',
			options.maxOrderAmount,
			itemIndex,
		);
	return guardrails;
}

/** A plain decimal as an integer scaled by 10^scale, exactly. */
function scaled(decimal: string, scale: number): bigint {
	const [whole, fraction = ''] = decimal.split('.');
	return BigInt(whole + fraction.padEnd(scale, '0').slice(0, scale));
}

function fractionDigits(decimal: string): number {
	return decimal.split('.')[1]?.length ?? 0;
}

/** Whether a > b, for plain positive decimals, exactly. */
export function decimalAbove(a: string, b: string): boolean {
	const scale = Math.max(fractionDigits(a), fractionDigits(b));
	return scaled(a, scale) > scaled(b, scale);
}

/** price × quantity, exactly, as a plain decimal. */
export function decimalProduct(a: string, b: string): string {
	const scale = fractionDigits(a) + fractionDigits(b);
	const digits = (scaled(a, fractionDigits(a)) * scaled(b, fractionDigits(b)))
		.toString()
		.padStart(scale + 1, '0');
	if (scale === 0) return digits;
	const fraction = digits.slice(-scale).replace(/0+$/, '');
	const whole = digits.slice(0, -scale);
	return fraction === '' ? whole : `${whole}.${fraction}`;
}

/**
 * Refuses an order outside the guardrails, with an error that names the limit. `label` names an
 * order field as the user knows it (a parameter, or orders[3].quantity in JSON).
 */
export function checkGuardrails(
	node: INode,
	order: OrderParams,
	guardrails: Guardrails,
	label: (field: string) => string,
	itemIndex?: number,
): void {
	const refused = (
		field: string,
		problem: string,
		limit: string,
		fix = 'Change the order, or change the limit in the node’s Options if the order is intended.',
	) =>
		inputError(
			node,
			label(field),
			problem,
			`The node’s ${limit} option refuses this order; nothing was sent. ${fix}`,
			itemIndex,
		);
	const { allowedSymbols, maxOrderQuantity, maxOrderAmount } = guardrails;
	if (allowedSymbols !== undefined && !allowedSymbols.includes(order.symbol)) {
		throw refused(
			'symbol',
			`${order.symbol} is not in Allowed Symbols (${allowedSymbols.join(', ')})`,
			'Allowed Symbols',
		);
	}
	if (
		maxOrderQuantity !== undefined &&
		order.quantity !== undefined &&
		decimalAbove(order.quantity, maxOrderQuantity)
	) {
		throw refused(
			'quantity',
			`${order.quantity} is above Max Order Quantity (${maxOrderQuantity})`,
			'Max Order Quantity',
		);
	}
	if (maxOrderAmount !== undefined) {
		if (order.amount !== undefined && decimalAbove(order.amount, maxOrderAmount)) {
			throw refused(
				'amount',
				`${order.amount} is above Max Order Amount (${maxOrderAmount})`,
				'Max Order Amount',
			);
		}
		if (order.price !== undefined && order.quantity !== undefined) {
			const value = decimalProduct(order.price, order.quantity);
			if (decimalAbove(value, maxOrderAmount)) {
				throw refused(
					'quantity',
					`the order is worth ${value} (Price × Quantity), above Max Order Amount (${maxOrderAmount})`,
					'Max Order Amount',
				);
			}
		}
		if (order.price === undefined && order.amount === undefined) {
			// A MARKET order by quantity has no price to value it at before it trades.
			throw refused(
				'quantity',
				'a MARKET order by Quantity cannot be checked against Max Order Amount (its price is known only once it trades)',
				'Max Order Amount',
				'Give the MARKET order an Amount (the quote coin to spend) instead of a Quantity.',
			);
		}
	}
}

// ------------------------------------------------------------------ options

/** The Options of Create and Create Many, as checked before anything is sent. */
export interface OrderOptions {
	generateClientOrderId?: boolean;
	recvWindow?: number;
	failOnRejected?: boolean;
	/** Create only: have the exchange check the order without placing it. */
	testOnly?: boolean;
	guardrails: Guardrails;
}

/** Checks the order options (Receive Window, the guardrails); a malformed one refuses every order. */
export function checkOrderOptions(
	node: INode,
	options: IDataObject,
	itemIndex?: number,
): OrderOptions {
	if (options.recvWindow !== undefined) {
		integerInRange(
			node,
			'Receive Window (Ms)',
			options.recvWindow,
			1,
			LIMITS.maxRecvWindowMs,
			itemIndex,
		);
	}
	return {
		...(options as Omit<OrderOptions, 'guardrails'>),
		guardrails: readGuardrails(node, options, itemIndex),
	};
}
