import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { DEMO_KEYS } from '../../../../sandbox';
import { requestsTo } from '../../../../tools/harness/node';
import { byInputItem, errorOf, runCounting } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';
import { MARKET_PATHS, expectMarketRequests, queryOf, runMarket, sandboxAnswer } from './support';

// Prices held at each symbol's `last` so that items can be compared with fixed values.
const sandbox = useSandbox({
	rateLimit: false,
	requestRates: false,
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

// Many items in one run: one all-symbols request, each item its own symbol's entries (request.ts).
describe.each([1, 2])('Market > Get Price, many items in one run (node version %i)', (version) => {
	const SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'USDTAED', 'PEPEETH'];
	// Symbol from each item: a typed expression (version 1), a picker By ID (version 2).
	const symbolByItem: IDataObject =
		version === 1
			? { symbol: '={{ $json.pair }}' }
			: { symbol: { __rl: true, mode: 'id', value: '={{ $json.pair }}' } };
	const run = async (pairs: string[], continueOnFail = false, symbol = symbolByItem) =>
		await runCounting(sandbox(), {
			parameters: { resource: 'market', operation: 'getPrice', ...symbol },
			inputItems: pairs.map((pair) => ({ json: { pair } })),
			continueOnFail,
			node: { typeVersion: version },
		});
	/** What the service answers a single-symbol request for each symbol, as the item it makes. */
	const singleAnswers = async (symbols: string[]) => {
		const answers = new Map<string, IDataObject[]>();
		for (const symbol of new Set(symbols)) {
			const answer = (await sandboxAnswer(sandbox(), MARKET_PATHS.price, { symbol })) as Array<{
				s: string;
				p: string;
			}>;
			answers.set(
				symbol,
				answer.map((entry) => ({ symbol: entry.s, price: entry.p })),
			);
		}
		return answers;
	};
	const jsonOf = (items: INodeExecutionData[] | undefined) =>
		(items ?? []).map((item) => item.json);
	const pairs200 = Array.from({ length: 200 }, (_, index) => SYMBOLS[(index * 7) % 5]);

	it('200 items of mixed symbols: exactly one request (every symbol, site=MENA), each item what a single-symbol request gives, in input order', async () => {
		const counted = await run(pairs200);
		expect(counted.error).toBeUndefined();
		expect(requestsTo(sandbox(), MARKET_PATHS.price)).toHaveLength(1);
		expect(counted.requests).toHaveLength(1);
		expectMarketRequests(counted.requests, MARKET_PATHS.price);
		expect(queryOf(counted.requests[0])).toEqual([['site', 'MENA']]);

		const single = await singleAnswers(pairs200);
		const byItem = byInputItem(counted.items);
		expect(counted.items).toHaveLength(200);
		expect([...byItem.keys()]).toEqual(pairs200.map((_, index) => index));
		for (const [index, pair] of pairs200.entries()) {
			expect(jsonOf(byItem.get(index))).toEqual(single.get(pair));
		}
		// The 18-decimal price kept exactly, as text.
		expect(jsonOf(byItem.get(pairs200.indexOf('PEPEETH')))).toEqual([
			{ symbol: 'PEPEETH', price: '0.000000004' },
		]);
	});

	it('an unknown symbol among them, Continue On Fail: only its item is an error naming Symbol and the fix; the others get their prices; one request', async () => {
		const pairs = ['BTCUSDT', 'NOPEUSDT', 'ETHUSDT', 'NOPEUSDT', 'PEPEETH'];
		const counted = await run(pairs, true);
		expect(counted.error).toBeUndefined();
		expect(counted.requests).toHaveLength(1);
		const byItem = byInputItem(counted.items);
		const single = await singleAnswers(['BTCUSDT', 'ETHUSDT', 'PEPEETH']);
		expect(jsonOf(byItem.get(0))).toEqual(single.get('BTCUSDT'));
		expect(jsonOf(byItem.get(2))).toEqual(single.get('ETHUSDT'));
		expect(jsonOf(byItem.get(4))).toEqual(single.get('PEPEETH'));
		for (const index of [1, 3]) {
			const [item] = byItem.get(index) ?? [];
			expect(byItem.get(index)).toHaveLength(1);
			expect(errorOf(item)).toBe('Symbol: the service gave no price for NOPEUSDT');
			expect(item.json.description).toMatch(/^Check the symbol: .*e\.g\. BTCUSDT\..*Symbol empty/);
		}
	});

	it('an unknown symbol among them, without Continue On Fail: the run stops with an error naming Symbol, the symbol and the fix, like a single-symbol request refused', async () => {
		const counted = await run(['BTCUSDT', 'ETHUSDT', 'NOPEUSDT', 'SOLUSDT']);
		expect(counted.error?.message).toBe('Symbol: the service gave no price for NOPEUSDT');
		expect(counted.error?.description).toMatch(/^Check the symbol: /);
		expect(counted.requests).toHaveLength(1);
		// The same symbol alone is refused by the service: that error names Symbol and the fix too.
		const alone = await run(['NOPEUSDT']);
		expect(alone.error?.message).toMatch(/^Symbol: /);
		expect(alone.error?.description).toMatch(/Check the Symbol field/);
		expect(queryOf(alone.requests[0])).toEqual([
			['symbol', 'NOPEUSDT'],
			['site', 'MENA'],
		]);
	});

	it('one item: the single-symbol request, as before', async () => {
		const counted = await run(['SOLUSDT']);
		expect(counted.error).toBeUndefined();
		expect(counted.requests).toHaveLength(1);
		expect(queryOf(counted.requests[0])).toEqual([
			['symbol', 'SOLUSDT'],
			['site', 'MENA'],
		]);
		expect(jsonOf(counted.items)).toEqual((await singleAnswers(['SOLUSDT'])).get('SOLUSDT'));
	});

	it('items with Symbol empty get every price, the others their own; one request', async () => {
		const pairs = ['', 'BTCUSDT', '', 'PEPEETH'];
		const counted = await run(pairs);
		expect(counted.error).toBeUndefined();
		expect(counted.requests).toHaveLength(1);
		expect(queryOf(counted.requests[0])).toEqual([['site', 'MENA']]);
		const every = (
			(await sandboxAnswer(sandbox(), MARKET_PATHS.price, {})) as Array<{ s: string; p: string }>
		).map((entry) => ({ symbol: entry.s, price: entry.p }));
		expect(every.length).toBeGreaterThan(5);
		const byItem = byInputItem(counted.items);
		const single = await singleAnswers(['BTCUSDT', 'PEPEETH']);
		expect(jsonOf(byItem.get(0))).toEqual(every);
		expect(jsonOf(byItem.get(1))).toEqual(single.get('BTCUSDT'));
		expect(jsonOf(byItem.get(2))).toEqual(every);
		expect(jsonOf(byItem.get(3))).toEqual(single.get('PEPEETH'));
	});

	it('a Symbol without expression, many items: one single-symbol request shared by all', async () => {
		const fixed: IDataObject =
			version === 1
				? { symbol: 'ETHUSDT' }
				: { symbol: { __rl: true, mode: 'list', value: 'ETHUSDT' } };
		const counted = await run(['a', 'b', 'c'], false, fixed);
		expect(counted.error).toBeUndefined();
		expect(counted.requests).toHaveLength(1);
		expect(queryOf(counted.requests[0])).toEqual([
			['symbol', 'ETHUSDT'],
			['site', 'MENA'],
		]);
		expect(jsonOf(counted.items)).toEqual([
			{ symbol: 'ETHUSDT', price: '3000' },
			{ symbol: 'ETHUSDT', price: '3000' },
			{ symbol: 'ETHUSDT', price: '3000' },
		]);
	});

	it('the all-symbols request fails: every item fails with its error (one error item each under Continue On Fail), nothing sent again', async () => {
		sandbox().setFaults({ rules: [{ kind: 'answerTrue', times: 10, path: MARKET_PATHS.price }] });
		const failed = await run(['BTCUSDT', 'ETHUSDT', 'SOLUSDT'], true);
		expect(failed.error).toBeUndefined();
		expect(failed.requests).toHaveLength(1);
		const messages = failed.items.map(errorOf);
		expect(messages).toHaveLength(3);
		expect(messages[0]).toEqual(expect.any(String));
		expect(new Set(messages).size).toBe(1);
		expect(failed.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);

		const stopped = await run(['BTCUSDT', 'ETHUSDT', 'SOLUSDT']);
		expect(stopped.error?.message).toBe(messages[0]);
		expect(stopped.requests).toHaveLength(1);
	});
});
