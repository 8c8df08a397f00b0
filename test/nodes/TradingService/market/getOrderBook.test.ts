import { DEMO_KEYS } from '../../../../sandbox';
import { useSandbox } from '../../../support/sandbox';
import { MARKET_PATHS, expectMarketRequests, queryOf, runMarket, sandboxAnswer } from './support';

const T0 = Date.parse('2026-03-02T10:30:00Z');
const sandbox = useSandbox({
	rateLimit: false,
	requestRates: false,
	symbolRules: 'realistic',
	market: { seed: 7, moving: true },
	now: () => T0,
});

describe('Market > Get Order Book', () => {
	it('one item: bids and asks as { price, quantity } decimal strings, best first, and the best bid and ask price', async () => {
		const raw = (await sandboxAnswer(sandbox(), MARKET_PATHS.depth, {
			symbol: 'BTCUSDT',
			limit: '5',
		})) as { t: number; b: string[][]; a: string[][] };
		const run = await runMarket(sandbox(), 'getOrderBook', { symbol: 'BTCUSDT', depth: 5 });
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(1);
		const book = run.items[0].json;
		expect(book).toEqual({
			symbol: 'BTCUSDT',
			time: raw.t,
			bids: raw.b.map(([price, quantity]) => ({ price, quantity })),
			asks: raw.a.map(([price, quantity]) => ({ price, quantity })),
			bestBidPrice: raw.b[0][0],
			bestAskPrice: raw.a[0][0],
		});
		expect(book.bids).toHaveLength(5);
		expect(Number(book.bestBidPrice)).toBeLessThan(Number(book.bestAskPrice));
		expectMarketRequests(run.requests, MARKET_PATHS.depth);
		expect(queryOf(run.requests[0])).toEqual([
			['symbol', 'BTCUSDT'],
			['limit', '5'],
			['site', 'MENA'],
		]);
	});

	it('Depth 200 (the most) gives 200 levels a side; 18-decimal prices stay exact', async () => {
		const run = await runMarket(sandbox(), 'getOrderBook', { symbol: 'PEPEETH', depth: 200 });
		expect(run.error).toBeUndefined();
		const book = run.items[0].json as { asks: Array<{ price: string }>; bids: unknown[] };
		expect(book.asks).toHaveLength(200);
		expect(book.asks[0].price).toMatch(/^0\.0000000\d{11}$/);
	});

	it('the default Depth is 100 levels a side, sent as limit', async () => {
		const run = await runMarket(sandbox(), 'getOrderBook', { symbol: 'ETHUSDT' });
		expect((run.items[0].json.asks as unknown[]).length).toBe(100);
		expect(queryOf(run.requests[0])).toContainEqual(['limit', '100']);
	});

	it('a read-only API key reads the order book', async () => {
		const run = await runMarket(
			sandbox(),
			'getOrderBook',
			{ symbol: 'SOLUSDT', depth: 1 },
			{ key: DEMO_KEYS.readOnly },
		);
		expect(run.error).toBeUndefined();
		expectMarketRequests(run.requests, MARKET_PATHS.depth, DEMO_KEYS.readOnly);
	});

	it.each([
		['a symbol expression that gives nothing', { symbol: '={{ $json.pair }}' }, 'Symbol: is empty'],
		['Depth 0', { symbol: 'BTCUSDT', depth: 0 }, 'Depth: "0" is out of range'],
		['Depth 201', { symbol: 'BTCUSDT', depth: 201 }, 'Depth: "201" is out of range'],
		['Depth 1.5', { symbol: 'BTCUSDT', depth: 1.5 }, 'Depth: "1.5" is out of range'],
	])(
		'bad input (%s): an error naming the field, 0 requests',
		async (_case, parameters, message) => {
			const run = await runMarket(sandbox(), 'getOrderBook', parameters);
			expect(run.error?.message).toBe(message);
			expect(run.requests).toHaveLength(0);
		},
	);
});
