/**
 * The order lifecycle (issue 13): resting orders lock funds, the test fills them on its own schedule,
 * orders are listed, cancelled one by one, by symbol or by ids; balances and an order test.
 */
import {
	DEMO_KEYS,
	startSandbox,
	type HistoryRecord,
	type OrderView,
	type Sandbox,
} from '../index';
import { TestClient, hmacHex, rawRequest } from '../testClient';

const T0 = 1_800_000_000_000;
const DAY = 86_400_000;
let clock = T0;
let sb: Sandbox;
let master: TestClient;
let sub: TestClient;

beforeAll(async () => {
	sb = await startSandbox({ now: () => clock, rateLimit: false });
	master = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
	sub = master.withCredentials(DEMO_KEYS.sub);
});
afterAll(async () => {
	await sb.stop();
});
beforeEach(() => {
	clock = T0;
	sb.reset();
});

const buy = (id?: string, extra: Record<string, string> = {}) => ({
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	quantity: '0.5',
	price: '40000',
	...(id ? { newClientOrderId: id } : {}),
	...extra,
});
const sell = (id?: string) => ({ ...buy(id), side: 'SELL', quantity: '2', price: '60000' });
const place = async (o: Record<string, string>, c: TestClient = master) => {
	const r = await c.order(o);
	expect(r.status).toBe(200);
	return r.json as { orderId: string; clientOrderId: string };
};
const hist = async (flowType: number) =>
	(await master.history({ flowType, startTime: T0 - DAY, endTime: clock, limit: 500 }))
		.json as HistoryRecord[];

describe('resting orders lock funds; the test fills them', () => {
	it('a LIMIT BUY locks price x quantity of the quote coin; free, locked and total follow', async () => {
		await place(buy('b'));
		expect(sb.getBalanceDetail('10001', 'USDT')).toEqual({
			free: '80000',
			locked: '20000',
			total: '100000',
		});
		expect(sb.getBalance('10001', 'USDT')).toBe('100000');
		const a = await master.account();
		expect(a.json.balances.find((x: { asset: string }) => x.asset === 'USDT')).toEqual({
			asset: 'USDT',
			assetId: 'USDT',
			assetName: 'USDT',
			total: '100000',
			free: '80000',
			locked: '20000',
		});
		// locked funds can be spent by neither another order nor a transfer
		expect((await master.order(buy(undefined, { quantity: '2.00000001' }))).json.code).toBe('0401');
		expect(
			(
				await master.transfer({
					fromAccountId: '10001',
					toAccountId: '10005',
					coin: 'USDT',
					quantity: '80000.01',
				})
			).json.code,
		).toBe('0401');
		expect(
			(
				await master.transfer({
					fromAccountId: '10001',
					toAccountId: '10005',
					coin: 'USDT',
					quantity: '80000',
				})
			).status,
		).toBe(200);
		expect(() => sb.setBalance('10001', 'USDT', '19999')).toThrow(/locked/);
	});

	it('fillOrder: NEW -> PARTIALLY_FILLED -> FILLED at the limit price; a BUY pays its fee in the base coin', async () => {
		const o = await place(buy('f'));
		clock = T0 + 1000;
		const half = sb.fillOrder(o.orderId, '0.2');
		expect(half).toMatchObject({
			status: 'PARTIALLY_FILLED',
			executedQty: '0.2',
			cumulativeQuoteQty: '8000',
			avgPrice: '40000',
			updateTime: String(T0 + 1000),
		});
		expect(sb.getBalanceDetail('10001', 'USDT')).toEqual({
			free: '80000',
			locked: '12000',
			total: '92000',
		});
		expect(sb.getBalance('10001', 'BTC')).toBe('10.1998'); // +0.2, fee 0.0002 BTC
		expect((await master.queryOrder({ orderId: o.orderId })).json.status).toBe('PARTIALLY_FILLED');
		const full = sb.fillOrder(o.orderId);
		expect(full).toMatchObject({
			status: 'FILLED',
			executedQty: '0.5',
			cumulativeQuoteQty: '20000',
			sumFeeAmount: '0.0005',
		});
		expect(sb.getBalanceDetail('10001', 'USDT')).toEqual({
			free: '80000',
			locked: '0',
			total: '80000',
		});
		expect(sb.getBalance('10001', 'BTC')).toBe('10.4995');
		expect((await hist(1)).map((r) => [r.coin, r.change])).toEqual([
			['USDT', '-12000'],
			['BTC', '0.3'],
			['USDT', '-8000'],
			['BTC', '0.2'],
		]);
		expect((await hist(2)).map((r) => [r.coin, r.change, r.symbol])).toEqual([
			['BTC', '-0.0003', 'BTCUSDT'],
			['BTC', '-0.0002', 'BTCUSDT'],
		]);
		// a filled order no longer holds its client order id
		expect((await master.order(buy('f'))).status).toBe(200);
	});

	it('a SELL locks the base coin and receives the quote coin minus the fee', async () => {
		const o = await place(sell('s'));
		expect(sb.getBalanceDetail('10001', 'BTC')).toEqual({ free: '8', locked: '2', total: '10' });
		sb.fillOrder(o.orderId);
		expect(sb.getBalanceDetail('10001', 'BTC')).toEqual({ free: '8', locked: '0', total: '8' });
		expect(sb.getBalance('10001', 'USDT')).toBe('219880'); // +120000 - 120
	});

	it('advanceOrders: every open order takes one step, optionally for one symbol', async () => {
		const a = await place(buy('a'));
		const e = await place({
			symbol: 'ETHUSDT',
			side: 'BUY',
			type: 'LIMIT',
			quantity: '1',
			price: '2000',
		});
		const step1 = sb.advanceOrders('BTCUSDT');
		expect(step1.map((x) => [x.orderId, x.status, x.executedQty])).toEqual([
			[a.orderId, 'PARTIALLY_FILLED', '0.25'],
		]);
		expect(sb.getOrder(e.orderId)!.status).toBe('NEW');
		const step2 = sb.advanceOrders();
		expect(step2.map((x) => [x.orderId, x.status])).toEqual([
			[a.orderId, 'FILLED'],
			[e.orderId, 'PARTIALLY_FILLED'],
		]);
		expect(sb.advanceOrders().map((x) => x.status)).toEqual(['FILLED']);
		expect(sb.advanceOrders()).toEqual([]);
	});

	it('fillOrder refuses an unknown, final or overfilled order', async () => {
		const o = await place(buy());
		expect(() => sb.fillOrder('1')).toThrow(/no order/);
		expect(() => sb.fillOrder(o.orderId, '0.6')).toThrow(/exceeds/);
		expect(() => sb.fillOrder(o.orderId, '-1')).toThrow(/positive/);
		sb.fillOrder(o.orderId);
		expect(() => sb.fillOrder(o.orderId)).toThrow(/FILLED/);
	});
});

