import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { ACCOUNT_TYPES } from '../constants';

// Input checks before any request. Each error names the field and the fix; nothing is trimmed,
// rounded or otherwise changed behind the user's back.

const DECIMAL = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;
const ACCOUNT_ID = /^\d{1,20}$/;

interface TextForm {
	pattern: RegExp;
	what: string;
	fix: string;
}
const SYMBOL: TextForm = {
	pattern: /^[A-Z0-9]{2,32}$/,
	what: 'a trading pair symbol',
	fix: 'Enter the symbol in upper case without separators, e.g. BTCUSDT.',
};
const COIN: TextForm = {
	pattern: /^[A-Za-z0-9]{1,20}$/,
	what: 'a coin name',
	fix: 'Enter the coin as the exchange names it, letters and digits only, e.g. USDT.',
};

export function inputError(
	node: INode,
	field: string,
	problem: string,
	fix: string,
	itemIndex?: number,
) {
	return new NodeOperationError(node, `${field}: ${problem}`, { description: fix, itemIndex });
}

function describe(value: unknown): string {
	if (value === '') return 'an empty value';
	if (value === undefined || value === null) return 'nothing';
	return `"${typeof value === 'string' ? value : JSON.stringify(value)}"`;
}

/**
 * Whether a JS number may no longer be the decimal someone wrote. A double gives back every decimal
 * of up to 15 significant digits (and every safe integer); one whose shortest text needs 16 or 17
 * is what a longer decimal was rounded to, or float arithmetic left (0.1 + 0.2).
 */
export function numberMayHaveLostDigits(value: number): boolean {
	if (Number.isSafeInteger(value)) return false;
	const mantissa = String(value).split(/e/i)[0];
	return mantissa.replace(/[-.]/g, '').replace(/^0+|0+$/g, '').length > 15;
}

/**
 * A boolean that decides whether money moves or how a write is checked (Test Only, ...): only true
 * or false. The text "true", the number 1 or an expression that gave nothing is refused rather
 * than read as false (which would place a live order). The caller decides what an absent option is.
 */
export function strictBoolean(
	node: INode,
	field: string,
	value: unknown,
	itemIndex?: number,
): boolean {
	if (value === true || value === false) return value;
	const what =
		typeof value === 'string' && value !== ''
			? `the text ${describe(value)}`
			: typeof value === 'number'
				? `the number ${String(value)}`
				: value === undefined || value === null
					? 'nothing (its expression gave no value)'
					: describe(value);
	throw inputError(
		node,
		field,
		`${what} is not true or false`,
		`${field} takes a boolean only, as it decides what the exchange is sent. Turn the option on or off without an expression, or make the expression give a boolean, e.g. {{ $json.test === 'true' }}.`,
		itemIndex,
	);
}

/**
 * A positive decimal as a string, exactly as given: a number only when its text is a plain decimal
 * (1e-7 is not) that cannot have lost digits.
 */
export function positiveDecimal(
	node: INode,
	field: string,
	value: unknown,
	itemIndex?: number,
): string {
	if (typeof value === 'number' && Number.isFinite(value) && numberMayHaveLostDigits(value)) {
		throw inputError(
			node,
			field,
			`the number ${String(value)} may have lost digits`,
			`Give ${field} as text (e.g. "0.123456789012345678"): a number of more than 15 significant digits is rounded before the node sees it.`,
			itemIndex,
		);
	}
	const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
	if (typeof text !== 'string' || !DECIMAL.test(text)) {
		throw inputError(
			node,
			field,
			`${describe(value)} is not a decimal number`,
			`Enter ${field} as a plain positive decimal such as 0.015 (digits and one dot, no sign, spaces, commas or exponent). Pass very small or very large values as text, not as numbers.`,
			itemIndex,
		);
	}
	if (!/[1-9]/.test(text)) {
		throw inputError(
			node,
			field,
			'must be greater than zero',
			`Enter a ${field} above 0.`,
			itemIndex,
		);
	}
	return text;
}

export function accountId(node: INode, field: string, value: unknown, itemIndex?: number): string {
	const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
	if (typeof text !== 'string' || !ACCOUNT_ID.test(text)) {
		throw inputError(
			node,
			field,
			`${describe(value)} is not an account ID`,
			'Account IDs are numeric strings of up to 20 digits, e.g. 1470000000000000001. Copy the ID of the main trading, custody or sub trading account from the exchange.',
			itemIndex,
		);
	}
	return text;
}

