import { DEMO_KEYS } from '../../../../../sandbox';
import { useSandbox } from '../../../../support/sandbox';
import { MARKET_PATHS, expectMarketRequests, queryOf, runMarket } from './support';

// Prices held at each symbol's `last` so that items can be compared with fixed values.
const sandbox = useSandbox({
	rateLimit: false,
	symbolRules: 'realistic',
	market: { moving: false },
});

describe('Market > Get Price', () => {
	it('one symbol: one item { symbol, price } with the price as a decimal string; site=MENA, API key, no signature', async () => {
		const run = await runMarket(sandbox(), 'getPrice', { symbol: 'BTCUSDT' });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual([{ symbol: 'BTCUSDT', price: '50000' }]);
		expect(run.requests).toHaveLength(1);
		expectMarketRequests(run.requests, MARKET_PATHS.price);
		expect(queryOf(run.requests[0])).toEqual([
			['symbol', 'BTCUSDT'],
			['site', 'MENA'],
		]);
	});

	it('Symbol empty: every trading pair of the MENA site (the HK site lists fewer), 18-decimal prices kept exactly', async () => {
		const run = await runMarket(sandbox(), 'getPrice');
		expect(run.error).toBeUndefined();
		const prices = Object.fromEntries(run.items.map((item) => [item.json.symbol, item.json.price]));
		expect(Object.keys(prices)).toEqual(
			expect.arrayContaining(['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'USDTAED', 'PEPEETH']),
		);
		expect(prices.PEPEETH).toBe('0.000000004');
		for (const price of Object.values(prices)) expect(typeof price).toBe('string');
		expectMarketRequests(run.requests, MARKET_PATHS.price);
		expect(queryOf(run.requests[0])).toEqual([['site', 'MENA']]);
	});

	it('a read-only API key reads prices', async () => {
		const run = await runMarket(
			sandbox(),
			'getPrice',
			{ symbol: 'ETHUSDT' },
			{ key: DEMO_KEYS.readOnly },
		);
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toEqual({ symbol: 'ETHUSDT', price: '3000' });
		expectMarketRequests(run.requests, MARKET_PATHS.price, DEMO_KEYS.readOnly);
	});

	it('a symbol the MENA site does not list: an error naming Symbol', async () => {
		const run = await runMarket(sandbox(), 'getPrice', { symbol: 'NOPEUSDT' });
		expect(run.error?.message).toMatch(/^Symbol: /);
		expect(run.requests).toHaveLength(1);
	});

	it.each([
		['lower case', 'btcusdt'],
		['a separator', 'BTC/USDT'],
		['a space', ' BTCUSDT'],
	])('bad input (%s): an error naming Symbol, 0 requests', async (_case, symbol) => {
		const run = await runMarket(sandbox(), 'getPrice', { symbol });
		expect(run.error?.message).toBe(`Symbol: "${symbol}" is not a trading pair symbol`);
		expect(run.requests).toHaveLength(0);
	});

	it('per item: each input item gets its own price, paired with it', async () => {
		const run = await runMarket(
			sandbox(),
			'getPrice',
			{ symbol: '={{ $json.pair }}' },
			{ inputItems: [{ json: { pair: 'BTCUSDT' } }, { json: { pair: 'SOLUSDT' } }] },
		);
		expect(run.items.map((item) => [item.json.symbol, item.pairedItem])).toEqual([
			['BTCUSDT', { item: 0 }],
			['SOLUSDT', { item: 1 }],
		]);
	});
});
