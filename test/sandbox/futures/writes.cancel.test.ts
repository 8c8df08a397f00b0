/**
 * futures/writeRoutes.ts: DELETE /api/v2/futures/order (the type required; 0212 for an order not
 * open, of the other type or of no account of the key), DELETE /api/v2/futures/cancelOrders
 * (side and orderType required, newest first, fromOrderId exclusive, limit, lastOrderId paging),
 * and POST /api/v2/futures/batchOrders (one symbol, side and type; 20, or 3 STOP; each item its
 * own result, a batch half succeeding).
 */
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
const call = async (method: 'POST' | 'DELETE' | 'GET', path: string, query: Q, c = master()) => {
	const r = await c.call({ method, path: `/api/v2/futures/${path}`, query });
	return { status: r.status, json: r.json };
};
const place = async (query: Q) => {
	const r = await call('POST', 'order', query);
	expect(r.status).toBe(200);
	return r.json as { orderId: string; clientOrderId: string };
};
const limit = (price: string, extra: Q = {}) =>
	place({ symbol: BTC, side: 'BUY', type: 'LIMIT', baseQty: '0.01', price, ...extra });
const stop = (stopPrice: string, extra: Q = {}) =>
	place({ symbol: BTC, side: 'BUY', type: 'STOP', baseQty: '0.01', stopPrice, ...extra });
const status = async (orderId: string) => (await call('GET', 'order', { orderId })).json.status;
const batch = async (orders: unknown[], c = master()) => {
	const r = await c.call({
		method: 'POST',
		path: '/api/v2/futures/batchOrders',
		json: JSON.stringify(orders),
	});
	return { status: r.status, json: r.json };
};

beforeEach(() => {
	sandbox().futures.setMarkPrice(BTC, '50000');
	sandbox().futures.setMarkPrice(ETH, '3000');
});

describe('DELETE /api/v2/futures/order', () => {
	it('by orderId or clientOrderId, with its type: CANCELED (limit), ORDER_CANCELED (stop)', async () => {
		const a = await limit('49000', { clientOrderId: 'a-1' });
		const s = await stop('52000', { clientOrderId: 's-1' });
		const r = await call('DELETE', 'order', { clientOrderId: 'a-1', type: 'LIMIT' });
		expect(r).toMatchObject({
			status: 200,
			json: { orderId: a.orderId, status: 'CANCELED', orderType: 'limit' },
		});
		const rs = await call('DELETE', 'order', { orderId: s.orderId, type: 'STOP' });
		expect(rs.json).toMatchObject({ status: 'ORDER_CANCELED', orderType: 'stop' });
		expect(await status(s.orderId)).toBe('ORDER_CANCELED');
		// the ID is free again
		await limit('49000', { clientOrderId: 'a-1' });
	});

	it('a partly filled order is PARTIALLY_CANCELED', async () => {
		const a = await limit('49000', { baseQty: '0.02' });
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', orderId: a.orderId, quantity: '0.01' });
		const r = await call('DELETE', 'order', { orderId: a.orderId, type: 'LIMIT' });
		expect(r.json).toMatchObject({ status: 'PARTIALLY_CANCELED', executedBaseQty: '0.01' });
	});

	it('type required (0001); wrong type, final or unknown order → 0212; the sub key (no futures account) → 0104; nothing cancelled', async () => {
		const a = await limit('49000');
		expect((await call('DELETE', 'order', { orderId: a.orderId })).json).toMatchObject({
			code: '0001',
			msg: expect.stringMatching(/'type'/),
		});
		expect((await call('DELETE', 'order', { type: 'LIMIT' })).json.msg).toMatch(/'orderId'/);
		expect((await call('DELETE', 'order', { orderId: a.orderId, type: 'MARKET' })).json.code).toBe(
			'0001',
		);
		const wrongType = await call('DELETE', 'order', { orderId: a.orderId, type: 'STOP' });
		expect(wrongType).toMatchObject({ status: 400, json: { code: '0212' } });
		// the sub key has no futures account: refused as its orders and settings are
		expect(
			(await call('DELETE', 'order', { orderId: a.orderId, type: 'LIMIT' }, sub())).json.code,
		).toBe('0104');
		expect((await call('DELETE', 'order', { orderId: '1', type: 'LIMIT' })).json.code).toBe('0212');
		expect(await status(a.orderId)).toBe('NEW');
		const m = await place({ symbol: BTC, side: 'BUY', type: 'MARKET', baseQty: '0.01' });
		expect((await call('DELETE', 'order', { orderId: m.orderId, type: 'LIMIT' })).json.code).toBe(
			'0212',
		);
		await call('DELETE', 'order', { orderId: a.orderId, type: 'LIMIT' });
		expect((await call('DELETE', 'order', { orderId: a.orderId, type: 'LIMIT' })).json.code).toBe(
			'0212',
		);
	});
});

