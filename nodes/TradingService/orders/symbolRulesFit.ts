import {
	compareDecimals,
	formatDecimal,
	isMultipleOf,
	multiplyDecimals,
	parseDecimal,
	roundToStep,
	type Decimal,
} from '../helpers/decimals';
import type { OrderParams } from './orderRules';
import type { FittedValue, SymbolRules } from './symbolRules';

// One order against its symbol's rules before it is sent, and Fit to Symbol Rules (the run's check
// of every order: symbolRulesCheck.ts).
// Pure: exact decimal arithmetic on strings, never floating point, so a price on the tick is never
// refused (or one off it passed) by a rounding error.

/** Why an order breaks its symbol's rules. */
export interface SymbolRuleProblem {
	/** The order field at fault (symbol, price, quantity, amount). */
	field: 'symbol' | 'price' | 'quantity' | 'amount';
	/** What is wrong, after the field's name: "50000.125 is not a multiple of ...". */
	problem: string;
	/** How to fix it. */
	fix: string;
	/** Whether Fit to Symbol Rules would have fixed it. */
	fittable: boolean;
}

export type SymbolRulesCheck =
	| { ok: true; order: OrderParams; fitted: FittedValue[] }
	| { ok: false; problem: SymbolRuleProblem };

type Refused = Extract<SymbolRulesCheck, { ok: false }>;
type Field = FittedValue['field'];

/** A non-negative decimal's text exactly; undefined for anything else (rules and sizes are never negative). */
function nonNegative(text: string): Decimal | undefined {
	const value = parseDecimal(text);
	return value === undefined || value.units < 0n || /^\s*-/.test(text) ? undefined : value;
}

function isZero(value: Decimal): boolean {
	return value.units === 0n;
}

/** A filter value as a limit: "0", empty, missing or unreadable is no limit (undefined). */
function limitOf(text: string): Decimal | undefined {
	if (text === '') return undefined;
	const value = nonNegative(text);
	return value === undefined || isZero(value) ? undefined : value;
}

function refuse(field: SymbolRuleProblem['field'], problem: string, fix: string, fittable = false) {
	return { ok: false, problem: { field, problem, fix, fittable } } as Refused;
}

/** Statuses in which the service takes no orders (UAE codes -1155 and -1151). */
const CLOSED_STATUSES: Record<string, string> = {
	HALT: 'is halted (status HALT): the exchange takes no orders for it now',
	IN_PREVIEW: 'is not open for trading yet (status IN_PREVIEW)',
};

const PLURALS: Record<string, string> = {
	price: 'prices',
	quantity: 'quantities',
	amount: 'amounts',
};

/** The step each field must be a multiple of: the rule's name in SymbolRules, and in words. */
const STEPS = {
	price: { rule: 'tickSize', name: 'tick size' },
	quantity: { rule: 'stepSize', name: 'step size' },
	amount: { rule: 'amountStep', name: 'amount step (quote precision)' },
} as const;

const FIT_HINT = 'turn on Fit to Symbol Rules to have the node round it';

/** One order under check: what would be sent so far, and what fitting changed. */
interface Fitting {
	sent: OrderParams;
	fitted: FittedValue[];
	fit: boolean;
	rules: SymbolRules;
}

/** A refusal when the symbol is not a trading pair, or one that takes no orders now. */
function closedPair(order: OrderParams, rules: SymbolRules | undefined): Refused | undefined {
	if (rules === undefined) {
		return refuse(
			'symbol',
			`${order.symbol} is not a trading pair of the exchange`,
			'The exchange’s symbol rules have no such trading pair, so nothing was sent. Check the symbol (upper case, no separators, e.g. BTCUSDT); Get Symbol Rules lists them all.',
		);
	}
	const closed = CLOSED_STATUSES[rules.status];
	if (closed === undefined) return undefined;
	return refuse(
		'symbol',
		`${order.symbol} ${closed}`,
		'Nothing was sent. Try again once the trading pair is open (Get Symbol Rules shows its status).',
	);
}

/**
 * A value on its step: unchanged when it is a multiple (or there is no step); else rounded with
 * Fit, or a problem naming the two nearest valid values.
 */
function onStep(
	check: Fitting,
	field: Field,
	direction: 'down' | 'up' = 'down',
	fitHint = `${FIT_HINT} down`,
): Refused | undefined {
	const { rule, name } = STEPS[field];
	const stepText = check.rules[rule];
	const symbol = check.sent.symbol;
	const given = check.sent[field] as string;
	const step = limitOf(stepText);
	const value = nonNegative(given);
	if (step === undefined || value === undefined || isMultipleOf(value, step)) return undefined;
	const below = roundToStep(value, step, 'down');
	const above = roundToStep(value, step, 'up');
	if (!check.fit) {
		const nearest = isZero(below)
			? `the smallest valid ${field} is ${formatDecimal(above)}`
			: `nearest valid ${PLURALS[field]}: ${formatDecimal(below)} and ${formatDecimal(above)}`;
		return refuse(
			field,
			`${given} is not a multiple of the ${name} of ${symbol}, ${stepText} (${nearest})`,
			`Nothing was sent. Use a ${field} that is a multiple of ${stepText}, or ${fitHint}.`,
			!isZero(direction === 'down' ? below : above),
		);
	}
	const rounded = direction === 'down' ? below : above;
	if (isZero(rounded)) {
		return refuse(
			field,
			`${given} rounds down to 0 on the ${name} of ${symbol}, ${stepText}`,
			`Nothing was sent: Fit to Symbol Rules only rounds down, never up to a bigger order. Use a ${field} of at least ${formatDecimal(above)}.`,
		);
	}
	check.sent[field] = formatDecimal(rounded);
	check.fitted.push({ field, given, sent: formatDecimal(rounded), rule: `${rule} ${stepText}` });
	return undefined;
}