describe('DELETE /api/v1/spot/order', () => {
	it('cancels by orderId: CANCELED, funds unlocked, recorded in ledger.cancels; the client order id is free again', async () => {
		const o = await place(buy('c1'));
		clock = T0 + 5;
		const r = await master.cancelOrder({ orderId: o.orderId });
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			accountId: '10001',
			symbol: 'BTCUSDT',
			clientOrderId: 'c1',
			orderId: o.orderId,
			transactTime: String(T0 + 5),
			price: '40000',
			origQty: '0.5',
			executedQty: '0',
			status: 'CANCELED',
			timeInForce: 'GTC',
			type: 'LIMIT',
			side: 'BUY',
		});
		expect(sb.getBalanceDetail('10001', 'USDT').locked).toBe('0');
		expect(sb.ledger.cancels).toEqual([
			{
				orderId: o.orderId,
				clientOrderId: 'c1',
				accountId: '10001',
				status: 'CANCELED',
				via: 'single',
				apiKey: DEMO_KEYS.master.apiKey,
				at: T0 + 5,
			},
		]);
		expect((await master.order(buy('c1'))).status).toBe(200);
	});

	it('cancels by clientOrderId (the open order holding it), parameters in the query or a form body', async () => {
		const o = await place(buy('c2'));
		const r = await master.call({
			method: 'DELETE',
			path: '/api/v1/spot/order',
			form: { clientOrderId: 'c2' },
		});
		expect([r.status, r.json.orderId, r.json.status]).toEqual([200, o.orderId, 'CANCELED']);
	});

	it('a filled order gets -1139, a cancelled one -1142, a partly filled then cancelled one -1138; unknown ids -1143', async () => {
		const filled = await place(buy('x1'));
		sb.fillOrder(filled.orderId);
		expect(
			await master.cancelOrder({ orderId: filled.orderId }).then((r) => [r.status, r.json]),
		).toEqual([400, { code: '-1139', msg: 'Order has been filled' }]);
		expect((await master.cancelOrder({ clientOrderId: 'x1' })).json.code).toBe('-1139');
		const market = (
			await master.order({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.1' })
		).json;
		expect((await master.cancelOrder({ orderId: market.orderId })).json.code).toBe('-1139');

		const c = await place(buy('x2'));
		await master.cancelOrder({ orderId: c.orderId });
		expect((await master.cancelOrder({ orderId: c.orderId })).json).toEqual({
			code: '-1142',
			msg: 'Order has been cancelled',
		});

		const p = await place(buy('x3'));
		sb.fillOrder(p.orderId, '0.1');
		const pc = await master.cancelOrder({ orderId: p.orderId });
		expect([pc.json.status, pc.json.executedQty]).toEqual(['PARTIALLY_CANCELED', '0.1']);
		expect(sb.getBalanceDetail('10001', 'USDT').locked).toBe('0');
		expect((await master.cancelOrder({ orderId: p.orderId })).json.code).toBe('-1138');

		expect((await master.cancelOrder({ orderId: '1950000000000000999' })).json).toEqual({
			code: '-1143',
			msg: 'Order not found on order book',
		});
		expect((await master.cancelOrder({ clientOrderId: 'nope' })).json.code).toBe('-1143');
		expect(sb.ledger.cancels.map((x) => x.status)).toEqual(['CANCELED', 'PARTIALLY_CANCELED']);
	});

	it("a sub key cannot cancel the master account's order; a read-only key cannot cancel at all", async () => {
		const o = await place(buy('m'));
		expect((await sub.cancelOrder({ orderId: o.orderId })).json.code).toBe('-1143');
		expect(
			(await master.withCredentials(DEMO_KEYS.readOnly).cancelOrder({ orderId: o.orderId })).json
				.code,
		).toBe('-1005');
		expect(sb.getOrder(o.orderId)!.status).toBe('NEW');
	});

	it.each([
		[{}, 'orderId'],
		[{ orderId: '12x' }, 'orderId'],
		[{ clientOrderId: '' }, 'clientOrderId'],
	])('rejects %j with 0001 naming %s', async (params, field) => {
		const r = await master.cancelOrder(params);
		expect([r.status, r.json.code]).toEqual([400, '0001']);
		expect(r.json.msg).toContain(`'${field}'`);
	});

	it('unknownAfter on a cancel: applied, answered -1147 (Order cancellation timeout)', async () => {
		const o = await place(buy());
		sb.setFaults({ rules: [{ kind: 'unknownAfter', times: 1, method: 'DELETE' }] });
		const r = await master.cancelOrder({ orderId: o.orderId });
		expect([r.status, r.json]).toEqual([400, { code: '-1147', msg: 'Order cancellation timeout' }]);
		expect(sb.getOrder(o.orderId)!.status).toBe('CANCELED');
	});
});