describe('DELETE /api/v2/futures/cancelOrders', () => {
	it('side and orderType required; newest first, at most limit; lastOrderId pages until "0"', async () => {
		const ids: string[] = [];
		for (let i = 0; i < 5; i++) ids.push((await limit(String(49000 - i))).orderId);
		const eth = await place({
			symbol: ETH,
			side: 'BUY',
			type: 'LIMIT',
			baseQty: '1',
			price: '2900',
		});
		const s = await stop('52000');
		expect((await call('DELETE', 'cancelOrders', { orderType: 'LIMIT' })).json.msg).toMatch(
			/'side'/,
		);
		expect((await call('DELETE', 'cancelOrders', { side: 'BUY' })).json.msg).toMatch(/'orderType'/);
		expect(
			(await call('DELETE', 'cancelOrders', { side: 'BUY', orderType: 'LIMIT', limit: 201 })).json
				.code,
		).toBe('0001');
		const q = { side: 'BUY', orderType: 'LIMIT', symbol: BTC, limit: 2 };
		const first = await call('DELETE', 'cancelOrders', q);
		expect(first.json).toEqual({
			code: '0000',
			message: 'success',
			timestamp: clock,
			lastOrderId: ids[3],
		});
		expect([await status(ids[4]), await status(ids[3]), await status(ids[2])]).toEqual([
			'CANCELED',
			'CANCELED',
			'NEW',
		]);
		const second = await call('DELETE', 'cancelOrders', {
			...q,
			fromOrderId: first.json.lastOrderId,
		});
		expect(second.json.lastOrderId).toBe(ids[1]);
		const third = await call('DELETE', 'cancelOrders', {
			...q,
			fromOrderId: second.json.lastOrderId,
		});
		expect(third.json.lastOrderId).toBe(ids[0]);
		const last = await call('DELETE', 'cancelOrders', {
			...q,
			fromOrderId: third.json.lastOrderId,
		});
		expect(last.json.lastOrderId).toBe('0');
		// other contracts, sides and types untouched; without symbol every contract
		expect(await status(eth.orderId)).toBe('NEW');
		expect(await status(s.orderId)).toBe('ORDER_NEW');
		expect(
			(await call('DELETE', 'cancelOrders', { side: 'SELL', orderType: 'LIMIT' })).json.lastOrderId,
		).toBe('0');
		expect(
			(await call('DELETE', 'cancelOrders', { side: 'BUY', orderType: 'LIMIT' })).json.lastOrderId,
		).toBe(eth.orderId);
		expect(
			(await call('DELETE', 'cancelOrders', { side: 'BUY', orderType: 'STOP' })).json.lastOrderId,
		).toBe(s.orderId);
		expect(await status(s.orderId)).toBe('ORDER_CANCELED');
	});

	it('the sub key has no futures account: 0104; an unknown contract is 0201', async () => {
		const a = await limit('49000');
		expect(
			await call('DELETE', 'cancelOrders', { side: 'BUY', orderType: 'LIMIT' }, sub()),
		).toMatchObject({ status: 400, json: { code: '0104' } });
		expect(
			(await call('DELETE', 'cancelOrders', { side: 'BUY', orderType: 'LIMIT', symbol: 'BTCUSDT' }))
				.json.code,
		).toBe('0201');
		expect(await status(a.orderId)).toBe('NEW');
	});
});

