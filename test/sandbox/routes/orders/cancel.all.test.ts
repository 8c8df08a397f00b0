/**
 * routes/orders/cancel.ts, the two cancel-all endpoints: DELETE /api/v1/spot/openOrders (one
 * symbol, oldest first, 200 per call, {"success": true}) and DELETE /api/v1/spot/cancelAllOpenOrders
 * (any symbol, newest first, `limit` and `fromOrderId`, lastOrderId). Both only touch the key's own
 * trading account.
 */
import { DEMO_KEYS, type SeedOpenOrderInput } from '../../../../sandbox';
import { useSandboxClients } from '../../../support/sandbox';
import { T0, buy, placeWith, sell } from '../../support';

const { sandbox, master, sub } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});
const place = placeWith(master);

const btc: SeedOpenOrderInput = {
	symbol: 'BTCUSDT',
	side: 'BUY',
	price: '40000',
	quantity: '0.01',
	time: T0,
};
const eth: SeedOpenOrderInput = { ...btc, symbol: 'ETHUSDT', price: '2000', quantity: '0.1' };

/** `n` resting orders seeded without HTTP, oldest first; their ids ascending. */
const seed = (n: number, input: SeedOpenOrderInput = btc) =>
	Array.from({ length: n }, () => sandbox().seedOpenOrder(input).orderId);
const statusOf = (id: string) => sandbox().getOrder(id)!.status;

describe('DELETE /api/v1/spot/openOrders', () => {
	it('cancels the oldest 200 open orders of the symbol per call and answers {"success": true}; limit and fromOrderId are ignored', async () => {
		const ids = seed(210);
		const r = await master().cancelOpenOrders({
			symbol: 'BTCUSDT',
			limit: 5,
			fromOrderId: ids[100],
		});
		expect([r.status, r.json]).toEqual([200, { success: true }]);
		expect(sandbox().ledger.cancels.map((c) => c.orderId)).toEqual(ids.slice(0, 200));
		expect(sandbox().ledger.cancels.every((c) => c.via === 'symbol')).toBe(true);
		expect(ids.slice(200).map(statusOf)).toEqual(Array(10).fill('NEW'));
		expect((await master().cancelOpenOrders({ symbol: 'BTCUSDT' })).json).toEqual({
			success: true,
		});
		expect(sandbox().ledger.cancels).toHaveLength(210);
		expect(sandbox().getBalanceDetail('10001', 'USDT').locked).toBe('0');
		// nothing left: still {"success": true}
		expect((await master().cancelOpenOrders({ symbol: 'BTCUSDT' })).json).toEqual({
			success: true,
		});
	});

	it("cancels only the given symbol and side, and only the key's own trading account", async () => {
		const b = await place(buy());
		const s = await place(sell());
		const [e] = seed(1, eth);
		const subOrder = await place(buy(undefined, { quantity: '0.1' }), sub());
		await master().cancelOpenOrders({ symbol: 'BTCUSDT', side: 'SELL' });
		expect([b.orderId, s.orderId, e, subOrder.orderId].map(statusOf)).toEqual([
			'NEW',
			'CANCELED',
			'NEW',
			'NEW',
		]);
		await master().cancelOpenOrders({ symbol: 'BTCUSDT' });
		expect([b.orderId, e, subOrder.orderId].map(statusOf)).toEqual(['CANCELED', 'NEW', 'NEW']);
		await sub().cancelOpenOrders({ symbol: 'BTCUSDT' });
		expect(statusOf(subOrder.orderId)).toBe('CANCELED');
		expect(
			sandbox()
				.ledger.cancels.map((c) => c.apiKey)
				.at(-1),
		).toBe(DEMO_KEYS.sub.apiKey);
	});

	it.each([
		[{}, '0001', "'symbol'"],
		[{ side: 'BUY' }, '0001', "'symbol'"],
		[{ symbol: '' }, '0001', "'symbol'"],
		[{ symbol: 'BTCUSDT', side: 'BOTH' }, '0001', "'side'"],
		[{ symbol: 'XYZUSDT' }, '0201', 'Instrument not found'],
	])('%j is refused with %s (%s) and cancels nothing', async (params, code, text) => {
		const [id] = seed(1);
		const r = await master().cancelOpenOrders(params);
		expect([r.status, r.json.code]).toEqual([400, code]);
		expect(r.json.msg).toContain(text);
		expect(statusOf(id)).toBe('NEW');
	});

	it('a malformed limit or fromOrderId is ignored like any parameter the endpoint does not define', async () => {
		const [id] = seed(1);
		const r = await master().cancelOpenOrders({
			symbol: 'BTCUSDT',
			limit: 'abc',
			fromOrderId: 'x',
		});
		expect([r.status, r.json]).toEqual([200, { success: true }]);
		expect(statusOf(id)).toBe('CANCELED');
		expect(sandbox().ledger.requests[0].weight).toBe(1);
	});
});

