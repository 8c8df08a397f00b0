/**
 * futures/routes.ts: the futures orders and fills over HTTP (openOrders, historyOrders, order,
 * userTrades): the documented shapes, newest first, fromOrderId exclusive ("OrderIds 1004, 1003,
 * 1002, 1001: fromOrderId=1003 returns 1002 and 1001"), limits and their maxima, `type` required,
 * the windows (7, 90 and 30 days), the sub key's empty lists and 0211.
 */
import { useSandboxClients } from '../../support/sandbox';
import { DAY, T0 } from '../support';

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
const ids = (list: { orderId: string }[]) => list.map((o) => o.orderId);
const resting = (price: string, extra: Record<string, unknown> = {}) =>
	sandbox().futures.placeOpenOrder({
		symbol: BTC,
		side: 'BUY',
		quantity: '0.01',
		price,
		...extra,
	});

describe('open orders', () => {
	it('the documented order shape, type required (LIMIT or STOP), newest first, fromOrderId exclusive', async () => {
		const a = resting('48000', { clientOrderId: 'a-1', time: T0 - 3000 });
		const b = resting('48000.5', { time: T0 - 2000 });
		const c = sandbox().futures.placeOpenOrder({
			symbol: ETH,
			side: 'SELL',
			quantity: '1',
			price: '3100',
			reduceOnly: true,
		});
		const list = (await get('openOrders', { type: 'LIMIT' })).json;
		expect(ids(list)).toEqual([c.orderId, b.orderId, a.orderId]);
		expect(list[2]).toEqual({
			time: String(T0 - 3000),
			orderId: a.orderId,
			clientOrderId: 'a-1',
			symbol: BTC,
			baseAsset: 'BTC',
			quoteAsset: 'USDT',
			price: '48000',
			side: 'BUY',
			orderType: 'limit',
			reduceOnly: false,
			leverage: '5',
			originalBaseQty: '0.01',
			executedBaseQty: '0',
			originalQuoteQty: '480',
			executedQuoteQty: '0',
			avgPrice: '0',
			timeInForce: 'GTC',
			status: 'NEW',
			stpMode: 'EXPIRE_TAKER',
			ordCxlReason: '',
			isLiquidationOrder: false,
			liquidationType: '',
			slTriggerPrice: '',
			slTriggerBy: '',
			tpTriggerPrice: '',
			tpTriggerBy: '',
		});
		expect(list[0]).toMatchObject({ reduceOnly: true, side: 'SELL', leverage: '10' });
		expect(a.orderId).toMatch(/^\d{19}$/);
		expect(ids((await get('openOrders', { type: 'LIMIT', symbol: BTC })).json)).toEqual([
			b.orderId,
			a.orderId,
		]);
		const from = await get('openOrders', { type: 'LIMIT', fromOrderId: c.orderId });
		expect(ids(from.json)).toEqual([b.orderId, a.orderId]);
		expect(ids((await get('openOrders', { type: 'LIMIT', limit: 1 })).json)).toEqual([c.orderId]);
		expect((await get('openOrders', { type: 'STOP' })).json).toEqual([]);
		for (const q of [{}, { type: 'limit' }, { type: 'MARKET' }] as Q[]) {
			const r = await get('openOrders', q);
			expect(r.json).toMatchObject({ code: '0001' });
			expect(r.json.msg).toMatch(/'type'/);
		}
		expect((await get('openOrders', { type: 'LIMIT', limit: 501 })).json.msg).toMatch(
			/'limit'.*1 to 500/,
		);
		expect((await get('openOrders', { type: 'LIMIT', symbol: 'BTCUSDT' })).json.code).toBe('0201');
		expect((await get('openOrders', { type: 'LIMIT' }, sub())).json).toEqual([]);
	});

	it('limit defaults to 20; the last 7 days only; startTime/endTime on the creation time', async () => {
		resting('40000', { time: T0 - 8 * DAY });
		for (let i = 0; i < 25; i++) resting('41000', { time: T0 - 100 + i });
		expect((await get('openOrders', { type: 'LIMIT' })).json).toHaveLength(20);
		const all = (await get('openOrders', { type: 'LIMIT', limit: 500 })).json;
		expect(all).toHaveLength(25);
		const range = await get('openOrders', {
			type: 'LIMIT',
			startTime: T0 - 100,
			endTime: T0 - 99,
			limit: 500,
		});
		expect(range.json.map((o: { time: string }) => o.time)).toEqual([
			String(T0 - 99),
			String(T0 - 100),
		]);
		const bad = await get('openOrders', { type: 'LIMIT', startTime: T0, endTime: T0 - 1 });
		expect(bad.json.msg).toMatch(/'startTime'/);
	});
});

