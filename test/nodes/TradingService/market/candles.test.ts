import {
	candleCloseTime,
	candleItem,
	candleWindowCount,
	candleWindows,
	mergeCandles,
	spanEnd,
} from '../../../../nodes/TradingService/market/candles';

// Fixed vectors: the windows Get Candles' Return All reads, each holding at most 1000 (here often
// fewer, to keep the vectors short) candle open times, and what a candle of an answer becomes.

const utc = (text: string) => Date.parse(text);
const iso = (ms: number) => new Date(ms).toISOString();
const isoWindows = (windows: Array<{ startTime: number; endTime: number }>) =>
	windows.map(({ startTime, endTime }) => [iso(startTime), iso(endTime)]);
const MINUTE = 60_000;
const HOUR = 3_600_000;

describe('candleWindows', () => {
	it('1m: 2500 minutes in windows of 1000, 1000 and 500 minutes, back to back', () => {
		const start = utc('2026-01-01T00:00:00Z');
		const end = start + 2500 * MINUTE - 1;
		expect(candleWindows('1m', start, end)).toEqual([
			{ startTime: start, endTime: start + 1000 * MINUTE - 1 },
			{ startTime: start + 1000 * MINUTE, endTime: start + 2000 * MINUTE - 1 },
			{ startTime: start + 2000 * MINUTE, endTime: end },
		]);
	});

	it('a range of exactly 1000 candles is one window; one more millisecond opens a second', () => {
		const start = utc('2026-01-01T00:00:00Z');
		expect(candleWindows('1h', start, start + 1000 * HOUR - 1)).toHaveLength(1);
		// The candle opening at start + 1000 h is the 1001st.
		expect(candleWindows('1h', start, start + 1000 * HOUR)).toEqual([
			{ startTime: start, endTime: start + 1000 * HOUR - 1 },
			{ startTime: start + 1000 * HOUR, endTime: start + 1000 * HOUR },
		]);
	});

	it('a start between open times: each window still spans 1000 lengths, so holds 1000 open times at most', () => {
		const start = utc('2026-01-01T00:00:30Z');
		const windows = candleWindows('1m', start, start + 1500 * MINUTE);
		expect(isoWindows(windows)).toEqual([
			['2026-01-01T00:00:30.000Z', '2026-01-01T16:40:29.999Z'],
			['2026-01-01T16:40:30.000Z', '2026-01-02T01:00:30.000Z'],
		]);
	});

	it('1w and 1d: lengths of 7 days and 1 day', () => {
		const start = utc('2000-01-03T00:00:00Z');
		expect(isoWindows(candleWindows('1w', start, utc('2030-01-01T00:00:00Z')))).toEqual([
			['2000-01-03T00:00:00.000Z', '2019-03-03T23:59:59.999Z'],
			['2019-03-04T00:00:00.000Z', '2030-01-01T00:00:00.000Z'],
		]);
		expect(isoWindows(candleWindows('1d', start, utc('2000-01-05T12:00:00Z'), 2))).toEqual([
			['2000-01-03T00:00:00.000Z', '2000-01-04T23:59:59.999Z'],
			['2000-01-05T00:00:00.000Z', '2000-01-05T12:00:00.000Z'],
		]);
	});

	it('1M: calendar months in UTC, 28, 29, 30 and 31 days long, across a leap February and a year end', () => {
		// Windows of 2 months from 1 December 2023 to 30 June 2024.
		expect(
			isoWindows(
				candleWindows('1M', utc('2023-12-01T00:00:00Z'), utc('2024-06-30T23:59:59.999Z'), 2),
			),
		).toEqual([
			['2023-12-01T00:00:00.000Z', '2024-01-31T23:59:59.999Z'],
			['2024-02-01T00:00:00.000Z', '2024-03-31T23:59:59.999Z'],
			['2024-04-01T00:00:00.000Z', '2024-05-31T23:59:59.999Z'],
			['2024-06-01T00:00:00.000Z', '2024-06-30T23:59:59.999Z'],
		]);
		// One month each: February 2023 has 28 days, February 2024 29.
		expect(
			isoWindows(candleWindows('1M', utc('2023-02-01T00:00:00Z'), utc('2023-03-15T00:00:00Z'), 1)),
		).toEqual([
			['2023-02-01T00:00:00.000Z', '2023-02-28T23:59:59.999Z'],
			['2023-03-01T00:00:00.000Z', '2023-03-15T00:00:00.000Z'],
		]);
		expect(
			isoWindows(candleWindows('1M', utc('2024-02-01T00:00:00Z'), utc('2024-03-01T00:00:00Z'), 1)),
		).toEqual([
			['2024-02-01T00:00:00.000Z', '2024-02-29T23:59:59.999Z'],
			['2024-03-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
		]);
	});

	it('1M from mid-month: the first window runs to the end of the month `count` month starts later', () => {
		// Month starts in the first window: 1 Feb and 1 Mar (2 of them), never 3.
		expect(
			isoWindows(candleWindows('1M', utc('2024-01-15T00:00:00Z'), utc('2024-06-01T00:00:00Z'), 2)),
		).toEqual([
			['2024-01-15T00:00:00.000Z', '2024-03-31T23:59:59.999Z'],
			['2024-04-01T00:00:00.000Z', '2024-05-31T23:59:59.999Z'],
			['2024-06-01T00:00:00.000Z', '2024-06-01T00:00:00.000Z'],
		]);
	});

	it('1M with the default of 1000 per window: 1000 months (83 years 4 months) in one window', () => {
		expect(
			isoWindows(candleWindows('1M', utc('2000-01-01T00:00:00Z'), utc('2100-01-01T00:00:00Z'))),
		).toEqual([
			['2000-01-01T00:00:00.000Z', '2083-04-30T23:59:59.999Z'],
			['2083-05-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z'],
		]);
	});

	it('a one-millisecond range is one window; an empty range none', () => {
		const at = utc('2026-01-01T00:00:00Z');
		expect(candleWindows('5m', at, at)).toEqual([{ startTime: at, endTime: at }]);
		expect(candleWindows('5m', at, at - 1)).toEqual([]);
	});

	it('counts its windows without building them (fixed intervals) and by building them (1M)', () => {
		const start = utc('2026-01-01T00:00:00Z');
		expect(candleWindowCount('1m', start, start + 2500 * MINUTE - 1)).toBe(3);
		expect(candleWindowCount('1m', start, start + 100_000 * MINUTE - 1)).toBe(100);
		expect(candleWindowCount('1m', start, start + 100_000 * MINUTE)).toBe(101);
		expect(
			candleWindowCount('1M', utc('2023-12-01T00:00:00Z'), utc('2024-06-30T00:00:00Z'), 2),
		).toBe(4);
		expect(candleWindowCount('1h', start, start - 1)).toBe(0);
	});
});

describe('spanEnd', () => {
	it('the last millisecond of the first `count` candles from a time', () => {
		const start = utc('2026-03-10T10:00:00Z');
		expect(iso(spanEnd('15m', start, 4))).toBe('2026-03-10T10:59:59.999Z');
		expect(iso(spanEnd('1M', utc('2026-03-01T00:00:00Z'), 1))).toBe('2026-03-31T23:59:59.999Z');
		expect(iso(spanEnd('1M', start, 1))).toBe('2026-04-30T23:59:59.999Z');
	});
});

describe('candleCloseTime', () => {
	it('open time + interval − 1; for 1M the last millisecond of the calendar month', () => {
		expect(iso(candleCloseTime('1m', utc('2026-01-01T00:00:00Z')))).toBe(
			'2026-01-01T00:00:59.999Z',
		);
		expect(iso(candleCloseTime('1d', utc('2026-01-01T00:00:00Z')))).toBe(
			'2026-01-01T23:59:59.999Z',
		);
		expect(iso(candleCloseTime('1w', utc('2026-01-05T00:00:00Z')))).toBe(
			'2026-01-11T23:59:59.999Z',
		);
		expect(iso(candleCloseTime('1M', utc('2024-02-01T00:00:00Z')))).toBe(
			'2024-02-29T23:59:59.999Z',
		);
		expect(iso(candleCloseTime('1M', utc('2023-02-01T00:00:00Z')))).toBe(
			'2023-02-28T23:59:59.999Z',
		);
		expect(iso(candleCloseTime('1M', utc('2025-12-01T00:00:00Z')))).toBe(
			'2025-12-31T23:59:59.999Z',
		);
	});
});

describe('candleItem', () => {
	const OPEN = utc('2026-01-01T00:00:00Z');

	it('the answer row as named fields: decimals as strings exactly, times and trade count as numbers', () => {
		const row = [
			OPEN,
			'50000.10',
			'50010.00',
			'49990.5',
			'50005.000000000000000001',
			'1.23456789',
			0,
			'61728.39',
			42,
			'0.5',
			'25000.05',
		];
		expect(candleItem('BTCUSDT', '1h', row)).toEqual({
			symbol: 'BTCUSDT',
			interval: '1h',
			openTime: OPEN,
			// The documentation's examples give 0: the node works it out.
			closeTime: OPEN + HOUR - 1,
			open: '50000.10',
			high: '50010.00',
			low: '49990.5',
			close: '50005.000000000000000001',
			volume: '1.23456789',
			quoteVolume: '61728.39',
			trades: 42,
			takerBuyVolume: '0.5',
			takerBuyQuoteVolume: '25000.05',
		});
	});

	it('keeps a close time the service gives; decimals sent as numbers become plain text', () => {
		const item = candleItem('PEPEETH', '1M', [
			OPEN,
			4e-9,
			0.1,
			1e21,
			'2',
			1000,
			OPEN + 5,
			'1',
			'7',
		]);
		expect(item).toMatchObject({
			closeTime: OPEN + 5,
			open: '0.000000004',
			high: '0.1',
			low: '1000000000000000000000',
			trades: 7,
		});
	});

	it('a row without an open time is left out', () => {
		expect(candleItem('BTCUSDT', '1m', ['x', '1'])).toBeUndefined();
	});
});

describe('mergeCandles', () => {
	const candle = (openTime: number, close = String(openTime)) => ({ openTime, close });

	it('each open time once (the first seen), earliest first, only inside the range', () => {
		const merged = mergeCandles(
			[candle(3), candle(1), candle(2), candle(3, 'again'), candle(0), candle(9)],
			{ startTime: 1, endTime: 5 },
		);
		expect(merged).toEqual([candle(1), candle(2), candle(3)]);
	});
});
