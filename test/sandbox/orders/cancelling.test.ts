/**
 * orders/cancelling.ts: with behaviour cancelApplyDelayMs a cancel through any of the four cancel
 * endpoints is accepted at once and applied later: PENDING_CANCEL meanwhile (open, listed, holding
 * its client order ID and funds, not fillable, a second cancel accepted again), then CANCELED or
 * PARTIALLY_CANCELED with its ledger entry; reset() drops cancels still waiting.
 */
import { useSandboxClients } from '../../support/sandbox';
import { T0, buy, placeWith } from '../support';

// Long enough that the requests a test sends meanwhile all come first, even on a loaded machine.
const DELAY = 1500;
const { sandbox, master } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
	behaviour: { cancelApplyDelayMs: DELAY },
});
const place = placeWith(master);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const statusOf = (id: string) => sandbox().getOrder(id)!.status;

describe('a cancel applied late (cancelApplyDelayMs)', () => {
	it('DELETE /api/v1/spot/order answers PENDING_CANCEL; the order stays open until the delay has passed', async () => {
		const o = await place(buy('late'));
		const r = await master().cancelOrder({ orderId: o.orderId });
		expect([r.status, r.json.status, r.json.orderId]).toEqual([200, 'PENDING_CANCEL', o.orderId]);
		// open: read, listed, funds locked, client order ID held; the ledger waits for the cancel
		expect((await master().queryOrder({ orderId: o.orderId })).json.status).toBe('PENDING_CANCEL');
		expect((await master().openOrders()).json.map((x: { orderId: string }) => x.orderId)).toEqual([
			o.orderId,
		]);
		expect((await master().tradeOrders()).json).toEqual([]);
		expect(sandbox().getBalanceDetail('10001', 'USDT').locked).toBe('20000');
		expect((await master().order(buy('late'))).json.code).toBe('-1141');
		expect(sandbox().ledger.cancels).toEqual([]);
		// not fillable
		expect(() => sandbox().fillOrder(o.orderId)).toThrow(/PENDING_CANCEL/);
		expect(sandbox().advanceOrders()).toEqual([]);
		// a second cancel is accepted again and changes nothing
		const again = await master().cancelOrder({ clientOrderId: 'late' });
		expect([again.status, again.json.status]).toEqual([200, 'PENDING_CANCEL']);

		await sleep(DELAY + 50);
		expect((await master().queryOrder({ orderId: o.orderId })).json.status).toBe('CANCELED');
		expect(sandbox().getBalanceDetail('10001', 'USDT').locked).toBe('0');
		expect(sandbox().ledger.cancels.map((c) => [c.orderId, c.status, c.via, c.at])).toEqual([
			[o.orderId, 'CANCELED', 'single', T0],
		]);
		expect((await master().order(buy('late'))).status).toBe(200);
		// now final: refused with the UAE code for an order already completed
		expect((await master().cancelOrder({ orderId: o.orderId })).json.code).toBe('0212');
	});

	it('a partly filled order becomes PARTIALLY_CANCELED when the cancel is applied', async () => {
		const o = await place(buy());
		sandbox().fillOrder(o.orderId, '0.1');
		expect((await master().cancelOrder({ orderId: o.orderId })).json.status).toBe('PENDING_CANCEL');
		expect(sandbox().getOrder(o.orderId)!.executedQty).toBe('0.1');
		await sleep(DELAY + 50);
		expect(statusOf(o.orderId)).toBe('PARTIALLY_CANCELED');
		expect(sandbox().getBalanceDetail('10001', 'USDT').locked).toBe('0');
		expect(sandbox().ledger.cancels.map((c) => c.status)).toEqual(['PARTIALLY_CANCELED']);
	});

	it('DELETE /api/v1/spot/openOrders and cancelAllOpenOrders accept now and apply later; orders pending cancel are not taken again', async () => {
		const a = await place(buy());
		const b = await place(buy());
		const c = await place(buy());
		expect((await master().cancelOpenOrders({ symbol: 'BTCUSDT' })).json).toEqual({
			success: true,
		});
		expect([a, b, c].map((o) => statusOf(o.orderId))).toEqual(Array(3).fill('PENDING_CANCEL'));
		expect(sandbox().ledger.cancels).toEqual([]);
		const d = await place(buy());
		const all = await master().cancelAllOpenOrders();
		expect(all.json.lastOrderId).toBe(d.orderId);
		expect((await master().cancelAllOpenOrders()).json.lastOrderId).toBe('0');
		await sleep(DELAY + 50);
		expect((await master().openOrders()).json).toEqual([]);
		expect(sandbox().ledger.cancels.map((x) => [x.orderId, x.via])).toEqual([
			[a.orderId, 'symbol'],
			[b.orderId, 'symbol'],
			[c.orderId, 'symbol'],
			[d.orderId, 'all'],
		]);
	});

	it('DELETE /api/v1/spot/cancelOrderByIds: an order pending cancel is not a failure, and is cancelled once', async () => {
		const a = await place(buy());
		const b = await place(buy());
		expect((await master().cancelOrdersByIds([a.orderId])).json).toEqual({
			code: '0000',
			result: [],
		});
		expect(statusOf(a.orderId)).toBe('PENDING_CANCEL');
		expect((await master().cancelOrdersByIds([a.orderId, b.orderId])).json.result).toEqual([]);
		await sleep(DELAY + 50);
		expect([a, b].map((o) => statusOf(o.orderId))).toEqual(['CANCELED', 'CANCELED']);
		expect(sandbox().ledger.cancels.map((x) => [x.orderId, x.via])).toEqual([
			[a.orderId, 'ids'],
			[b.orderId, 'ids'],
		]);
	});

	it('setBehaviour({cancelApplyDelayMs: 0}) cancels at once again; a delay set later applies to later cancels', async () => {
		sandbox().setBehaviour({ cancelApplyDelayMs: 0 });
		const a = await place(buy());
		expect((await master().cancelOrder({ orderId: a.orderId })).json.status).toBe('CANCELED');
		sandbox().setBehaviour({ cancelApplyDelayMs: 400 });
		const b = await place(buy());
		expect((await master().cancelOrder({ orderId: b.orderId })).json.status).toBe('PENDING_CANCEL');
		await sleep(900);
		expect(statusOf(b.orderId)).toBe('CANCELED');
	});

	it('reset() drops cancels still waiting: nothing is applied to the fresh book', async () => {
		const o = await place(buy());
		await master().cancelOrder({ orderId: o.orderId });
		sandbox().reset();
		await sleep(DELAY + 50);
		expect(sandbox().ledger.cancels).toEqual([]);
		expect(sandbox().getBalanceDetail('10001', 'USDT')).toEqual({
			free: '100000',
			locked: '0',
			total: '100000',
		});
	});
});