/** min ≤ value ≤ max, each limit only when set; `what` names the value in the fix. */
function within(
	check: Fitting,
	field: Field,
	value: Decimal,
	shown: string,
	[minText, maxText]: [string, string],
	[minName, maxName, what]: [string, string, string],
): Refused | undefined {
	const min = limitOf(minText);
	const max = limitOf(maxText);
	const symbol = check.sent.symbol;
	if (min !== undefined && compareDecimals(value, min) < 0) {
		return refuse(
			field,
			`${shown} is below the ${minName} of ${symbol}, ${minText}`,
			`Nothing was sent. Make the ${what} at least ${minText}; rounding cannot fix this.`,
		);
	}
	if (max !== undefined && compareDecimals(value, max) > 0) {
		return refuse(
			field,
			`${shown} is above the ${maxName} of ${symbol}, ${maxText}`,
			`Nothing was sent. Make the ${what} at most ${maxText}, or split the order.`,
		);
	}
	return undefined;
}

/** A field's value as sent within its limits (`noun`: "MARKET order amount", "quantity"). */
function fieldWithin(
	check: Fitting,
	field: Field,
	limits: [string, string],
	noun: string,
): Refused | undefined {
	const text = (check.sent[field] as string | undefined) ?? '';
	const value = nonNegative(text);
	if (value === undefined) return undefined;
	const change = check.fitted.find((entry) => entry.field === field);
	// Fitting changed the value: said, as the user gave another one.
	const shown =
		change === undefined ? text : `${text} (Fit to Symbol Rules rounded ${change.given} to it)`;
	return within(check, field, value, shown, limits, [`minimum ${noun}`, `maximum ${noun}`, field]);
}

/** A LIMIT or LIMIT_MAKER order's value (Price × Quantity) against the minimums and maximum. */
function checkWorth(check: Fitting): Refused | undefined {
	const { sent, rules, fitted } = check;
	const quantity = nonNegative(sent.quantity ?? '');
	const price = nonNegative(sent.price ?? '');
	if (quantity === undefined || price === undefined) return undefined;
	const worth = multiplyDecimals(price, quantity);
	const shown = `the order is worth ${formatDecimal(worth)} (Price × Quantity${fitted.length > 0 ? ', after Fit to Symbol Rules' : ''}), which`;
	const notional = limitOf(rules.minNotional);
	if (notional !== undefined && compareDecimals(worth, notional) < 0) {
		return refuse(
			'quantity',
			`${shown} is below the minimum order value of ${sent.symbol}, ${rules.minNotional}`,
			`Nothing was sent. Raise the quantity or the price so that Price × Quantity is at least ${rules.minNotional}; rounding cannot fix this.`,
		);
	}
	return within(
		check,
		'quantity',
		worth,
		shown,
		[rules.minAmount, rules.maxAmount],
		['minimum order amount', 'maximum order amount', 'order’s value (Price × Quantity)'],
	);
}

/** An order sized by Quantity: price on the tick (not MARKET), quantity on the step, then limits. */
function checkByQuantity(check: Fitting, order: OrderParams): Refused | undefined {
	const { rules } = check;
	if (order.type !== 'MARKET') {
		const buy = order.side === 'BUY';
		const price = onStep(
			check,
			'price',
			buy ? 'down' : 'up',
			`${FIT_HINT} (${buy ? 'down for a BUY' : 'up for a SELL'})`,
		);
		if (price !== undefined) return price;
	}
	const step = onStep(check, 'quantity');
	if (step !== undefined) return step;
	if (order.type === 'MARKET') {
		const limits: [string, string] = [rules.marketOrderMinQuantity, rules.marketOrderMaxQuantity];
		return fieldWithin(check, 'quantity', limits, 'MARKET order quantity');
	}
	return (
		fieldWithin(check, 'quantity', [rules.minQuantity, rules.maxQuantity], 'quantity') ??
		checkWorth(check)
	);
}

/**
 * Checks `order` against its symbol's rules; with `fit`, first rounds what rounding can fix the
 * safe way (a BUY's price down and a SELL's up to the tick, quantity and amount down to their
 * step), then checks the rest. Never rounds anything up that makes the order bigger or dearer.
 */
export function checkSymbolRules(
	order: OrderParams,
	rules: SymbolRules | undefined,
	fit: boolean,
): SymbolRulesCheck {
	const closed = closedPair(order, rules);
	if (closed !== undefined || rules === undefined) return closed!;
	const check: Fitting = { sent: { ...order }, fitted: [], fit, rules };
	const refused =
		order.type === 'MARKET' && order.amount !== undefined
			? (onStep(check, 'amount') ??
				fieldWithin(
					check,
					'amount',
					[rules.marketOrderMinAmount, rules.marketOrderMaxAmount],
					'MARKET order amount',
				))
			: checkByQuantity(check, order);
	return refused ?? { ok: true, order: check.sent, fitted: check.fitted };
}
