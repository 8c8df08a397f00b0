import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { decimalAbove, decimalProduct } from '../helpers/decimals';
import {
	inputError,
	integerInRange,
	positiveDecimal,
	strictBoolean,
	symbol,
} from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import type { FittedValue, OrderParams } from './orderRules';

// The Options of Create and Create Many that bound what may be sent (the receive window, the
// booleans), and the guardrails, the settings that change or refuse an order (docs/operations.md
// "Guardrails"): among the Options in version 1, in their own collection in version 2
// (orderOptionProperties.ts). An order outside them is refused before anything is sent.

/** The names of the five guardrails, as stored and as the user sees them. */
const GUARDRAIL_SETTINGS = {
	allowedSymbols: 'Allowed Symbols',
	fitToSymbolRules: 'Fit to Symbol Rules',
	ifSymbolRulesUnreadable: "If Symbol Rules Can't Be Read",
	maxOrderAmount: 'Max Order Amount',
	maxOrderQuantity: 'Max Order Quantity',
} as const;

/**
 * Limits on the orders a node may place, for people and above all for AI agents that fill a tool's
 * order fields, never its settings: hence in the node, not the credential (docs/operations.md).
 */
export interface Guardrails {
	allowedSymbols?: string[];
	maxOrderQuantity?: string;
	maxOrderAmount?: string;
}

function isSet(value: unknown): boolean {
	return value !== undefined && value !== null && value !== '';
}

/** Where the node keeps its guardrails: the Options in version 1, the Guardrails in version 2. */
export function guardrailsCollection(node: INode): { name: string; label: string } {
	return (node.typeVersion ?? 1) >= 2
		? { name: 'guardrails', label: 'Guardrails' }
		: { name: 'options', label: 'Options' };
}

/** Whether the guardrail `name` is stored as an expression (in the node's Options or Guardrails). */
function isExpressionSetting(node: INode, name: string): boolean {
	const collection = node.parameters?.[guardrailsCollection(node).name] as IDataObject | undefined;
	const stored = collection?.[name];
	return typeof stored === 'string' && stored.startsWith('=');
}

/**
 * The guardrails that are limits, each checked itself (a malformed limit refuses every order). One
 * left empty is no limit; one whose expression gives nothing (a missing field, say) is refused:
 * read as "no limit", it would let every order through.
 */
