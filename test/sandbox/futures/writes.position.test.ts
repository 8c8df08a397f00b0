/**
 * futures/writeRoutes.ts and trading.ts: POST /api/v2/futures/position/trading-stop (LONG only,
 * replaces, shown on GET positions, triggered by the mark), POST /api/v2/futures/leverage (1 to
 * 20, idempotent, used by later orders and the position), sb.futures.liquidate, the
 * contractExecutionReport events of every order change, the routes' weights and request-rate
 * class, and a fault on a futures write (applied, answer lost).
 */
import { DEMO_KEYS } from '../../../sandbox';
import { useSandboxClients } from '../../support/sandbox';
import { newListenKey, streamClients, type Json } from '../streamSupport';
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
const { open } = streamClients();
const BTC = 'BTCUSDT-PERPETUAL';
type Q = Record<string, string | number>;
const call = async (
	method: 'POST' | 'DELETE' | 'GET',
	path: string,
	query: Q = {},
	c = master(),
) => {
	const r = await c.call({ method, path: `/api/v2/futures/${path}`, query });
	return { status: r.status, json: r.json };
};
const buy = async (baseQty: string, extra: Q = {}) => {
	const r = await call('POST', 'order', {
		symbol: BTC,
		side: 'BUY',
		type: 'MARKET',
		baseQty,
		...extra,
	});
	expect(r.status).toBe(200);
	return r.json;
};
const position = async () => (await call('GET', 'positions', { symbol: BTC })).json[0];
const stopReq = (extra: Q) =>
	call('POST', 'position/trading-stop', { symbol: BTC, side: 'LONG', ...extra });

beforeEach(() => {
	sandbox().futures.setMarkPrice(BTC, '50000');
});

describe('POST /api/v2/futures/position/trading-stop', () => {
	it('sets, shows on GET positions, replaces (idempotent); the mark reaching TP closes the position', async () => {
		expect((await stopReq({ takeProfit: '55000' })).json).toEqual({
			code: '-1149',
			msg: expect.stringMatching(/no LONG position/),
		});
		await buy('0.2');
		expect(await position()).toMatchObject({ takeProfit: '', stopLoss: '' });
		const set = await stopReq({
			takeProfit: '55000',
			stopLoss: '45000',
			slTriggerBy: 'MARK_PRICE',
			tpSize: '0.1',
		});
		expect(set.json).toEqual({
			symbol: BTC,
			side: 'LONG',
			takeProfit: '55000',
			stopLoss: '45000',
			tpTriggerBy: 'CONTRACT_PRICE',
			slTriggerBy: 'MARK_PRICE',
			tpSize: '0.1',
			slSize: '',
		});
		expect(
			(
				await stopReq({
					takeProfit: '55000',
					stopLoss: '45000',
					slTriggerBy: 'MARK_PRICE',
					tpSize: '0.1',
				})
			).json,
		).toEqual(set.json);
		expect(await position()).toMatchObject({ takeProfit: '55000', stopLoss: '45000' });
		// not stop orders
		expect((await call('GET', 'openOrders', { type: 'STOP' })).json).toEqual([]);
		sandbox().futures.setMarkPrice(BTC, '55000');
		expect(await position()).toMatchObject({ baseQty: '0.1', takeProfit: '', stopLoss: '45000' });
		const [close] = (await call('GET', 'historyOrders', { symbol: BTC, type: 'LIMIT' })).json;
		expect(close).toMatchObject({
			orderType: 'market',
			side: 'SELL',
			reduceOnly: true,
			status: 'FILLED',
			avgPrice: '55000',
		});
		// replacing with a stop-loss alone clears the take-profit
		await stopReq({ stopLoss: '50000' });
		expect(await position()).toMatchObject({ takeProfit: '', stopLoss: '50000' });
		sandbox().futures.setMarkPrice(BTC, '49999.9');
		expect(await position()).toBeUndefined();
	});

	it('refusals name the field: SHORT, nothing to set, the wrong side of the mark, off the tick, the sub key', async () => {
		await buy('0.2');
		const cases: [Q, string, RegExp][] = [
			[{ side: 'SHORT', takeProfit: '55000' }, '0001', /'side'.*only LONG/],
			[{}, '0001', /'takeProfit'/],
			[{ takeProfit: '49000' }, '0001', /'takeProfit'.*above the mark price 50000/],
			[{ stopLoss: '51000' }, '0001', /'stopLoss'.*below/],
			[{ takeProfit: '55000.05' }, '0209', /tick/],
			[{ takeProfit: '55000', tpTriggerBy: 'LAST' }, '0001', /'tpTriggerBy'/],
			[{ takeProfit: '55000', tpSize: '0.3' }, '0001', /'tpSize'.*above the LONG position/],
			[{ stopLoss: '45000', tpSize: '0.1' }, '0001', /'tpSize'.*without takeProfit/],
			[{ symbol: 'BTCUSDT', takeProfit: '55000' }, '0201', /BTCUSDT/],
		];
		for (const [q, code, msg] of cases) {
			expect((await stopReq(q)).json).toEqual({ code, msg: expect.stringMatching(msg) });
		}
		expect((await stopReq({ takeProfit: '55000' })).status).toBe(200);
		const r = await sub().call({
			method: 'POST',
			path: '/api/v2/futures/position/trading-stop',
			query: { symbol: BTC, side: 'LONG', takeProfit: '56000' },
		});
		expect(r.json.code).toBe('0104');
		expect((await position()).takeProfit).toBe('55000');
	});
});

