/**
 * Exact decimal arithmetic on BigInt (value = v / 10^s). No floats anywhere.
 */

export interface Dec {
	v: bigint;
	s: number;
}

const SIGNED_RE = /^(-)?(\d+)(?:\.(\d+))?$/;
/** Plain non-negative decimal: digits, optional fraction; no sign, no exponent, no leading '.'. */
export const PLAIN_DECIMAL_RE = /^\d+(?:\.\d+)?$/;
/** Most fractional digits accepted in a request decimal. */
export const MAX_SCALE = 18;

export const ZERO: Dec = { v: 0n, s: 0 };

function pow10(n: number): bigint {
	return 10n ** BigInt(n);
}

/** Parse a (possibly signed) plain decimal string; null when malformed. */
export function parseDec(str: string): Dec | null {
	const m = SIGNED_RE.exec(str);
	if (!m) return null;
	const frac = m[3] ?? '';
	let v = BigInt(m[2] + frac);
	if (m[1]) v = -v;
	return normalize({ v, s: frac.length });
}

export function normalize(d: Dec): Dec {
	let { v, s } = d;
	if (v === 0n) return { v: 0n, s: 0 };
	while (s > 0 && v % 10n === 0n) {
		v /= 10n;
		s--;
	}
	return { v, s };
}

export function fmt(d: Dec): string {
	const n = normalize(d);
	const neg = n.v < 0n;
	let digits = (neg ? -n.v : n.v).toString();
	if (n.s > 0) {
		digits = digits.padStart(n.s + 1, '0');
		digits = `${digits.slice(0, digits.length - n.s)}.${digits.slice(digits.length - n.s)}`;
	}
	return neg ? `-${digits}` : digits;
}

function align(a: Dec, b: Dec): [bigint, bigint, number] {
	const s = Math.max(a.s, b.s);
	return [a.v * pow10(s - a.s), b.v * pow10(s - b.s), s];
}

export function add(a: Dec, b: Dec): Dec {
	const [x, y, s] = align(a, b);
	return normalize({ v: x + y, s });
}

export function sub(a: Dec, b: Dec): Dec {
	const [x, y, s] = align(a, b);
	return normalize({ v: x - y, s });
}

export function mul(a: Dec, b: Dec): Dec {
	return normalize({ v: a.v * b.v, s: a.s + b.s });
}

export function neg(a: Dec): Dec {
	return { v: -a.v, s: a.s };
}

export function cmp(a: Dec, b: Dec): number {
	const [x, y] = align(a, b);
	return x < y ? -1 : x > y ? 1 : 0;
}

export function isPositive(a: Dec): boolean {
	return a.v > 0n;
}

/** a / b truncated toward zero to `scale` fractional digits. */
export function divTrunc(a: Dec, b: Dec, scale: number): Dec {
	if (b.v === 0n) throw new RangeError('division by zero');
	// a.v/10^a.s / (b.v/10^b.s) * 10^scale = a.v * 10^(b.s + scale) / (b.v * 10^a.s)
	const num = a.v * pow10(b.s + scale);
	const den = b.v * pow10(a.s);
	return normalize({ v: num / den, s: scale });
}

/** Canonical string of a plain decimal string (strips leading/trailing zeros). */
export function canon(str: string): string {
	const d = parseDec(str);
	if (!d) throw new Error(`not a decimal: ${str}`);
	return fmt(d);
}
