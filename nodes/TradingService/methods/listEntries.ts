import type { IDataObject } from 'n8n-workflow';

import { formatDecimal, parseDecimal } from '../helpers/decimals';

// How the pickers' lists name their entries. A list shows one line per entry, cut at the panel's
// width (about 55 characters), so the words that tell entries apart come first.

/** What a symbol's (or a contract's) status means for an order; undefined for TRADING. */
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

/** The last prices of a ticker price answer (`[{ s, p }]`), by symbol. */
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

interface ListedSymbol {
	symbol: string;
	baseAsset: string;
	quoteAsset: string;
	status: string;
}

/** "BTCUSDT · 1 BTC = 65000.12 USDT", "XRPUSDT · trading halted · …", "BTCUSDT (BTC/USDT)". */
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

/** Those that can be traded now first, then the others; each group by name. */
export function tradableFirst<T extends { name: string; status: string }>(entries: T[]): T[] {
	const rank = (entry: T) => (entry.status === 'TRADING' ? 0 : 1);
	return [...entries].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name, 'en'));
}

/** "2026-11-27 07:12 UTC" of a time in ms (a number or its digits). */
export function utcTime(value: unknown): string | undefined {
	const ms = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;
	if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms <= 0) return undefined;
	const date = new Date(ms);
	if (Number.isNaN(date.getTime())) return undefined;
	return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** "SELL 0.5 ETH @ 3500 USDT" (LIMIT), "… maker only" (LIMIT_MAKER), "SELL 0.5 ETH at market". */
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
 * "2026-11-27 07:12 UTC · 1470000000000000123 · SELL 0.5 ETH @ 3500 USDT"; without the symbol's
 * coins (its rules unread), the symbol instead.
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
