/**
 * Order Filled's rules without HTTP: the trade list's page checks, the walk's requests, the
 * settings and the state's resume below a trade ID.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	FillsWalk,
	TradesPageError,
	checkTradesPage,
	compareTradeIds,
	fillsOldestFirst,
	type AccountFill,
} from '../../../../nodes/TradingService/helpers/trades';
import {
	fillsQueryKey,
	readFillsSettings,
} from '../../../../nodes/TradingService/trigger/pollParameters';
import { readState, writeState } from '../../../../nodes/TradingService/trigger/pollState';
import { node, pollFunctions } from './support';

const fill = (id: string, time: number): AccountFill => ({ id, time: String(time), qty: '0.5' });

describe('checkTradesPage', () => {
	it('takes a page newest first by trade ID, compared as numbers beyond 2^53', () => {
		const page = [fill('10000000000000000001', 5), fill('9999999999999999999', 5), fill('7', 4)];
		expect(checkTradesPage(node, page, 1000)).toEqual(page);
		expect(compareTradeIds('9007199254740993', '9007199254740992')).toBe(1);
		expect(fillsOldestFirst(page[0], page[1])).toBeGreaterThan(0);
		expect(fillsOldestFirst(page[2], page[1])).toBeLessThan(0);
	});

	it('drops the fill at `toId` and refuses one above it', () => {
		expect(checkTradesPage(node, [fill('20', 2), fill('19', 1)], 1000, '20')).toEqual([
			fill('19', 1),
		]);
		expect(() => checkTradesPage(node, [fill('21', 2)], 1000, '20')).toThrow(TradesPageError);
	});

	it.each([
		['more fills than asked for', [fill('3', 3), fill('2', 2)], 1, /more fills than asked for/],
		['ids not descending', [fill('2', 2), fill('3', 3)], 1000, /not newest first/],
		['a repeated id', [fill('2', 2), fill('2', 2)], 1000, /not newest first/],
		['an id that is no number', [{ id: 'x', time: '1' }], 1000, /without a numeric ID/],
		['a time that is no number', [{ id: '1', time: 1 }], 1000, /without a numeric time/],
	])('refuses a page with %s', (_name, page, limit, message) => {
		expect(() => checkTradesPage(node, page, limit)).toThrow(message);
	});
});

describe('FillsWalk', () => {
	it('asks for pages of 1,000 with the symbol, and moves toId down to the smallest ID of each full page', () => {
		const walk = new FillsWalk(node, { symbol: 'BTCUSDT', startTime: 1, endTime: 9 });
		expect(walk.next()).toEqual({
			qs: { startTime: 1, endTime: 9, limit: 1000, symbol: 'BTCUSDT' },
		});
		const page = Array.from({ length: 1000 }, (_, k) => fill(String(5000 - k), 5));
		walk.take(page);
		expect(walk.next()?.qs.toId).toBe('4001');
		walk.take([fill('4000', 4)]);
		expect(walk.next()).toBeUndefined();
		expect(walk.fills).toHaveLength(1001);
		expect(walk.stopped).toBe(false);
	});

	it('stops at the deadline after the first page, saying where the rest is', () => {
		const walk = new FillsWalk(node, { startTime: 1, endTime: 9 }, { deadline: 0 });
		walk.take(Array.from({ length: 1000 }, (_, k) => fill(String(5000 - k), 5)));
		expect(walk.next()).toBeUndefined();
		expect(walk.stopped).toBe(true);
		expect(walk.below).toBe('4001');
	});
});

describe('Order Filled settings and state', () => {
	it('refuses a Coin filter (typed or picked), naming the field, and a Symbol with spaces', () => {
		for (const coin of ['USDT', { __rl: true, mode: 'list', value: 'USDT' }]) {
			expect(() =>
				readFillsSettings(pollFunctions({ event: 'orderFilled', filters: { coin } })),
			).toThrow('Filters › Coin: does not apply to Order Filled');
		}
		expect(() =>
			readFillsSettings(pollFunctions({ event: 'orderFilled', filters: { symbol: 'BTCUSDT ' } })),
		).toThrow(/Symbol: "BTCUSDT " starts or ends with spaces/);
		const settings = readFillsSettings(
			pollFunctions({ event: 'orderFilled', filters: { symbol: 'BTCUSDT', coin: '' } }),
		);
		expect(settings).toEqual({ symbol: 'BTCUSDT', lateWindowMs: 600_000 });
		expect(fillsQueryKey(settings)).toBe('event=orderFilled;symbol="BTCUSDT"');
	});

	it('keeps a resume point below a trade ID through JSON, and refuses a malformed one', () => {
		const query = 'event=orderFilled;symbol=null';
		const staticData = {};
		writeState(staticData, {
			version: 1,
			query,
			watermark: 5,
			floor: 1,
			seen: { '5': ['1980000000000000049'] },
			resume: { from: 1, to: 9, belowId: '1980000000000000049', known: {} },
		});
		const stored = JSON.parse(JSON.stringify(staticData)) as IDataObject;
		expect(readState(stored, query)?.resume?.belowId).toBe('1980000000000000049');
		expect(readState(stored, 'flowType=32;accountType=any')).toBeUndefined();
		const broken = { ...stored, resume: { from: 1, to: 9, belowId: 12, known: {} } };
		expect(readState(broken, query)).toBeUndefined();
	});
});
