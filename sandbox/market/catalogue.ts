/**
 * The symbols the sandbox lists, per market site, with the trading rules (filters) the UAE
 * documentation's exchange information describes. Two catalogues: MENA (what `site=MENA` lists and
 * what orders are checked against, since the demo accounts are MENA accounts) and HK (what a request
 * without `site`, or with `site=HK`, gets: the documentation's default), with fewer symbols and other
 * ticks, so a client that forgets `site` reads the wrong rules.
 *
 * 'lenient' rules (SandboxOptions.symbolRules) keep the same symbols and prices but make every tick
 * and step 10^-18, every minimum 0 and every maximum 10^30, every symbol TRADING: the suites written
 * before the rules existed place such orders.
 */
import type { SymbolInfo } from '../constants';

export type Site = 'MENA' | 'HK';
export type SymbolStatus = 'IN_PREVIEW' | 'TRADING' | 'HALT' | 'RESUMING';
export type SymbolRulesMode = 'realistic' | 'lenient';

/** One symbol's rules: every decimal a canonical string, "0" = no such limit. */
export interface SymbolRules {
	status: SymbolStatus;
	tickSize: string;
	stepSize: string;
	minQty: string;
	maxQty: string;
	marketOrderMinQty: string;
	marketOrderMaxQty: string;
	minNotional: string;
	minAmount: string;
	maxAmount: string;
	marketOrderMinAmount: string;
	marketOrderMaxAmount: string;
	/** The amount step of a MARKET order sent by amount (the exchange's quote precision). */
	quotePrecision: string;
	baseAssetPrecision: string;
	buyPriceUpRate: string;
	sellPriceDownRate: string;
	maxEntrustNum: number;
}

/** A listed symbol: its coins, its anchor price (`last`), its realistic rules and market sizes. */
export interface MarketSymbol extends SymbolInfo {
	symbol: string;
	rules: SymbolRules;
	/** Typical base volume traded in one minute (candles, tickers, trades). */
	minuteVolume: string;
}

const RATES = { buyPriceUpRate: '0.1', sellPriceDownRate: '0.1', maxEntrustNum: 300 };

function sym(
	symbol: string,
	base: string,
	quote: string,
	last: string,
	minuteVolume: string,
	rules: Omit<SymbolRules, 'buyPriceUpRate' | 'sellPriceDownRate' | 'maxEntrustNum' | 'status'> & {
		status?: SymbolStatus;
	},
): MarketSymbol {
	return {
		symbol,
		base,
		quote,
		last,
		minuteVolume,
		rules: { status: 'TRADING', ...RATES, ...rules },
	};
}

