/**
 * The seeded random walk of a symbol's price: one step a minute of the sandbox clock, a pure
 * function of (seed, symbol, minute index), so any minute (past candles, the ticker 24 hours ago)
 * is computed directly without replaying the minutes before it.
 *
 * The walk sums hashed steps at several time scales (1, 2, 4, … 16384 minutes), each interpolated
 * linearly between its lattice points, the larger scales moving further (as a random walk does:
 * amplitude ~ square root of the time). Only + − × ÷ on doubles, so every platform computes the same
 * factor; it stays within about ±18 % of the anchor price and never reaches 0. The price is then
 * rounded to the symbol's tick, at least one tick.
 */
import * as D from '../decimal';

export const MINUTE_MS = 60_000;
const OCTAVES = 15;
/** Amplitude of the one-minute scale; scale j moves AMPLITUDE * 2^(j/2). */
const AMPLITUDE = 0.0004;
const PERIODS = Array.from({ length: OCTAVES }, (_, j) => 2 ** j);
const SCALES = PERIODS.map((p) => AMPLITUDE * Math.sqrt(p));

/** A 32-bit hash of a string (FNV-1a). */
export function hashString(s: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < s.length; i++) {
		h ^= s.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return h >>> 0;
}

function mix(h: number, x: number): number {
	let k = Math.imul(x, 0xcc9e2d51);
	k = (k << 15) | (k >>> 17);
	k = Math.imul(k, 0x1b873593);
	h ^= k;
	h = (h << 13) | (h >>> 19);
	return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** Mix a number (up to 2^53) into the hash: low and high 32 bits. */
function mix2(h: number, p: number): number {
	// minute indexes and times exceed 32 bits: mix the high part too
	return mix(mix(h, p >>> 0), Math.floor(p / 4294967296) >>> 0);
}

/**
 * A uniform number in [0, 1) from up to six integers (a murmur3-style mix; the same on every
 * platform). Fixed arity: this runs millions of times for long candle ranges.
 */
export function unit(a: number, b: number, c: number, d: number, e = 0, f = 0): number {
	let h = 0x9e3779b9;
	h = mix2(h, a);
	h = mix2(h, b);
	h = mix2(h, c);
	h = mix2(h, d);
	h = mix2(h, e);
	h = mix2(h, f);
	h ^= h >>> 16;
	h = Math.imul(h, 0x85ebca6b);
	h ^= h >>> 13;
	h = Math.imul(h, 0xc2b2ae35);
	h ^= h >>> 16;
	return (h >>> 0) / 4294967296;
}

/** The walk's factor (about 0.82 to 1.18) at a minute index. */
export function walkFactor(seed: number, symbolHash: number, minute: number): number {
	let f = 1;
	for (let j = 0; j < OCTAVES; j++) {
		const period = PERIODS[j];
		const k = Math.floor(minute / period);
		const frac = (minute - k * period) / period;
		const a = unit(seed, symbolHash, j, k) * 2 - 1;
		const b = unit(seed, symbolHash, j, k + 1) * 2 - 1;
		f += SCALES[j] * (a + (b - a) * frac);
	}
	return f;
}

/** `anchor × factor` rounded to a multiple of `tick` (at least one tick), as a decimal string. */
export function roundedPrice(anchor: string, tick: string, factor: number): string {
	const tickDec = D.parseDec(tick)!;
	const ticks = Math.max(1, Math.round((Number(anchor) * factor) / Number(tick)));
	return D.fmt(D.mul({ v: BigInt(ticks), s: 0 }, tickDec));
}
