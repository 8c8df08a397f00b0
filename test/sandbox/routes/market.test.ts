/**
 * routes/market.ts over real HTTP: GET /api/v1/exchangeInfo and GET /quote/v1/{ticker/price,
 * ticker/24hr, depth, trades, klines}. A valid API key and no signature (the UAE documentation:
 * market APIs need no signature; the API description: MARKET_DATA needs a valid key), the `site`
 * parameter (MENA or HK, HK when missing), the UAE documentation's answer shapes, the limits, and
 * candles: the newest `limit` of the range, oldest first, close time 0.
 */
import { DEMO_KEYS } from '../../../sandbox';
import { rawRequest } from '../../../sandbox/testClient';
import { useSandboxClients } from '../../support/sandbox';
import { T0 } from '../support';

const { sandbox, master } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
	symbolRules: 'realistic',
});
const MINUTE = 60_000;
const PATHS = [
	'/api/v1/exchangeInfo',
	'/quote/v1/ticker/price',
	'/quote/v1/ticker/24hr',
	'/quote/v1/depth',
	'/quote/v1/trades',
	'/quote/v1/klines',
];
const get = (path: string, params: Record<string, string | number | undefined> = {}) =>
	master().marketData(path, { site: 'MENA', ...params });
const readOnly = () => master().withCredentials(DEMO_KEYS.readOnly);
const DECIMAL = /^\d+(\.\d+)?$/;

describe('market data: API key, no signature', () => {
	it.each(PATHS)('%s answers the read-only key without timestamp or signature', async (path) => {
		const r = await readOnly().marketData(path, {
			site: 'MENA',
			symbol: 'BTCUSDT',
			...(path.endsWith('klines') ? { interval: '1m' } : {}),
		});
		expect(r.status).toBe(200);
		const entry = sandbox().ledger.requests.at(-1)!;
		expect(entry).toMatchObject({ path, weight: 1, status: 200 });
		expect(entry.query).not.toMatch(/signature|timestamp/);
	});

	it.each(PATHS)('%s refuses a missing or unknown X-APIKEY with 0102', async (path) => {
		const missing = await master().marketData(path, { symbol: 'BTCUSDT' }, { apiKey: null });
		expect(missing.status).toBe(400);
		expect(missing.json).toEqual({ code: '0102', msg: 'Invalid APIKey (X-APIKEY header missing)' });
		const unknown = await master().marketData(path, { symbol: 'BTCUSDT' }, { apiKey: 'nope' });
		expect(unknown.json).toEqual({ code: '0102', msg: 'Invalid APIKey (unknown X-APIKEY)' });
	});

	it('ignores a timestamp and signature sent along, and the ledger shows them', async () => {
		const r = await master().call({
			method: 'GET',
			path: '/quote/v1/ticker/price',
			query: { site: 'MENA', symbol: 'BTCUSDT' },
			mangleSignature: () => 'f'.repeat(64),
		});
		expect(r.status).toBe(200);
		expect(sandbox().ledger.requests.at(-1)!.query).toMatch(/timestamp=\d+&signature=f{64}$/);
	});

	it("charges the key's weight budget, 1 per request", async () => {
		sandbox().setRateLimit({ windowMs: 60_000, maxWeight: 2 });
		expect((await get('/quote/v1/ticker/price')).status).toBe(200);
		expect((await get('/quote/v1/depth', { symbol: 'BTCUSDT' })).status).toBe(200);
		const third = await get('/api/v1/exchangeInfo');
		expect(third.status).toBe(429);
		expect(third.json.code).toBe('0003');
	});

	it('a parameter sent twice is 0001', async () => {
		const r = await rawRequest(sandbox().baseUrl, {
			method: 'GET',
			url: '/quote/v1/ticker/price?symbol=BTCUSDT&symbol=ETHUSDT',
			headers: { 'X-APIKEY': DEMO_KEYS.master.apiKey },
		});
		expect(r.json.code).toBe('0001');
	});
});