describe('DELETE /api/v1/spot/cancelAllOpenOrders', () => {
	it('cancels every symbol newest first, 100 by default; lastOrderId pages on through fromOrderId, "0" when none', async () => {
		const ids = [...seed(80), ...seed(70, eth)];
		const r = await master().cancelAllOpenOrders();
		expect([r.status, r.json]).toEqual([
			200,
			{ code: '0000', message: 'success', timestamp: T0, lastOrderId: ids[50] },
		]);
		expect(sandbox().ledger.cancels.map((c) => c.orderId)).toEqual(ids.slice(50).reverse());
		expect(sandbox().ledger.cancels.every((c) => c.via === 'all')).toBe(true);
		const next = await master().cancelAllOpenOrders({ fromOrderId: r.json.lastOrderId });
		expect(next.json.lastOrderId).toBe(ids[0]);
		expect(sandbox().ledger.cancels).toHaveLength(150);
		expect(sandbox().getBalanceDetail('10001', 'USDT').locked).toBe('0');
		const none = await master().cancelAllOpenOrders();
		expect([none.status, none.json.code, none.json.lastOrderId]).toEqual([200, '0000', '0']);
	});

	it('limit above 200 is cut to 200; fromOrderId keeps only older orders', async () => {
		const ids = seed(230);
		const r = await master().cancelAllOpenOrders({ limit: 1000 });
		expect(r.json.lastOrderId).toBe(ids[30]);
		expect(sandbox().ledger.cancels).toHaveLength(200);
		const older = await master().cancelAllOpenOrders({ fromOrderId: ids[10], limit: 3 });
		expect(older.json.lastOrderId).toBe(ids[7]);
		expect(ids.slice(0, 11).map(statusOf)).toEqual([
			...Array(7).fill('NEW'),
			...Array(3).fill('CANCELED'),
			'NEW',
		]);
	});

	it("filters by symbol and side, and touches only the key's own trading account", async () => {
		const [b] = seed(1);
		const s = await place(sell());
		const [e] = seed(1, eth);
		const subOrder = await place(buy(undefined, { quantity: '0.1' }), sub());
		const r = await master().cancelAllOpenOrders({ symbol: 'BTCUSDT', side: 'SELL' });
		expect(r.json.lastOrderId).toBe(s.orderId);
		await master().cancelAllOpenOrders({ symbol: 'ETHUSDT' });
		expect([b, s.orderId, e, subOrder.orderId].map(statusOf)).toEqual([
			'NEW',
			'CANCELED',
			'CANCELED',
			'NEW',
		]);
		await master().cancelAllOpenOrders();
		expect([b, subOrder.orderId].map(statusOf)).toEqual(['CANCELED', 'NEW']);
	});

	it.each([
		[{ limit: 'abc' }, '0001', "'limit'"],
		[{ limit: 0 }, '0001', "'limit'"],
		[{ fromOrderId: '12x' }, '0001', "'fromOrderId'"],
		[{ side: 'both' }, '0001', "'side'"],
		[{ symbol: 'XYZUSDT' }, '0201', 'Instrument not found'],
	])('%j is refused with %s (%s) and cancels nothing', async (params, code, text) => {
		const [id] = seed(1);
		const r = await master().cancelAllOpenOrders(params);
		expect([r.status, r.json.code]).toEqual([400, code]);
		expect(r.json.msg).toContain(text);
		expect(statusOf(id)).toBe('NEW');
	});

	it('weighs 1, needs the trade permission, and an unknown outcome on it is the cancel timeout -1147', async () => {
		const [id] = seed(1);
		const readOnly = master().withCredentials(DEMO_KEYS.readOnly);
		expect((await readOnly.cancelAllOpenOrders()).json.code).toBe('-1005');
		sandbox().setFaults({ rules: [{ kind: 'unknownBefore', times: 1 }] });
		const r = await master().cancelAllOpenOrders();
		expect([r.status, r.json]).toEqual([400, { code: '-1147', msg: 'Order cancellation timeout' }]);
		expect(statusOf(id)).toBe('NEW');
		expect(sandbox().ledger.requests.map((x) => x.weight)).toEqual([1, 1]);
	});
});
