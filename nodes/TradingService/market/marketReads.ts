import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { MARKET_SITE } from '../constants';
import { pickerField, type NodeVersion } from '../descriptions/pickers';
import {
	fixedText,
	parseDecimal,
	subtractDecimals,
	unitsAt,
	type Decimal,
} from '../helpers/decimals';
import type { Endpoint } from '../transport';
import type { RunContext } from '../run/runContext';

// What the market reads share. A field's description is what an AI agent reads when the node is a
// tool, so each says what to enter, in what form, and what leaving it empty does.

export function requiredSymbolField(version: NodeVersion): INodeProperties {
	return pickerField(version, 'symbols', {
		displayName: 'Symbol',
		name: 'symbol',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. BTCUSDT',
		description:
			'Trading pair, base coin then quote coin in upper case without separator, e.g. BTCUSDT or ETHUSDT',
	});
}

export function optionalSymbolField(version: NodeVersion, what: string): INodeProperties {
	return pickerField(version, 'symbols', {
		displayName: 'Symbol',
		name: 'symbol',
		type: 'string',
		default: '',
		placeholder: 'e.g. BTCUSDT',
		description: `Trading pair, base coin then quote coin in upper case without separator, e.g. BTCUSDT. Leave empty to get ${what} of every trading pair.`,
	});
}

/** Without `site` the service answers for the HK site, whose symbols and rules differ. */
export async function readMarket(
	run: RunContext,
	endpoint: Endpoint,
	query: Record<string, string | number | undefined>,
	itemIndex: number,
): Promise<unknown> {
	const qs: IDataObject = {};
	for (const [key, value] of Object.entries(query)) if (value !== undefined) qs[key] = value;
	qs.site = MARKET_SITE;
	return await run.client.request(endpoint, { qs, itemIndex });
}

export function entries(answer: unknown): IDataObject[] {
	return Array.isArray(answer) ? (answer as IDataObject[]) : [];
}

/**
 * The entries of one symbol or, without `symbol`, of all, shared by the run's items
 * (docs/operations.md "Fewer requests"). An item whose symbol the answer lacks gets no entry.
 */
export async function readSymbolEntries(
	run: RunContext,
	endpoint: Endpoint,
	query: { symbol: string | undefined } & Record<string, string | undefined>,
	itemIndex: number,
): Promise<IDataObject[]> {
	const { symbol } = query;
	const everySymbol =
		symbol !== undefined && run.varies('symbol') && run.functions.getInputData().length > 1;
	// `symbol` first, as it was always sent (its value undefined is left out).
	const sent = { ...query, symbol: everySymbol ? undefined : symbol };
	const key = `market ${endpoint.path} ${JSON.stringify(Object.entries(sent))}`;
	const answer = await run.shared(key, () => readMarket(run, endpoint, sent, itemIndex));
	return entries(answer).filter((entry) => symbol === undefined || entry.s === symbol);
}

const SIGNED_DECIMAL = /^-?\d+(?:\.\d+)?$/;

/**
 * A decimal of an answer as text: a string as sent, a number (where the documentation shows a
 * string) as its plain digits, anything else ''. The transport keeps longer numbers as text.
 */
export function decimalText(value: unknown): string {
	if (typeof value === 'string') return value;
	if (typeof value !== 'number' || !Number.isFinite(value)) return '';
	const text = String(value);
	const exponentAt = text.search(/e/i);
	if (exponentAt === -1) return text;
	const exponent = Number(text.slice(exponentAt + 1));
	const mantissa = text.slice(0, exponentAt);
	const sign = mantissa.startsWith('-') ? '-' : '';
	const [whole, fraction = ''] = mantissa.replace('-', '').split('.');
	const digits = whole + fraction;
	const point = whole.length + exponent;
	if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
	if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
	return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** A time or count of an answer as a number (the service sends them as numbers or digit strings). */
export function integerOf(value: unknown): number | undefined {
	const number = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
	return typeof number === 'number' && Number.isSafeInteger(number) ? number : undefined;
}

/** last − open, exactly, at the finer of the two scales; '' when either is not a decimal. */
export function priceChange(last: string, open: string): string {
	if (!SIGNED_DECIMAL.test(last) || !SIGNED_DECIMAL.test(open)) return '';
	return fixedText(subtractDecimals(parseDecimal(last) as Decimal, parseDecimal(open) as Decimal));
}

/**
 * (last − open) / open × 100 with two decimals, rounded half away from zero, exactly; '' when open
 * is zero or either is not a decimal.
 */
export function priceChangePercent(last: string, open: string): string {
	if (!SIGNED_DECIMAL.test(last) || !SIGNED_DECIMAL.test(open)) return '';
	const lastValue = parseDecimal(last) as Decimal;
	const openValue = parseDecimal(open) as Decimal;
	const scale = Math.max(lastValue.scale, openValue.scale);
	const openScaled = unitsAt(openValue, scale);
	if (openScaled === 0n) return '';
	// In hundredths of a percent: change / open × 100 × 100.
	const numerator = (unitsAt(lastValue, scale) - openScaled) * 10_000n;
	let hundredths = numerator / openScaled;
	const remainder = numerator % openScaled;
	const abs = (value: bigint) => (value < 0n ? -value : value);
	if (2n * abs(remainder) >= abs(openScaled)) {
		hundredths += numerator < 0n !== openScaled < 0n ? -1n : 1n;
	}
	return fixedText({ units: hundredths, scale: 2 });
}