describe('GET /api/v1/spot/openOrders', () => {
	it('lists open orders newest first, in the query shape; filters by symbol and side', async () => {
		const a = await place(buy('a'));
		const s = await place(sell('s'));
		const e = await place({
			symbol: 'ETHUSDT',
			side: 'BUY',
			type: 'LIMIT',
			quantity: '1',
			price: '2000',
		});
		const done = await place(buy('done'));
		sb.fillOrder(done.orderId);
		const all = (await master.openOrders()).json as OrderView[];
		expect(all.map((o) => o.orderId)).toEqual([e.orderId, s.orderId, a.orderId]);
		expect(all[0]).toEqual(sb.getOrder(e.orderId));
		expect(
			(await master.openOrders({ symbol: 'BTCUSDT' })).json.map((o: OrderView) => o.orderId),
		).toEqual([s.orderId, a.orderId]);
		expect(
			(await master.openOrders({ symbol: 'BTCUSDT', side: 'SELL' })).json.map(
				(o: OrderView) => o.orderId,
			),
		).toEqual([s.orderId]);
		expect((await master.openOrders({ symbol: 'SOLUSDT' })).json).toEqual([]);
	});

	it('pages with limit and fromOrderId (orders strictly older than it): Return All over several pages', async () => {
		const ids: string[] = [];
		for (let i = 0; i < 7; i++)
			ids.push((await place(buy(undefined, { quantity: '0.01' }))).orderId);
		const seen: string[] = [];
		let from: string | undefined;
		for (;;) {
			const page = (await master.openOrders({ limit: 3, ...(from ? { fromOrderId: from } : {}) }))
				.json as OrderView[];
			expect(page.length).toBeLessThanOrEqual(3);
			seen.push(...page.map((o) => o.orderId));
			if (page.length < 3) break;
			from = page[page.length - 1].orderId;
		}
		expect(seen).toEqual([...ids].reverse());
	});

	it('defaults to 500 per page, at most 1000', async () => {
		for (let i = 0; i < 3; i++) await place(buy(undefined, { quantity: '0.01' }));
		expect((await master.openOrders({ limit: 1000 })).json).toHaveLength(3);
		expect((await master.openOrders({ limit: 1001 })).json.code).toBe('0001');
		expect((await master.openOrders({ limit: 0 })).json.code).toBe('0001');
	});

	it('a master key without accountId sees the main account first, then the sub account; accountId narrows it', async () => {
		const s = await place(buy('s', { quantity: '0.1' }), sub);
		const m = await place(buy('m'));
		expect((await master.openOrders()).json.map((o: OrderView) => o.orderId)).toEqual([
			m.orderId,
			s.orderId,
		]);
		expect(
			(await master.openOrders({ accountId: '20001' })).json.map((o: OrderView) => o.orderId),
		).toEqual([s.orderId]);
		expect((await sub.openOrders()).json.map((o: OrderView) => o.orderId)).toEqual([s.orderId]);
		expect((await sub.openOrders({ accountId: '10001' })).json.code).toBe('0104');
	});

	it('an unknown symbol gets 0201; bad side or fromOrderId 0001', async () => {
		expect((await master.openOrders({ symbol: 'DOGEUSDT' })).json).toEqual({
			code: '0201',
			msg: "Instrument not found ('DOGEUSDT')",
		});
		expect((await master.openOrders({ side: 'HOLD' })).json.code).toBe('0001');
		expect((await master.openOrders({ fromOrderId: 'x' })).json.code).toBe('0001');
	});
});

