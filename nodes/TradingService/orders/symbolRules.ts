import { NodeOperationError, type IDataObject } from 'n8n-workflow';

import { LIMITS, MARKET_SITE } from '../constants';
import {
	compareDecimals,
	formatDecimal,
	isMultipleOf,
	multiplyDecimals,
	parseDecimal,
	roundToStep,
	type Decimal,
} from '../helpers/decimals';
import { inputError } from '../helpers/validation';
import { type ServiceClient } from '../transport';
import { withOutcome } from '../writes/outcomes';
import type { RunContext } from '../run/runContext';
import { ORDER_ENDPOINTS } from './endpoints';
import { checkGuardrails, guardrailsCollection, type OrderOptions } from './orderOptions';
import { refusedError, type FittedValue, type OrderParams } from './orderRules';

// The trading rules of each trading pair (docs/operations.md "Symbol rules"): read from exchange
// info, kept per n8n instance, every order of a run checked or fitted against them before the first
// is sent. Exact decimals, never floating point: no price on the tick refused by a rounding error.

/** Where each rule is in exchange info: a field of the entry, or [its filter, the filter's field]. */
const RULE_FIELDS = {
	status: 'status',
	baseAsset: 'baseAsset',
	quoteAsset: 'quoteAsset',
	tickSize: ['PRICE_FILTER', 'tickSize'],
	stepSize: ['LOT_SIZE', 'stepSize'],
	minQuantity: ['LOT_SIZE', 'minQty'],
	maxQuantity: ['LOT_SIZE', 'maxQty'],
	marketOrderMinQuantity: ['LOT_SIZE', 'marketOrderMinQty'],
	marketOrderMaxQuantity: ['LOT_SIZE', 'marketOrderMaxQty'],
	minNotional: ['MIN_NOTIONAL', 'minNotional'],
	minAmount: ['TRADE_AMOUNT', 'minAmount'],
	maxAmount: ['TRADE_AMOUNT', 'maxAmount'],
	marketOrderMinAmount: ['TRADE_AMOUNT', 'marketOrderMinAmount'],
	marketOrderMaxAmount: ['TRADE_AMOUNT', 'marketOrderMaxAmount'],
	/** The step of a MARKET order's Amount. */
	amountStep: 'quotePrecision',
	limitBuyPriceUpRate: ['LIMIT_TRADING', 'buyPriceUpRate'],
	limitSellPriceDownRate: ['LIMIT_TRADING', 'sellPriceDownRate'],
	marketBuyPriceUpRate: ['MARKET_TRADING', 'buyPriceUpRate'],
	marketSellPriceDownRate: ['MARKET_TRADING', 'sellPriceDownRate'],
} as const;

/** The rules of one trading pair, as Get Symbol Rules outputs them: every decimal a string. */
export type SymbolRules = { symbol: string } & Record<keyof typeof RULE_FIELDS, string> & {
		/** LIMIT_TRADING maxEntrustNum; null when the service gives none. */
		maxOpenOrders: number | null;
		/** The filters exactly as the service gave them. */
		filters: IDataObject[];
	};

function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A field's text: a decimal kept as the service wrote it, '' when missing. */
function text(value: unknown): string {
	if (typeof value === 'string') return value.trim();
	return typeof value === 'number' || typeof value === 'bigint' ? String(value) : '';
}

/** The rules of one entry of exchange info's `symbols`; undefined without a symbol name. */
export function parseSymbolRules(entry: IDataObject): SymbolRules | undefined {
	const symbol = text(entry.symbol);
	if (symbol === '') return undefined;
	const filters = Array.isArray(entry.filters) ? entry.filters.filter(isObject) : [];
	const filter = (type: string): IDataObject =>
		filters.find((candidate) => candidate.filterType === type) ?? {};
	const rules = { symbol } as SymbolRules;
	for (const [name, at] of Object.entries(RULE_FIELDS)) {
		const value = typeof at === 'string' ? entry[at] : filter(at[0])[at[1]];
		rules[name as keyof typeof RULE_FIELDS] = text(value);
	}
	const maxEntrust = text(filter('LIMIT_TRADING').maxEntrustNum);
	const count = Number(maxEntrust);
	rules.maxOpenOrders = maxEntrust !== '' && Number.isSafeInteger(count) ? count : null;
	rules.filters = filters;
	return rules;
}

