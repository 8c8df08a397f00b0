import type { IDataObject } from 'n8n-workflow';

import { formatDecimal, parseDecimal } from '../helpers/decimals';

// How the pickers' lists name their entries: in a trader's words, what they need to choose one.
// A list shows one line per entry, cut at the panel's width, so the words that tell entries apart
// come first.

/**
 * What a symbol's (or a contract's) status means for an order, in a few words (a list shows one
 * line of about 55 characters); undefined for TRADING. HALT and IN_PREVIEW: the exchange refuses
 * orders (UAE codes -1155 and -1151).
 */
export function statusWords(status: string): string | undefined {
	if (status === 'TRADING') return undefined;
	if (status === 'HALT') return 'trading halted';
	if (status === 'IN_PREVIEW') return 'not trading yet';
	if (status === 'RESUMING') return 'trading resumes soon';
	return status === '' ? 'status unknown' : `status ${status}`;
}

/** A decimal as the exchange gave it, without extra zeros; undefined when it is not one. */
function decimalText(value: unknown): string | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const parsed = parseDecimal(String(value).trim());
	return parsed === undefined ? undefined : formatDecimal(parsed);
}

/** The last prices of an answer of GET /quote/v1/ticker/price (`[{ s, p }]`), by symbol. */
export function lastPrices(answer: unknown): Map<string, string> {
	const prices = new Map<string, string>();
	if (!Array.isArray(answer)) return prices;
	for (const entry of answer as IDataObject[]) {
		if (entry === null || typeof entry !== 'object') continue;
		const price = decimalText(entry.p);
		if (typeof entry.s === 'string' && price !== undefined) prices.set(entry.s, price);
	}
	return prices;
}

/** What a symbol's entry needs of its rules. */
export interface ListedSymbol {
	symbol: string;
	baseAsset: string;
	quoteAsset: string;
	status: string;
}

/**
 * A symbol's entry: "BTCUSDT · 1 BTC = 65000.12 USDT" with its last price, else "BTCUSDT
 * (BTC/USDT)"; one that cannot be traded now says so first, e.g. "XRPUSDT · trading halted · 1 XRP
 * = 0.52 USDT".
 */
export function symbolEntryName(rule: ListedSymbol, lastPrice: string | undefined): string {
	const coins = rule.baseAsset !== '' && rule.quoteAsset !== '';
	const parts = [
		lastPrice !== undefined || !coins
			? rule.symbol
			: `${rule.symbol} (${rule.baseAsset}/${rule.quoteAsset})`,
	];
	const words = statusWords(rule.status);
	if (words !== undefined) parts.push(words);
	if (lastPrice !== undefined)
		parts.push(
			coins ? `1 ${rule.baseAsset} = ${lastPrice} ${rule.quoteAsset}` : `last ${lastPrice}`,
		);
	return parts.join(' · ');
}

/** Entries of symbols that can be traded now first, then the others; each group by name. */
export function tradableFirst<T extends { name: string; status: string }>(entries: T[]): T[] {
	const rank = (entry: T) => (entry.status === 'TRADING' ? 0 : 1);
	return [...entries].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name, 'en'));
}

/** "2026-11-27 07:12 UTC" of a time in ms (a number or its digits); undefined otherwise. */
export function utcTime(value: unknown): string | undefined {
	const ms = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;
	if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms <= 0) return undefined;
	const date = new Date(ms);
	if (Number.isNaN(date.getTime())) return undefined;
	return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** What an order does: "SELL 0.5 ETH @ 3500 USDT" (LIMIT), "... maker only" (LIMIT_MAKER), "at market". */
function orderTerms(order: IDataObject, coins?: { base: string; quote: string }): string {
	const quantity = decimalText(order.origQty) ?? String(order.origQty);
	const price = decimalText(order.price) ?? String(order.price);
	const base = coins === undefined ? '' : ` ${coins.base}`;
	const quote = coins === undefined ? '' : ` ${coins.quote}`;
	const side = String(order.side);
	if (order.type === 'MARKET') return `${side} ${quantity}${base} at market`;
	const terms = `${side} ${quantity}${base} @ ${price}${quote}`;
	if (order.type === 'LIMIT') return terms;
	if (order.type === 'LIMIT_MAKER') return `${terms} maker only`;
	return `${terms} ${String(order.type)}`;
}

/**
 * An open order's entry: when it was placed (UTC), its whole ID, then what it does in the coins of
 * its symbol, e.g. "2026-11-27 07:12 UTC · 1470000000000000123 · SELL 0.5 ETH @ 3500 USDT" (a
 * limit order; "at market", "maker only" say the other types). Without the symbol's coins (its
 * rules unread), the symbol instead. A narrow panel cuts the end short: time and ID come first.
 */
export function orderEntryName(
	order: IDataObject,
	coins?: { base: string; quote: string },
): string {
	const terms = orderTerms(order, coins);
	const what = coins === undefined ? `${String(order.symbol)} ${terms}` : terms;
	const time = utcTime(order.time);
	return [time, String(order.orderId), what].filter((part) => part !== undefined).join(' · ');
}