describe('GET /api/v1/spot/tradeOrders (past orders)', () => {
	it('lists filled and cancelled orders newest first, pages by orderId, filters by symbol and time', async () => {
		const f = await place(buy('f'));
		sb.fillOrder(f.orderId);
		clock = T0 + 10;
		const c = await place(buy('c'));
		await master.cancelOrder({ orderId: c.orderId });
		const m = (
			await master.order({ symbol: 'ETHUSDT', side: 'BUY', type: 'MARKET', quantity: '1' })
		).json;
		await place(buy('open'));
		const all = (await master.tradeOrders()).json as OrderView[];
		expect(all.map((o) => [o.orderId, o.status])).toEqual([
			[m.orderId, 'FILLED'],
			[c.orderId, 'CANCELED'],
			[f.orderId, 'FILLED'],
		]);
		expect(
			(await master.tradeOrders({ limit: 1, orderId: m.orderId })).json.map(
				(o: OrderView) => o.orderId,
			),
		).toEqual([c.orderId]);
		expect((await master.tradeOrders({ symbol: 'ETHUSDT' })).json).toHaveLength(1);
		expect((await master.tradeOrders({ startTime: T0 + 1, endTime: T0 + 10 })).json).toHaveLength(
			2,
		);
		expect((await master.tradeOrders({ startTime: T0 + 11, endTime: T0 })).json.code).toBe('0001');
	});

	it('keeps past orders for 90 days', async () => {
		const f = await place(buy());
		sb.fillOrder(f.orderId);
		clock = T0 + 90 * DAY;
		expect((await master.tradeOrders()).json).toHaveLength(1);
		clock = T0 + 90 * DAY + 1;
		expect((await master.tradeOrders()).json).toHaveLength(0);
		expect(sb.ledger.requests.map((r) => r.weight)).toEqual([1, 5, 5]);
	});
});