export function readGuardrails(node: INode, options: IDataObject, itemIndex?: number): Guardrails {
	for (const name of ['allowedSymbols', 'maxOrderQuantity', 'maxOrderAmount'] as const) {
		if (!isSet(options[name]) && isExpressionSetting(node, name)) {
			const label = GUARDRAIL_SETTINGS[name];
			throw inputError(
				node,
				label,
				'its expression gave no value',
				`A guardrail set by an expression must give a limit: empty, it would let any order through, so nothing was sent. Fix the expression, or remove ${label} from the ${guardrailsCollection(node).label} to have no limit.`,
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
	for (const name of ['maxOrderQuantity', 'maxOrderAmount'] as const) {
		if (isSet(options[name]))
			guardrails[name] = positiveDecimal(node, GUARDRAIL_SETTINGS[name], options[name], itemIndex);
	}
	return guardrails;
}

/** The guardrails as checked: the limits, and what to do about the symbol rules. */
interface GuardrailSettings {
	/** Round price, quantity and amount to the symbol's rules instead of refusing the order. */
	fitToSymbolRules?: boolean;
	ifSymbolRulesUnreadable?: 'refuse' | 'sendUnchecked';
	guardrails: Guardrails;
}

/**
 * The five guardrails checked, a malformed one refusing every order. Fit to Symbol Rules takes true
 * or false only, and If Symbol Rules Can't Be Read one of its choices: an expression giving
 * anything else must not quietly mean "send unchecked" (or "refuse").
 */
function checkGuardrailSettings(
	node: INode,
	settings: IDataObject,
	itemIndex?: number,
): GuardrailSettings {
	const checked: GuardrailSettings = { guardrails: {} };
	const has = (name: string) => Object.prototype.hasOwnProperty.call(settings, name);
	if (has('fitToSymbolRules')) {
		const fit = settings.fitToSymbolRules;
		checked.fitToSymbolRules = strictBoolean(node, 'Fit to Symbol Rules', fit, itemIndex);
	}
	if (has('ifSymbolRulesUnreadable')) {
		const choice = settings.ifSymbolRulesUnreadable;
		if (choice !== 'refuse' && choice !== 'sendUnchecked')
			throw inputError(
				node,
				"If Symbol Rules Can't Be Read",
				`${JSON.stringify(choice ?? null)} is not one of its choices`,
				'Choose Refuse the Order (refuse) or Send Without Checking (sendUnchecked); an expression must give one of those values.',
				itemIndex,
			);
		checked.ifSymbolRulesUnreadable = choice;
	}
	checked.guardrails = readGuardrails(node, settings, itemIndex);
	return checked;
}

/**
 * Refuses an order outside the guardrails, with an error that names the limit. `label` names an
 * order field as the user knows it. `fitted`: what Fit to Symbol Rules changed, when `order` is the
 * fitted order, the one that would be sent (a SELL's price rounded up can take it over a limit).
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
	// "price 50000.001 → 50000.01 for tickSize 0.01"
	const changes = fitted.map((one) => `${one.field} ${one.given} → ${one.sent} for ${one.rule}`);
	const where = guardrailsCollection(node).label;
	const kind = where === 'Guardrails' ? 'guardrail' : 'option';
	const refused: GuardrailRefusal = (
		field,
		problem,
		limit,
		fix = `Change the order, or change the limit in the node’s ${where} if the order is intended.`,
	) =>
		inputError(
			node,
			label(field),
			problem,
			asFitted
				? `The node’s ${limit} ${kind} refuses the order as Fit to Symbol Rules made it (${changes.join(', ')}), which is what would be sent; nothing was sent. Give values that stay within the limit once rounded (a price already on the tick is sent as given; a SELL’s price is rounded up, a BUY’s down), or change the limit in the node’s ${where} if the order is intended.`
				: `The node’s ${limit} ${kind} refuses this order; nothing was sent. ${fix}`,
			itemIndex,
		);
	const shown = (value: string) => (asFitted ? `${value} (after Fit to Symbol Rules)` : value);
	const { allowedSymbols, maxOrderQuantity: maxQuantity, maxOrderAmount: maxAmount } = guardrails;
	if (allowedSymbols !== undefined && !allowedSymbols.includes(order.symbol)) {
		const problem = `${order.symbol} is not in Allowed Symbols (${allowedSymbols.join(', ')})`;
		throw refused('symbol', problem, 'Allowed Symbols');
	}
	if (maxQuantity !== undefined && order.quantity !== undefined) {
		if (decimalAbove(order.quantity, maxQuantity)) {
			const problem = `${shown(order.quantity)} is above Max Order Quantity (${maxQuantity})`;
			throw refused('quantity', problem, 'Max Order Quantity');
		}
	}
	if (maxAmount !== undefined && order.amount !== undefined) {
		if (decimalAbove(order.amount, maxAmount)) {
			const problem = `${shown(order.amount)} is above Max Order Amount (${maxAmount})`;
			throw refused('amount', problem, 'Max Order Amount');
		}
	}
	if (maxAmount !== undefined && order.price !== undefined && order.quantity !== undefined) {
		const value = decimalProduct(order.price, order.quantity);
		if (decimalAbove(value, maxAmount)) {
			const problem = asFitted
				? `the order as fitted to the symbol rules is worth ${value} (Price ${order.price} × Quantity ${order.quantity}), above Max Order Amount (${maxAmount})`
				: `the order is worth ${value} (Price × Quantity), above Max Order Amount (${maxAmount})`;
			throw refused('quantity', problem, 'Max Order Amount');
		}
	}
	checkMarketCaps(order, guardrails, refused);
}

/** The error of an order outside a guardrail: the field at fault, what is wrong, the limit, the fix. */
type GuardrailRefusal = (field: string, problem: string, limit: string, fix?: string) => Error;

/**
 * A limit that cannot be checked before sending refuses the order, never lets it through: a
 * MARKET order by Amount under a quantity cap could buy any quantity, one by Quantity under an
 * amount cap could cost any amount. Only a MARKET order lacks one of Quantity and Price.
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
				: 'Give the MARKET order an Amount (in the quote coin: what a buy spends or a sell brings in) instead of a Quantity, or clear Max Order Amount (Max Order Quantity caps an order by Quantity).',
		);
	}
}

export interface OrderOptions extends GuardrailSettings {
	generateClientOrderId?: boolean;
	recvWindow?: number;
	failOnRejected?: boolean;
	/** Create only: have the exchange check the order without placing it. */
	testOnly?: boolean;
}

const BOOLEAN_OPTIONS = {
	testOnly: 'Test Only',
	generateClientOrderId: 'Generate Client Order ID',
	failOnRejected: 'Fail on Any Rejected Order',
} as const;

/**
 * Checks the order options (Receive Window, the booleans, and in version 1 the guardrails); a
 * malformed one refuses every order. Each boolean decides what is sent or when sending stops, so it
 * takes true or false only (strictBoolean); an absent one is its default. Version 2 refuses a
 * guardrail left in the Options (a workflow built while they were there, JSON written by hand or by
 * an AI), never ignoring it, which would drop a limit.
 */
export function checkOrderOptions(
	node: INode,
	options: IDataObject,
	itemIndex?: number,
): OrderOptions {
	const version2 = (node.typeVersion ?? 1) >= 2;
	const name = version2
		? (Object.keys(GUARDRAIL_SETTINGS) as Array<keyof typeof GUARDRAIL_SETTINGS>).find((name) =>
				Object.prototype.hasOwnProperty.call(options, name),
			)
		: undefined;
	if (name !== undefined) {
		const label = GUARDRAIL_SETTINGS[name];
		throw new NodeOperationError(
			node,
			`${label} moved to Guardrails: this node still has it under Options`,
			{
				description: `Nothing was sent. In version 2 of this node the settings that change or refuse an order are under Guardrails, and one under Options is not read. Remove ${label} from Options and add it again with Add Guardrail, with the same value (in the workflow's JSON: move "${name}" from "options" into "guardrails").`,
				itemIndex,
			},
		);
	}
	const window = options.recvWindow;
	if (window !== undefined)
		integerInRange(node, 'Receive Window', window, 1, LIMITS.maxRecvWindowMs, itemIndex);
	for (const name of Object.keys(BOOLEAN_OPTIONS) as Array<keyof typeof BOOLEAN_OPTIONS>) {
		if (Object.prototype.hasOwnProperty.call(options, name))
			strictBoolean(node, BOOLEAN_OPTIONS[name], options[name], itemIndex);
	}
	return {
		...(options as Omit<OrderOptions, 'guardrails'>),
		...(version2 ? { guardrails: {} } : checkGuardrailSettings(node, options, itemIndex)),
	};
}

/**
 * The Options of one item, checked, with the guardrails (version 2: from their own collection).
 * Read once per run unless an expression makes them differ from item to item.
 */
export function readOrderOptions(run: RunContext, itemIndex: number): OrderOptions {
	const options = run.options(itemIndex, (raw) => checkOrderOptions(run.node, raw, itemIndex));
	if (run.version < 2) return options;
	const settings = run.parameter('guardrails', itemIndex, {});
	const collection = settings !== null && typeof settings === 'object' ? settings : {};
	return { ...options, ...checkGuardrailSettings(run.node, collection as IDataObject, itemIndex) };
}