describe('POST /api/v2/futures/batchOrders', () => {
	const item = (price: string, extra: Record<string, unknown> = {}) => ({
		symbol: BTC,
		side: 'BUY',
		type: 'LIMIT',
		baseQty: '0.01',
		price,
		...extra,
	});

	it('20 orders, each its own result in request order, a half success', async () => {
		const orders: Record<string, unknown>[] = Array.from({ length: 20 }, (_, i) =>
			item(String(40000 + i), { clientOrderId: `b-${i}` }),
		);
		orders[3] = item('40003.05', { clientOrderId: 'b-3' });
		orders[7] = item('40007', { clientOrderId: 'b-0' });
		orders[9] = { ...item('40009'), baseQty: 0.01, reduceOnly: false, leverage: 3 };
		const r = await batch(orders);
		expect(r.status).toBe(200);
		expect(r.json.code).toBe('0000');
		expect(r.json.result).toHaveLength(20);
		expect(r.json.result[0]).toEqual({
			code: '0000',
			msg: 'success',
			order: expect.objectContaining({
				clientOrderId: 'b-0',
				status: 'PENDING_NEW',
				price: '40000',
			}),
		});
		expect(r.json.result[3]).toEqual({
			code: '0209',
			msg: expect.stringMatching(/price 40003.05/),
		});
		expect(r.json.result[7]).toEqual({ code: '-1141', msg: expect.stringMatching(/'b-0'/) });
		expect(r.json.result[9].order).toMatchObject({ leverage: '3', originalBaseQty: '0.01' });
		const open = (await call('GET', 'openOrders', { type: 'LIMIT', limit: 50 })).json;
		expect(open).toHaveLength(18);
	});

	it('whole-request refusals: mixed symbol, side or type, empty (0001); over 20, over 3 STOP (-2022)', async () => {
		const cases: [unknown[], string, RegExp][] = [
			[[item('40000'), item('40000', { symbol: ETH })], '0001', /'symbol'/],
			[[item('40000'), item('40000', { side: 'SELL' })], '0001', /'side'/],
			[[item('40000'), item('40000', { type: 'MARKET' })], '0001', /'type'/],
			[[], '0001', /empty/],
			[Array.from({ length: 21 }, () => item('40000')), '-2022', /at most 20/],
			[
				Array.from({ length: 4 }, (_, i) =>
					item('0', { type: 'STOP', price: undefined, stopPrice: String(52000 + i) }),
				),
				'-2022',
				/at most 3 STOP/,
			],
		];
		for (const [orders, code, msg] of cases) {
			const r = await batch(orders);
			expect(r).toEqual({ status: 400, json: { code, msg: expect.stringMatching(msg) } });
		}
		expect((await call('GET', 'openOrders', { type: 'LIMIT' })).json).toEqual([]);
		const notJson = await master().call({
			method: 'POST',
			path: '/api/v2/futures/batchOrders',
			query: { x: 1 },
		});
		expect(notJson.json.code).toBe('0001');
	});

	it('3 STOP orders with their own TP/SL limit prices and child client IDs; a non-object item fails alone', async () => {
		const stops = [0, 1, 2].map((i) => ({
			symbol: BTC,
			side: 'BUY',
			type: 'STOP',
			baseQty: '0.01',
			stopPrice: String(52000 + i),
			tpTriggerPrice: '60000',
			tpLimitPrice: String(59990 + i),
			tpClientOrderId: `tp-${i}`,
			slTriggerPrice: '45000',
			slClientOrderId: `sl-${i}`,
		}));
		const r = await batch(stops);
		expect(r.json.result.map((e: { code: string }) => e.code)).toEqual(['0000', '0000', '0000']);
		expect(r.json.result[1].order).toMatchObject({
			status: 'ORDER_NEW',
			orderType: 'stop',
			tpTriggerPrice: '60000',
		});
		sandbox().futures.setMarkPrice(BTC, '52001');
		const tp1 = (await call('GET', 'order', { clientOrderId: 'tp-1' })).json;
		expect(tp1).toMatchObject({
			status: 'ORDER_NEW',
			price: '59991',
			stopPrice: '60000',
			originalBaseQty: '0.01',
		});
		const mixed = await batch([item('40000'), 'nope']);
		expect(mixed.json.result[1]).toEqual({ code: '0001', msg: expect.stringMatching(/'order'/) });
		expect(mixed.json.result[0].code).toBe('0000');
	});

	it('a TP/SL client order ID an earlier item of the batch uses (or a client order ID an earlier item’s child is to take): -1141 for the later item, the earlier placed', async () => {
		const withChildren = (price: string, tp: string, sl: string, extra: Q = {}) =>
			item(price, {
				tpTriggerPrice: '60000',
				tpClientOrderId: tp,
				slTriggerPrice: '40000',
				slClientOrderId: sl,
				...extra,
			});
		const r = await batch([
			withChildren('48000', 'tp-a', 'sl-a', { clientOrderId: 'p-a' }),
			withChildren('48001', 'tp-a', 'sl-b'),
			withChildren('48002', 'tp-c', 'p-a'),
			item('48003', { clientOrderId: 'sl-a' }),
			withChildren('48004', 'tp-d', 'sl-d'),
		]);
		expect(r.json.result.map((e: { code: string }) => e.code)).toEqual([
			'0000',
			'-1141',
			'-1141',
			'-1141',
			'0000',
		]);
		expect(r.json.result[1].msg).toMatch(/tpClientOrderId 'tp-a'/);
		expect(r.json.result[2].msg).toMatch(/slClientOrderId 'p-a'/);
		expect(r.json.result[3].msg).toMatch(/clientOrderId 'sl-a'/);
	});
});
