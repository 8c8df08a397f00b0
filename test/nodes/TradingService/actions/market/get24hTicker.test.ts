import { DEMO_KEYS } from '../../../../../sandbox';
import { useSandbox } from '../../../../support/sandbox';
import { MARKET_PATHS, expectMarketRequests, queryOf, runMarket, sandboxAnswer } from './support';

// A moving market on a frozen clock: the same answer to the node and to the reference request.
const T0 = Date.parse('2026-03-02T10:30:00Z');
const sandbox = useSandbox({
	rateLimit: false,
	symbolRules: 'realistic',
	market: { seed: 7, moving: true },
	now: () => T0,
});

describe('Market > Get 24h Ticker', () => {
	it('one symbol: the ticker with named fields, decimals as strings, and the change since the open worked out exactly', async () => {
		const [raw] = (await sandboxAnswer(sandbox(), MARKET_PATHS.ticker24h, {
			symbol: 'BTCUSDT',
		})) as Array<Record<string, unknown>>;
		const run = await runMarket(sandbox(), 'get24hTicker', { symbol: 'BTCUSDT' });
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(1);
		const item = run.items[0].json;
		expect(item).toEqual({
			symbol: 'BTCUSDT',
			time: raw.t,
			lastPrice: raw.c,
			openPrice: raw.o,
			highPrice: raw.h,
			lowPrice: raw.l,
			bidPrice: raw.b,
			askPrice: raw.a,
			volume: raw.v,
			quoteVolume: raw.qv,
			instrumentType: 'SPOT',
			priceChange: expect.stringMatching(/^-?\d+\.\d{2}$/),
			priceChangePercent: expect.stringMatching(/^-?\d+\.\d{2}$/),
		});
		// The walk moved the price: a real change, which floating point agrees with to the cent.
		const last = Number(raw.c);
		const open = Number(raw.o);
		expect(last).not.toBe(open);
		expect(Number(item.priceChange)).toBeCloseTo(last - open, 6);
		expect(
			Math.abs(Number(item.priceChangePercent) - ((last - open) / open) * 100),
		).toBeLessThanOrEqual(0.005 + 1e-9);
		expectMarketRequests(run.requests, MARKET_PATHS.ticker24h);
		expect(queryOf(run.requests[0])).toEqual([
			['symbol', 'BTCUSDT'],
			['instType', 'SPOT'],
			['site', 'MENA'],
		]);
	});

	it('Symbol empty: one item per MENA trading pair, 18-decimal prices kept exactly', async () => {
		const raw = (await sandboxAnswer(sandbox(), MARKET_PATHS.ticker24h, {})) as Array<
			Record<string, unknown>
		>;
		const run = await runMarket(sandbox(), 'get24hTicker');
		expect(run.items.map((item) => item.json.symbol)).toEqual(raw.map((entry) => entry.s));
		expect(run.items.map((item) => item.json.symbol)).toContain('PEPEETH');
		const pepe = run.items.find((item) => item.json.symbol === 'PEPEETH')!.json;
		expect(pepe.lastPrice).toMatch(/^0\.0000000\d+$/);
		expect(pepe.lastPrice).toBe(raw.find((entry) => entry.s === 'PEPEETH')!.c);
		expectMarketRequests(run.requests, MARKET_PATHS.ticker24h);
	});

	it('Instrument Type is sent as instType; Futures lists none here', async () => {
		const run = await runMarket(sandbox(), 'get24hTicker', {
			options: { instrumentType: 'FUTURES' },
		});
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(0);
		expect(queryOf(run.requests[0])).toEqual([
			['instType', 'FUTURES'],
			['site', 'MENA'],
		]);
	});

	it('a read-only API key reads the ticker', async () => {
		const run = await runMarket(
			sandbox(),
			'get24hTicker',
			{ symbol: 'SOLUSDT' },
			{ key: DEMO_KEYS.readOnly },
		);
		expect(run.error).toBeUndefined();
		expect(run.items[0].json.symbol).toBe('SOLUSDT');
		expectMarketRequests(run.requests, MARKET_PATHS.ticker24h, DEMO_KEYS.readOnly);
	});

	it.each([
		['a bad symbol', { symbol: 'btc-usdt' }, 'Symbol: "btc-usdt" is not a trading pair symbol'],
		[
			'an unknown instrument type',
			{ options: { instrumentType: 'OPTIONS' } },
			'Instrument Type: "OPTIONS" is not allowed',
		],
	])(
		'bad input (%s): an error naming the field, 0 requests',
		async (_case, parameters, message) => {
			const run = await runMarket(sandbox(), 'get24hTicker', parameters);
			expect(run.error?.message).toBe(message);
			expect(run.requests).toHaveLength(0);
		},
	);
});
