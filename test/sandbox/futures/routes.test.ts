/**
 * futures/routes.ts: the GET /api/v2/futures/* endpoints over HTTP: signed, read, weight 1, class
 * 'query'; each answer in the UAE documentation's shape with decimals, ids and times as strings;
 * required parameters, limits and enums refused 0001 naming the field; unknown contracts (a spot
 * symbol too) 0201; the sub key's empty lists; fundingRate without a symbol answering [].
 */
import { DEMO_KEYS } from '../../../sandbox';
import { rateClassOf } from '../../../sandbox/routes/table';
import { useSandboxClients } from '../../support/sandbox';
import { T0 } from '../support';

let clock = T0 + 1000;
beforeEach(() => {
	clock = T0 + 1000;
});
const { sandbox, master, sub } = useSandboxClients({
	now: () => clock,
	rateLimit: false,
	requestRates: false,
});
const BTC = 'BTCUSDT-PERPETUAL';
const ETH = 'ETHUSDT-PERPETUAL';
type Q = Record<string, string | number>;
const get = async (path: string, query: Q = {}, c = master()) => {
	const r = await c.call({ method: 'GET', path: `/api/v2/futures/${path}`, query });
	return { status: r.status, json: r.json };
};
const refused = async (path: string, query: Q, code: string, text: RegExp) => {
	const r = await get(path, query);
	expect(r.status).toBe(400);
	expect(r.json.code).toBe(code);
	expect(r.json.msg).toMatch(text);
};

const PATHS = [
	['positions', {}],
	['balance', {}],
	['fundingRate', {}],
	['historyFundingRate', { symbol: BTC }],
	['historyFundingFees', { symbol: BTC, startTime: 0, endTime: T0 }],
	['openOrders', { type: 'LIMIT' }],
	['historyOrders', { symbol: BTC, type: 'LIMIT' }],
	['userTrades', { symbol: BTC }],
	['leverage', { symbol: BTC }],
	['commissionRate', { symbol: BTC }],
] as const;

describe('every futures endpoint', () => {
	it.each(PATHS)(
		'%s: signed, read permission, weight 1, a query in the ledger',
		async (path, q) => {
			expect((await get(path, q)).status).toBe(200);
			const entry = sandbox().ledger.requests.at(-1)!;
			expect(entry).toMatchObject({ weight: 1, status: 200 });
			expect(rateClassOf(`/api/v2/futures/${path}`, 'GET')).toBe('query');
			const ro = master().withCredentials(DEMO_KEYS.readOnly);
			expect((await get(path, q, ro)).status).toBe(200);
			const unsigned = await master().call({
				method: 'GET',
				path: `/api/v2/futures/${path}`,
				query: q,
				signatureIn: 'none',
			});
			expect(unsigned.json.code).toBe('0001');
		},
	);

	it.each(PATHS.filter(([, q]) => 'symbol' in q))(
		'%s: symbol required (0001), a spot symbol or unknown contract 0201',
		async (path, q) => {
			const rest: Q = { ...(q as Q) };
			delete rest.symbol;
			await refused(path, rest, '0001', /'symbol'/);
			await refused(path, { ...rest, symbol: '' }, '0001', /'symbol'/);
			await refused(path, { ...rest, symbol: 'BTCUSDT' }, '0201', /not a listed contract/);
			await refused(path, { ...rest, symbol: 'btcusdt-perpetual' }, '0201', /Instrument/);
		},
	);
});

describe('positions and balance', () => {
	it('positions in the documented shape; symbol and side filters; SHORT and the sub key answer []', async () => {
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.5', price: '50000' });
		sandbox().futures.fill({ symbol: ETH, side: 'BUY', quantity: '2', price: '2900' });
		const all = (await get('positions')).json;
		expect(all.map((p: { symbol: string }) => p.symbol)).toEqual([BTC, ETH]);
		expect(all[1]).toEqual({
			symbol: ETH,
			baseAsset: 'ETH',
			quoteAsset: 'USDT',
			avgPrice: '2900',
			leverage: '10',
			lastPrice: '3000',
			baseQty: '2',
			quoteQty: '6000',
			markPrice: '3000',
			liquidationPrice: '0',
			margin: '600',
			marginRate: '',
			profitRate: '0.3448',
			unrealizedPnL: '200',
			realizedPnL: '-3.48',
			marginType: 'CROSS',
			positionMode: 'net',
			positionSide: 'LONG',
			takeProfit: '',
			stopLoss: '',
		});
		expect((await get('positions', { symbol: ETH })).json).toEqual([all[1]]);
		expect((await get('positions', { side: 'LONG', symbol: BTC })).json).toEqual([all[0]]);
		expect((await get('positions', { side: 'SHORT' })).json).toEqual([]);
		await refused('positions', { side: 'long' }, '0001', /'side'.*LONG or SHORT/);
		expect((await get('positions', {}, sub())).json).toEqual([]);
		expect((await get('positions', { symbol: 'ETHUSDT' })).json.code).toBe('0201');
	});

	it('balance: [{asset, balance, availableBalance}] of the contract account; the sub key []', async () => {
		expect((await get('balance')).json).toEqual([
			{ asset: 'USDT', balance: '50000', availableBalance: '50000' },
		]);
		sandbox().futures.fill({ symbol: ETH, side: 'BUY', quantity: '2', price: '2900' });
		// available = balance + unrealized PnL (200) − margin (600)
		expect((await get('balance')).json).toEqual([
			{ asset: 'USDT', balance: '50000', availableBalance: '49600' },
		]);
		expect((await get('balance', {}, sub())).json).toEqual([]);
	});

	it('leverage: [{symbolId, leverage, marginType}]; commissionRate an object; the sub key gets no leverage', async () => {
		expect((await get('leverage', { symbol: BTC })).json).toEqual([
			{ symbolId: BTC, leverage: '5', marginType: 'ISOLATED' },
		]);
		expect((await get('leverage', { symbol: ETH })).json).toEqual([
			{ symbolId: ETH, leverage: '10', marginType: 'CROSS' },
		]);
		expect((await get('leverage', { symbol: BTC }, sub())).json).toEqual([]);
		const rates = { symbol: BTC, makerFeeRate: '0.00025', takerFeeRate: '0.0006' };
		expect((await get('commissionRate', { symbol: BTC })).json).toEqual(rates);
		expect((await get('commissionRate', { symbol: BTC }, sub())).json).toEqual(rates);
	});
});