export function parseExchangeInfo(body: unknown): Map<string, SymbolRules> {
	const rules = new Map<string, SymbolRules>();
	for (const entry of isObject(body) && Array.isArray(body.symbols) ? body.symbols : []) {
		const parsed = isObject(entry) ? parseSymbolRules(entry) : undefined;
		if (parsed !== undefined) rules.set(parsed.symbol, parsed);
	}
	return rules;
}

export function symbolRulesItem(rules: SymbolRules): IDataObject {
	return { ...rules, filters: rules.filters.map((filter) => ({ ...filter })) };
}

// Exchange info is the same for every key, so one read serves every node of every execution for
// LIMITS.symbolRulesTtlMs. Keyed by the normalised Base URL: two spellings of one service share it,
// and the sandbox and the live service never mix. `rules`: the read, shared by every caller while
// it is in flight; `settled`: it succeeded (a failed read is dropped at once).
type CachedRules = { rules: Promise<Map<string, SymbolRules>>; readAt: number; settled: boolean };

const cache = new Map<string, CachedRules>();

/** Forgets every service's rules: tests start each case with none. */
export function clearSymbolRulesCache(): void {
	cache.clear();
}

/**
 * The rules of every trading pair of the client's service (site MENA), from the cache when read
 * less than LIMITS.symbolRulesTtlMs ago. Callers at once share one read; a read that fails is never
 * kept, so the next caller tries again. `fresh` (Get Symbol Rules): read now, and keep what is read.
 */
export async function readSymbolRules(
	client: ServiceClient,
	itemIndex?: number,
	{ fresh = false }: { fresh?: boolean } = {},
): Promise<Map<string, SymbolRules>> {
	const key = await client.serviceUrl();
	const now = Date.now();
	for (const [other, entry] of cache) {
		// A read still in flight is shared however long it takes; a settled one for the TTL.
		if (entry.settled && now - entry.readAt >= LIMITS.symbolRulesTtlMs) cache.delete(other);
	}
	const cached = cache.get(key);
	if (!fresh && cached !== undefined) return await cached.rules;
	const entry: CachedRules = {
		readAt: now,
		settled: false,
		rules: client
			.request(ORDER_ENDPOINTS.exchangeInfo, { qs: { site: MARKET_SITE }, itemIndex })
			.then(parseExchangeInfo),
	};
	cache.set(key, entry);
	entry.rules.then(
		() => (entry.settled = true),
		() => {
			// Only this read's entry: a newer read may have replaced it meanwhile.
			if (cache.get(key) === entry) cache.delete(key);
		},
	);
	return await entry.rules;
}

// One order against its symbol's rules, and Fit to Symbol Rules

