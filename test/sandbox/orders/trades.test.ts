/**
 * orders/trades.ts: the fill store behind GET /api/v1/account/trades: seedTrades writes
 * deterministic fills oldest first with ids that grow with time, refuses what would break that
 * order, and live fills after seeded ones keep the ids growing.
 */
import { DEMO_KEYS } from '../../../sandbox';
import { useSandboxClients } from '../../support/sandbox';
import { T0, DAY, HOUR, buy, placeWith } from '../support';

let clock = T0;
beforeEach(() => {
	clock = T0;
});
const { sandbox, master } = useSandboxClients({
	now: () => clock,
	rateLimit: false,
	requestRates: false,
});
const place = placeWith(master);

describe('seedTrades', () => {
	it('spreads count fills evenly over the range, oldest first, 19-digit ids growing, same seed same fills', () => {
		const a = sandbox().seedTrades({ count: 5, startTime: T0 - 4000, endTime: T0, seed: 3 });
		expect(a.map((t) => t.time)).toEqual([4000, 3000, 2000, 1000, 0].map((d) => String(T0 - d)));
		expect(a.every((t) => /^\d{19}$/.test(t.id) && /^\d{19}$/.test(t.orderId))).toBe(true);
		expect(a.every((t, k) => k === 0 || a[k - 1].id < t.id)).toBe(true);
		expect(new Set(a.map((t) => t.orderId)).size).toBe(5);
		sandbox().reset();
		const b = sandbox().seedTrades({ count: 5, startTime: T0 - 4000, endTime: T0, seed: 3 });
		expect(b).toEqual(a);
		for (const t of a) {
			// exact decimal strings: no exponent, no trailing zero, the fee at 0.1% in the documented coin
			for (const v of [t.price, t.qty, t.commission]) expect(v).toMatch(/^\d+(\.\d*[1-9])?$/);
			expect(t.commissionAsset).toBe(t.isBuyer ? 'BTC' : 'USDT');
			expect(t.isMaker).toBe(false);
		}
	});

	it('bothSides with an odd count ends with a single fill', () => {
		const a = sandbox().seedTrades({
			count: 5,
			startTime: T0 - HOUR,
			endTime: T0,
			bothSides: true,
		});
		expect(a).toHaveLength(5);
		expect(new Set(a.map((t) => t.ticketId)).size).toBe(3);
	});

	it("lands on the named key's trading account", async () => {
		sandbox().seedTrades({ count: 2, startTime: T0 - 10, endTime: T0, key: DEMO_KEYS.sub });
		expect((await master().trades()).json).toEqual([]);
		expect((await master().trades({ accountId: '20001' })).json).toHaveLength(2);
	});

	it('refuses a bad count, a range after the clock or reversed, an unknown symbol, and a start before the newest fill', async () => {
		const ok = { count: 1, startTime: T0 - 10, endTime: T0 };
		expect(() => sandbox().seedTrades({ ...ok, count: 0 })).toThrow(/count/);
		expect(() => sandbox().seedTrades({ ...ok, count: 100_001 })).toThrow(/count/);
		expect(() => sandbox().seedTrades({ ...ok, endTime: T0 + 1 })).toThrow(
			/after the sandbox clock/,
		);
		expect(() => sandbox().seedTrades({ ...ok, startTime: T0 + 1 })).toThrow(/after endTime/);
		expect(() => sandbox().seedTrades({ ...ok, symbols: ['NOPE'] })).toThrow(/unknown symbol NOPE/);
		expect(() => sandbox().seedTrades({ ...ok, symbols: [] })).toThrow(/symbols/);
		const o = await place(buy('live'));
		clock = T0 + DAY;
		sandbox().fillOrder(o.orderId);
		expect(() => sandbox().seedTrades({ ...ok, endTime: T0 + DAY })).toThrow(
			/before the newest fill's time/,
		);
	});

	it('live fills after seeded ones get larger ids, so newest first stays newest first', async () => {
		const seeded = sandbox().seedTrades({ count: 3, startTime: T0 - 3000, endTime: T0 - 1000 });
		const o = await place(buy('after'));
		sandbox().fillOrder(o.orderId);
		const list = (await master().trades()).json as Array<{ id: string; orderId: string }>;
		expect(list.map((t) => t.id)).toEqual([list[0].id, ...seeded.map((t) => t.id).reverse()]);
		expect(list[0].orderId).toBe(o.orderId);
		expect(list[0].id > seeded[2].id).toBe(true);
	});
});
