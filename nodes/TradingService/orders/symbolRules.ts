import type { IDataObject } from 'n8n-workflow';

import { LIMITS, MARKET_SITE } from '../constants';
import { ENDPOINTS, type ServiceClient } from '../transport';

// The trading rules of each trading pair (GET /api/v1/exchangeInfo, docs/api.md "Symbol rules"),
// as parsed from exchange info and kept in memory per n8n instance. Checking and fitting an order
// against them: symbolRulesFit.ts.

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

/** One value Fit to Symbol Rules changed. */
export interface FittedValue extends IDataObject {
	field: 'price' | 'quantity' | 'amount';
	given: string;
	sent: string;
	rule: string;
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
// The per-process cache

// The symbol rules of each service, kept per process: every Create and Create Many checks its
// orders against them, and exchange info is the same for every key, so one read serves every
// node of every execution for LIMITS.symbolRulesTtlMs. Keyed by the normalised Base URL, so two
// spellings of one service share it and the sandbox and the live service never mix.

interface CachedRules {
	/** The read, shared by every caller while it is in flight. */
	rules: Promise<Map<string, SymbolRules>>;
	/** When the read started (ms); the rules are kept LIMITS.symbolRulesTtlMs from then. */
	readAt: number;
	/** Whether the read has succeeded (a failed read is dropped at once). */
	settled: boolean;
}

const cache = new Map<string, CachedRules>();

/** Forgets every service's rules: tests start each case with none. */
export function clearSymbolRulesCache(): void {
	cache.clear();
}

function isFresh(entry: CachedRules, now: number): boolean {
	// A read still in flight is shared however long it takes; a settled one for the TTL.
	return !entry.settled || now - entry.readAt < LIMITS.symbolRulesTtlMs;
}

/**
 * The rules of every trading pair of the client's service (GET /api/v1/exchangeInfo, site MENA),
 * from the cache when read less than LIMITS.symbolRulesTtlMs ago. Callers at once share one read;
 * a read that fails is never kept, so the next caller tries again. `fresh`: read now whatever the
 * cache holds (Get Symbol Rules), and keep what is read.
 */
export async function readSymbolRules(
	client: ServiceClient,
	itemIndex?: number,
	{ fresh = false }: { fresh?: boolean } = {},
): Promise<Map<string, SymbolRules>> {
	const key = await client.serviceUrl();
	const now = Date.now();
	for (const [other, entry] of cache) {
		if (!isFresh(entry, now)) cache.delete(other);
	}
	const cached = cache.get(key);
	if (!fresh && cached !== undefined) return await cached.rules;

	const entry: CachedRules = {
		readAt: now,
		settled: false,
		rules: client
			.request(ENDPOINTS.exchangeInfo, { qs: { site: MARKET_SITE }, itemIndex })
			.then(parseExchangeInfo),
	};
	cache.set(key, entry);
	entry.rules.then(
		() => {
			entry.settled = true;
		},
		() => {
			// Only this read's entry: a newer read may have replaced it meanwhile.
			if (cache.get(key) === entry) cache.delete(key);
		},
	);
	return await entry.rules;
}
