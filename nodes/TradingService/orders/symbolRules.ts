import type { IDataObject } from 'n8n-workflow';

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

// The trading rules of each trading pair (GET /api/v1/exchangeInfo, docs/api.md "Symbol rules"),
// and the check of an order against them before it is sent. Pure: exact decimal arithmetic on
// strings, never floating point, so a price on the tick is never refused (or one off it passed) by
// a rounding error.

/** The rules of one trading pair, as Get Symbol Rules outputs them: every decimal a string. */
export interface SymbolRules {
	symbol: string;
	status: string;
	baseAsset: string;
	quoteAsset: string;
	tickSize: string;
	stepSize: string;
	minQuantity: string;
	maxQuantity: string;
	marketOrderMinQuantity: string;
	marketOrderMaxQuantity: string;
	minNotional: string;
	minAmount: string;
	maxAmount: string;
	marketOrderMinAmount: string;
	marketOrderMaxAmount: string;
	/** quotePrecision: the step of a MARKET order's Amount. */
	amountStep: string;
	limitBuyPriceUpRate: string;
	limitSellPriceDownRate: string;
	marketBuyPriceUpRate: string;
	marketSellPriceDownRate: string;
	/** LIMIT_TRADING maxEntrustNum; null when the service gives none. */
	maxOpenOrders: number | null;
	/** The filters exactly as the service gave them. */
	filters: IDataObject[];
}

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

// ---------------------------------------------------------------------------------------------
// Parsing exchange info

function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A field's text: a decimal kept as the service wrote it, '' when missing. */
function text(value: unknown): string {
	if (value === undefined || value === null) return '';
	if (typeof value === 'string') return value.trim();
	if (typeof value === 'number' || typeof value === 'bigint') return String(value);
	return '';
}

/** The rules of one entry of exchange info's `symbols`; undefined without a symbol name. */
export function parseSymbolRules(entry: IDataObject): SymbolRules | undefined {
	const symbol = text(entry.symbol);
	if (symbol === '') return undefined;
	const filters = Array.isArray(entry.filters) ? entry.filters.filter(isObject) : [];
	const filter = (type: string): IDataObject =>
		filters.find((candidate) => candidate.filterType === type) ?? {};
	const price = filter('PRICE_FILTER');
	const lot = filter('LOT_SIZE');
	const notional = filter('MIN_NOTIONAL');
	const amount = filter('TRADE_AMOUNT');
	const limitTrading = filter('LIMIT_TRADING');
	const marketTrading = filter('MARKET_TRADING');
	const maxEntrust = Number(text(limitTrading.maxEntrustNum));
	return {
		symbol,
		status: text(entry.status),
		baseAsset: text(entry.baseAsset),
		quoteAsset: text(entry.quoteAsset),
		tickSize: text(price.tickSize),
		stepSize: text(lot.stepSize),
		minQuantity: text(lot.minQty),
		maxQuantity: text(lot.maxQty),
		marketOrderMinQuantity: text(lot.marketOrderMinQty),
		marketOrderMaxQuantity: text(lot.marketOrderMaxQty),
		minNotional: text(notional.minNotional),
		minAmount: text(amount.minAmount),
		maxAmount: text(amount.maxAmount),
		marketOrderMinAmount: text(amount.marketOrderMinAmount),
		marketOrderMaxAmount: text(amount.marketOrderMaxAmount),
		amountStep: text(entry.quotePrecision),
		limitBuyPriceUpRate: text(limitTrading.buyPriceUpRate),
		limitSellPriceDownRate: text(limitTrading.sellPriceDownRate),
		marketBuyPriceUpRate: text(marketTrading.buyPriceUpRate),
		marketSellPriceDownRate: text(marketTrading.sellPriceDownRate),
		maxOpenOrders:
			text(limitTrading.maxEntrustNum) !== '' && Number.isSafeInteger(maxEntrust)
				? maxEntrust
				: null,
		filters,
	};
}

