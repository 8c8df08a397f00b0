import { LIMITS, MARKET_SITE } from '../constants';
import { ENDPOINTS, type ServiceClient } from '../transport';
import { parseExchangeInfo, type SymbolRules } from './symbolRules';

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
