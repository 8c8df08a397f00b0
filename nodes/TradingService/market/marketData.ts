/**
 * Market data as the node outputs it: the service's decimals kept as text, and the 24-hour
 * change worked out exactly (the service's ticker gives last and open prices, no change). Pure.
 */

import {
	fixedText,
	parseDecimal,
	subtractDecimals,
	unitsAt,
	type Decimal,
} from '../helpers/decimals';

const SIGNED_DECIMAL = /^-?\d+(?:\.\d+)?$/;

/**
 * A decimal of an answer as text: a string exactly as sent, a number (the service may send one
 * where its documentation shows a string) as its plain digits without an exponent, anything else
 * as ''. Numbers of more than 15 significant digits never get here: the transport keeps them as
 * their literal text.
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

/**
 * last − open, exactly, with as many fraction digits as the more precise of the two ("101.50" −
 * "100" is "1.50"); '' when either is not a decimal.
 */
export function priceChange(last: string, open: string): string {
	if (!SIGNED_DECIMAL.test(last) || !SIGNED_DECIMAL.test(open)) return '';
	return fixedText(subtractDecimals(parseDecimal(last) as Decimal, parseDecimal(open) as Decimal));
}

/**
 * (last − open) / open × 100 with two decimals, rounded half away from zero, exactly ("-1.25",
 * "0.00"); '' when open is zero or either is not a decimal.
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