describe('past orders and one order', () => {
	it('historyOrders: symbol and type required, filled orders newest first, limit 20/500, 90 days', async () => {
		const f = sandbox().futures;
		const o1 = f.fill({ symbol: BTC, side: 'BUY', quantity: '0.2', price: '50000' }).order;
		clock += 1;
		const o2 = f.fill({ symbol: BTC, side: 'SELL', quantity: '0.1', price: '51000' }).order;
		f.fill({ symbol: ETH, side: 'BUY', quantity: '1' });
		const list = (await get('historyOrders', { symbol: BTC, type: 'LIMIT' })).json;
		expect(ids(list)).toEqual([o2.orderId, o1.orderId]);
		expect(list[1]).toMatchObject({
			status: 'FILLED',
			executedBaseQty: '0.2',
			executedQuoteQty: '10000',
			avgPrice: '50000',
		});
		expect((await get('historyOrders', { symbol: BTC, type: 'STOP' })).json).toEqual([]);
		const from = await get('historyOrders', {
			symbol: BTC,
			type: 'LIMIT',
			fromOrderId: o2.orderId,
		});
		expect(ids(from.json)).toEqual([o1.orderId]);
		expect((await get('historyOrders', { type: 'LIMIT' })).json.msg).toMatch(/'symbol'/);
		expect((await get('historyOrders', { symbol: BTC })).json.msg).toMatch(/'type'/);
		const over = await get('historyOrders', { symbol: BTC, type: 'LIMIT', limit: 501 });
		expect(over.json.msg).toMatch(/'limit'/);
		clock = T0 + 91 * DAY;
		expect((await get('historyOrders', { symbol: BTC, type: 'LIMIT' })).json).toEqual([]);
	});

	it('order: by orderId or clientOrderId (orderId wins), 0001 without either, 0211 not found or the sub key', async () => {
		const a = resting('45000', { clientOrderId: 'mine' });
		const filled = sandbox().futures.fill({ symbol: ETH, side: 'BUY', quantity: '1' }).order;
		expect((await get('order', { orderId: a.orderId })).json).toEqual(a);
		expect((await get('order', { clientOrderId: 'mine' })).json).toEqual(a);
		expect((await get('order', { orderId: filled.orderId, clientOrderId: 'mine' })).json).toEqual(
			filled,
		);
		const none = await get('order');
		expect(none.json).toMatchObject({ code: '0001' });
		expect(none.json.msg).toMatch(/'orderId'/);
		expect((await get('order', { orderId: 'abc' })).json.code).toBe('0001');
		expect((await get('order', { orderId: '1' })).json.code).toBe('0211');
		expect((await get('order', { clientOrderId: 'other' })).json.code).toBe('0211');
		expect((await get('order', { orderId: a.orderId }, sub())).json.code).toBe('0211');
	});
});

describe('userTrades', () => {
	it('the documented shape, newest first, fromId/toId exclusive, limit 20/1000, the last 30 days only', async () => {
		const f = sandbox().futures;
		const t1 = f.fill({ symbol: BTC, side: 'BUY', quantity: '0.3', price: '50000' }).trade;
		clock += 1;
		const t2 = f.fill({
			symbol: BTC,
			side: 'SELL',
			quantity: '0.1',
			price: '52000',
			isMaker: true,
		}).trade;
		clock += 1;
		const t3 = f.fill({ symbol: BTC, side: 'SELL', quantity: '0.1', price: '49000' }).trade;
		const list = (await get('userTrades', { symbol: BTC })).json;
		expect(list).toEqual([t3, t2, t1]);
		expect(list[1]).toEqual({
			time: String(T0 + 1001),
			tradeId: t2.tradeId,
			orderId: t2.orderId,
			symbol: BTC,
			price: '52000',
			quantity: '0.1',
			commissionAsset: 'USDT',
			commission: '1.3',
			makerRebate: '0',
			type: 'limit',
			side: 'SELL',
			realizedPnl: '198.7',
			isMaker: true,
			ticketId: expect.stringMatching(/^\d{19}$/),
		});
		expect(list[2].realizedPnl).toBe('-9');
		const byId = (q: Q) => get('userTrades', { symbol: BTC, ...q });
		expect((await byId({ toId: t3.tradeId })).json).toEqual([t2, t1]);
		expect((await byId({ fromId: t1.tradeId })).json).toEqual([t3, t2]);
		expect((await byId({ fromId: t1.tradeId, toId: t3.tradeId })).json).toEqual([t2]);
		expect((await byId({ limit: 1 })).json).toEqual([t3]);
		expect((await byId({ limit: 1001 })).json.msg).toMatch(/'limit'.*1 to 1000/);
		expect((await byId({ fromId: 'x' })).json.msg).toMatch(/'fromId'/);
		expect((await get('userTrades', { symbol: ETH })).json).toEqual([]);
		expect((await get('userTrades', { symbol: BTC }, sub())).json).toEqual([]);
		const old = await byId({ startTime: clock - 31 * DAY });
		expect(old.json.code).toBe('-2028');
		expect((await byId({ startTime: T0 + 1001, endTime: T0 + 1001 })).json).toEqual([t2]);
	});
});
