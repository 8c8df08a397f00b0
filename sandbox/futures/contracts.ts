/**
 * The perpetual contracts the sandbox lists (exchange information's `contracts`, the UAE
 * documentation's shape) and what the futures endpoints need of each: its spot pair (whose walk
 * price is the mark price), leverage and margin type, commission rates and risk limits. The
 * contracts keep their own filters whatever the spot symbol rules (`symbolRules`).
 */
import * as D from '../decimal';
import type { Market } from '../market/market';

export type ContractStatus = 'IN_PREVIEW' | 'TRADING' | 'HALT' | 'RESUMING';
export type MarginType = 'CROSS' | 'ISOLATED';

export interface RiskLimit {
	riskLimitId: string;
	quoteQty: string;
	initialMargin: string;
	maintMargin: string;
}

export interface Contract {
	symbol: string;
	base: string;
	quote: string;
	/** The spot pair whose price (the seeded walk) is the contract's mark and last price. */
	spot: string;
	status: ContractStatus;
	tickSize: string;
	stepSize: string;
	minQty: string;
	maxQty: string;
	marketOrderMinQty: string;
	marketOrderMaxQty: string;
	contractMultiplier: string;
	/** The account's leverage and margin type on this contract (GET /api/v2/futures/leverage). */
	leverage: string;
	marginType: MarginType;
	makerFeeRate: string;
	takerFeeRate: string;
	riskLimits: RiskLimit[];
}

const RISK_LIMITS: RiskLimit[] = [
	{ riskLimitId: '127', quoteQty: '125000.00', initialMargin: '0.05', maintMargin: '0.025' },
	{ riskLimitId: '128', quoteQty: '250000.00', initialMargin: '0.0526', maintMargin: '0.0263' },
];

function contract(
	base: string,
	status: ContractStatus,
	rules: Pick<
		Contract,
		'tickSize' | 'stepSize' | 'minQty' | 'maxQty' | 'leverage' | 'marginType' | 'contractMultiplier'
	>,
): Contract {
	return {
		symbol: `${base}USDT-PERPETUAL`,
		base,
		quote: 'USDT',
		spot: `${base}USDT`,
		status,
		marketOrderMinQty: rules.minQty,
		marketOrderMaxQty: D.fmt(D.divTrunc(D.parseDec(rules.maxQty)!, { v: 2n, s: 0 }, 18)),
		makerFeeRate: '0.00025',
		takerFeeRate: '0.0006',
		riskLimits: RISK_LIMITS,
		...rules,
	};
}

/** BTC is the one ISOLATED contract; ETH, SOL and XRP are CROSS. XRP is halted. */
export const CONTRACTS: readonly Contract[] = [
	contract('BTC', 'TRADING', {
		tickSize: '0.1',
		stepSize: '0.001',
		minQty: '0.001',
		maxQty: '10',
		contractMultiplier: '0.001',
		leverage: '5',
		marginType: 'ISOLATED',
	}),
	contract('ETH', 'TRADING', {
		tickSize: '0.01',
		stepSize: '0.01',
		minQty: '0.01',
		maxQty: '100',
		contractMultiplier: '0.01',
		leverage: '10',
		marginType: 'CROSS',
	}),
	contract('SOL', 'TRADING', {
		tickSize: '0.001',
		stepSize: '0.1',
		minQty: '0.1',
		maxQty: '10000',
		contractMultiplier: '0.1',
		leverage: '5',
		marginType: 'CROSS',
	}),
	contract('XRP', 'HALT', {
		tickSize: '0.0001',
		stepSize: '1',
		minQty: '1',
		maxQty: '100000',
		contractMultiplier: '1',
		leverage: '2',
		marginType: 'CROSS',
	}),
];

/** A listed contract by its exact (case-sensitive) name; a spot symbol is no contract. */
export function findContract(name: string): Contract | undefined {
	return CONTRACTS.find((c) => c.symbol === name);
}

/** The mark price of a contract at `ms` of the sandbox clock: its spot pair's walk price. */
export function markPriceAt(market: Market, c: Contract, ms: number): string {
	const spot = market.tradable(c.spot);
	if (!spot) throw new Error(`no spot pair ${c.spot} for ${c.symbol}`);
	return market.priceAt(spot, ms);
}

/** Whether `value` is a whole multiple of `step` (both decimal strings). */
export function onStep(value: string, step: string): boolean {
	const v = D.parseDec(value)!;
	const s = D.parseDec(step)!;
	const scale = Math.max(v.s, s.s);
	const vi = v.v * 10n ** BigInt(scale - v.s);
	const si = s.v * 10n ** BigInt(scale - s.s);
	return vi % si === 0n;
}

/** The largest multiple of `step` at or below `value` (both decimal strings), at least one step. */
export function floorToStep(value: string, step: string): string {
	const s = D.parseDec(step)!;
	const steps = D.divTrunc(D.parseDec(value)!, s, 0);
	return D.fmt(D.isPositive(steps) ? D.mul(steps, s) : s);
}

/** One contract as GET /api/v1/exchangeInfo lists it under `contracts` (the UAE documentation). */
export function exchangeInfoContract(c: Contract) {
	return {
		filters: [
			// minPrice and maxPrice: "Depreciated, no longer in-use"
			{
				minPrice: c.tickSize,
				maxPrice: '100000.00000000',
				tickSize: c.tickSize,
				filterType: 'PRICE_FILTER',
			},
			{
				minQty: c.minQty,
				maxQty: c.maxQty,
				stepSize: c.stepSize,
				marketOrderMinQty: c.marketOrderMinQty,
				marketOrderMaxQty: c.marketOrderMaxQty,
				filterType: 'LOT_SIZE',
			},
			{ minNotional: '0', filterType: 'MIN_NOTIONAL' },
			{
				maxSellPrice: '999999',
				buyPriceUpRate: '0.03',
				sellPriceDownRate: '0.03',
				maxEntrustNum: 200,
				maxConditionNum: 200,
				filterType: 'LIMIT_TRADING',
			},
			{ buyPriceUpRate: '0.03', sellPriceDownRate: '0.03', filterType: 'MARKET_TRADING' },
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
		exchangeId: '301',
		symbol: c.symbol,
		symbolName: c.symbol,
		status: c.status,
		baseAsset: c.base,
		baseAssetPrecision: c.stepSize,
		quoteAsset: c.quote,
		quoteAssetPrecision: c.tickSize,
		icebergAllowed: false,
		inverse: false,
		index: `${c.base}${c.quote}`,
		marginToken: c.quote,
		marginPrecision: '0.0001',
		contractMultiplier: c.contractMultiplier,
		underlying: c.base,
		riskLimits: c.riskLimits.map((r) => ({ ...r })),
	};
}