/** The MENA catalogue (site=MENA); orders are checked against it. */
export const MENA_SYMBOLS: readonly MarketSymbol[] = [
	sym('BTCUSDT', 'BTC', 'USDT', '50000', '0.5', {
		tickSize: '0.01',
		stepSize: '0.00001',
		minQty: '0.00001',
		maxQty: '100',
		marketOrderMinQty: '0.00001',
		marketOrderMaxQty: '50',
		minNotional: '10',
		minAmount: '10',
		maxAmount: '5000000',
		marketOrderMinAmount: '10',
		marketOrderMaxAmount: '2000000',
		quotePrecision: '0.01',
		baseAssetPrecision: '0.00001',
	}),
	sym('ETHUSDT', 'ETH', 'USDT', '3000', '5', {
		tickSize: '0.01',
		stepSize: '0.0001',
		minQty: '0.0001',
		maxQty: '1000',
		marketOrderMinQty: '0.0001',
		marketOrderMaxQty: '500',
		minNotional: '10',
		minAmount: '10',
		maxAmount: '5000000',
		marketOrderMinAmount: '10',
		marketOrderMaxAmount: '2000000',
		quotePrecision: '0.01',
		baseAssetPrecision: '0.0001',
	}),
	sym('SOLUSDT', 'SOL', 'USDT', '150', '100', {
		tickSize: '0.001',
		stepSize: '0.01',
		minQty: '0.01',
		maxQty: '100000',
		marketOrderMinQty: '0.01',
		marketOrderMaxQty: '50000',
		minNotional: '5',
		minAmount: '5',
		maxAmount: '5000000',
		marketOrderMinAmount: '5',
		marketOrderMaxAmount: '2000000',
		quotePrecision: '0.01',
		baseAssetPrecision: '0.01',
	}),
	// the UAE documentation's own example
	sym('USDTAED', 'USDT', 'AED', '3.673', '2000', {
		tickSize: '0.001',
		stepSize: '0.01',
		minQty: '0.3',
		maxQty: '200000',
		marketOrderMinQty: '0.3',
		marketOrderMaxQty: '100000',
		minNotional: '1',
		minAmount: '1',
		maxAmount: '733320',
		marketOrderMinAmount: '1',
		marketOrderMaxAmount: '366660',
		quotePrecision: '0.00001',
		baseAssetPrecision: '0.01',
	}),
	// an 18-decimal tick: prices that only exact decimals carry
	sym('PEPEETH', 'PEPE', 'ETH', '0.000000004', '1000000000', {
		tickSize: '0.000000000000000001',
		stepSize: '1',
		minQty: '1000',
		maxQty: '100000000000',
		marketOrderMinQty: '1000',
		marketOrderMaxQty: '50000000000',
		minNotional: '0.0001',
		minAmount: '0.0001',
		maxAmount: '1000',
		marketOrderMinAmount: '0.0001',
		marketOrderMaxAmount: '500',
		quotePrecision: '0.00000001',
		baseAssetPrecision: '1',
	}),
	sym('XRPUSDT', 'XRP', 'USDT', '0.5', '1000', {
		status: 'HALT',
		tickSize: '0.0001',
		stepSize: '0.1',
		minQty: '1',
		maxQty: '1000000',
		marketOrderMinQty: '1',
		marketOrderMaxQty: '500000',
		minNotional: '5',
		minAmount: '5',
		maxAmount: '5000000',
		marketOrderMinAmount: '5',
		marketOrderMaxAmount: '2000000',
		quotePrecision: '0.0001',
		baseAssetPrecision: '0.1',
	}),
	sym('ADAUSDT', 'ADA', 'USDT', '0.4', '1000', {
		status: 'IN_PREVIEW',
		tickSize: '0.0001',
		stepSize: '0.1',
		minQty: '1',
		maxQty: '1000000',
		marketOrderMinQty: '1',
		marketOrderMaxQty: '500000',
		minNotional: '5',
		minAmount: '5',
		maxAmount: '5000000',
		marketOrderMinAmount: '5',
		marketOrderMaxAmount: '2000000',
		quotePrecision: '0.0001',
		baseAssetPrecision: '0.1',
	}),
];

/** The HK catalogue (no `site`, or site=HK): fewer symbols, coarser ticks and steps. */
export const HK_SYMBOLS: readonly MarketSymbol[] = [
	sym('BTCUSDT', 'BTC', 'USDT', '50000', '0.5', {
		tickSize: '0.1',
		stepSize: '0.0001',
		minQty: '0.0001',
		maxQty: '50',
		marketOrderMinQty: '0.0001',
		marketOrderMaxQty: '20',
		minNotional: '20',
		minAmount: '20',
		maxAmount: '1000000',
		marketOrderMinAmount: '20',
		marketOrderMaxAmount: '500000',
		quotePrecision: '0.1',
		baseAssetPrecision: '0.0001',
	}),
	sym('ETHUSDT', 'ETH', 'USDT', '3000', '5', {
		tickSize: '0.1',
		stepSize: '0.001',
		minQty: '0.001',
		maxQty: '500',
		marketOrderMinQty: '0.001',
		marketOrderMaxQty: '200',
		minNotional: '20',
		minAmount: '20',
		maxAmount: '1000000',
		marketOrderMinAmount: '20',
		marketOrderMaxAmount: '500000',
		quotePrecision: '0.1',
		baseAssetPrecision: '0.001',
	}),
];

const byName = (list: readonly MarketSymbol[]): Record<string, MarketSymbol> =>
	Object.fromEntries(list.map((s) => [s.symbol, s]));

