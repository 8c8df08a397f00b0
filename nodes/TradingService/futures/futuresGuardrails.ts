import type { IDataObject, INode } from 'n8n-workflow';

import {
	compareDecimals,
	decimalAbove,
	formatDecimal,
	multiplyDecimals,
	parseDecimal,
} from '../helpers/decimals';
import { inputError, positiveDecimal, strictBoolean } from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import { contractSymbol } from './contracts';
import type { FittedValue } from './futuresContractRules';
import type { FuturesOrder } from './futuresOrderRules';

// Never skipped: a limit that cannot be checked refuses the order.

const LABELS = {
	allowedContracts: 'Allowed Contracts',
	maxLeverage: 'Max Leverage',
	maxOrderNotional: 'Max Order Notional',
	maxOrderQuantity: 'Max Order Quantity',
	reduceOnlyRequired: 'Reduce Only Required',
	fitToContractRules: 'Fit to Contract Rules',
	ifContractRulesUnreadable: "If Contract Rules Can't Be Read",
} as const;

export interface FuturesGuardrails {
	allowedContracts?: string[];
	maxLeverage?: number;
	maxOrderNotional?: string;
	maxOrderQuantity?: string;
	reduceOnlyRequired?: boolean;
	fitToContractRules?: boolean;
	ifContractRulesUnreadable?: 'refuse' | 'send';
}

const isSet = (value: unknown) => value !== undefined && value !== null && value !== '';

/** The Guardrails collection checked: a malformed or empty-by-expression limit refuses every order. */
export function readFuturesGuardrails(run: RunContext, itemIndex: number): FuturesGuardrails {
	const node = run.node;
	const raw = run.parameter('guardrails', itemIndex, {});
	const settings = (raw !== null && typeof raw === 'object' ? raw : {}) as IDataObject;
	const stored = (node.parameters?.guardrails ?? {}) as IDataObject;
	for (const name of Object.keys(LABELS) as Array<keyof typeof LABELS>) {
		const expression = typeof stored[name] === 'string' && String(stored[name]).startsWith('=');
		if (expression && !isSet(settings[name]))
			throw inputError(
				node,
				LABELS[name],
				'its expression gave no value',
				`A guardrail set by an expression must give a value: empty, it would let any order through, so nothing was sent. Fix the expression, or remove ${LABELS[name]} from the Guardrails.`,
				itemIndex,
			);
	}
	const guardrails: FuturesGuardrails = {};
	if (isSet(settings.allowedContracts)) {
		const list = Array.isArray(settings.allowedContracts)
			? settings.allowedContracts
			: String(settings.allowedContracts)
					.split(/[\s,]+/)
					.filter((part) => part !== '');
		guardrails.allowedContracts = list.map((entry) =>
			contractSymbol(node, LABELS.allowedContracts, entry, itemIndex),
		);
	}
	if (isSet(settings.maxLeverage)) {
		const value = Number(settings.maxLeverage);
		if (!Number.isSafeInteger(value) || value < 1)
			throw inputError(
				node,
				LABELS.maxLeverage,
				`${JSON.stringify(settings.maxLeverage)} is not a leverage`,
				'Give a whole number of at least 1.',
				itemIndex,
			);
		guardrails.maxLeverage = value;
	}
	for (const name of ['maxOrderNotional', 'maxOrderQuantity'] as const)
		if (isSet(settings[name]))
			guardrails[name] = positiveDecimal(node, LABELS[name], settings[name], itemIndex);
	for (const name of ['reduceOnlyRequired', 'fitToContractRules'] as const)
		if (name in settings)
			guardrails[name] = strictBoolean(node, LABELS[name], settings[name], itemIndex);
	if ('ifContractRulesUnreadable' in settings) {
		const choice = settings.ifContractRulesUnreadable;
		if (choice !== 'refuse' && choice !== 'send')
			throw inputError(
				node,
				LABELS.ifContractRulesUnreadable,
				`${JSON.stringify(choice ?? null)} is not one of its choices`,
				'Choose Refuse the Order (refuse) or Send Without Checking (send).',
				itemIndex,
			);
		guardrails.ifContractRulesUnreadable = choice;
	}
	return guardrails;
}

/** Undefined without a mark price. */
function orderNotional(
	order: FuturesOrder,
	mark: string | undefined,
): { value: string; how: string } | undefined {
	if (order.quoteQty !== undefined) return { value: order.quoteQty, how: 'its quote quantity' };
	const base = parseDecimal(order.baseQty!)!;
	const limit = order.type === 'LIMIT' || order.type === 'LIMIT_MAKER';
	if (limit && order.side === 'BUY')
		return {
			value: formatDecimal(multiplyDecimals(base, parseDecimal(order.price!)!)),
			how: `Price ${order.price} × Quantity ${order.baseQty}`,
		};
	if (mark === undefined) return undefined;
	// A stop triggers away from the mark, and a SELL limit below the mark trades at about the mark:
	// valued at the highest price it may trade at.
	const prices = [mark, order.stopPrice, order.price].filter(
		(one): one is string => one !== undefined,
	);
	const highest = prices.reduce((top, one) => (decimalAbove(one, top) ? one : top));
	const at =
		highest === mark
			? `the mark price ${mark}${limit ? ` (above the Price ${order.price})` : ''}`
			: `${highest} (above the mark price ${mark})`;
	return {
		value: formatDecimal(multiplyDecimals(base, parseDecimal(highest)!)),
		how: `Quantity ${order.baseQty} × ${at}`,
	};
}

/** Whether checking the order needs the contract's mark price (all by base quantity but a BUY limit). */
export function needsMark(order: FuturesOrder, guardrails: FuturesGuardrails): boolean {
	return (
		guardrails.maxOrderNotional !== undefined &&
		order.baseQty !== undefined &&
		(order.side === 'SELL' || order.type === 'MARKET' || order.type === 'STOP')
	);
}

