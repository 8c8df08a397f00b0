import { DEMO_KEYS, startSandbox, type HistoryRecord, type Sandbox } from '../index';
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
const hist = async (flowType: number, c: TestClient = master) =>
	(await c.history({ flowType, startTime: T0 - 1000, endTime: T0, limit: 500 }))
		.json as HistoryRecord[];

describe('POST /api/v1/spot/new/order', () => {
	it('places a LIMIT order that rests NEW (its cost locked, no records), ids and decimals as strings', async () => {
		const r = await master.order({ ...limitBuy, newClientOrderId: 'my-1' });
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			accountId: '10001',
			symbol: 'BTCUSDT',
			symbolName: 'BTCUSDT',
			clientOrderId: 'my-1',
			orderId: expect.stringMatching(/^\d{1,20}$/),
			transactTime: String(T0),
			price: '40000',
			origQty: '0.01',
			executedQty: '0',
			status: 'NEW',
			timeInForce: 'GTC',
			type: 'LIMIT',
			side: 'BUY',
			reqAmount: '0',
		});
		expect(Number(r.json.orderId)).toBeGreaterThan(Number.MAX_SAFE_INTEGER); // hence strings
		expect(sb.getBalance('10001', 'USDT')).toBe('100000');
		expect(sb.getBalanceDetail('10001', 'USDT')).toEqual({
			free: '99600',
			locked: '400',
			total: '100000',
		});
		expect(await hist(1)).toEqual([]);
		expect(sb.ledger.orders).toEqual([
			{ ...r.json, via: 'single', apiKey: DEMO_KEYS.master.apiKey },
		]);
	});

	it('generates a client order id when absent; LIMIT_MAKER rests too', async () => {
		const r = await master.order({ ...limitBuy, type: 'LIMIT_MAKER', timeInForce: 'GTC' });
		expect(r.status).toBe(200);
		expect(r.json.clientOrderId).toMatch(/.+/);
		expect(r.json.type).toBe('LIMIT_MAKER');
		expect(r.json.status).toBe('NEW');
	});

	it('normalizes decimals ("0.0100" -> "0.01")', async () => {
		const r = await master.order({ ...limitBuy, quantity: '0.0100', price: '040000.00' });
		expect([r.json.origQty, r.json.price]).toEqual(['0.01', '40000']);
	});

	it.each([
		[{ ...limitBuy, symbol: undefined }, 'symbol'],
		[{ ...limitBuy, side: 'HOLD' }, 'side'],
		[{ ...limitBuy, type: 'STOP' }, 'type'],
		[{ ...limitBuy, price: undefined }, 'price'],
		[{ ...limitBuy, quantity: undefined }, 'quantity'],
		[{ ...limitBuy, type: 'LIMIT_MAKER', price: undefined }, 'price'],
		[{ ...limitBuy, amount: '100' }, 'amount'],
		[{ ...limitBuy, timeInForce: 'IOC' }, 'timeInForce'],
		[{ ...limitBuy, timeInForce: 'FOK' }, 'timeInForce'],
		[
			{ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.01', timeInForce: 'GTC' },
			'timeInForce',
		],
		[{ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.01', price: '50000' }, 'price'],
		[{ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET' }, 'quantity'],
		[{ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.01', amount: '100' }, 'amount'],
		[{ symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', amount: '100' }, 'amount'],
		[{ ...limitBuy, quantity: '1e-2' }, 'quantity'],
		[{ ...limitBuy, quantity: '-0.01' }, 'quantity'],
		[{ ...limitBuy, quantity: '0' }, 'quantity'],
		[{ ...limitBuy, quantity: '.5' }, 'quantity'],
		[{ ...limitBuy, price: 'abc' }, 'price'],
		[{ ...limitBuy, stpMode: 'CANCEL_BOTH' }, 'stpMode'],
		[{ ...limitBuy, newClientOrderId: 'x'.repeat(256) }, 'newClientOrderId'],
		[{ ...limitBuy, newClientOrderId: '' }, 'newClientOrderId'],
	])('rejects %j with 0001 naming %s', async (params, field) => {
		const r = await master.order(params);
		expect(r.status).toBe(400);
		expect(r.json.code).toBe('0001');
		expect(r.json.msg).toContain(`'${field}'`);
		expect(sb.ledger.orders).toHaveLength(0);
	});

	it('accepts a 255-character client order id and both stpModes', async () => {
		expect((await master.order({ ...limitBuy, newClientOrderId: 'y'.repeat(255) })).status).toBe(
			200,
		);
		expect((await master.order({ ...limitBuy, stpMode: 'EXPIRE_MAKER' })).status).toBe(200);
		expect((await master.order({ ...limitBuy, stpMode: 'EXPIRE_TAKER' })).status).toBe(200);
	});

	it('rejects an unknown symbol with 0201 (Instrument not found)', async () => {
		const r = await master.order({ ...limitBuy, symbol: 'DOGEUSDT' });
		expect(r.status).toBe(400);
		expect(r.json).toEqual({ code: '0201', msg: "Instrument not found: 'DOGEUSDT'" });
		expect((await master.order({ ...limitBuy, symbol: 'btcusdt' })).json.code).toBe('0201');
	});

	it('rejects insufficient balance with 0401 (BUY checks quote, SELL checks base)', async () => {
		const buy = await master.order({ ...limitBuy, quantity: '2.00000001', price: '50000' }); // 100000.0005 USDT
		expect(buy.json).toEqual({ code: '0401', msg: 'Insufficient asset' });
		expect((await master.order({ ...limitBuy, quantity: '2', price: '50000' })).status).toBe(200);
		const sell = await master.order({ ...limitBuy, side: 'SELL', quantity: '10.1' });
		expect(sell.json.code).toBe('0401');
		// the sub key trades on the sub trading account (1 BTC)
		expect((await sub.order({ ...limitBuy, side: 'SELL', quantity: '1.5' })).json.code).toBe(
			'0401',
		);
		const ok = await sub.order({ ...limitBuy, side: 'SELL', quantity: '1' });
		expect(ok.json.accountId).toBe('20001');
	});

	it('MARKET BUY by quantity fills at the last price, moves balances, writes TRADE and FEE records', async () => {
		const r = await master.order({
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'MARKET',
			quantity: '0.1',
		});
		expect(r.status).toBe(200);
		expect(r.json).toMatchObject({
			status: 'FILLED',
			timeInForce: 'IOC',
			type: 'MARKET',
			price: '0',
			origQty: '0.1',
			executedQty: '0.1',
			reqAmount: '0',
		});
		// cost 5000, fee 0.1% = 5 USDT
		expect(sb.getBalance('10001', 'BTC')).toBe('10.1');
		expect(sb.getBalance('10001', 'USDT')).toBe('94995');
		const trades = await hist(1);
		expect(trades.map((x) => [x.coin, x.change, x.total, x.flowType, x.symbol])).toEqual([
			['USDT', '-5000', '95000', 'TRADE', 'BTCUSDT'],
			['BTC', '0.1', '10.1', 'TRADE', 'BTCUSDT'],
		]);
		const fees = await hist(2);
		expect(
			fees.map((x) => [x.accountId, x.coin, x.change, x.total, x.flowType, x.symbol, x.created]),
		).toEqual([['10001', 'USDT', '-5', '94995', 'FEE', 'BTCUSDT', String(T0)]]);
	});

	it('MARKET BUY by amount (quote cash) buys what the amount pays for, truncated to 8 decimals', async () => {
		const r = await master.order({
			symbol: 'ETHUSDT',
			side: 'BUY',
			type: 'MARKET',
			amount: '1000',
		});
		expect(r.json).toMatchObject({
			status: 'FILLED',
			origQty: '0',
			reqAmount: '1000',
			executedQty: '0.33333333',
		});
		// cost 0.33333333 * 3000 = 999.99999, fee 0.99999999
		expect(sb.getBalance('10001', 'ETH')).toBe('100.33333333');
		expect(sb.getBalance('10001', 'USDT')).toBe('98999.00001001');
	});

	it('MARKET SELL receives quote minus fee; insufficient market orders change nothing', async () => {
		const r = await master.order({
			symbol: 'SOLUSDT',
			side: 'SELL',
			type: 'MARKET',
			quantity: '10',
		});
		expect(r.json.executedQty).toBe('10');
		expect(sb.getBalance('10001', 'SOL')).toBe('990');
		expect(sb.getBalance('10001', 'USDT')).toBe('101498.5'); // +1500 - 1.5
		sb.setBalance('10001', 'USDT', '5004.99');
		const poor = await master.order({
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'MARKET',
			quantity: '0.1',
		}); // needs 5005
		expect(poor.json.code).toBe('0401');
		expect(sb.getBalance('10001', 'USDT')).toBe('5004.99');
		expect(sb.getBalance('10001', 'BTC')).toBe('10');
	});

	it('a sub key market order writes records the sub key (and the master) can read', async () => {
		await sub.order({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.01' });
		expect(sb.getBalance('20001', 'USDT')).toBe('9499.5');
		expect((await hist(1, sub)).map((x) => x.accountId)).toEqual(['20001', '20001']);
		expect((await hist(2, sub)).map((x) => x.change)).toEqual(['-0.5']);
		expect((await hist(2, master)).map((x) => x.accountId)).toEqual(['20001']);
	});
});

describe("duplicate client order id (unique among the account's OPEN orders, across both endpoints)", () => {
	it('single then single', async () => {
		expect((await master.order({ ...limitBuy, newClientOrderId: 'dup' })).status).toBe(200);
		const again = await master.order({ ...limitBuy, newClientOrderId: 'dup' });
		expect(again.status).toBe(400);
		expect(again.json).toEqual({
			code: '-1141',
			msg: "Duplicate order: clientOrderId 'dup' is already in use",
		});
		expect(sb.ledger.orders).toHaveLength(1);
	});

	it('single then batch, batch then single, and twice within one batch', async () => {
		await master.order({ ...limitBuy, newClientOrderId: 'a' });
		const b = await master.batch([
			{ ...limitBuy, newClientOrderId: 'a' },
			{ ...limitBuy, newClientOrderId: 'b' },
			{ ...limitBuy, newClientOrderId: 'b' },
		]);
		expect(b.json.result.map((x: { code: number }) => x.code)).toEqual([-1141, 0, -1141]);
		expect(b.json.result[0].msg).toMatch(/^Create order failed: Duplicate order/);
		expect(b.json.result[0].msg).toContain('newClientOrderId');
		expect((await master.order({ ...limitBuy, newClientOrderId: 'b' })).json.code).toBe('-1141');
	});

	it('a filled MARKET order does not hold its id: a blind re-send with the same id fills twice', async () => {
		const m = {
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'MARKET',
			quantity: '0.1',
			newClientOrderId: 'm',
		};
		const first = await master.order(m);
		const second = await master.order(m);
		expect([first.status, first.json.status, second.status, second.json.status]).toEqual([
			200,
			'FILLED',
			200,
			'FILLED',
		]);
		expect(second.json.orderId).not.toBe(first.json.orderId);
		expect(sb.getBalance('10001', 'BTC')).toBe('10.2');
		expect(sb.ledger.orders.map((o) => o.clientOrderId)).toEqual(['m', 'm']);
		// within one batch too
		const b = await master.batch([m, m]);
		expect(b.json.result.map((x: { code: number }) => x.code)).toEqual([0, 0]);
		expect(sb.getBalance('10001', 'BTC')).toBe('10.4');
	});

	it('is per account: the sub key may reuse the master key id; rejected orders do not take the id', async () => {
		await master.order({ ...limitBuy, newClientOrderId: 'shared' });
		expect((await sub.order({ ...limitBuy, newClientOrderId: 'shared' })).status).toBe(200);
		expect(
			(await master.order({ ...limitBuy, price: '-1', newClientOrderId: 'later' })).status,
		).toBe(400);
		expect((await master.order({ ...limitBuy, newClientOrderId: 'later' })).status).toBe(200);
	});
});

describe('POST /api/v1/spot/batchOrders', () => {
	it('places each order independently: one bad order does not sink the others', async () => {
		const r = await master.batch([
			{ ...limitBuy, newClientOrderId: 'b1' },
			{ ...limitBuy, price: undefined, newClientOrderId: 'b2' },
			{ symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: 0.5, newClientOrderId: 'b3' },
			{ ...limitBuy, quantity: '1000' },
			'not an order',
		]);
		expect(r.status).toBe(200);
		expect(r.json.code).toBe(0);
		expect(r.json.concentration).toBe('');
		expect(r.json.stpMode).toBe('EXPIRE_TAKER');
		const res = r.json.result as Array<{
			code: number;
			msg: string;
			order?: { clientOrderId: string; status: string };
		}>;
		expect(res.map((x) => x.code)).toEqual([0, 1, 0, 401, 1]);
		expect(res[0]).toEqual({
			code: 0,
			msg: 'success',
			order: expect.objectContaining({ clientOrderId: 'b1', status: 'NEW' }),
		});
		expect(res[1].msg).toMatch(/^Create order failed: .*'price'/);
		expect(res[1].order).toBeUndefined();
		expect(res[2].order).toEqual(
			expect.objectContaining({ clientOrderId: 'b3', status: 'FILLED', executedQty: '0.5' }),
		);
		expect(res[3].msg).toMatch(/^Create order failed: Insufficient asset/);
		expect(sb.ledger.orders.map((o) => [o.clientOrderId, o.via])).toEqual([
			['b1', 'batch'],
			['b3', 'batch'],
		]);
	});

	it('accepts numbers as JSON numbers or strings, exactly (0.00000001 is not 1e-8), but no exponent notation', async () => {
		const body =
			'[{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":0.00000001,"price":40000.5},' +
			'{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":"0.00000002","price":"40000"},' +
			'{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":1e-8,"price":40000},' +
			'{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":-1,"price":40000},' +
			'{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":true,"price":40000}]';
		const r = await master.batch(body);
		const res = r.json.result;
		expect(res.map((x: { code: number }) => x.code)).toEqual([0, 0, 1, 1, 1]);
		expect([res[0].order.origQty, res[0].order.price]).toEqual(['0.00000001', '40000.5']);
		expect(res[1].order.origQty).toBe('0.00000002');
		for (const x of res.slice(2)) expect(x.msg).toContain("'quantity'");
	});

	it('reports an unknown symbol per order with 201 (the integer form of 0201)', async () => {
		const r = await master.batch([
			{ ...limitBuy, symbol: 'XYZUSDT' },
			{ ...limitBuy, symbol: 'XYZUSDT' },
		]);
		expect(r.status).toBe(200);
		expect(r.json.result.map((x: { code: number }) => x.code)).toEqual([201, 201]);
		expect(r.json.result[0].msg).toContain('symbol');
	});

	it('echoes the stpMode of the batch', async () => {
		const r = await master.batch([{ ...limitBuy, stpMode: 'EXPIRE_MAKER' }]);
		expect(r.json.stpMode).toBe('EXPIRE_MAKER');
	});

	it.each([
		[
			'mixed symbols',
			JSON.stringify([limitBuy, { ...limitBuy, symbol: 'ETHUSDT', price: '3000' }]),
		],
		['an empty array', '[]'],
		['an object', JSON.stringify(limitBuy)],
		['invalid JSON', '[{"symbol":'],
	])('rejects the whole request with 0001: %s', async (_what, body) => {
		const r = await master.batch(body);
		expect(r.status).toBe(400);
		expect(r.json.code).toBe('0001');
		expect(sb.ledger.orders).toHaveLength(0);
	});

	it('rejects more than 20 orders with -2022 (Order batch size exceeds the limit)', async () => {
		const r = await master.batch(Array.from({ length: 21 }, () => limitBuy));
		expect([r.status, r.json]).toEqual([
			400,
			{ code: '-2022', msg: 'Order batch size exceeds the limit (at most 20 orders per batch)' },
		]);
		expect(sb.ledger.orders).toHaveLength(0);
	});

	it('takes exactly 20 orders', async () => {
		const r = await master.batch(Array.from({ length: 20 }, () => limitBuy));
		expect(r.json.result).toHaveLength(20);
		expect(sb.ledger.orders).toHaveLength(20);
	});

	it('requires Content-Type application/json', async () => {
		const r = await master.batch([limitBuy], { contentType: 'text/plain' });
		expect(r.status).toBe(400);
		expect(r.json.code).toBe('0001');
		const ok = await master.batch([limitBuy], { contentType: 'application/json; charset=utf-8' });
		expect(ok.status).toBe(200);
	});
});