function matching(node: INode, field: string, value: unknown, form: TextForm, itemIndex?: number) {
	if (typeof value !== 'string' || !form.pattern.test(value)) {
		throw inputError(node, field, `${describe(value)} is not ${form.what}`, form.fix, itemIndex);
	}
	return value;
}

export function symbol(node: INode, field: string, value: unknown, itemIndex?: number): string {
	return matching(node, field, value, SYMBOL, itemIndex);
}

export function coin(node: INode, field: string, value: unknown, itemIndex?: number): string {
	return matching(node, field, value, COIN, itemIndex);
}

export function oneOf<T extends string>(
	node: INode,
	field: string,
	value: unknown,
	allowed: readonly T[],
	itemIndex?: number,
): T {
	if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
		throw inputError(
			node,
			field,
			`${describe(value)} is not allowed`,
			`Use one of: ${allowed.join(', ')}.`,
			itemIndex,
		);
	}
	return value as T;
}

const ISO_DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** An ISO 8601 date or date-time whose every part exists (no 30 February). */
function parseIsoDateTime(text: string): number {
	const match = ISO_DATE_TIME.exec(text);
	if (match === null) return Number.NaN;
	const [, year, month, day, hour = '0', minute = '0', second = '0'] = match;
	const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
	const partsExist =
		calendar.getUTCMonth() === Number(month) - 1 &&
		calendar.getUTCDate() === Number(day) &&
		Number(hour) < 24 &&
		Number(minute) < 60 &&
		Number(second) < 60;
	// Date.parse reads a date-time without an offset in the n8n server's local time zone.
	return partsExist ? Date.parse(text.replace(' ', 'T')) : Number.NaN;
}

/**
 * Milliseconds from what n8n date-time fields and expressions give: ISO 8601, millisecond
 * timestamps, JS dates, Luxon DateTimes. Nothing else (Date.parse would take "March 7" as 2001).
 */
export function timestampMs(
	node: INode,
	field: string,
	value: unknown,
	itemIndex?: number,
): number {
	let ms: number = Number.NaN;
	if (typeof value === 'number') ms = value;
	else if (typeof value === 'string' && /^\d+$/.test(value)) ms = Number(value);
	else if (typeof value === 'string') ms = parseIsoDateTime(value.trim() === value ? value : '');
	else if (value instanceof Date) ms = value.getTime();
	else if (value !== null && typeof value === 'object' && 'toMillis' in value) {
		ms = (value as { toMillis: () => number }).toMillis();
	}
	if (!Number.isSafeInteger(ms) || ms < 0) {
		throw inputError(
			node,
			field,
			`${describe(value)} is not a date and time`,
			'Pick a date and time, or give an ISO 8601 string such as 2026-01-31T12:00:00Z or a millisecond timestamp.',
			itemIndex,
		);
	}
	return ms;
}

export function integerInRange(
	node: INode,
	field: string,
	value: unknown,
	min: number,
	max: number,
	itemIndex?: number,
): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
		throw inputError(
			node,
			field,
			`${describe(value)} is out of range`,
			`Enter a whole number from ${min} to ${max}.`,
			itemIndex,
		);
	}
	return value;
}

/** 0 (any account type) or one of the account types of spec §2.3. */
export function accountTypeValue(node: INode, value: unknown, itemIndex?: number): number {
	const number = typeof value === 'string' && /^\d{1,4}$/.test(value) ? Number(value) : value;
	if (number === 0 || ACCOUNT_TYPES.some((accountType) => accountType.value === number))
		return number as number;
	throw inputError(
		node,
		'Account Type',
		`${describe(value)} is not an account type`,
		`Use Any (0) or one of: ${ACCOUNT_TYPES.map((accountType) => `${accountType.displayName} (${accountType.value})`).join(', ')}.`,
		itemIndex,
	);
}

/** A picker's value inside a collection, where n8n's `extractValue` does not reach; else as is. */
export function locatorValue(value: unknown): unknown {
	if (value !== null && typeof value === 'object' && (value as IDataObject).__rl === true)
		return (value as IDataObject).value;
	return value;
}

/** RunContext, as the parameter readers below use it. */
interface Parameters {
	node: INode;
	parameter(name: string, itemIndex: number, fallback?: unknown): unknown;
}

export const returnAllParameter = (run: Parameters, item: number): boolean =>
	strictBoolean(run.node, 'Return All', run.parameter('returnAll', item, false), item);

/** Limit: default 50, a whole number from 1 to `max`. */
export const limitParameter = (run: Parameters, item: number, max: number): number =>
	integerInRange(run.node, 'Limit', run.parameter('limit', item, 50), 1, max, item);
