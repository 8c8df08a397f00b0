import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { LIMITS } from '../constants';
import {
	inputError,
	integerInRange,
	positiveDecimal,
	strictBoolean,
	symbol,
} from '../helpers/validation';
import type { RunContext } from '../run/runContext';

// The Options of Create and Create Many that bound what may be sent (the receive window, the
// booleans) and the guardrails, the settings that change or refuse an order: among the Options in
// version 1, in their own Guardrails collection in version 2 (orderOptionProperties.ts). An order
// is checked against them in symbolRulesCheck.ts.

/** The names of the five guardrails, as stored and as the user sees them. */
export const GUARDRAIL_SETTINGS = {
	allowedSymbols: 'Allowed Symbols',
	fitToSymbolRules: 'Fit to Symbol Rules',
	ifSymbolRulesUnreadable: "If Symbol Rules Can't Be Read",
	maxOrderAmount: 'Max Order Amount',
	maxOrderQuantity: 'Max Order Quantity',
} as const;

/**
 * Limits the workflow's author sets on the orders a node may place (Create, Create Many): for
 * people, and above all for AI agents calling the node as a tool, which fill the order fields
 * themselves. They sit in the node rather than the credential: each node (each tool an agent gets)
 * can have its own, narrower than the key allows, and an agent fills order fields, never these.
 * An order outside them is refused before anything is sent.
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

/** The guardrails that are limits, in the order they are checked. */
const LIMIT_NAMES = ['allowedSymbols', 'maxOrderQuantity', 'maxOrderAmount'] as const;

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
	for (const name of LIMIT_NAMES) {
		if (!isSet(options[name]) && isExpressionSetting(node, name)) {
			const label = GUARDRAIL_SETTINGS[name];
			const where = guardrailsCollection(node).label;
			throw inputError(
				node,
				label,
				'its expression gave no value',
				`A guardrail set by an expression must give a limit: empty, it would let any order through, so nothing was sent. Fix the expression, or remove ${label} from the ${where} to have no limit.`,
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

/** The guardrails as checked: the limits, and what to do about the symbol rules. */
export interface GuardrailSettings {
	/** Round price, quantity and amount to the symbol's rules instead of refusing the order. */
	fitToSymbolRules?: boolean;
	/** When the symbol rules cannot be read: refuse the order (default) or send it unchecked. */
	ifSymbolRulesUnreadable?: 'refuse' | 'sendUnchecked';
	guardrails: Guardrails;
}

/** The choices of If Symbol Rules Can't Be Read. */
const UNREADABLE_RULES_CHOICES = ['refuse', 'sendUnchecked'] as const;

/**
 * The five guardrails checked (version 1: from the Options, version 2: from the Guardrails), a
 * malformed one refusing every order. Fit to Symbol Rules takes true or false only, and If Symbol
 * Rules Can't Be Read one of its choices: an expression giving anything else must not quietly mean
 * "send unchecked" (or "refuse").
 */
export function checkGuardrailSettings(
	node: INode,
	settings: IDataObject,
	itemIndex?: number,
): GuardrailSettings {
	const checked: GuardrailSettings = { guardrails: {} };
	if (Object.prototype.hasOwnProperty.call(settings, 'fitToSymbolRules'))
		checked.fitToSymbolRules = strictBoolean(
			node,
			'Fit to Symbol Rules',
			settings.fitToSymbolRules,
			itemIndex,
		);
	if (Object.prototype.hasOwnProperty.call(settings, 'ifSymbolRulesUnreadable')) {
		const choice = settings.ifSymbolRulesUnreadable;
		if (!(UNREADABLE_RULES_CHOICES as readonly unknown[]).includes(choice))
			throw inputError(
				node,
				"If Symbol Rules Can't Be Read",
				`${JSON.stringify(choice ?? null)} is not one of its choices`,
				'Choose Refuse the Order (refuse) or Send Without Checking (sendUnchecked); an expression must give one of those values.',
				itemIndex,
			);
		checked.ifSymbolRulesUnreadable = choice as GuardrailSettings['ifSymbolRulesUnreadable'];
	}
	checked.guardrails = readGuardrails(node, settings, itemIndex);
	return checked;
}

/** The Options of Create and Create Many, as checked before anything is sent. */
export interface OrderOptions extends GuardrailSettings {
	generateClientOrderId?: boolean;
	recvWindow?: number;
	failOnRejected?: boolean;
	/** Create only: have the exchange check the order without placing it. */
	testOnly?: boolean;
}

/** The boolean options of Create and Create Many, as the user sees them. */
const BOOLEAN_OPTIONS = {
	testOnly: 'Test Only',
	generateClientOrderId: 'Generate Client Order ID',
	failOnRejected: 'Fail on Any Rejected Order',
} as const;

/**
 * Version 2 reads the guardrails from Guardrails only: one left in the Options (a workflow built
 * while they were there, JSON written by hand or by an AI) is refused before anything is sent,
 * never ignored, which would drop a limit.
 */
function refuseMisplacedGuardrails(node: INode, options: IDataObject, itemIndex?: number): void {
	for (const name of Object.keys(GUARDRAIL_SETTINGS) as Array<keyof typeof GUARDRAIL_SETTINGS>) {
		if (!Object.prototype.hasOwnProperty.call(options, name)) continue;
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
}

/**
 * Checks the order options (Receive Window, the booleans, and in version 1 the guardrails); a
 * malformed one refuses every order. Each boolean decides what is sent (a test or a live order; a
 * client order ID or none) or when sending stops, so it takes true or false only (strictBoolean):
 * an option present with any other value, or whose expression gave nothing, is refused; an absent
 * one is its default. Version 2's guardrails are read from their own collection (readOrderOptions).
 */
export function checkOrderOptions(
	node: INode,
	options: IDataObject,
	itemIndex?: number,
): OrderOptions {
	const version2 = (node.typeVersion ?? 1) >= 2;
	if (version2) refuseMisplacedGuardrails(node, options, itemIndex);
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
	return {
		...(options as Omit<OrderOptions, 'guardrails'>),
		...(version2 ? { guardrails: {} } : checkGuardrailSettings(node, options, itemIndex)),
	};
}

/**
 * The Options of one item, checked, with the guardrails: in version 1 they are among the Options,
 * in version 2 in the Guardrails collection. Read once per run unless an expression makes them
 * differ from item to item.
 */
export function readOrderOptions(run: RunContext, itemIndex: number): OrderOptions {
	const options = run.options(itemIndex, (raw) => checkOrderOptions(run.node, raw, itemIndex));
	if (run.version < 2) return options;
	const settings = run.parameter('guardrails', itemIndex, {});
	return {
		...options,
		...checkGuardrailSettings(
			run.node,
			settings !== null && typeof settings === 'object' ? (settings as IDataObject) : {},
			itemIndex,
		),
	};
}