describe('DELETE /api/v1/spot/openOrders', () => {
	it('cancels the newest 100 open orders by default (at most 200), and says where it stopped', async () => {
		const ids: string[] = [];
		for (let i = 0; i < 150; i++)
			ids.push((await place(buy(undefined, { quantity: '0.01' }))).orderId);
		const r = await master.cancelOpenOrders({ symbol: 'BTCUSDT' });
		expect(r.status).toBe(200);
		expect(r.json).toEqual({ code: '0', message: 'success', timestamp: T0, lastOrderId: ids[50] });
		expect((await master.openOrders()).json).toHaveLength(50);
		const rest = await master.cancelOpenOrders({ symbol: 'BTCUSDT', limit: 500 });
		expect(rest.json.lastOrderId).toBe(ids[0]);
		expect(sb.ledger.cancels).toHaveLength(150);
		expect(sb.ledger.cancels.every((c) => c.via === 'symbol')).toBe(true);
		expect(sb.getBalanceDetail('10001', 'USDT').locked).toBe('0');
		expect((await master.cancelOpenOrders({ symbol: 'BTCUSDT' })).json.lastOrderId).toBe('0');
	});

	it("cancels only the given symbol and side, and only the key's own trading account", async () => {
		const b = await place(buy());
		const s = await place(sell());
		const e = await place({
			symbol: 'ETHUSDT',
			side: 'BUY',
			type: 'LIMIT',
			quantity: '1',
			price: '2000',
		});
		const subOrder = await place(buy(undefined, { quantity: '0.1' }), sub);
		await master.cancelOpenOrders({ symbol: 'BTCUSDT', side: 'SELL' });
		expect([b, s, e, subOrder].map((o) => sb.getOrder(o.orderId)!.status)).toEqual([
			'NEW',
			'CANCELED',
			'NEW',
			'NEW',
		]);
		await master.cancelOpenOrders();
		expect([b, s, e, subOrder].map((o) => sb.getOrder(o.orderId)!.status)).toEqual([
			'CANCELED',
			'CANCELED',
			'CANCELED',
			'NEW',
		]);
		expect((await master.cancelOpenOrders({ symbol: 'XYZ' })).json.code).toBe('0201');
	});

	it('answers {"success": true} with cancelOpenOrdersAnswer "successOnly"', async () => {
		sb.setBehaviour({ cancelOpenOrdersAnswer: 'successOnly' });
		await place(buy());
		expect((await master.cancelOpenOrders({ symbol: 'BTCUSDT' })).json).toEqual({ success: true });
	});
});

describe('DELETE /api/v1/spot/cancelOrderByIds', () => {
	it('cancels each id; result lists only the ids that failed, with their codes as strings', async () => {
		const a = await place(buy('a'));
		const b = await place(buy('b'));
		const filled = await place(buy('f'));
		sb.fillOrder(filled.orderId);
		const unknown = '1950000000000000999';
		const r = await master.cancelOrdersByIds([
			a.orderId,
			filled.orderId,
			unknown,
			b.orderId,
			a.orderId,
		]);
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			code: '0000',
			result: [
				{ orderId: filled.orderId, code: '-1139' },
				{ orderId: unknown, code: '-1143' },
				{ orderId: a.orderId, code: '-1142' },
			],
		});
		expect(sb.ledger.cancels.map((c) => [c.orderId, c.via])).toEqual([
			[a.orderId, 'ids'],
			[b.orderId, 'ids'],
		]);
	});

	it('all cancelled: result [] (or null with cancelByIdsAllCancelled "null"); ids may be sent with raw commas', async () => {
		const a = await place(buy());
		expect((await master.cancelOrdersByIds([a.orderId])).json).toEqual({
			code: '0000',
			result: [],
		});
		const b = await place(buy());
		const c = await place(buy());
		sb.setBehaviour({ cancelByIdsAllCancelled: 'null' });
		const q = `ids=${b.orderId},${c.orderId}&timestamp=${T0}`;
		const r = await rawRequest(sb.baseUrl, {
			method: 'DELETE',
			url: `/api/v1/spot/cancelOrderByIds?${q}&signature=${hmacHex(DEMO_KEYS.master.secret, q)}`,
			headers: { 'X-APIKEY': DEMO_KEYS.master.apiKey },
		});
		expect(r.json).toEqual({ code: '0000', result: null });
		expect([b, c].map((o) => sb.getOrder(o.orderId)!.status)).toEqual(['CANCELED', 'CANCELED']);
	});

	it('more than 100 ids get -2022; malformed ids 0001', async () => {
		const many = Array.from({ length: 101 }, (_, i) => String(1950000000000000100n + BigInt(i)));
		expect((await master.cancelOrdersByIds(many)).json.code).toBe('-2022');
		expect((await master.cancelOrdersByIds('1,,2')).json.code).toBe('0001');
		expect((await master.cancelOrdersByIds('abc')).json.code).toBe('0001');
		const none = await master.call({ method: 'DELETE', path: '/api/v1/spot/cancelOrderByIds' });
		expect([none.json.code, none.json.msg]).toEqual([
			'0001',
			"Required field 'ids' missing or invalid (comma-separated order ids)",
		]);
		expect(sb.ledger.requests.map((r) => r.weight)).toEqual([5, 5, 5, 5]);
	});
});

