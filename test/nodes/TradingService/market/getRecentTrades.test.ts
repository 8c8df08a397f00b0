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

describe('Market > Get Recent Trades', () => {
	it('one item per trade, oldest first: time, price and quantity as decimal strings, isBuyerMaker', async () => {
		const raw = (await sandboxAnswer(sandbox(), MARKET_PATHS.trades, {
			symbol: 'BTCUSDT',
			limit: '10',
		})) as Array<{ t: number; p: string; q: string; ibm: boolean }>;
		const run = await runMarket(sandbox(), 'getRecentTrades', { symbol: 'BTCUSDT', limit: 10 });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual(
			raw.map((trade) => ({
				symbol: 'BTCUSDT',
				time: trade.t,
				price: trade.p,
				quantity: trade.q,
				isBuyerMaker: trade.ibm,
			})),
		);
		const times = run.items.map((item) => item.json.time as number);
		expect(times).toEqual([...times].sort((a, b) => a - b));
		expectMarketRequests(run.requests, MARKET_PATHS.trades);
		expect(queryOf(run.requests[0])).toEqual([
			['symbol', 'BTCUSDT'],
			['limit', '10'],
			['site', 'MENA'],
		]);
	});

	it('the default Limit is 50; Limit 100 (the most) gives 100 trades', async () => {
		const byDefault = await runMarket(sandbox(), 'getRecentTrades', { symbol: 'BTCUSDT' });
		expect(byDefault.items).toHaveLength(50);
		const run = await runMarket(sandbox(), 'getRecentTrades', { symbol: 'PEPEETH', limit: 100 });
		expect(run.items).toHaveLength(100);
		expect(run.items[0].json.price).toMatch(/^0\.0000000\d+$/);
	});

	it('a read-only API key reads trades', async () => {
		const run = await runMarket(
			sandbox(),
			'getRecentTrades',
			{ symbol: 'ETHUSDT', limit: 1 },
			{ key: DEMO_KEYS.readOnly },
		);
		expect(run.items).toHaveLength(1);
		expectMarketRequests(run.requests, MARKET_PATHS.trades, DEMO_KEYS.readOnly);
	});

	it.each([
		['a symbol expression that gives nothing', { symbol: '={{ $json.pair }}' }, 'Symbol: is empty'],
		['Limit 101', { symbol: 'BTCUSDT', limit: 101 }, 'Limit: "101" is out of range'],
		['Limit as text', { symbol: 'BTCUSDT', limit: '={{ "ten" }}' }, 'Limit: "ten" is out of range'],
	])(
		'bad input (%s): an error naming the field, 0 requests',
		async (_case, parameters, message) => {
			const run = await runMarket(sandbox(), 'getRecentTrades', parameters);
			expect(run.error?.message).toBe(message);
			expect(run.requests).toHaveLength(0);
		},
	);
});
