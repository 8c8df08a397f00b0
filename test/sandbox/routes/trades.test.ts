/**
 * routes/trades.ts: GET /api/v1/account/trades as the UAE documentation describes it: signed,
 * weight 5, one fill per fill of the key's orders with exact decimal strings and string ids,
 * newest first, fromId/toId exclusive, limit default 500 and at most 1000, the last 30 days only.
 */
import { DEMO_KEYS, type AccountTrade } from '../../../sandbox';
import { useSandboxClients } from '../../support/sandbox';
import { T0, DAY, HOUR, buy, placeWith, sell } from '../support';

let clock = T0;
beforeEach(() => {
	clock = T0;
});
const { sandbox, master, sub } = useSandboxClients({
	now: () => clock,
	rateLimit: false,
	requestRates: false,
});
const place = placeWith(master);
const trades = async (params: Record<string, string | number | undefined> = {}, c = master()) => {
	const r = await c.trades(params);
	expect(r.status).toBe(200);
	return r.json as AccountTrade[];
};
const ids = (list: AccountTrade[]) => list.map((t) => t.id);
/** Numeric id strings compared without BigInt or Number: all are 19 digits. */
const descending = (list: AccountTrade[]) => list.every((t, k) => k === 0 || list[k - 1].id > t.id);

describe('GET /api/v1/account/trades: what is recorded', () => {
	it("UAE rule: one fill per fill of the key's orders, in the documented shape, ids and decimals as strings", async () => {
		const o = await place(buy('fill-me', { quantity: '0.123456789', price: '40000.12' }));
		clock = T0 + 1000;
		sandbox().fillOrder(o.orderId, '0.1');
		clock = T0 + 2000;
		sandbox().fillOrder(o.orderId);
		const list = await trades();
		expect(list).toHaveLength(2);
		expect(list[0]).toEqual({
			id: expect.stringMatching(/^\d{19}$/),
			clientOrderId: 'fill-me',
			ticketId: expect.stringMatching(/^\d{19}$/),
			symbol: 'BTCUSDT',
			symbolName: 'BTCUSDT',
			orderId: o.orderId,
			matchOrderId: '0',
			price: '40000.12',
			qty: '0.023456789',
			commission: '0.000023456789',
			commissionAsset: 'BTC',
			time: String(T0 + 2000),
			isBuyer: true,
			isMaker: true,
			fee: {
				feeCoinId: 'BTC',
				feeCoinName: 'BTC',
				fee: '0.000023456789',
				originCoinId: 'BTC',
				originCoinName: 'BTC',
				originFee: '0.000023456789',
			},
			feeCoinId: 'BTC',
			feeAmount: '0.000023456789',
			makerRebate: '0',
			hskDeduct: false,
			hskDeductPrice: '',
		});
		expect(list[1]).toMatchObject({ qty: '0.1', commission: '0.0001', time: String(T0 + 1000) });
		expect(list[0].ticketId).not.toBe(list[1].ticketId);
		expect(descending(list)).toBe(true);
	});

	it('a resting SELL pays its fee in the quote coin, exactly; a MARKET order is one taker fill at the price it filled at', async () => {
		const o = await place({ ...sell('s'), quantity: '0.3', price: '60000.5' });
		sandbox().fillOrder(o.orderId);
		clock = T0 + 10;
		const m = await place({ symbol: 'ETHUSDT', side: 'BUY', type: 'MARKET', quantity: '0.75' });
		const [market, resting] = await trades();
		expect(resting).toMatchObject({
			orderId: o.orderId,
			price: '60000.5',
			qty: '0.3',
			commission: '18.00015',
			commissionAsset: 'USDT',
			isBuyer: false,
			isMaker: true,
		});
		// lenient rules: ETHUSDT stays at its anchor 3000; the sandbox charges a MARKET fill's fee in the quote coin
		expect(market).toMatchObject({
			orderId: m.orderId,
			clientOrderId: m.clientOrderId,
			symbol: 'ETHUSDT',
			price: '3000',
			qty: '0.75',
			commission: '2.25',
			commissionAsset: 'USDT',
			feeAmount: '2.25',
			isBuyer: true,
			isMaker: false,
			time: String(T0 + 10),
		});
	});

	it('orders that never fill, and order tests, write no fill; reset() clears the fills', async () => {
		await place(buy('rests'));
		expect(
			(
				await master().orderTest({
					symbol: 'BTCUSDT',
					side: 'BUY',
					type: 'MARKET',
					quantity: '0.01',
				})
			).status,
		).toBe(200);
		expect(await trades()).toEqual([]);
		await place({ symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: '0.01' });
		expect(await trades()).toHaveLength(1);
		sandbox().reset();
		expect(await trades()).toEqual([]);
	});

	it("seeded matches between two of the user's orders: two fills, one per side, sharing ticketId and time", async () => {
		const seeded = sandbox().seedTrades({
			count: 6,
			startTime: T0 - HOUR,
			endTime: T0,
			bothSides: true,
		});
		const list = await trades();
		expect(ids(list)).toEqual(ids(seeded).reverse());
		for (let k = 0; k < 6; k += 2) {
			const [a, b] = [list[k], list[k + 1]];
			expect(a.ticketId).toBe(b.ticketId);
			expect(a.time).toBe(b.time);
			expect(a.orderId).not.toBe(b.orderId);
			expect([a.isBuyer, b.isBuyer].sort()).toEqual([false, true]);
			expect([a.isMaker, b.isMaker].sort()).toEqual([false, true]);
			expect([a.price, a.qty]).toEqual([b.price, b.qty]);
			const buyer = a.isBuyer ? a : b;
			expect(buyer.commissionAsset).toBe('BTC');
			expect((a.isBuyer ? b : a).commissionAsset).toBe('USDT');
		}
	});
});