/** Exchange info's answer as rules by symbol. */
export function parseExchangeInfo(body: unknown): Map<string, SymbolRules> {
	const rules = new Map<string, SymbolRules>();
	const symbols = isObject(body) && Array.isArray(body.symbols) ? body.symbols : [];
	for (const entry of symbols) {
		if (!isObject(entry)) continue;
		const parsed = parseSymbolRules(entry);
		if (parsed !== undefined) rules.set(parsed.symbol, parsed);
	}
	return rules;
}

/** The item Get Symbol Rules outputs for one trading pair. */
export function symbolRulesItem(rules: SymbolRules): IDataObject {
	return { ...rules, filters: rules.filters.map((filter) => ({ ...filter })) };
}

// ---------------------------------------------------------------------------------------------
// Checking and fitting an order

/** One value Fit to Symbol Rules changed. */
export interface FittedValue extends IDataObject {
	field: 'price' | 'quantity' | 'amount';
	given: string;
	sent: string;
	rule: string;
}

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

const FIT_HINT = 'turn on Fit to Symbol Rules to have the node round it';

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
	const fail = (
		field: SymbolRuleProblem['field'],
		problem: string,
		fix: string,
		fittable = false,
	): SymbolRulesCheck => ({ ok: false, problem: { field, problem, fix, fittable } });
	if (rules === undefined) {
		return fail(
			'symbol',
			`${order.symbol} is not a trading pair of the exchange`,
			'The exchange’s symbol rules have no such trading pair, so nothing was sent. Check the symbol (upper case, no separators, e.g. BTCUSDT); Get Symbol Rules lists them all.',
		);
	}
	const closed = CLOSED_STATUSES[rules.status];
	if (closed !== undefined) {
		return fail(
			'symbol',
			`${order.symbol} ${closed}`,
			'Nothing was sent. Try again once the trading pair is open (Get Symbol Rules shows its status).',
		);
	}
	const sent: OrderParams = { ...order };
	const fitted: FittedValue[] = [];
	const buy = order.side === 'BUY';
	const symbol = order.symbol;

	/**
	 * A value on its step: unchanged when it is a multiple (or there is no step); else rounded with
	 * Fit, or a problem naming the two nearest valid values.
	 */
	const onStep = (
		field: FittedValue['field'],
		stepText: string,
		stepName: string,
		rule: string,
		direction: 'down' | 'up',
		what: string,
		fitHint = `${FIT_HINT} down`,
	): SymbolRulesCheck | undefined => {
		const given = sent[field] as string;
		const step = limitOf(stepText);
		const value = nonNegative(given);
		if (step === undefined || value === undefined || isMultipleOf(value, step)) return undefined;
		const below = roundToStep(value, step, 'down');
		const above = roundToStep(value, step, 'up');
		if (!fit) {
			const nearest = isZero(below)
				? `the smallest valid ${what} is ${formatDecimal(above)}`
				: `nearest valid ${PLURALS[what] ?? what}: ${formatDecimal(below)} and ${formatDecimal(above)}`;
			return fail(
				field,
				`${given} is not a multiple of the ${stepName} of ${symbol}, ${stepText} (${nearest})`,
				`Nothing was sent. Use a ${what} that is a multiple of ${stepText}, or ${fitHint}.`,
				!isZero(direction === 'down' ? below : above),
			);
		}
		const rounded = direction === 'down' ? below : above;
		if (isZero(rounded)) {
			return fail(
				field,
				`${given} rounds down to 0 on the ${stepName} of ${symbol}, ${stepText}`,
				`Nothing was sent: Fit to Symbol Rules only rounds down, never up to a bigger order. Use a ${what} of at least ${formatDecimal(above)}.`,
			);
		}
		sent[field] = formatDecimal(rounded);
		fitted.push({ field, given, sent: formatDecimal(rounded), rule: `${rule} ${stepText}` });
		return undefined;
	};

	/** Fitting changed `field`: said in a refusal, as the user gave another value. */
	const afterFit = (field: FittedValue['field']): string => {
		const change = fitted.find((entry) => entry.field === field);
		return change === undefined ? '' : ` (Fit to Symbol Rules rounded ${change.given} to it)`;
	};

	/** min ≤ value ≤ max, each limit only when set. */
	const within = (
		field: FittedValue['field'],
		value: Decimal,
		shown: string,
		minText: string,
		maxText: string,
		names: { min: string; max: string; what: string },
	): SymbolRulesCheck | undefined => {
		const min = limitOf(minText);
		const max = limitOf(maxText);
		if (min !== undefined && compareDecimals(value, min) < 0) {
			return fail(
				field,
				`${shown} is below the ${names.min} of ${symbol}, ${minText}`,
				`Nothing was sent. Make the ${names.what} at least ${minText}; rounding cannot fix this.`,
			);
		}
		if (max !== undefined && compareDecimals(value, max) > 0) {
			return fail(
				field,
				`${shown} is above the ${names.max} of ${symbol}, ${maxText}`,
				`Nothing was sent. Make the ${names.what} at most ${maxText}, or split the order.`,
			);
		}
		return undefined;
	};

	if (order.type === 'MARKET' && order.amount !== undefined) {
		const problem = onStep(
			'amount',
			rules.amountStep,
			'amount step (quote precision)',
			'amountStep',
			'down',
			'amount',
		);
		if (problem !== undefined) return problem;
		const amount = nonNegative(sent.amount as string);
		if (amount === undefined) return { ok: true, order: sent, fitted };
		return (
			within(
				'amount',
				amount,
				`${sent.amount as string}${afterFit('amount')}`,
				rules.marketOrderMinAmount,
				rules.marketOrderMaxAmount,
				{
					min: 'minimum MARKET order amount',
					max: 'maximum MARKET order amount',
					what: 'amount',
				},
			) ?? { ok: true, order: sent, fitted }
		);
	}

	if (order.type !== 'MARKET') {
		const problem = onStep(
			'price',
			rules.tickSize,
			'tick size',
			'tickSize',
			buy ? 'down' : 'up',
			'price',
			`${FIT_HINT} (${buy ? 'down for a BUY' : 'up for a SELL'})`,
		);
		if (problem !== undefined) return problem;
	}
	const quantityProblem = onStep(
		'quantity',
		rules.stepSize,
		'step size',
		'stepSize',
		'down',
		'quantity',
	);
	if (quantityProblem !== undefined) return quantityProblem;
	const quantity = nonNegative(sent.quantity ?? '');
	if (quantity === undefined) return { ok: true, order: sent, fitted };

	if (order.type === 'MARKET') {
		return (
			within(
				'quantity',
				quantity,
				`${sent.quantity as string}${afterFit('quantity')}`,
				rules.marketOrderMinQuantity,
				rules.marketOrderMaxQuantity,
				{
					min: 'minimum MARKET order quantity',
					max: 'maximum MARKET order quantity',
					what: 'quantity',
				},
			) ?? { ok: true, order: sent, fitted }
		);
	}

	const quantityRange = within(
		'quantity',
		quantity,
		`${sent.quantity as string}${afterFit('quantity')}`,
		rules.minQuantity,
		rules.maxQuantity,
		{ min: 'minimum quantity', max: 'maximum quantity', what: 'quantity' },
	);
	if (quantityRange !== undefined) return quantityRange;

	const price = nonNegative(sent.price ?? '');
	if (price === undefined) return { ok: true, order: sent, fitted };
	const worth = multiplyDecimals(price, quantity);
	const shown = `the order is worth ${formatDecimal(worth)} (Price × Quantity${fitted.length > 0 ? ', after Fit to Symbol Rules' : ''}), which`;
	const notional = limitOf(rules.minNotional);
	if (notional !== undefined && compareDecimals(worth, notional) < 0) {
		return fail(
			'quantity',
			`${shown} is below the minimum order value of ${symbol}, ${rules.minNotional}`,
			`Nothing was sent. Raise the quantity or the price so that Price × Quantity is at least ${rules.minNotional}; rounding cannot fix this.`,
		);
	}
	return (
		within('quantity', worth, shown, rules.minAmount, rules.maxAmount, {
			min: 'minimum order amount',
			max: 'maximum order amount',
			what: 'order’s value (Price × Quantity)',
		}) ?? { ok: true, order: sent, fitted }
	);
}
