import { DEMO_KEYS, startSandbox, type Sandbox } from '../index';
import { TestClient } from '../testClient';

const T0 = 1_800_000_000_000;
let sb: Sandbox;
let master: TestClient;
let sub: TestClient;

beforeAll(async () => {
	sb = await startSandbox({ now: () => T0, rateLimit: false });
	master = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
	sub = master.withCredentials(DEMO_KEYS.sub);
});
afterAll(async () => {
	await sb.stop();
});
beforeEach(() => sb.reset());

const limitBuy = {
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	quantity: '0.01',
	price: '40000',
};
const marketBuy = { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.1' };

describe('GET /api/v1/spot/order', () => {
	it("finds an order by orderId, in the family's query shape (ids, times and decimals as strings)", async () => {
		const placed = (await master.order({ ...limitBuy, newClientOrderId: 'q-1' })).json;
		const r = await master.queryOrder({ orderId: placed.orderId });
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			accountId: '10001',
			exchangeId: '301',
			symbol: 'BTCUSDT',
			symbolName: 'BTCUSDT',
			clientOrderId: 'q-1',
			orderId: placed.orderId,
			price: '40000',
			origQty: '0.01',
			executedQty: '0',
			cumulativeQuoteQty: '0',
			cummulativeQuoteQty: '0',
			avgPrice: '0',
			status: 'NEW',
			timeInForce: 'GTC',
			type: 'LIMIT',
			side: 'BUY',
			stopPrice: '0.0',
			icebergQty: '0.0',
			time: String(T0),
			updateTime: String(T0),
			isWorking: true,
			reqAmount: '0',
			stpMode: 'EXPIRE_TAKER',
			feeCoin: '',
			feeAmount: '0',
			sumFeeAmount: '0',
		});
		expect(sb.getOrder(placed.orderId)).toEqual(r.json);
	});

	it('finds an order by origClientOrderId; a filled MARKET order shows what it executed', async () => {
		await master.order({ ...marketBuy, newClientOrderId: 'mk' });
		const r = await master.queryOrder({ origClientOrderId: 'mk' });
		expect(r.json).toMatchObject({
			clientOrderId: 'mk',
			status: 'FILLED',
			type: 'MARKET',
			price: '0',
			executedQty: '0.1',
			cumulativeQuoteQty: '5000',
			avgPrice: '50000',
			sumFeeAmount: '5',
		});
	});

	it('a reused client order id finds the open order first, else the newest one', async () => {
		const m1 = (await master.order({ ...marketBuy, newClientOrderId: 'x' })).json;
		const m2 = (await master.order({ ...marketBuy, newClientOrderId: 'x' })).json;
		expect((await master.queryOrder({ origClientOrderId: 'x' })).json.orderId).toBe(m2.orderId);
		const open = (await master.order({ ...limitBuy, newClientOrderId: 'x' })).json;
		await master.order({ ...marketBuy, newClientOrderId: 'x' });
		expect((await master.queryOrder({ origClientOrderId: 'x' })).json.orderId).toBe(open.orderId);
		expect((await master.queryOrder({ orderId: m1.orderId })).json.clientOrderId).toBe('x');
	});

	it('orderId wins when both ids are sent', async () => {
		const a = (await master.order({ ...limitBuy, newClientOrderId: 'a' })).json;
		await master.order({ ...limitBuy, newClientOrderId: 'b' });
		expect(
			(await master.queryOrder({ orderId: a.orderId, origClientOrderId: 'b' })).json.clientOrderId,
		).toBe('a');
	});

	it('answers 0211 (Order not found) for an unknown id, and for an order of an account the key cannot see', async () => {
		const notFound = { code: '0211', msg: 'Order not found' };
		const a = await master.queryOrder({ orderId: '1950000000000000999' });
		expect([a.status, a.json]).toEqual([400, notFound]);
		expect((await master.queryOrder({ origClientOrderId: 'never-sent' })).json).toEqual(notFound);
		const mine = (await master.order({ ...limitBuy, newClientOrderId: 'mine' })).json;
		expect((await sub.queryOrder({ orderId: mine.orderId })).json).toEqual(notFound);
		expect((await sub.queryOrder({ origClientOrderId: 'mine' })).json).toEqual(notFound);
	});

	it("a master key sees its sub account's orders, or one account with accountId; other accountIds get 0104", async () => {
		const s = (await sub.order({ ...limitBuy, newClientOrderId: 's' })).json;
		expect((await master.queryOrder({ orderId: s.orderId })).json.accountId).toBe('20001');
		expect((await master.queryOrder({ orderId: s.orderId, accountId: '20001' })).status).toBe(200);
		expect((await master.queryOrder({ orderId: s.orderId, accountId: '10001' })).json.code).toBe(
			'0211',
		);
		const other = await master.queryOrder({ orderId: s.orderId, accountId: '10005' });
		expect([other.status, other.json.code]).toEqual([400, '0104']);
		expect((await sub.queryOrder({ orderId: s.orderId, accountId: '10001' })).json.code).toBe(
			'0104',
		);
	});

	it.each([
		[{}, 'orderId'],
		[{ orderId: 'abc' }, 'orderId'],
		[{ origClientOrderId: '' }, 'origClientOrderId'],
		[{ orderId: '1', accountId: 'x' }, 'accountId'],
	])('rejects %j with 0001 naming %s', async (params, field) => {
		const r = await master.queryOrder(params);
		expect([r.status, r.json.code]).toEqual([400, '0001']);
		expect(r.json.msg).toContain(`'${field}'`);
	});

	it('is a signed read: weight 1, any key with read permission', async () => {
		const ro = master.withCredentials(DEMO_KEYS.readOnly);
		const placed = (await master.order(limitBuy)).json;
		expect((await ro.queryOrder({ orderId: placed.orderId })).status).toBe(200);
		expect(
			(await master.queryOrder({ orderId: placed.orderId }, { signatureIn: 'none' })).json.code,
		).toBe('0001');
		expect(sb.ledger.requests.filter((r) => r.method === 'GET').map((r) => r.weight)).toEqual([
			1, 1,
		]);
	});
});