describe('GET /api/v1/account/trades: request rules', () => {
	it('is signed USER_DATA with weight 5; a read-only key may call it, an unsigned call is refused', async () => {
		const r = await master().trades();
		expect(r.status).toBe(200);
		const entry = sandbox().ledger.requests.at(-1)!;
		expect([entry.path, entry.weight]).toEqual(['/api/v1/account/trades', 5]);
		const ro = master().withCredentials(DEMO_KEYS.readOnly);
		expect((await ro.trades()).status).toBe(200);
		const unsigned = await master().trades({}, { signatureIn: 'none' });
		expect(unsigned.status).toBe(400);
	});

	it('UAE rule: validates every parameter with the UAE codes, naming the field', async () => {
		const cases: Array<[Record<string, string | number>, string, string]> = [
			[{ accountId: 'x' }, '0001', 'accountId'],
			[{ symbol: '' }, '0001', 'symbol'],
			[{ clientOrderId: '' }, '0001', 'clientOrderId'],
			[{ clientOrderId: 'c'.repeat(256) }, '0001', 'clientOrderId'],
			[{ fromId: 'x' }, '0001', 'fromId'],
			[{ fromId: '-1' }, '0001', 'fromId'],
			[{ toId: '1.5' }, '0001', 'toId'],
			[{ limit: 0 }, '0001', 'limit'],
			[{ limit: 1001 }, '0001', 'limit'],
			[{ limit: 'ten' }, '0001', 'limit'],
			[{ startTime: 'yesterday' }, '0001', 'startTime'],
			[{ endTime: '17e11' }, '0001', 'endTime'],
			[{ startTime: T0 - 1000, endTime: T0 - 2000 }, '0001', 'startTime'],
		];
		for (const [q, code, field] of cases) {
			const r = await master().trades(q);
			expect([r.status, r.json.code, field]).toEqual([400, code, field]);
			expect(r.json.msg).toContain(`'${field}'`);
		}
		const unknown = await master().trades({ symbol: 'DOGEUSDT' });
		expect([unknown.status, unknown.json.code]).toEqual([400, '0201']);
	});

	it('UAE rule: only the last 30 days: a startTime or endTime before them is refused -2028; older fills are never listed', async () => {
		sandbox().seedTrades({ count: 4, startTime: T0 - 33 * DAY, endTime: T0 - 30 * DAY - 1 });
		sandbox().seedTrades({ count: 3, startTime: T0 - 30 * DAY, endTime: T0 - DAY });
		expect(await trades()).toHaveLength(3);
		expect(await trades({ startTime: T0 - 30 * DAY })).toHaveLength(3);
		for (const q of [{ startTime: T0 - 30 * DAY - 1 }, { endTime: T0 - 30 * DAY - 1 }]) {
			const r = await master().trades(q);
			expect([r.status, r.json.code]).toEqual([400, '-2028']);
			expect(r.json.msg).toContain('The search is limited to data within the last one month');
		}
	});

	it('time bounds are inclusive; symbol and clientOrderId filter', async () => {
		const seeded = sandbox().seedTrades({
			count: 10,
			startTime: T0 - 9000,
			endTime: T0,
			symbols: ['BTCUSDT', 'ETHUSDT'],
			seed: 7,
		});
		const window = await trades({ startTime: T0 - 7000, endTime: T0 - 3000 });
		expect(window.map((t) => t.time)).toEqual(
			[T0 - 3000, T0 - 4000, T0 - 5000, T0 - 6000, T0 - 7000].map(String),
		);
		const eth = await trades({ symbol: 'ETHUSDT' });
		expect(eth.length).toBeGreaterThan(0);
		expect(eth.every((t) => t.symbol === 'ETHUSDT')).toBe(true);
		expect(eth).toHaveLength(seeded.filter((t) => t.symbol === 'ETHUSDT').length);
		expect(await trades({ clientOrderId: seeded[3].clientOrderId })).toEqual([seeded[3]]);
	});

	it("whose fills: the key's own trading account; a master key may name its sub account, any other account is refused 0104", async () => {
		sandbox().seedTrades({ count: 2, startTime: T0 - 2000, endTime: T0 - 1000 });
		sandbox().seedTrades({ count: 3, startTime: T0 - 500, endTime: T0, key: DEMO_KEYS.sub });
		expect(await trades()).toHaveLength(2);
		expect(await trades({ accountId: '10001' })).toHaveLength(2);
		expect(await trades({ accountId: '20001' })).toHaveLength(3);
		expect(await trades({}, sub())).toHaveLength(3);
		for (const [c, accountId] of [
			[master(), '10005'],
			[master(), '10003'],
			[sub(), '10001'],
		] as const) {
			const r = await c.trades({ accountId });
			expect([r.status, r.json.code]).toEqual([400, '0104']);
		}
	});
});