describe('site: MENA or HK (the documentation: default HK)', () => {
	it('without site answers the HK catalogue: fewer symbols, other ticks, site "hk"', async () => {
		const hk = await master().marketData('/api/v1/exchangeInfo');
		const mena = await get('/api/v1/exchangeInfo');
		expect(hk.json.site).toBe('hk');
		expect(mena.json.site).toBe('mena');
		const names = (r: typeof hk) => r.json.symbols.map((s: { symbol: string }) => s.symbol);
		expect(names(hk)).toEqual(['BTCUSDT', 'ETHUSDT']);
		expect(names(mena)).toEqual(
			expect.arrayContaining(['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'USDTAED', 'PEPEETH', 'XRPUSDT']),
		);
		const tick = (r: typeof hk) =>
			r.json.symbols[0].filters.find((f: { filterType: string }) => f.filterType === 'PRICE_FILTER')
				.tickSize;
		expect(tick(hk)).toBe('0.1');
		expect(tick(mena)).toBe('0.01');
		expect(hk.json.symbols[0].site).toBe('hk');
	});

	it('a MENA-only symbol without site is 0201; site=HK is the same as none', async () => {
		const none = await master().marketData('/quote/v1/depth', { symbol: 'USDTAED' });
		expect(none.status).toBe(400);
		expect(none.json).toEqual({
			code: '0201',
			msg: "Instrument not found ('USDTAED' is not listed on site HK)",
		});
		const hk = await master().marketData('/quote/v1/depth', { symbol: 'USDTAED', site: 'HK' });
		expect(hk.json.code).toBe('0201');
		expect((await get('/quote/v1/depth', { symbol: 'USDTAED' })).status).toBe(200);
	});

	it('another site value is 0001 naming site', async () => {
		const r = await master().marketData('/quote/v1/ticker/price', { site: 'mena' });
		expect(r.json).toEqual({
			code: '0001',
			msg: "Required field 'site' missing or invalid (MENA or HK)",
		});
	});
});

describe('GET /api/v1/exchangeInfo', () => {
	it("lists USDTAED with the UAE documentation's example filters, decimals as strings", async () => {
		const r = await get('/api/v1/exchangeInfo', { symbol: 'USDTAED' });
		expect(r.status).toBe(200);
		expect(r.json).toMatchObject({
			timezone: 'UTC',
			serverTime: T0,
			brokerFilters: [],
			contracts: [],
			options: [],
			site: 'mena',
		});
		expect(r.json.symbols).toHaveLength(1);
		expect(r.json.symbols[0]).toMatchObject({
			symbol: 'USDTAED',
			symbolName: 'USDTAED',
			status: 'TRADING',
			baseAsset: 'USDT',
			baseAssetName: 'USDT',
			baseAssetPrecision: '0.01',
			quoteAsset: 'AED',
			quoteAssetName: 'AED',
			quotePrecision: '0.00001',
			retailAllowed: true,
			piAllowed: true,
			corporateAllowed: true,
			omnibusAllowed: true,
			icebergAllowed: false,
			isAggregate: false,
			allowMargin: false,
			site: 'mena',
		});
		expect(r.json.symbols[0].filters).toEqual([
			{
				minPrice: '0.001',
				maxPrice: '100000000.00000000',
				tickSize: '0.001',
				filterType: 'PRICE_FILTER',
			},
			{
				minQty: '0.3',
				maxQty: '200000',
				stepSize: '0.01',
				marketOrderMinQty: '0.3',
				marketOrderMaxQty: '100000',
				filterType: 'LOT_SIZE',
			},
			{ minNotional: '1', filterType: 'MIN_NOTIONAL' },
			{
				minAmount: '1',
				maxAmount: '733320',
				minBuyPrice: '0',
				marketOrderMinAmount: '1',
				marketOrderMaxAmount: '366660',
				filterType: 'TRADE_AMOUNT',
			},
			{
				maxSellPrice: '0',
				buyPriceUpRate: '0.1',
				sellPriceDownRate: '0.1',
				maxEntrustNum: 300,
				filterType: 'LIMIT_TRADING',
			},
			{ buyPriceUpRate: '0.1', sellPriceDownRate: '0.1', filterType: 'MARKET_TRADING' },
			{
				noAllowMarketStartTime: '0',
				noAllowMarketEndTime: '0',
				limitOrderStartTime: '0',
				limitOrderEndTime: '0',
				limitMinPrice: '0',
				limitMaxPrice: '0',
				filterType: 'OPEN_QUOTE',
			},
		]);
		expect(r.json.coins.map((c: { coinId: string }) => c.coinId)).toEqual(['AED', 'USDT']);
	});

	it('shows each status: XRPUSDT HALT, ADAUSDT IN_PREVIEW; PEPEETH an 18-decimal tick', async () => {
		const r = await get('/api/v1/exchangeInfo');
		const by = (name: string) => r.json.symbols.find((s: { symbol: string }) => s.symbol === name);
		expect(by('XRPUSDT').status).toBe('HALT');
		expect(by('ADAUSDT').status).toBe('IN_PREVIEW');
		expect(by('PEPEETH').filters[0].tickSize).toBe('0.000000000000000001');
	});

	it('an unknown symbol is 0201', async () => {
		expect((await get('/api/v1/exchangeInfo', { symbol: 'DOGEUSDT' })).json.code).toBe('0201');
	});
});

describe('GET /quote/v1/ticker/price and /ticker/24hr', () => {
	it('price: every symbol of the site, or one, as [{s, p}] with p a tick multiple', async () => {
		const all = await get('/quote/v1/ticker/price');
		expect(all.json).toHaveLength(7);
		for (const e of all.json) expect(Object.keys(e)).toEqual(['s', 'p']);
		const one = await get('/quote/v1/ticker/price', { symbol: 'BTCUSDT' });
		expect(one.json).toEqual([{ s: 'BTCUSDT', p: expect.stringMatching(/^\d+(\.\d{1,2})?$/) }]);
		expect(one.json[0]).toEqual(all.json[0]);
	});

	it("24hr: the documentation's fields only, decimals as strings, bid < last < ask", async () => {
		const r = await get('/quote/v1/ticker/24hr', { symbol: 'ETHUSDT' });
		expect(r.json).toHaveLength(1);
		const t = r.json[0];
		expect(Object.keys(t).sort()).toEqual(
			['a', 'b', 'c', 'h', 'it', 'l', 'o', 'qv', 's', 't', 'v'].sort(),
		);
		expect(t).toMatchObject({ t: T0, s: 'ETHUSDT', it: 'SPOT' });
		for (const k of ['a', 'b', 'c', 'h', 'l', 'o', 'qv', 'v']) expect(t[k]).toMatch(DECIMAL);
		expect(Number(t.b)).toBeLessThan(Number(t.c));
		expect(Number(t.a)).toBeGreaterThan(Number(t.c));
		expect(Number(t.h)).toBeGreaterThanOrEqual(Math.max(Number(t.o), Number(t.c)));
		expect(Number(t.l)).toBeLessThanOrEqual(Math.min(Number(t.o), Number(t.c)));
		const price = await get('/quote/v1/ticker/price', { symbol: 'ETHUSDT' });
		expect(t.c).toBe(price.json[0].p);
	});

	it('24hr: no symbol lists all; instType FUTURES lists none; ANY the spot ones; other 0001', async () => {
		expect((await get('/quote/v1/ticker/24hr')).json).toHaveLength(7);
		expect((await get('/quote/v1/ticker/24hr', { instType: 'FUTURES' })).json).toEqual([]);
		expect((await get('/quote/v1/ticker/24hr', { instType: 'ANY' })).json).toHaveLength(7);
		expect((await get('/quote/v1/ticker/24hr', { instType: 'spot' })).json.code).toBe('0001');
	});
});

describe('GET /quote/v1/depth and /trades', () => {
	it('depth: {t, b, a}, 100 levels a side by default, bids falling and asks rising', async () => {
		const r = await get('/quote/v1/depth', { symbol: 'BTCUSDT' });
		expect(Object.keys(r.json)).toEqual(['t', 'b', 'a']);
		expect(r.json.t).toBe(T0);
		expect(r.json.b).toHaveLength(100);
		expect(r.json.a).toHaveLength(100);
		for (const [p, q] of [...r.json.b, ...r.json.a]) {
			expect(p).toMatch(DECIMAL);
			expect(q).toMatch(DECIMAL);
		}
		const bids = r.json.b.map((l: string[]) => Number(l[0]));
		const asks = r.json.a.map((l: string[]) => Number(l[0]));
		expect(bids).toEqual([...bids].sort((x, y) => y - x));
		expect(asks).toEqual([...asks].sort((x, y) => x - y));
		expect(bids[0]).toBeLessThan(asks[0]);
	});

	it('depth: limit 200 is the most; 201, 0 and junk are 0001 naming limit', async () => {
		expect((await get('/quote/v1/depth', { symbol: 'BTCUSDT', limit: 200 })).json.b).toHaveLength(
			200,
		);
		for (const limit of ['201', '0', 'x']) {
			const r = await get('/quote/v1/depth', { symbol: 'BTCUSDT', limit });
			expect(r.json).toEqual({
				code: '0001',
				msg: "Required field 'limit' missing or invalid (1 to 200)",
			});
		}
		expect((await get('/quote/v1/depth', {})).json).toEqual({
			code: '0001',
			msg: "Required field 'symbol' missing or invalid",
		});
	});

	it('trades: [{t, p, q, ibm}], oldest first, 100 by default, at most 100', async () => {
		const r = await get('/quote/v1/trades', { symbol: 'SOLUSDT' });
		expect(r.json).toHaveLength(100);
		for (const tr of r.json) {
			expect(Object.keys(tr)).toEqual(['t', 'p', 'q', 'ibm']);
			expect(typeof tr.t).toBe('number');
			expect(tr.p).toMatch(DECIMAL);
			expect(tr.q).toMatch(DECIMAL);
			expect(typeof tr.ibm).toBe('boolean');
		}
		const times = r.json.map((tr: { t: number }) => tr.t);
		expect(times).toEqual([...times].sort((x, y) => x - y));
		expect(times.at(-1)).toBeLessThanOrEqual(T0);
		expect((await get('/quote/v1/trades', { symbol: 'SOLUSDT', limit: 5 })).json).toHaveLength(5);
		expect((await get('/quote/v1/trades', { symbol: 'SOLUSDT', limit: 101 })).json.code).toBe(
			'0001',
		);
	});
});

describe('GET /quote/v1/klines', () => {
	it("rows in the documentation's order: open time, OHLC, volume, close time 0, quote volume, trades, taker volumes", async () => {
		const r = await get('/quote/v1/klines', { symbol: 'BTCUSDT', interval: '1m', limit: 3 });
		expect(r.json).toHaveLength(3);
		const openNow = Math.floor(T0 / MINUTE) * MINUTE;
		expect(r.json.map((k: unknown[]) => k[0])).toEqual([
			openNow - 2 * MINUTE,
			openNow - MINUTE,
			openNow,
		]);
		for (const k of r.json) {
			expect(k).toHaveLength(11);
			expect(k[6]).toBe(0);
			expect(typeof k[8]).toBe('number');
			for (const i of [1, 2, 3, 4, 5, 7, 9, 10]) expect(k[i]).toMatch(DECIMAL);
			expect(Number(k[2])).toBeGreaterThanOrEqual(Math.max(Number(k[1]), Number(k[4])));
			expect(Number(k[3])).toBeLessThanOrEqual(Math.min(Number(k[1]), Number(k[4])));
			expect(Number(k[9])).toBeLessThanOrEqual(Number(k[5]));
		}
	});

	it('a range holding more than limit gives its NEWEST limit candles, oldest first', async () => {
		const start = T0 - 10 * 3_600_000;
		const end = T0 - 3_600_000;
		const r = await get('/quote/v1/klines', {
			symbol: 'BTCUSDT',
			interval: '1h',
			startTime: start,
			endTime: end,
			limit: 3,
		});
		const endOpen = Math.floor(end / 3_600_000) * 3_600_000;
		expect(r.json.map((k: unknown[]) => k[0])).toEqual([
			endOpen - 2 * 3_600_000,
			endOpen - 3_600_000,
			endOpen,
		]);
		// the whole range: every candle opening in [start, end]
		const all = await get('/quote/v1/klines', {
			symbol: 'BTCUSDT',
			interval: '1h',
			startTime: start,
			endTime: end,
		});
		expect(all.json[0][0]).toBeGreaterThanOrEqual(start);
		expect(all.json.at(-1)[0]).toBe(endOpen);
		expect(all.json.slice(-3)).toEqual(r.json);
	});

	it('an end after now is cut to now; no candle of the future', async () => {
		const r = await get('/quote/v1/klines', {
			symbol: 'ETHUSDT',
			interval: '1m',
			endTime: T0 + 3_600_000,
			limit: 2,
		});
		expect(r.json.at(-1)[0]).toBe(Math.floor(T0 / MINUTE) * MINUTE);
	});

	it('1M candles open on the first of each calendar month (UTC)', async () => {
		const r = await get('/quote/v1/klines', { symbol: 'BTCUSDT', interval: '1M', limit: 14 });
		expect(r.json).toHaveLength(14);
		for (const k of r.json) {
			const d = new Date(k[0]);
			expect([d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()]).toEqual([1, 0, 0]);
		}
		const months = r.json.map((k: number[]) => new Date(k[0]).getUTCMonth());
		for (let i = 1; i < months.length; i++) expect(months[i]).toBe((months[i - 1] + 1) % 12);
	});

	it('refuses a missing or unknown interval, a bad time, start after end, limit over 1000 (0001)', async () => {
		const base = { symbol: 'BTCUSDT', interval: '1m' };
		const cases: Array<[Record<string, string | number | undefined>, string]> = [
			[{ ...base, interval: undefined }, 'interval'],
			[{ ...base, interval: '2m' }, 'interval'],
			[{ ...base, startTime: 'yesterday' }, 'startTime'],
			[{ ...base, startTime: T0, endTime: T0 - 1 }, 'startTime'],
			[{ ...base, limit: 1001 }, 'limit'],
		];
		for (const [params, field] of cases) {
			const r = await get('/quote/v1/klines', params);
			expect(r.status).toBe(400);
			expect(r.json.code).toBe('0001');
			expect(r.json.msg).toContain(`'${field}'`);
		}
		expect((await get('/quote/v1/klines', { ...base, limit: 1000 })).json).toHaveLength(1000);
	});
});
