/**
 * market/walk.ts: the seeded random walk is a pure function of (seed, symbol, minute), one step a
 * minute, rounded to the tick, never at or below zero.
 */
import { hashString, roundedPrice, unit, walkFactor } from '../../../sandbox/market/walk';

describe('walkFactor', () => {
	const btc = hashString('BTCUSDT');

	it('is the same for the same seed, symbol and minute, and differs with any of them', () => {
		const m = 30_000_000;
		expect(walkFactor(1, btc, m)).toBe(walkFactor(1, btc, m));
		expect(walkFactor(2, btc, m)).not.toBe(walkFactor(1, btc, m));
		expect(walkFactor(1, hashString('ETHUSDT'), m)).not.toBe(walkFactor(1, btc, m));
		expect(walkFactor(1, btc, m + 1)).not.toBe(walkFactor(1, btc, m));
	});

	it('stays within about ±18 % over 5,000 minutes, and moves a little each minute', () => {
		let prev = walkFactor(7, btc, 29_000_000);
		let [lo, hi, maxStep] = [prev, prev, 0];
		for (let m = 29_000_001; m < 29_005_000; m++) {
			const f = walkFactor(7, btc, m);
			lo = Math.min(lo, f);
			hi = Math.max(hi, f);
			maxStep = Math.max(maxStep, Math.abs(f - prev));
			prev = f;
		}
		expect(lo).toBeGreaterThan(0.8);
		expect(hi).toBeLessThan(1.2);
		expect(hi - lo).toBeGreaterThan(0.001);
		expect(maxStep).toBeGreaterThan(0);
		expect(maxStep).toBeLessThan(0.02);
	});

	it('unit() draws in [0, 1)', () => {
		for (let i = 0; i < 1000; i++) {
			const u = unit(1, i, 2 ** 40 + i, 3);
			expect(u).toBeGreaterThanOrEqual(0);
			expect(u).toBeLessThan(1);
		}
	});
});

describe('roundedPrice', () => {
	it('rounds to the tick, exactly, 18 decimals included', () => {
		expect(roundedPrice('50000', '0.01', 1.0123456)).toBe('50617.28');
		expect(roundedPrice('0.000000004', '0.000000000000000001', 1.5)).toBe('0.000000006');
		expect(roundedPrice('3.673', '0.001', 1)).toBe('3.673');
	});

	it('is never zero: at least one tick', () => {
		expect(roundedPrice('0.001', '0.01', 0.5)).toBe('0.01');
	});
});