export const MENA_CATALOGUE: Readonly<Record<string, MarketSymbol>> = byName(MENA_SYMBOLS);
export const HK_CATALOGUE: Readonly<Record<string, MarketSymbol>> = byName(HK_SYMBOLS);

export function catalogueOf(site: Site): readonly MarketSymbol[] {
	return site === 'MENA' ? MENA_SYMBOLS : HK_SYMBOLS;
}

const TINY = '0.000000000000000001';
const HUGE = '1000000000000000000000000000000';

/** Rules in force for a symbol: its own (realistic), or the lenient ones. */
export function rulesOf(s: MarketSymbol, mode: SymbolRulesMode): SymbolRules {
	if (mode === 'realistic') return s.rules;
	return {
		status: 'TRADING',
		tickSize: TINY,
		stepSize: TINY,
		minQty: '0',
		maxQty: HUGE,
		marketOrderMinQty: '0',
		marketOrderMaxQty: HUGE,
		minNotional: '0',
		minAmount: '0',
		maxAmount: HUGE,
		marketOrderMinAmount: '0',
		marketOrderMaxAmount: HUGE,
		quotePrecision: TINY,
		baseAssetPrecision: TINY,
		buyPriceUpRate: s.rules.buyPriceUpRate,
		sellPriceDownRate: s.rules.sellPriceDownRate,
		maxEntrustNum: s.rules.maxEntrustNum,
	};
}

/** One symbol as GET /api/v1/exchangeInfo lists it (the UAE documentation's shape). */
export function exchangeInfoSymbol(s: MarketSymbol, mode: SymbolRulesMode, site: Site) {
	const r = rulesOf(s, mode);
	return {
		symbol: s.symbol,
		symbolName: s.symbol,
		status: r.status,
		baseAsset: s.base,
		baseAssetName: s.base,
		baseAssetPrecision: r.baseAssetPrecision,
		baseUcid: '',
		quoteAsset: s.quote,
		quoteAssetName: s.quote,
		quotePrecision: r.quotePrecision,
		quoteUcid: '',
		retailAllowed: true,
		piAllowed: true,
		corporateAllowed: true,
		omnibusAllowed: true,
		icebergAllowed: false,
		isAggregate: false,
		allowMargin: false,
		filters: [
			// minPrice and maxPrice: "Depreciated, no longer in-use"
			{
				minPrice: r.tickSize,
				maxPrice: '100000000.00000000',
				tickSize: r.tickSize,
				filterType: 'PRICE_FILTER',
			},
			{
				minQty: r.minQty,
				maxQty: r.maxQty,
				stepSize: r.stepSize,
				marketOrderMinQty: r.marketOrderMinQty,
				marketOrderMaxQty: r.marketOrderMaxQty,
				filterType: 'LOT_SIZE',
			},
			{ minNotional: r.minNotional, filterType: 'MIN_NOTIONAL' },
			{
				minAmount: r.minAmount,
				maxAmount: r.maxAmount,
				minBuyPrice: '0',
				marketOrderMinAmount: r.marketOrderMinAmount,
				marketOrderMaxAmount: r.marketOrderMaxAmount,
				filterType: 'TRADE_AMOUNT',
			},
			{
				maxSellPrice: '0',
				buyPriceUpRate: r.buyPriceUpRate,
				sellPriceDownRate: r.sellPriceDownRate,
				maxEntrustNum: r.maxEntrustNum,
				filterType: 'LIMIT_TRADING',
			},
			{
				buyPriceUpRate: r.buyPriceUpRate,
				sellPriceDownRate: r.sellPriceDownRate,
				filterType: 'MARKET_TRADING',
			},
			{
				noAllowMarketStartTime: '0',
				noAllowMarketEndTime: '0',
				limitOrderStartTime: '0',
				limitOrderEndTime: '0',
				limitMinPrice: '0',
				limitMaxPrice: '0',
				filterType: 'OPEN_QUOTE',
			},
		],
		site: site.toLowerCase(),
	};
}