describe('GET /api/v1/account', () => {
	it("lists every coin of the key's trading account with total, free and locked as decimal strings", async () => {
		sb.setBalance('10001', 'SOL', '0');
		const r = await master.account();
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			balances: [
				{ asset: 'BTC', assetId: 'BTC', assetName: 'BTC', total: '10', free: '10', locked: '0' },
				{ asset: 'ETH', assetId: 'ETH', assetName: 'ETH', total: '100', free: '100', locked: '0' },
				{ asset: 'SOL', assetId: 'SOL', assetName: 'SOL', total: '0', free: '0', locked: '0' },
				{
					asset: 'USDT',
					assetId: 'USDT',
					assetName: 'USDT',
					total: '100000',
					free: '100000',
					locked: '0',
				},
			],
			userId: '1830000000000000011',
		});
	});

	it("follows transfers and fills; accountId picks another of the key's accounts", async () => {
		await master.transfer({
			fromAccountId: '10001',
			toAccountId: '10005',
			coin: 'BTC',
			quantity: '0.5',
		});
		const custody = (await master.account({ accountId: '10005' })).json.balances;
		expect(custody.find((x: { asset: string }) => x.asset === 'BTC').total).toBe('5.5');
		const s = await place(sell());
		sb.fillOrder(s.orderId, '1');
		const main = (await master.account()).json.balances;
		expect(main.find((x: { asset: string }) => x.asset === 'BTC')).toMatchObject({
			total: '8.5',
			free: '7.5',
			locked: '1',
		});
		expect(
			(await sub.account()).json.balances.find((x: { asset: string }) => x.asset === 'USDT').total,
		).toBe('10000');
		expect((await sub.account({ accountId: '10001' })).json.code).toBe('0104');
		expect((await master.account({ accountId: 'x' })).json.code).toBe('0001');
	});
});

describe('POST /api/v1/spot/orderTest', () => {
	it('validates an order like a real one and answers {}; nothing is placed, locked or recorded', async () => {
		const r = await master.orderTest(buy('t'));
		expect([r.status, r.json]).toEqual([200, {}]);
		expect(sb.ledger.orders).toHaveLength(0);
		expect(sb.getBalanceDetail('10001', 'USDT')).toEqual({
			free: '100000',
			locked: '0',
			total: '100000',
		});
		expect((await master.openOrders()).json).toEqual([]);
		expect(
			(await master.orderTest({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.1' }))
				.status,
		).toBe(200);
		expect(sb.getBalance('10001', 'BTC')).toBe('10');
		expect(sb.ledger.requests.every((x) => x.weight === 1)).toBe(true);
	});

	it('answers the codes a real order would get', async () => {
		expect((await master.orderTest(buy(undefined, { price: '-1' }))).json.code).toBe('0001');
		expect((await master.orderTest(buy(undefined, { symbol: 'DOGEUSDT' }))).json.code).toBe('0201');
		expect((await master.orderTest(buy(undefined, { quantity: '3' }))).json.code).toBe('0401');
		await place(buy('dup'));
		expect((await master.orderTest(buy('dup'))).json.code).toBe('-1141');
		expect((await master.withCredentials(DEMO_KEYS.readOnly).orderTest(buy())).json.code).toBe(
			'-1005',
		);
	});
});