describe('GET /api/v1/account/trades: order and paging', () => {
	it('UAE rule: newest first; default limit 500, at most 1000; toId pages back through more than one request, each fill once', async () => {
		const seeded = sandbox().seedTrades({
			count: 2300,
			startTime: T0 - 10 * DAY,
			endTime: T0,
			bothSides: true,
		});
		const all = ids(seeded).reverse();
		const first = await trades();
		expect(first).toHaveLength(500);
		expect(ids(first)).toEqual(all.slice(0, 500));
		expect(await trades({ limit: 1000 })).toHaveLength(1000);
		const seen: string[] = [];
		let toId: string | undefined;
		for (;;) {
			const page = await trades({ limit: 1000, toId });
			expect(descending(page)).toBe(true);
			seen.push(...ids(page));
			if (page.length < 1000) break;
			toId = page[page.length - 1].id;
		}
		expect(seen).toEqual(all);
	});

	it('UAE rule: fromId and toId are exclusive; with fromId only, the newest above it; a range with nothing between is empty', async () => {
		const seeded = sandbox().seedTrades({ count: 10, startTime: T0 - 9000, endTime: T0 });
		const id = (k: number) => seeded[k].id;
		expect(ids(await trades({ toId: id(5) }))).toEqual([4, 3, 2, 1, 0].map(id));
		expect(ids(await trades({ fromId: id(5) }))).toEqual([9, 8, 7, 6].map(id));
		expect(ids(await trades({ fromId: id(5), limit: 2 }))).toEqual([9, 8].map(id));
		expect(ids(await trades({ fromId: id(2), toId: id(6) }))).toEqual([5, 4, 3].map(id));
		expect(await trades({ fromId: id(6), toId: id(6) })).toEqual([]);
		expect(await trades({ fromId: id(7), toId: id(6) })).toEqual([]);
		// ids beyond every fill's are fine
		expect(await trades({ fromId: '9999999999999999999' })).toEqual([]);
		expect(await trades({ toId: '9999999999999999999', limit: 1 })).toEqual([seeded[9]]);
	});
});
