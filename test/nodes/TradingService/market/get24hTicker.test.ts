import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { DEMO_KEYS } from '../../../../sandbox';
import { requestsTo } from '../../../../tools/harness/node';
import { byInputItem, errorOf, runCounting } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';
import { MARKET_PATHS, expectMarketRequests, queryOf, runMarket, sandboxAnswer } from './support';

// A moving market on a frozen clock: the same answer to the node and to the reference request.
const T0 = Date.parse('2026-03-02T10:30:00Z');
const sandbox = useSandbox({
	rateLimit: false,
	requestRates: false,
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

// Many items in one run: one all-symbols request per Instrument Type, each item its own symbol's
// ticker (request.ts). The clock is frozen, so single-symbol runs answer the same market.
describe.each([1, 2])(
	'Market > Get 24h Ticker, many items in one run (node version %i)',
	(version) => {
		const SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'USDTAED', 'PEPEETH'];
		const symbolByItem =
			version === 1 ? '={{ $json.pair }}' : { __rl: true, mode: 'id', value: '={{ $json.pair }}' };
		const run = async (
			items: IDataObject[],
			{ continueOnFail = false, parameters = {} as IDataObject } = {},
		) =>
			await runCounting(sandbox(), {
				parameters: {
					resource: 'market',
					operation: 'get24hTicker',
					symbol: symbolByItem,
					...parameters,
				},
				inputItems: items.map((json) => ({ json })),
				continueOnFail,
				node: { typeVersion: version },
			});
		const jsonOf = (items: INodeExecutionData[] | undefined) =>
			(items ?? []).map((item) => item.json);
		/** The node's items for each symbol, each from a run of one item: a single-symbol request. */
		const singleRuns = async (symbols: string[], instrumentType = 'SPOT') => {
			const items = new Map<string, IDataObject[]>();
			for (const symbol of new Set(symbols)) {
				const single = await run([{ pair: symbol }], {
					parameters: { options: { instrumentType } },
				});
				expect(single.error).toBeUndefined();
				expect(queryOf(single.requests[0])).toEqual([
					['symbol', symbol],
					['instType', instrumentType],
					['site', 'MENA'],
				]);
				items.set(symbol, jsonOf(single.items));
			}
			return items;
		};

		it('200 items of mixed symbols: exactly one request (every symbol, instType, site=MENA), each item what a single-symbol request gives', async () => {
			const pairs = Array.from({ length: 200 }, (_, index) => SYMBOLS[(index * 3) % 5]);
			const counted = await run(pairs.map((pair) => ({ pair })));
			expect(counted.error).toBeUndefined();
			expect(requestsTo(sandbox(), MARKET_PATHS.ticker24h)).toHaveLength(1);
			expectMarketRequests(counted.requests, MARKET_PATHS.ticker24h);
			expect(queryOf(counted.requests[0])).toEqual([
				['instType', 'SPOT'],
				['site', 'MENA'],
			]);

			const single = await singleRuns(pairs);
			const byItem = byInputItem(counted.items);
			expect(counted.items).toHaveLength(200);
			for (const [index, pair] of pairs.entries()) {
				expect(jsonOf(byItem.get(index))).toEqual(single.get(pair));
			}
			// And what the service answers for the symbol, field by field.
			const [raw] = (await sandboxAnswer(sandbox(), MARKET_PATHS.ticker24h, {
				symbol: 'PEPEETH',
			})) as Array<Record<string, unknown>>;
			expect(byItem.get(pairs.indexOf('PEPEETH'))?.[0].json).toMatchObject({
				symbol: 'PEPEETH',
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
			});
		});

		it('Instrument Type per item (an expression): one all-symbols request per type; Futures items get the error a single request gives', async () => {
			const items = [
				{ pair: 'BTCUSDT', type: 'SPOT' },
				{ pair: 'ETHUSDT', type: 'ANY' },
				{ pair: 'SOLUSDT', type: 'SPOT' },
				{ pair: 'BTCUSDT', type: 'FUTURES' },
				{ pair: 'SOLUSDT', type: 'ANY' },
			];
			const options: IDataObject = { instrumentType: '={{ $json.type }}' };
			const counted = await run(items, { continueOnFail: true, parameters: { options } });
			expect(counted.error).toBeUndefined();
			expect(counted.requests.map(queryOf)).toEqual([
				[
					['instType', 'SPOT'],
					['site', 'MENA'],
				],
				[
					['instType', 'ANY'],
					['site', 'MENA'],
				],
				[
					['instType', 'FUTURES'],
					['site', 'MENA'],
				],
			]);
			const byItem = byInputItem(counted.items);
			const spot = await singleRuns(['BTCUSDT', 'SOLUSDT']);
			const any = await singleRuns(['ETHUSDT', 'SOLUSDT'], 'ANY');
			expect(jsonOf(byItem.get(0))).toEqual(spot.get('BTCUSDT'));
			expect(jsonOf(byItem.get(1))).toEqual(any.get('ETHUSDT'));
			expect(jsonOf(byItem.get(2))).toEqual(spot.get('SOLUSDT'));
			expect(jsonOf(byItem.get(4))).toEqual(any.get('SOLUSDT'));
			const futuresAlone = await run([{ pair: 'BTCUSDT' }], {
				continueOnFail: true,
				parameters: { options: { instrumentType: 'FUTURES' } },
			});
			expect(errorOf(futuresAlone.items[0])).toBe('Symbol: the service gave no ticker for BTCUSDT');
			expect(jsonOf(byItem.get(3))).toEqual(jsonOf(futuresAlone.items));
		});

		it('an unknown symbol among them: under Continue On Fail only its item fails, naming Symbol and the fix; otherwise the run stops with that error', async () => {
			const items = ['ETHUSDT', 'NOPEUSDT', 'USDTAED'].map((pair) => ({ pair }));
			const counted = await run(items, { continueOnFail: true });
			expect(counted.error).toBeUndefined();
			expect(counted.requests).toHaveLength(1);
			const byItem = byInputItem(counted.items);
			const single = await singleRuns(['ETHUSDT', 'USDTAED']);
			expect(jsonOf(byItem.get(0))).toEqual(single.get('ETHUSDT'));
			expect(jsonOf(byItem.get(2))).toEqual(single.get('USDTAED'));
			expect(byItem.get(1)).toHaveLength(1);
			expect(errorOf(byItem.get(1)?.[0])).toBe('Symbol: the service gave no ticker for NOPEUSDT');
			expect(byItem.get(1)?.[0].json.description).toMatch(
				/^Check the symbol and the Instrument Type/,
			);

			const stopped = await run(items);
			expect(stopped.error?.message).toBe('Symbol: the service gave no ticker for NOPEUSDT');
			expect(stopped.requests).toHaveLength(1);
			// Alone, the service refuses it: that error names Symbol and the fix as well.
			const alone = await run([{ pair: 'NOPEUSDT' }]);
			expect(alone.error?.message).toMatch(/^Symbol: /);
			expect(alone.error?.description).toMatch(/Check the Symbol field/);
		});

		it('one item: the single-symbol request, as before', async () => {
			const counted = await run([{ pair: 'ETHUSDT' }]);
			expect(counted.error).toBeUndefined();
			expect(counted.requests).toHaveLength(1);
			expect(queryOf(counted.requests[0])).toEqual([
				['symbol', 'ETHUSDT'],
				['instType', 'SPOT'],
				['site', 'MENA'],
			]);
			expect(counted.items.map((item) => item.json.symbol)).toEqual(['ETHUSDT']);
		});

		it('items with Symbol empty get every ticker, the others their own; one request', async () => {
			const counted = await run([{ pair: '' }, { pair: 'SOLUSDT' }, { pair: '' }]);
			expect(counted.error).toBeUndefined();
			expect(counted.requests).toHaveLength(1);
			const every = await run([{ pair: '' }]);
			expect(queryOf(every.requests[0])).toEqual([
				['instType', 'SPOT'],
				['site', 'MENA'],
			]);
			expect(every.items.length).toBeGreaterThan(5);
			const byItem = byInputItem(counted.items);
			expect(jsonOf(byItem.get(0))).toEqual(jsonOf(every.items));
			expect(jsonOf(byItem.get(1))).toEqual((await singleRuns(['SOLUSDT'])).get('SOLUSDT'));
			expect(jsonOf(byItem.get(2))).toEqual(jsonOf(every.items));
		});
	},
);
