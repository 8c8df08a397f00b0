// Exact decimal arithmetic, the package's only one (guardrails, symbol rules, transfer matching,
// the 24-hour change): no floating point, so no limit or tick is missed by a rounding error.

/** An exact decimal: `units` × 10^−`scale` (scale ≥ 0; units carry the sign). */
export interface Decimal {
	units: bigint;
	scale: number;
}

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/** A decimal's text ("0.01", "-2.5", "1e-8", "100") exactly; undefined for anything else. */
export function parseDecimal(text: string): Decimal | undefined {
	const match = DECIMAL_TEXT.exec(text.trim());
	if (match === null) return undefined;
	const [, sign, whole = '', fraction = '', exponentText = '0'] = match;
	if (whole === '' && fraction === '') return undefined;
	const exponent = Number(exponentText);
	if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 1000) return undefined;
	let units = BigInt(`${whole}${fraction}` || '0');
	let scale = fraction.length - exponent;
	if (scale < 0) {
		units *= 10n ** BigInt(-scale);
		scale = 0;
	}
	return { units: sign === '-' ? -units : units, scale };
}

/** `value`'s units at a scale at least its own. */
export function unitsAt(value: Decimal, scale: number): bigint {
	return value.units * 10n ** BigInt(scale - value.scale);
}

export function compareDecimals(a: Decimal, b: Decimal): number {
	const scale = Math.max(a.scale, b.scale);
	const left = unitsAt(a, scale);
	const right = unitsAt(b, scale);
	return left === right ? 0 : left < right ? -1 : 1;
}

export function multiplyDecimals(a: Decimal, b: Decimal): Decimal {
	return { units: a.units * b.units, scale: a.scale + b.scale };
}

export function subtractDecimals(a: Decimal, b: Decimal): Decimal {
	const scale = Math.max(a.scale, b.scale);
	return { units: unitsAt(a, scale) - unitsAt(b, scale), scale };
}

/** A non-negative `value` rounded to a multiple of `step` (> 0). */
export function roundToStep(value: Decimal, step: Decimal, direction: 'down' | 'up'): Decimal {
	const scale = Math.max(value.scale, step.scale);
	const units = unitsAt(value, scale);
	const stepUnits = unitsAt(step, scale);
	let multiples = units / stepUnits;
	if (direction === 'up' && multiples * stepUnits !== units) multiples += 1n;
	return { units: multiples * stepUnits, scale };
}

export function isMultipleOf(value: Decimal, step: Decimal): boolean {
	const scale = Math.max(value.scale, step.scale);
	return unitsAt(value, scale) % unitsAt(step, scale) === 0n;
}

/** A decimal as plain text with exactly `scale` fraction digits ("1.50", "-0.25", "3"). */
export function fixedText(value: Decimal, scale: number = value.scale): string {
	const units = unitsAt(value, scale);
	const sign = units < 0n ? '-' : '';
	const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
	if (scale === 0) return sign + digits;
	return `${sign}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** A decimal as plain text without trailing zeros ("50000.1", "0.00001", "0"). */
export function formatDecimal(value: Decimal): string {
	const text = fixedText(value);
	return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

function parsed(text: string): Decimal {
	const value = parseDecimal(text);
	if (value === undefined) throw new TypeError(`Not a decimal: ${JSON.stringify(text)}`);
	return value;
}

/** Whether a > b, for decimals as text, exactly. */
export function decimalAbove(a: string, b: string): boolean {
	return compareDecimals(parsed(a), parsed(b)) > 0;
}

/** a × b (price × quantity), exactly, as plain text. */
export function decimalProduct(a: string, b: string): string {
	return formatDecimal(multiplyDecimals(parsed(a), parsed(b)));
}