describe('POST /api/v2/futures/leverage', () => {
	it('an integer 1 to 20, idempotent; GET leverage, later orders and the position use it', async () => {
		const r = await call('POST', 'leverage', { symbol: BTC, leverage: 10 });
		expect(r.json).toEqual({ code: '0000', symbolId: BTC, leverage: '10' });
		expect((await call('POST', 'leverage', { symbol: BTC, leverage: 10 })).json).toEqual(r.json);
		expect((await call('GET', 'leverage', { symbol: BTC })).json).toEqual([
			{ symbolId: BTC, leverage: '10', marginType: 'ISOLATED' },
		]);
		expect((await buy('0.1')).leverage).toBe('10');
		expect(await position()).toMatchObject({ leverage: '10', margin: '500' });
		for (const bad of [0, 21, '5.5', 'x']) {
			expect((await call('POST', 'leverage', { symbol: BTC, leverage: bad })).json).toMatchObject({
				code: '0001',
				msg: expect.stringMatching(/'leverage'/),
			});
		}
		expect((await call('POST', 'leverage', { symbol: BTC })).json.code).toBe('0001');
		expect((await call('POST', 'leverage', { symbol: BTC, leverage: 2 }, sub())).json.code).toBe(
			'0104',
		);
	});

	it('refused 0401 when the open position would need more margin than is available', async () => {
		sandbox().setBalance('10003', 'USDT', '1200');
		await buy('0.1');
		// at 5: margin 1000 of 1200; at 1: 5000
		const r = await call('POST', 'leverage', { symbol: BTC, leverage: 1 });
		expect(r.json).toMatchObject({
			code: '0401',
			msg: expect.stringMatching(/insufficient balance/),
		});
		expect((await call('GET', 'leverage', { symbol: BTC })).json[0].leverage).toBe('5');
	});
});

describe('contractExecutionReport and sb.futures.liquidate', () => {
	const reports = (events: Json[]) => events.filter((e: Json) => e.e === 'contractExecutionReport');

	it('every order change, in the contract’s shape, to the owner’s keys only; a liquidation has lo true', async () => {
		const ws = await open(sandbox().stream.url(await newListenKey(master())));
		const subWs = await open(sandbox().stream.url(await newListenKey(sub())));
		const o = await buy('0.2', { clientOrderId: 'e-1' });
		const [created, filled] = reports(await ws.eventsAtLeast(3));
		expect(created).toEqual({
			e: 'contractExecutionReport',
			E: String(clock),
			s: BTC,
			c: 'e-1',
			S: 'BUY',
			o: 'MARKET',
			f: 'IOC',
			q: '0.2',
			p: '0',
			X: 'NEW',
			i: o.orderId,
			l: '0',
			z: '0',
			L: '0',
			n: '0',
			N: 'USDT',
			T: '',
			t: '',
			m: false,
			O: String(clock),
			Z: '0',
			C: false,
			v: '5',
			lo: false,
			lt: '',
		});
		const [trade] = (await call('GET', 'userTrades', { symbol: BTC })).json;
		expect(filled).toMatchObject({
			X: 'FILLED',
			l: '0.2',
			z: '0.2',
			L: '50000',
			n: '6',
			T: trade.time,
			t: trade.tradeId,
			Z: '10000',
		});
		const liq = sandbox().futures.liquidate(BTC);
		expect(liq.order).toMatchObject({
			isLiquidationOrder: true,
			liquidationType: 'LIQUIDATION_TAKER',
			orderType: 'market',
			side: 'SELL',
			status: 'FILLED',
		});
		expect(liq.position).toBeNull();
		const events = reports(await ws.eventsAtLeast(6));
		expect(events.slice(2)).toEqual([
			expect.objectContaining({ X: 'NEW', lo: true, lt: 'LIQUIDATION_TAKER', C: true, S: 'SELL' }),
			expect.objectContaining({ X: 'FILLED', lo: true, l: '0.2', i: liq.order.orderId }),
		]);
		expect(() => sandbox().futures.liquidate(BTC)).toThrow(/no BTCUSDT-PERPETUAL position/);
		expect(() => sandbox().futures.liquidate(BTC, DEMO_KEYS.sub)).toThrow(/no futures account/);
		expect(subWs.events).toEqual([]);
	});

	it('cancels and triggers report too; the controls’ orders as well', async () => {
		const ws = await open(sandbox().stream.url(await newListenKey(master())));
		const s = (
			await call('POST', 'order', {
				symbol: BTC,
				side: 'BUY',
				type: 'STOP',
				baseQty: '0.1',
				stopPrice: '51000',
			})
		).json;
		await call('DELETE', 'order', { orderId: s.orderId, type: 'STOP' });
		const r = sandbox().futures.placeOpenOrder({
			symbol: BTC,
			side: 'BUY',
			quantity: '0.1',
			price: '49000',
		});
		const events = reports(await ws.eventsAtLeast(3));
		expect(events.map((e: Json) => [e.i, e.o, e.X])).toEqual([
			[s.orderId, 'STOP', 'ORDER_NEW'],
			[s.orderId, 'STOP', 'ORDER_CANCELED'],
			[r.orderId, 'LIMIT', 'NEW'],
		]);
	});
});

