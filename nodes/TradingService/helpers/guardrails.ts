import type { INode } from 'n8n-workflow';

import type { OrderParams } from './orderRules';
import { inputError, positiveDecimal, symbol as symbolValue } from './validation';

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
export function readGuardrails(node: INode, options: GuardrailOptions, itemIndex?: number): Guardrails {
	const guardrails: Guardrails = {};
	if (isSet(options.allowedSymbols)) {
		const list = Array.isArray(options.allowedSymbols) ? options.allowedSymbols : String(options.allowedSymbols).split(/[\s,]+/).filter((part) => part !== '');
		guardrails.allowedSymbols = list.map((entry) => symbolValue(node, 'Allowed Symbols', entry, itemIndex));
	}
	if (isSet(options.maxOrderQuantity)) guardrails.maxOrderQuantity = positiveDecimal(node, 'Max Order Quantity', options.maxOrderQuantity, itemIndex);
	if (isSet(options.maxOrderAmount)) guardrails.maxOrderAmount = positiveDecimal(node, 'Max Order Amount', options.maxOrderAmount, itemIndex);
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
	const digits = (scaled(a, fractionDigits(a)) * scaled(b, fractionDigits(b))).toString().padStart(scale + 1, '0');
	if (scale === 0) return digits;
	const fraction = digits.slice(-scale).replace(/0+$/, '');
	const whole = digits.slice(0, -scale);
	return fraction === '' ? whole : `${whole}.${fraction}`;
}

/**
 * Refuses an order outside the guardrails, with an error that names the limit. `label` names an
 * order field as the user knows it (a parameter, or orders[3].quantity in JSON).
 */
export function checkGuardrails(node: INode, order: OrderParams, guardrails: Guardrails, label: (field: string) => string, itemIndex?: number): void {
	const refused = (field: string, problem: string, limit: string, fix = 'Change the order, or change the limit in the node’s Options if the order is intended.') =>
		inputError(node, label(field), problem, `The node’s ${limit} option refuses this order; nothing was sent. ${fix}`, itemIndex);
	const { allowedSymbols, maxOrderQuantity, maxOrderAmount } = guardrails;
	if (allowedSymbols !== undefined && !allowedSymbols.includes(order.symbol)) {
		throw refused('symbol', `${order.symbol} is not in Allowed Symbols (${allowedSymbols.join(', ')})`, 'Allowed Symbols');
	}
	if (maxOrderQuantity !== undefined && order.quantity !== undefined && decimalAbove(order.quantity, maxOrderQuantity)) {
		throw refused('quantity', `${order.quantity} is above Max Order Quantity (${maxOrderQuantity})`, 'Max Order Quantity');
	}
	if (maxOrderAmount !== undefined) {
		if (order.amount !== undefined && decimalAbove(order.amount, maxOrderAmount)) {
			throw refused('amount', `${order.amount} is above Max Order Amount (${maxOrderAmount})`, 'Max Order Amount');
		}
		if (order.price !== undefined && order.quantity !== undefined) {
			const value = decimalProduct(order.price, order.quantity);
			if (decimalAbove(value, maxOrderAmount)) {
				throw refused('quantity', `the order is worth ${value} (Price × Quantity), above Max Order Amount (${maxOrderAmount})`, 'Max Order Amount');
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
