/**
 * market/market.ts and market/catalogue.ts: prices on the sandbox clock (moving, fixed, lenient),
 * the two catalogues and the lenient rules.
 */
import { MENA_SYMBOLS, rulesOf } from '../../../sandbox/market/catalogue';
import { Market, type MarketConfig } from '../../../sandbox/market/market';
import { T0 } from '../support';

const MINUTE = 60_000;
const at = (config: Partial<MarketConfig>, clock: () => number) =>
	new Market({ symbolRules: 'realistic', seed: 1, moving: true, ...config }, clock);

describe('Market prices', () => {
	it('walk one step a minute on the sandbox clock: the same all minute long', () => {
		let now = Math.floor(T0 / MINUTE) * MINUTE;
		const m = at({}, () => now);
		const btc = m.find('MENA', 'BTCUSDT')!;
		const first = m.price(btc);
		now += MINUTE - 1;
		expect(m.price(btc)).toBe(first);
		const seen = new Set<string>();
		for (let i = 0; i < 30; i++) {
			now += MINUTE;
			seen.add(m.price(btc));
		}
		expect(seen.size).toBeGreaterThan(20);
	});

	it('the same seed and clock give the same prices; another seed other prices', () => {
		const a = at({ seed: 5 }, () => T0);
		const b = at({ seed: 5 }, () => T0);
		const c = at({ seed: 6 }, () => T0);
		const prices = (m: Market) => m.symbols('MENA').map((s) => m.price(s));
		expect(prices(a)).toEqual(prices(b));
		expect(prices(a)).not.toEqual(prices(c));
	});

	it("every price is a multiple of the symbol's tick and above zero", () => {
		const m = at({}, () => T0);
		for (const s of m.symbols('MENA')) {
			for (let i = 0; i < 50; i++) {
				const p = m.priceAt(s, T0 - i * 997 * MINUTE);
				const decimals = p.split('.')[1]?.length ?? 0;
				const tickDecimals = s.rules.tickSize.split('.')[1]?.length ?? 0;
				expect(decimals).toBeLessThanOrEqual(tickDecimals);
				expect(Number(p)).toBeGreaterThan(0);
			}
		}
	});

	it('market.moving false, or lenient rules: every price stays at last', () => {
		for (const m of [at({ moving: false }, () => T0), at({ symbolRules: 'lenient' }, () => T0)]) {
			expect(m.moving).toBe(false);
			for (const s of m.symbols('MENA')) expect(m.priceAt(s, T0 - 12_345 * MINUTE)).toBe(s.last);
		}
	});
});

describe('catalogues and rules', () => {
	it('the MENA catalogue keeps the old symbols and their last prices', () => {
		const m = at({}, () => T0);
		expect(m.tradable('BTCUSDT')).toMatchObject({ base: 'BTC', quote: 'USDT', last: '50000' });
		expect(m.tradable('ETHUSDT')).toMatchObject({ last: '3000' });
		expect(m.tradable('SOLUSDT')).toMatchObject({ last: '150' });
		expect(m.tradable('DOGEUSDT')).toBeUndefined();
		expect(m.tradable('toString')).toBeUndefined();
		expect(m.find('HK', 'SOLUSDT')).toBeUndefined();
	});

	it('lenient rules: ticks and steps 10^-18, no minimum, huge maximums, every symbol TRADING', () => {
		for (const s of MENA_SYMBOLS) {
			const r = rulesOf(s, 'lenient');
			expect(r).toMatchObject({
				status: 'TRADING',
				tickSize: '0.000000000000000001',
				stepSize: '0.000000000000000001',
				quotePrecision: '0.000000000000000001',
				minQty: '0',
				minNotional: '0',
				minAmount: '0',
				marketOrderMinQty: '0',
				marketOrderMinAmount: '0',
			});
			expect(r.maxQty.length).toBeGreaterThan(25);
			expect(rulesOf(s, 'realistic')).toBe(s.rules);
		}
	});
});