describe('routes: weights, class and faults', () => {
	it('trade permission, order class, weights 1 (trading-stop 3); the read-only key is refused', async () => {
		await buy('0.1');
		await call('POST', 'position/trading-stop', { symbol: BTC, side: 'LONG', stopLoss: '40000' });
		await call('DELETE', 'cancelOrders', { side: 'BUY', orderType: 'LIMIT' });
		const entries = sandbox().ledger.requests.map((r) => [r.method, r.path, r.weight]);
		expect(entries).toEqual([
			['POST', '/api/v2/futures/order', 1],
			['POST', '/api/v2/futures/position/trading-stop', 3],
			['DELETE', '/api/v2/futures/cancelOrders', 1],
		]);
		const ro = master().withCredentials(DEMO_KEYS.readOnly);
		const refused = await call(
			'POST',
			'order',
			{ symbol: BTC, side: 'BUY', type: 'MARKET', baseQty: '0.1' },
			ro,
		);
		expect(refused.status).toBe(400);
		expect(refused.json.code).not.toBe('0000');
	});

	it('dropAfter on POST order: placed and filled, the answer lost; unknownAfter answers -1146', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'dropAfter', times: 1, path: '/api/v2/futures/order', method: 'POST' }],
		});
		await expect(buy('0.1', { clientOrderId: 'lost-1' })).rejects.toThrow(
			/socket hang up|ECONNRESET/,
		);
		expect((await call('GET', 'order', { clientOrderId: 'lost-1' })).json).toMatchObject({
			status: 'FILLED',
		});
		sandbox().setFaults({
			rules: [{ kind: 'unknownAfter', times: 1, path: '/api/v2/futures/order', method: 'DELETE' }],
		});
		const rest = (
			await call('POST', 'order', {
				symbol: BTC,
				side: 'BUY',
				type: 'LIMIT',
				baseQty: '0.1',
				price: '40000',
			})
		).json;
		const r = await call('DELETE', 'order', { orderId: rest.orderId, type: 'LIMIT' });
		expect(r.json.code).toBe('-1147');
		expect((await call('GET', 'order', { orderId: rest.orderId })).json.status).toBe('CANCELED');
		expect(
			sandbox()
				.ledger.requests.filter((q) => q.fault)
				.map((q) => [q.fault, q.appliedStatus]),
		).toEqual([
			['dropAfter', 200],
			['unknownAfter', 200],
		]);
	});

	it('batchReorder on POST batchOrders: every order placed, the entries reversed', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'batchReorder', times: 1, path: '/api/v2/futures/batchOrders' }],
		});
		const item = (price: string) => ({
			symbol: BTC,
			side: 'BUY',
			type: 'LIMIT',
			baseQty: '0.01',
			price,
		});
		const r = await master().call({
			method: 'POST',
			path: '/api/v2/futures/batchOrders',
			json: JSON.stringify([item('40000'), item('40000.05')]),
		});
		expect(r.json.result.map((e: Json) => e.code)).toEqual(['0209', '0000']);
		expect((await call('GET', 'openOrders', { type: 'LIMIT' })).json).toHaveLength(1);
	});
});