interface SymbolRuleProblem {
	field: 'symbol' | 'price' | 'quantity' | 'amount';
	/** What is wrong, after the field's name: "50000.125 is not a multiple of ...". */
	problem: string;
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
	const value = text === '' ? undefined : nonNegative(text);
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

const STEPS = {
	price: { rule: 'tickSize', name: 'tick size', plural: 'prices' },
	quantity: { rule: 'stepSize', name: 'step size', plural: 'quantities' },
	amount: { rule: 'amountStep', name: 'amount step (quote precision)', plural: 'amounts' },
} as const;

const FIT_HINT = 'turn on Fit to Symbol Rules to have the node round it';

/** One order under check: what would be sent so far, and what fitting changed. */
interface Fitting {
	sent: OrderParams;
	fitted: FittedValue[];
	fit: boolean;
	rules: SymbolRules;
}

function closedPair(order: OrderParams, rules: SymbolRules | undefined): Refused | undefined {
	if (rules === undefined)
		return refuse(
			'symbol',
			`${order.symbol} is not a trading pair of the exchange`,
			'The exchange’s symbol rules have no such trading pair, so nothing was sent. Check the symbol (upper case, no separators, e.g. BTCUSDT); Get Symbol Rules lists them all.',
		);
	const closed = CLOSED_STATUSES[rules.status];
	if (closed === undefined) return undefined;
	return refuse(
		'symbol',
		`${order.symbol} ${closed}`,
		'Nothing was sent. Try again once the trading pair is open (Get Symbol Rules shows its status).',
	);
}

/** A value on its step: unchanged, rounded with Fit, or a problem naming the two nearest valid values. */
function onStep(
	check: Fitting,
	field: Field,
	direction: 'down' | 'up' = 'down',
	fitHint = `${FIT_HINT} down`,
): Refused | undefined {
	const { rule, name, plural } = STEPS[field];
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
			: `nearest valid ${plural}: ${formatDecimal(below)} and ${formatDecimal(above)}`;
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

/** The field as sent, or `worth` (Price × Quantity), within the minimum and maximum `noun` when set. */
function within(
	check: Fitting,
	field: Field,
	[minText, maxText]: [string, string],
	noun: string,
	worth?: { value: Decimal; shown: string },
): Refused | undefined {
	const text = (check.sent[field] as string | undefined) ?? '';
	const value = worth?.value ?? nonNegative(text);
	if (value === undefined) return undefined;
	const change = check.fitted.find((entry) => entry.field === field);
	const shown =
		worth?.shown ??
		(change === undefined ? text : `${text} (Fit to Symbol Rules rounded ${change.given} to it)`);
	const what = worth === undefined ? field : 'order’s value (Price × Quantity)';
	const [min, max] = [limitOf(minText), limitOf(maxText)];
	const symbol = check.sent.symbol;
	if (min !== undefined && compareDecimals(value, min) < 0) {
		return refuse(
			field,
			`${shown} is below the minimum ${noun} of ${symbol}, ${minText}`,
			`Nothing was sent. Make the ${what} at least ${minText}; rounding cannot fix this.`,
		);
	}
	if (max !== undefined && compareDecimals(value, max) > 0) {
		return refuse(
			field,
			`${shown} is above the maximum ${noun} of ${symbol}, ${maxText}`,
			`Nothing was sent. Make the ${what} at most ${maxText}, or split the order.`,
		);
	}
	return undefined;
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
	const limits: [string, string] = [rules.minAmount, rules.maxAmount];
	return within(check, 'quantity', limits, 'order amount', { value: worth, shown });
}

/** An order sized by Quantity: price on the tick (not MARKET), quantity on the step, then limits. */
function checkByQuantity(check: Fitting, order: OrderParams): Refused | undefined {
	const { rules } = check;
	if (order.type !== 'MARKET') {
		const buy = order.side === 'BUY';
		const hint = `${FIT_HINT} (${buy ? 'down for a BUY' : 'up for a SELL'})`;
		const price = onStep(check, 'price', buy ? 'down' : 'up', hint);
		if (price !== undefined) return price;
	}
	const step = onStep(check, 'quantity');
	if (step !== undefined) return step;
	if (order.type === 'MARKET') {
		const limits: [string, string] = [rules.marketOrderMinQuantity, rules.marketOrderMaxQuantity];
		return within(check, 'quantity', limits, 'MARKET order quantity');
	}
	return (
		within(check, 'quantity', [rules.minQuantity, rules.maxQuantity], 'quantity') ??
		checkWorth(check)
	);
}

/**
 * Checks `order` against its symbol's rules; with `fit`, first rounds what rounding can fix, never
 * the way that makes the order bigger or dearer (a BUY's price down, a SELL's up, sizes down).
 */
export function checkSymbolRules(
	order: OrderParams,
	rules: SymbolRules | undefined,
	fit: boolean,
): SymbolRulesCheck {
	const closed = closedPair(order, rules);
	if (closed !== undefined || rules === undefined) return closed!;
	const check: Fitting = { sent: { ...order }, fitted: [], fit, rules };
	const amountLimits: [string, string] = [rules.marketOrderMinAmount, rules.marketOrderMaxAmount];
	const refused =
		order.type === 'MARKET' && order.amount !== undefined
			? (onStep(check, 'amount') ?? within(check, 'amount', amountLimits, 'MARKET order amount'))
			: checkByQuantity(check, order);
	return refused ?? { ok: true, order: check.sent, fitted: check.fitted };
}

// The run's check of every order of Create and Create Many, before the first is sent

/** One order of Create or Create Many, validated and within the guardrails as given. */
export interface OrderToCheck {
	order: OrderParams;
	/** Names an order field as the user knows it (Price, Orders (JSON)[3].price). */
	label: (field: string) => string;
	itemIndex: number;
	options: Pick<OrderOptions, 'fitToSymbolRules' | 'ifSymbolRulesUnreadable' | 'guardrails'>;
	/** Whether the write ledger holds this order from an earlier try of the node run. */
	recorded: boolean;
}

/** An order as it may be sent, with what its output item says about the symbol rules. */
export interface CheckedOrder {
	order: OrderParams;
	/** The order as given, before fitting: what the write ledger knows it by. */
	given: OrderParams;
	/** fittedToSymbolRules, or symbolRulesChecked false with symbolRulesProblem. */
	report: IDataObject;
}

/** Why the rules could not be read, in one sentence (never the credential: errors carry none). */
function readProblem(error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	const description = (error as { description?: unknown } | null)?.description;
	return typeof description === 'string' && description !== '' && description !== message
		? `${message} (${description.replace(/ ?Outcome: [^.]*\.$/, '')})`
		: message;
}

function unreadableError(run: RunContext, why: string, itemIndex: number): NodeOperationError {
	const setting = guardrailsCollection(run.node).name === 'guardrails' ? 'guardrail' : 'option';
	const description = `Reading the exchange’s symbol rules (tick size, step size, minimums) failed: ${why}. Nothing was sent. Run it again later, or set the ${setting} If Symbol Rules Can't Be Read to Send Without Checking to send orders unchecked (the exchange still refuses an order that breaks its rules).`;
	const title = 'The symbol rules could not be read, so the order was not sent';
	return refusedError(run.node, title, description, itemIndex);
}

/** One order against the rules read (or why they could not be read): ready to send, or refused. */
function checkOne(
	run: RunContext,
	rules: Map<string, SymbolRules> | undefined,
	why: string,
	{ order, label, itemIndex, options, recorded }: OrderToCheck,
): CheckedOrder | NodeOperationError {
	// An order an earlier try may have placed is the ledger's to settle (answered if placed,
	// looked up if unknown, never sent twice): refusing it now could report a placed order as
	// rejected. Its ledger entry knows it by the order as given.
	const settledByLedger = { order, given: order, report: {} };
	if (rules === undefined) {
		if (recorded) return settledByLedger;
		if (options.ifSymbolRulesUnreadable !== 'sendUnchecked')
			return unreadableError(run, why, itemIndex);
		return { order, given: order, report: { symbolRulesChecked: false, symbolRulesProblem: why } };
	}
	const fit = options.fitToSymbolRules === true;
	const checked = checkSymbolRules(order, rules.get(order.symbol), fit);
	if (!checked.ok) {
		if (recorded) return settledByLedger;
		const { field, problem, fix } = checked.problem;
		return withOutcome(inputError(run.node, label(field), problem, fix, itemIndex), 'rejected');
	}
	if (checked.fitted.length === 0) return { order: checked.order, given: order, report: {} };
	// The guardrails promise a bound on what is sent: a SELL's price rounded up can take an
	// order within them as given over them, so the fitted order is checked again.
	try {
		checkGuardrails(run.node, checked.order, options.guardrails, label, itemIndex, checked.fitted);
	} catch (error) {
		if (recorded) return settledByLedger;
		return withOutcome(error as NodeOperationError, 'rejected');
	}
	return { order: checked.order, given: order, report: { fittedToSymbolRules: checked.fitted } };
}

/**
 * Every order of a run, after validation and the guardrails, checked with one read of the rules:
 * ready to send (fitted, and within the guardrails as fitted), or refused (outcome rejected).
 */
export async function checkOrdersAgainstSymbolRules(
	run: RunContext,
	orders: OrderToCheck[],
): Promise<Array<CheckedOrder | NodeOperationError>> {
	if (orders.length === 0) return [];
	const read = await readSymbolRules(run.client, orders[0].itemIndex).then(
		(rules) => ({ rules, why: '' }),
		(error: unknown) => ({ rules: undefined, why: readProblem(error) }),
	);
	return orders.map((one) => checkOne(run, read.rules, read.why, one));
}