/**
 * `mark` null: unreadable; undefined: not read yet, the notional of a MARKET or STOP order by base
 * quantity is then left to the second check.
 */
export function checkFuturesGuardrails(
	node: INode,
	order: FuturesOrder,
	guardrails: FuturesGuardrails,
	label: (field: string) => string,
	itemIndex: number,
	mark?: string | null,
	fitted: FittedValue[] = [],
): void {
	const asFitted =
		fitted.length > 0
			? ` as Fit to Contract Rules made it (${fitted.map((one) => `${one.field} ${one.given} → ${one.sent}`).join(', ')}), which is what would be sent`
			: '';
	const refuse = (
		field: string,
		problem: string,
		limit: string,
		fix = 'Change the order, or the limit in the node’s Guardrails if the order is intended.',
	) =>
		inputError(
			node,
			label(field),
			problem,
			`The node’s ${limit} guardrail refuses this order${asFitted}; nothing was sent. ${fix}`,
			itemIndex,
		);
	const { allowedContracts, maxLeverage, maxOrderQuantity } = guardrails;
	if (allowedContracts !== undefined && !allowedContracts.includes(order.symbol))
		throw refuse(
			'symbol',
			`${order.symbol} is not in Allowed Contracts (${allowedContracts.join(', ')})`,
			LABELS.allowedContracts,
		);
	if (order.side === 'BUY') checkBuy(node, order, guardrails, refuse, label, itemIndex);
	if (guardrails.reduceOnlyRequired === true && order.reduceOnly !== true)
		throw refuse(
			'reduceOnly',
			'is off, and this node may only reduce positions',
			LABELS.reduceOnlyRequired,
			'Turn on Reduce Only (an order that only reduces a position), or use Close Position.',
		);
	if (maxLeverage !== undefined && order.reduceOnly !== true) {
		if (order.leverage === undefined)
			throw refuse(
				'leverage',
				`is empty, so the order would use the contract’s current leverage, which the node cannot bound`,
				LABELS.maxLeverage,
				`Give the order a Leverage of at most ${maxLeverage}.`,
			);
		if (Number(order.leverage) > maxLeverage)
			throw refuse(
				'leverage',
				`${order.leverage} is above Max Leverage (${maxLeverage})`,
				LABELS.maxLeverage,
			);
	}
	if (maxOrderQuantity !== undefined) {
		if (order.baseQty === undefined)
			throw refuse(
				'quoteQty',
				'an order by quote quantity cannot be checked against Max Order Quantity: its base quantity is known only when the exchange values it at the mark price',
				LABELS.maxOrderQuantity,
				'Give the quantity in the base coin instead, or clear Max Order Quantity.',
			);
		if (decimalAbove(order.baseQty, maxOrderQuantity))
			throw refuse(
				'baseQty',
				`${order.baseQty} is above Max Order Quantity (${maxOrderQuantity})`,
				LABELS.maxOrderQuantity,
			);
	}
	checkNotional(order, guardrails, refuse, mark);
}

type Refuse = (field: string, problem: string, limit: string, fix?: string) => Error;

/** Positions are LONG only: a BUY never reduces one, and the exchange refuses a reduce-only BUY. */
function checkBuy(
	node: INode,
	order: FuturesOrder,
	guardrails: FuturesGuardrails,
	refuse: Refuse,
	label: (field: string) => string,
	itemIndex: number,
): void {
	const never = 'A BUY never reduces a LONG position: use Side Sell';
	if (guardrails.reduceOnlyRequired === true)
		throw refuse(
			'side',
			'BUY never reduces a position (positions are LONG only), and this node may only reduce positions',
			LABELS.reduceOnlyRequired,
			`${never} with Reduce Only on, or Close Position.`,
		);
	if (order.reduceOnly === true)
		throw inputError(
			node,
			label('reduceOnly'),
			'is on for a BUY, which never reduces a position (positions are LONG only), so the exchange would refuse it',
			`Nothing was sent. ${never} to reduce it, or turn Reduce Only off to open or add to it.`,
			itemIndex,
		);
}

function checkNotional(
	order: FuturesOrder,
	guardrails: FuturesGuardrails,
	refuse: Refuse,
	mark: string | null | undefined,
): void {
	const { maxOrderNotional } = guardrails;
	if (maxOrderNotional === undefined || (mark === undefined && needsMark(order, guardrails)))
		return;
	const notional = orderNotional(order, mark ?? undefined);
	if (notional === undefined)
		throw refuse(
			'baseQty',
			order.side === 'SELL'
				? `the order cannot be valued: the mark price of ${order.symbol} could not be read (the futures API gives it only with a LONG position, which a SELL reduces)`
				: `the order cannot be valued: the mark price of ${order.symbol} could not be read (the futures API gives it only with an open position): give a Quote Quantity (its notional is the quote) or a Limit price`,
			LABELS.maxOrderNotional,
			order.side === 'SELL'
				? 'Open the LONG position first (a SELL only reduces one), or clear Max Order Notional.'
				: 'Give a Quote Quantity (its notional is the quote) or a Limit price (a LIMIT order, worth Price × Quantity), or clear Max Order Notional.',
		);
	if (compareDecimals(parseDecimal(notional.value)!, parseDecimal(maxOrderNotional)!) > 0)
		throw refuse(
			order.quoteQty !== undefined ? 'quoteQty' : 'baseQty',
			`the order is worth ${notional.value} (${notional.how}), above Max Order Notional (${maxOrderNotional})`,
			LABELS.maxOrderNotional,
		);
}
