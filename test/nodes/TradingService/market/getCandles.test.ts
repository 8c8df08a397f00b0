import { DEMO_KEYS } from '../../../../sandbox';
import { useSandbox } from '../../../support/sandbox';
import { MARKET_PATHS, expectMarketRequests, queryOf, runMarket, sandboxAnswer } from './support';

// A moving market on a frozen clock (a minute start): candles are the same to the node and to the
// reference requests.
const T0 = Date.parse('2026-03-02T10:30:00Z');
const MINUTE = 60_000;
const sandbox = useSandbox({
	rateLimit: false,
	requestRates: false,
	symbolRules: 'realistic',
	market: { seed: 7, moving: true },
	now: () => T0,
});
const iso = (ms: number) => new Date(ms).toISOString();
const openTimes = (items: Array<{ json: Record<string, unknown> }>) =>
	items.map((item) => item.json.openTime as number);
const minutesFrom = (start: number, count: number) =>
	Array.from({ length: count }, (_, index) => start + index * MINUTE);

describe('Market > Get Candles', () => {
	it('the sandbox keeps the NEWEST candles of a range that holds more than the limit: paging forward by Start Time would skip some', async () => {
		const start = T0 - 2500 * MINUTE;
		const raw = (await sandboxAnswer(sandbox(), MARKET_PATHS.klines, {
			symbol: 'BTCUSDT',
			interval: '1m',
			startTime: String(start),
			endTime: String(T0),
			limit: '1000',
		})) as unknown[][];
		expect(raw).toHaveLength(1000);
		expect(raw[0][0]).toBe(T0 - 999 * MINUTE);
	});

	it('Return All over 2501 candles: every candle once, earliest first, in 3 windows of at most 1000; site=MENA, API key, no signature', async () => {
		const start = T0 - 2500 * MINUTE;
		const run = await runMarket(sandbox(), 'getCandles', {
			symbol: 'BTCUSDT',
			interval: '1m',
			returnAll: true,
			startTime: iso(start),
			endTime: iso(T0),
		});
		expect(run.error).toBeUndefined();
		expect(openTimes(run.items)).toEqual(minutesFrom(start, 2501));
		expectMarketRequests(run.requests, MARKET_PATHS.klines);
		expect(run.requests.map(queryOf)).toEqual(
			[
				[start, start + 1000 * MINUTE - 1],
				[start + 1000 * MINUTE, start + 2000 * MINUTE - 1],
				[start + 2000 * MINUTE, T0],
			].map(([from, to]) => [
				['symbol', 'BTCUSDT'],
				['interval', '1m'],
				['startTime', String(from)],
				['endTime', String(to)],
				['limit', '1000'],
				['site', 'MENA'],
			]),
		);
	});

	it('each candle as the service gave it, with named fields: decimals as strings, close time worked out (the service gives 0)', async () => {
		const start = T0 - 1200 * MINUTE;
		const raw = (await sandboxAnswer(sandbox(), MARKET_PATHS.klines, {
			symbol: 'BTCUSDT',
			interval: '1m',
			startTime: String(start),
			endTime: String(start + 1000 * MINUTE - 1),
			limit: '1000',
		})) as unknown[][];
		const run = await runMarket(sandbox(), 'getCandles', {
			symbol: 'BTCUSDT',
			interval: '1m',
			returnAll: true,
			startTime: iso(start),
			endTime: iso(T0),
		});
		expect(run.items).toHaveLength(1201);
		expect(raw[0][6]).toBe(0);
		expect(run.items.slice(0, 1000).map((item) => item.json)).toEqual(
			raw.map((row) => ({
				symbol: 'BTCUSDT',
				interval: '1m',
				openTime: row[0],
				closeTime: (row[0] as number) + MINUTE - 1,
				open: row[1],
				high: row[2],
				low: row[3],
				close: row[4],
				volume: row[5],
				quoteVolume: row[7],
				trades: row[8],
				takerBuyVolume: row[9],
				takerBuyQuoteVolume: row[10],
			})),
		);
		for (const field of ['open', 'high', 'low', 'close', 'volume', 'quoteVolume'])
			expect(typeof run.items[0].json[field]).toBe('string');
	});

	it('1M: calendar months in UTC, each closing on its last millisecond (29 February 2024)', async () => {
		const run = await runMarket(sandbox(), 'getCandles', {
			symbol: 'ETHUSDT',
			interval: '1M',
			returnAll: true,
			startTime: '2024-01-01T00:00:00Z',
			endTime: iso(T0),
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => iso(item.json.openTime as number).slice(0, 7))).toEqual([
			...['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12'].map(
				(m) => `2024-${m}`,
			),
			...['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12'].map(
				(m) => `2025-${m}`,
			),
			'2026-01',
			'2026-02',
			'2026-03',
		]);
		expect(iso(run.items[1].json.closeTime as number)).toBe('2024-02-29T23:59:59.999Z');
		expect(run.requests).toHaveLength(1);
	});

	it('18-decimal prices stay exact strings', async () => {
		const run = await runMarket(sandbox(), 'getCandles', {
			symbol: 'PEPEETH',
			interval: '1h',
			limit: 3,
		});
		expect(run.items).toHaveLength(3);
		for (const item of run.items) expect(item.json.close).toMatch(/^0\.0000000\d+$/);
	});

	it('Limit without Start Time: the latest Limit candles, the last one open now', async () => {
		const run = await runMarket(sandbox(), 'getCandles', {
			symbol: 'BTCUSDT',
			interval: '1m',
			limit: 5,
		});
		expect(run.error).toBeUndefined();
		expect(openTimes(run.items)).toEqual(minutesFrom(T0 - 4 * MINUTE, 5));
		expect(queryOf(run.requests[0])).toEqual([
			['symbol', 'BTCUSDT'],
			['interval', '1m'],
			['limit', '5'],
			['site', 'MENA'],
		]);
	});

	it('Limit with Start Time: the first Limit candles from Start Time, whichever end of a range the service keeps', async () => {
		const start = T0 - 2500 * MINUTE;
		const run = await runMarket(sandbox(), 'getCandles', {
			symbol: 'BTCUSDT',
			interval: '1m',
			limit: 5,
			startTime: iso(start),
		});
		expect(openTimes(run.items)).toEqual(minutesFrom(start, 5));
		expect(queryOf(run.requests[0])).toContainEqual(['endTime', String(start + 5 * MINUTE - 1)]);
	});

	it('the default Limit is 50', async () => {
		const run = await runMarket(sandbox(), 'getCandles', { symbol: 'BTCUSDT', interval: '1m' });
		expect(openTimes(run.items)).toEqual(minutesFrom(T0 - 49 * MINUTE, 50));
	});

	it('a read-only API key reads candles', async () => {
		const run = await runMarket(
			sandbox(),
			'getCandles',
			{ symbol: 'SOLUSDT', interval: '1d', limit: 2 },
			{ key: DEMO_KEYS.readOnly },
		);
		expect(run.items).toHaveLength(2);
		expectMarketRequests(run.requests, MARKET_PATHS.klines, DEMO_KEYS.readOnly);
	});

	it.each([
		[
			'Return All without Start Time',
			{ returnAll: true },
			'Start Time: is required when Return All is on',
		],
		[
			'End Time before Start Time',
			{ startTime: '2026-03-02T00:00:00Z', endTime: '2026-03-01T00:00:00Z' },
			'End Time: 2026-03-01T00:00:00.000Z is before Start Time (2026-03-02T00:00:00.000Z)',
		],
		[
			'a Start Time that is not a date',
			{ startTime: 'yesterday' },
			'Start Time: "yesterday" is not a date and time',
		],
		[
			'an interval the service does not offer',
			{ interval: '={{ "2m" }}' },
			'Interval: "2m" is not a candle interval',
		],
		['Limit 1001', { limit: 1001 }, 'Limit: "1001" is out of range'],
		[
			'Return All over more than 100,000 candles',
			{
				returnAll: true,
				interval: '1m',
				startTime: '2025-01-01T00:00:00Z',
				endTime: '2026-01-01T00:00:00Z',
			},
			'Start Time: the range holds more than 100000 candles of 1m',
		],
		[
			'Return All as text',
			{ returnAll: '={{ "true" }}' },
			'Return All: the text "true" is not true or false',
		],
	])(
		'bad input (%s): an error naming the field, 0 requests',
		async (_case, parameters, message) => {
			const run = await runMarket(sandbox(), 'getCandles', {
				symbol: 'BTCUSDT',
				interval: '1h',
				...parameters,
			});
			expect(run.error?.message).toBe(message);
			expect(run.requests).toHaveLength(0);
		},
	);
});
