/**
 * JSON that keeps every digit of numbers a double cannot hold. The service's IDs are 64-bit (up to
 * 20 digits) and its amounts may have 18 decimals; JSON.parse would silently round them. Most
 * answers hold no such number, so JSON.parse reads them and its value is checked; the rest take the
 * exact parser (jsonParser.ts).
 */

import { MAX_JSON_DEPTH, parseJsonExactly } from './jsonParser';

const NO_FIELDS: ReadonlySet<string> = new Set();

/**
 * A number literal that a double may not hold exactly: 16 digits or more (an integer beyond 2^53,
 * a decimal of more than 15 significant digits) or an exponent (which may leave a double's range).
 * A JSON number always follows the start of the text, ":", "," or "[" (and optional whitespace);
 * text inside a string may match too, which only sends that answer to the exact parser.
 */
export const MAYBE_INEXACT_NUMBER = /(?:^|[:,[])\s*-?(?:\d{16}|[\d.]{17}|[\d.]+[eE])/;

/**
 * Whether a value JSON.parse built is what the exact parser would build: no deeper than
 * MAX_JSON_DEPTH, and no number under a key of `textFields` (the exact parser keeps such a number's
 * literal text; the literal is gone after JSON.parse, so that answer takes the exact parser).
 */
function fastParseHolds(value: unknown, textFields: ReadonlySet<string>, depth: number): boolean {
	if (value === null || typeof value !== 'object') return true;
	if (depth >= MAX_JSON_DEPTH) return false;
	if (Array.isArray(value)) {
		for (const element of value) if (!fastParseHolds(element, textFields, depth + 1)) return false;
		return true;
	}
	for (const key of Object.keys(value)) {
		const field = (value as Record<string, unknown>)[key];
		if (typeof field === 'number' && textFields.has(key)) return false;
		if (!fastParseHolds(field, textFields, depth + 1)) return false;
	}
	return true;
}

/**
 * Parses JSON text like JSON.parse, except that a number a double cannot hold (an integer beyond
 * ±(2^53 − 1), a decimal of more than 15 significant digits) comes back as its literal text, and so
 * does any number under a key in `textFields` (IDs and decimals: a string whatever their size, so
 * one field never changes type with its value). Throws JsonSyntaxError for text that is not exactly
 * one JSON value.
 *
 * Most answers have no number that long and their IDs and amounts as strings: for those,
 * JSON.parse gives the very same value several times faster (bench 1: about 0.25 ms per 50-record
 * history page), so it is used, and checked, first; everything else takes the exact parser.
 */
export function parseJsonKeepingDigits(
	text: string,
	textFields: ReadonlySet<string> = NO_FIELDS,
): unknown {
	if (!MAYBE_INEXACT_NUMBER.test(text)) {
		let value: unknown;
		try {
			value = JSON.parse(text);
		} catch {
			value = undefined;
		}
		if (value !== undefined && fastParseHolds(value, textFields, 0)) return value;
	}
	return parseJsonExactly(text, textFields);
}
