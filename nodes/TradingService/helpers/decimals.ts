/**
 * Exact arithmetic on plain positive decimals as the user types them ("0.01", "50000.5"): no
 * floating point, so a limit is never passed or refused by a rounding error.
 */

/** A plain decimal as an integer scaled by 10^scale, exactly. */
function scaled(decimal: string, scale: number): bigint {
	const [whole, fraction = ''] = decimal.split('.');
	return BigInt(whole + fraction.padEnd(scale, '0').slice(0, scale));
}

function fractionDigits(decimal: string): number {
	return decimal.split('.')[1]?.length ?? 0;
}

/** Whether a > b, for plain positive decimals, exactly. */
export function decimalAbove(a: string, b: string): boolean {
	const scale = Math.max(fractionDigits(a), fractionDigits(b));
	return scaled(a, scale) > scaled(b, scale);
}

/** price × quantity, exactly, as a plain decimal. */
export function decimalProduct(a: string, b: string): string {
	const scale = fractionDigits(a) + fractionDigits(b);
	const digits = (scaled(a, fractionDigits(a)) * scaled(b, fractionDigits(b)))
		.toString()
		.padStart(scale + 1, '0');
	if (scale === 0) return digits;
	const fraction = digits.slice(-scale).replace(/0+$/, '');
	const whole = digits.slice(0, -scale);
	return fraction === '' ? whole : `${whole}.${fraction}`;
}
