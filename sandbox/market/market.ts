/**
 * The market the sandbox shows: which symbols each site lists, the rules in force ('realistic' or
 * 'lenient'), and the price of a symbol at any moment of the sandbox clock (the seeded walk, or the
 * fixed `last` price when the market does not move). Orders use the MENA catalogue and, in
 * realistic mode, fill MARKET orders at the walk's current price.
 */
import { MINUTE_MS, hashString, roundedPrice, walkFactor } from './walk';
import {
	MENA_CATALOGUE,
	catalogueOf,
	rulesOf,
	type MarketSymbol,
	type Site,
	type SymbolRules,
	type SymbolRulesMode,
} from './catalogue';

export interface MarketConfig {
	symbolRules: SymbolRulesMode;
	/** Seed of the walk (default 1). */
	seed: number;
	/** Whether prices walk (realistic mode only; lenient prices stay at `last`). */
	moving: boolean;
}

export class Market {
	constructor(
		readonly config: MarketConfig,
		private readonly clock: () => number,
	) {}

	get mode(): SymbolRulesMode {
		return this.config.symbolRules;
	}

	/** Whether prices follow the walk: realistic mode with `market.moving` not false. */
	get moving(): boolean {
		return this.config.symbolRules === 'realistic' && this.config.moving;
	}

	now(): number {
		return this.clock();
	}

	symbols(site: Site): readonly MarketSymbol[] {
		return catalogueOf(site);
	}

	find(site: Site, name: string): MarketSymbol | undefined {
		return catalogueOf(site).find((s) => s.symbol === name);
	}

	/** A symbol orders may name (the MENA catalogue: the demo accounts are MENA accounts). */
	tradable(name: string): MarketSymbol | undefined {
		return Object.prototype.hasOwnProperty.call(MENA_CATALOGUE, name)
			? MENA_CATALOGUE[name]
			: undefined;
	}

	rules(s: MarketSymbol): SymbolRules {
		return rulesOf(s, this.config.symbolRules);
	}

	/** The walk's factor at a minute index (1 when the market does not move). */
	factorAt(s: MarketSymbol, minute: number): number {
		if (!this.moving) return 1;
		return walkFactor(this.config.seed, hashString(s.symbol), minute);
	}

	/** The price a factor gives, on the symbol's own (realistic) tick. */
	priceOf(s: MarketSymbol, factor: number): string {
		if (factor === 1) return s.last;
		return roundedPrice(s.last, s.rules.tickSize, factor);
	}

	/** The price during the minute holding `ms`. */
	priceAt(s: MarketSymbol, ms: number): string {
		return this.priceOf(s, this.factorAt(s, Math.floor(ms / MINUTE_MS)));
	}

	/** The price now: what MARKET orders fill at. */
	price(s: MarketSymbol): string {
		return this.priceAt(s, this.clock());
	}
}
