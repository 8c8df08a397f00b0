import type { IDataObject, INode } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { decimalAbove, decimalProduct } from './decimals';
import type { OrderParams } from './orderRules';
import { inputError, integerInRange, positiveDecimal, symbol } from './validation';

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