describe('funding rates', () => {
	it('fundingRate: [] without a symbol, the running period with one; state only "current"', async () => {
		expect((await get('fundingRate')).json).toEqual([]);
		sandbox().futures.setFundingRates(BTC, ['-0.0005']);
		expect((await get('fundingRate', { symbol: BTC, state: 'current' })).json).toEqual([
			{ symbol: BTC, rate: '-0.0005', nextFundingTime: String(T0 + 8 * 3_600_000) },
		]);
		await refused('fundingRate', { symbol: BTC, state: 'next' }, '0001', /'state'/);
		expect((await get('fundingRate', { symbol: 'X' })).json.code).toBe('0201');
	});

	it('historyFundingRate: newest first, limit default 20 and 1..100, fromId/endId inclusive', async () => {
		const list = (await get('historyFundingRate', { symbol: BTC })).json;
		expect(list).toHaveLength(20);
		expect(Object.keys(list[0])).toEqual(['id', 'symbol', 'settleTime', 'settleRate']);
		expect(list[0]).toMatchObject({ symbol: BTC, settleTime: String(T0) });
		expect(list[1].settleTime).toBe(String(T0 - 8 * 3_600_000));
		expect(Number(list[0].id)).toBeGreaterThan(Number(list[1].id));
		expect((await get('historyFundingRate', { symbol: BTC, limit: 100 })).json).toHaveLength(90);
		await refused('historyFundingRate', { symbol: BTC, limit: 101 }, '0001', /'limit'.*1 to 100/);
		await refused('historyFundingRate', { symbol: BTC, limit: 0 }, '0001', /'limit'/);
		await refused('historyFundingRate', { symbol: BTC, fromId: 'x' }, '0001', /'fromId'/);
		await refused('historyFundingRate', { symbol: BTC, endId: -1 }, '0001', /'endId'/);
		await refused('historyFundingRate', { symbol: BTC, fromId: 9, endId: 5 }, '0001', /'fromId'/);
		const [a, b, c] = list;
		const range = await get('historyFundingRate', { symbol: BTC, fromId: c.id, endId: b.id });
		expect(range.json).toEqual([b, c]);
		const older = await get('historyFundingRate', { symbol: BTC, endId: a.id, limit: 2 });
		expect(older.json).toEqual([a, b]);
	});

	it('historyFundingFees: symbol, startTime, endTime required; limit 1..1000; accountId the own contract account', async () => {
		const q = { symbol: BTC, startTime: 0, endTime: T0 };
		expect((await get('historyFundingFees', q)).json).toEqual([]);
		await refused('historyFundingFees', { symbol: BTC, endTime: T0 }, '0001', /'startTime'/);
		await refused('historyFundingFees', { symbol: BTC, startTime: 0 }, '0001', /'endTime'/);
		await refused('historyFundingFees', { ...q, startTime: T0 + 1 }, '0001', /'startTime'/);
		await refused('historyFundingFees', { ...q, limit: 1001 }, '0001', /'limit'.*1 to 1000/);
		expect((await get('historyFundingFees', { ...q, accountId: '10003' })).status).toBe(200);
		await refused('historyFundingFees', { ...q, accountId: '10001' }, '0104', /futures account/);
		expect((await get('historyFundingFees', q, sub())).json).toEqual([]);
		const r = await sub().call({
			method: 'GET',
			path: '/api/v2/futures/historyFundingFees',
			query: { ...q, accountId: '10003' },
		});
		expect(r.json.code).toBe('0104');
	});
});
