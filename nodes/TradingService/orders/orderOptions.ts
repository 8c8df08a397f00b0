import type { IDataObject, INode } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { decimalAbove, decimalProduct } from '../helpers/decimals';
import type { OrderParams } from './orderRules';
import type { FittedValue } from './symbolRules';
import {
	inputError,
	integerInRange,
	positiveDecimal,
	strictBoolean,
	symbol,
} from '../helpers/validation';

// The Options of Create and Create Many that bound what may be sent: the receive window and the
// guardrails on the orders themselves.

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

/** Whether the option `name` of the node's Options collection is stored as an expression. */
function isExpressionOption(node: INode, name: string): boolean {
	const stored = (node.parameters?.options as IDataObject | undefined)?.[name];
	return typeof stored === 'string' && stored.startsWith('=');
}

const GUARDRAIL_LABELS = {
	allowedSymbols: 'Allowed Symbols',
	maxOrderQuantity: 'Max Order Quantity',
	maxOrderAmount: 'Max Order Amount',
} as const;

/**
 * The guardrails of the options, each checked itself (a malformed limit refuses every order). An
 * option left empty is no limit; one whose expression gives nothing (a missing field, say) is
 * refused: read as "no limit", it would let every order through.
 */
export function readGuardrails(
	node: INode,
	options: GuardrailOptions,
	itemIndex?: number,
): Guardrails {
	for (const name of Object.keys(GUARDRAIL_LABELS) as Array<keyof typeof GUARDRAIL_LABELS>) {
		if (!isSet(options[name]) && isExpressionOption(node, name)) {
			const label = GUARDRAIL_LABELS[name];
			throw inputError(
				node,
				label,
				'its expression gave no value',
				`A guardrail set by an expression must give a limit: empty, it would let any order through, so nothing was sent. Fix the expression, or remove ${label} from the Options to have no limit.`,
				itemIndex,
			);
		}
	}
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

/** "price 50000.001 → 50000.01 for tickSize 0.01": what Fit to Symbol Rules changed. */
function fittedChanges(fitted: FittedValue[]): string {
	return fitted
		.map(({ field, given, sent, rule }) => `${field} ${given} → ${sent} for ${rule}`)
		.join(', ');
}

/**
 * Refuses an order outside the guardrails, with an error that names the limit. `label` names an
 * order field as the user knows it (a parameter, or orders[3].quantity in JSON). `fitted`: what Fit
 * to Symbol Rules changed, when `order` is the fitted order, the one that would be sent: rounding a
 * SELL's price up can take an order within the limits as given over them.
 */
export function checkGuardrails(
	node: INode,
	order: OrderParams,
	guardrails: Guardrails,
	label: (field: string) => string,
	itemIndex?: number,
	fitted: FittedValue[] = [],
): void {
	const asFitted = fitted.length > 0;
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
			asFitted
				? `The node’s ${limit} option refuses the order as Fit to Symbol Rules made it (${fittedChanges(fitted)}), which is what would be sent; nothing was sent. Give values that stay within the limit once rounded (a price already on the tick is sent as given; a SELL’s price is rounded up, a BUY’s down), or change the limit in the node’s Options if the order is intended.`
				: `The node’s ${limit} option refuses this order; nothing was sent. ${fix}`,
			itemIndex,
		);
	const shown = (value: string) => (asFitted ? `${value} (after Fit to Symbol Rules)` : value);
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
			`${shown(order.quantity)} is above Max Order Quantity (${maxOrderQuantity})`,
			'Max Order Quantity',
		);
	}
	if (maxOrderAmount !== undefined) {
		if (order.amount !== undefined && decimalAbove(order.amount, maxOrderAmount)) {
			throw refused(
				'amount',
				`${shown(order.amount)} is above Max Order Amount (${maxOrderAmount})`,
				'Max Order Amount',
			);
		}
		if (order.price !== undefined && order.quantity !== undefined) {
			const value = decimalProduct(order.price, order.quantity);
			if (decimalAbove(value, maxOrderAmount)) {
				throw refused(
					'quantity',
					asFitted
						? `the order as fitted to the symbol rules is worth ${value} (Price ${order.price} × Quantity ${order.quantity}), above Max Order Amount (${maxOrderAmount})`
						: `the order is worth ${value} (Price × Quantity), above Max Order Amount (${maxOrderAmount})`,
					'Max Order Amount',
				);
			}
		}
	}
	checkMarketCaps(order, guardrails, refused);
}

/** Refuses an order outside a guardrail: the field at fault, what is wrong, the limit, and how to fix it. */
type GuardrailRefusal = (field: string, problem: string, limit: string, fix?: string) => Error;

