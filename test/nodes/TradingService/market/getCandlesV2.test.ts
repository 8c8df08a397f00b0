import type { INodeProperties } from 'n8n-workflow';

import { description } from '../../../../nodes/TradingService/market/getCandles.operation';
import { useSandbox } from '../../../support/sandbox';
import { MARKET_PATHS, expectMarketRequests, queryOf, runMarket } from './support';

// Version 2 of Get Candles: the optional Start Time and End Time live under Options (version 1
// keeps them in the main form, getCandles.test.ts). Same candles, same requests.
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
const names = (properties: INodeProperties[]) => properties.map((property) => property.name);

describe('Market > Get Candles (version 2)', () => {
	it('shows Symbol, Interval, Return All and Limit; Start Time and End Time under Options (version 1: in the main form)', () => {
		const v2 = description(2);
		expect(names(v2)).toEqual(['symbol', 'interval', 'returnAll', 'limit', 'options']);
		const options = v2.find((property) => property.name === 'options')!;
		expect(options.type).toBe('collection');
		expect(names(options.options as INodeProperties[])).toEqual([
			'startTime',
			'endTime',
			'waitAfterRateLimit',
			'parallelRequests',
		]);
		expect(names(description(1))).toEqual([
			'symbol',
			'interval',
			'returnAll',
			'limit',
			'startTime',
			'endTime',
		]);
	});

	it('Options › Start Time and End Time choose the candles, as version 1 does', async () => {
		const start = T0 - 10 * MINUTE;
		const run = await runMarket(
			sandbox(),
			'getCandles',
			{
				symbol: { __rl: true, mode: 'list', value: 'BTCUSDT' },
				interval: '1m',
				returnAll: true,
				options: { startTime: iso(start), endTime: iso(start + 4 * MINUTE) },
			},
			{ version: 2 },
		);
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.openTime)).toEqual(
			[0, 1, 2, 3, 4].map((index) => start + index * MINUTE),
		);
		expectMarketRequests(run.requests, MARKET_PATHS.klines);
		expect(queryOf(run.requests[0])).toEqual(
			expect.arrayContaining([
				['startTime', String(start)],
				['endTime', String(start + 4 * MINUTE)],
			]),
		);
	});

	it('without Options: the latest Limit candles', async () => {
		const run = await runMarket(
			sandbox(),
			'getCandles',
			{ symbol: { __rl: true, mode: 'id', value: 'ETHUSDT' }, interval: '1m', limit: 3 },
			{ version: 2 },
		);
		expect(run.items.map((item) => item.json.openTime)).toEqual([T0 - 2 * MINUTE, T0 - MINUTE, T0]);
	});

	it('Options › Return All without Start Time names the field, 0 requests', async () => {
		const run = await runMarket(
			sandbox(),
			'getCandles',
			{ symbol: 'BTCUSDT', interval: '1h', returnAll: true, options: {} },
			{ version: 2 },
		);
		expect(run.error?.message).toBe('Start Time: is required when Return All is on');
		expect(run.requests).toHaveLength(0);
	});
});