/**
 * A limit that cannot be checked before sending refuses the order, never lets it through: a
 * MARKET order by Amount under a quantity cap could buy any quantity (50,000 USDT is about 1 BTC),
 * one by Quantity under an amount cap could cost any amount. Only a MARKET order lacks one of
 * Quantity and Price; LIMIT and LIMIT_MAKER orders have both.
 */
function checkMarketCaps(
	order: OrderParams,
	{ maxOrderQuantity, maxOrderAmount }: Guardrails,
	refused: GuardrailRefusal,
): void {
	const bothLimits =
		'With both Max Order Quantity and Max Order Amount set, only LIMIT and LIMIT_MAKER orders (which have a Quantity and a Price) can be checked: use one of those, or clear one of the two limits.';
	if (maxOrderQuantity !== undefined && order.quantity === undefined) {
		throw refused(
			'amount',
			'a MARKET order by Amount cannot be checked against Max Order Quantity: its quantity is known only once it trades',
			'Max Order Quantity',
			maxOrderAmount !== undefined
				? bothLimits
				: 'Give the order a Quantity (in the base coin) instead of an Amount, or clear Max Order Quantity (Max Order Amount caps an order by Amount).',
		);
	}
	if (maxOrderAmount !== undefined && order.price === undefined && order.amount === undefined) {
		throw refused(
			'quantity',
			'a MARKET order by Quantity cannot be checked against Max Order Amount: its price is known only once it trades',
			'Max Order Amount',
			maxOrderQuantity !== undefined
				? bothLimits
				: 'Give the MARKET order an Amount (the quote coin to spend) instead of a Quantity, or clear Max Order Amount (Max Order Quantity caps an order by Quantity).',
		);
	}
}

/** The Options of Create and Create Many, as checked before anything is sent. */
export interface OrderOptions {
	generateClientOrderId?: boolean;
	recvWindow?: number;
	failOnRejected?: boolean;
	/** Create only: have the exchange check the order without placing it. */
	testOnly?: boolean;
	/** Round price, quantity and amount to the symbol's rules instead of refusing the order. */
	fitToSymbolRules?: boolean;
	/** When the symbol rules cannot be read: refuse the order (default) or send it unchecked. */
	ifSymbolRulesUnreadable?: 'refuse' | 'sendUnchecked';
	guardrails: Guardrails;
}

/** The boolean options of Create and Create Many, as the user sees them. */
const BOOLEAN_OPTIONS = {
	testOnly: 'Test Only',
	generateClientOrderId: 'Generate Client Order ID',
	failOnRejected: 'Fail on Any Rejected Order',
	fitToSymbolRules: 'Fit to Symbol Rules',
} as const;

/** The choices of If Symbol Rules Can't Be Read. */
const UNREADABLE_RULES_CHOICES = ['refuse', 'sendUnchecked'] as const;

/**
 * Checks the order options (Receive Window, the guardrails, the booleans); a malformed one refuses
 * every order. Each boolean decides what is sent (a test or a live order; a client order ID or
 * none) or when sending stops, so it takes true or false only (strictBoolean): an option present
 * with any other value, or whose expression gave nothing, is refused; an absent one is its default.
 */
export function checkOrderOptions(
	node: INode,
	options: IDataObject,
	itemIndex?: number,
): OrderOptions {
	if (options.recvWindow !== undefined) {
		integerInRange(
			node,
			'Receive Window',
			options.recvWindow,
			1,
			LIMITS.maxRecvWindowMs,
			itemIndex,
		);
	}
	for (const name of Object.keys(BOOLEAN_OPTIONS) as Array<keyof typeof BOOLEAN_OPTIONS>) {
		if (Object.prototype.hasOwnProperty.call(options, name))
			strictBoolean(node, BOOLEAN_OPTIONS[name], options[name], itemIndex);
	}
	// An expression giving anything else must not quietly mean "send unchecked" (or "refuse").
	if (
		Object.prototype.hasOwnProperty.call(options, 'ifSymbolRulesUnreadable') &&
		!(UNREADABLE_RULES_CHOICES as readonly unknown[]).includes(options.ifSymbolRulesUnreadable)
	) {
		throw inputError(
			node,
			"If Symbol Rules Can't Be Read",
			`${JSON.stringify(options.ifSymbolRulesUnreadable ?? null)} is not one of its choices`,
			'Choose Refuse the Order (refuse) or Send Without Checking (sendUnchecked); an expression must give one of those values.',
			itemIndex,
		);
	}
	return {
		...(options as Omit<OrderOptions, 'guardrails'>),
		guardrails: readGuardrails(node, options, itemIndex),
	};
}
