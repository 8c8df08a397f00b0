/**
 * orders/book.ts, seedOpen (sandbox.seedOpenOrder): resting orders placed in the past, the state a
 * stale-orders test starts from. A seeded order is an ordinary order over HTTP (listed, read,
 * cancelled, locking funds) with the time it was given; it is not in ledger.orders, and what the
 * API cannot do is refused.
 */
import { DEMO_KEYS, type OrderView, type Sandbox } from '../../../sandbox';
import { useSandboxClients } from '../../support/sandbox';
import { T0, HOUR } from '../support';

let clock = T0;
beforeEach(() => {
	clock = T0;
});
const { sandbox, master, sub } = useSandboxClients({
	now: () => clock,
	rateLimit: false,
	requestRates: false,
});

const limitBuy = (time: number, extra: Partial<Parameters<Sandbox['seedOpenOrder']>[0]> = {}) =>
	sandbox().seedOpenOrder({
		symbol: 'BTCUSDT',
		side: 'BUY',
		price: '40000',
		quantity: '0.1',
		time,
		...extra,
	});

describe('seeded open orders', () => {
	it('are listed over HTTP with the time they were given, newest first, and lock funds; not in ledger.orders', async () => {
		const old = limitBuy(T0 - 48 * HOUR, { clientOrderId: 'old-1' });
		const older = [old, limitBuy(T0 - 30 * HOUR)];
		const fresh = limitBuy(T0 - 2 * HOUR, {
			symbol: 'ETHUSDT',
			side: 'SELL',
			price: '3500',
			quantity: '1',
			type: 'LIMIT_MAKER',
		});
		expect(old).toMatchObject({
			status: 'NEW',
			clientOrderId: 'old-1',
			time: String(T0 - 48 * HOUR),
			updateTime: String(T0 - 48 * HOUR),
			accountId: '10001',
		});
		expect(older[1].clientOrderId).toBe(older[1].orderId);
		expect(fresh).toMatchObject({
			symbol: 'ETHUSDT',
			side: 'SELL',
			type: 'LIMIT_MAKER',
			time: String(T0 - 2 * HOUR),
		});
		// Order IDs grow with time.
		expect(
			BigInt(older[1].orderId) > BigInt(old.orderId) &&
				BigInt(fresh.orderId) > BigInt(older[1].orderId),
		).toBe(true);

		const listed = (await master().openOrders()).json as OrderView[];
		expect(listed.map((o) => [o.orderId, o.time, o.status])).toEqual([
			[fresh.orderId, String(T0 - 2 * HOUR), 'NEW'],
			[older[1].orderId, String(T0 - 30 * HOUR), 'NEW'],
			[old.orderId, String(T0 - 48 * HOUR), 'NEW'],
		]);
		expect((await master().queryOrder({ origClientOrderId: 'old-1' })).json).toEqual(old);
		expect(sandbox().getBalanceDetail('10001', 'USDT')).toEqual({
			free: '92000',
			locked: '8000',
			total: '100000',
		});
		expect(sandbox().getBalanceDetail('10001', 'ETH')).toEqual({
			free: '99',
			locked: '1',
			total: '100',
		});
		expect(sandbox().ledger.orders).toHaveLength(0);
		expect(
			sandbox().ledger.requests.filter((r) => r.path === '/api/v1/spot/new/order'),
		).toHaveLength(0);
	});

	it('cancel like any order: the cancel is in ledger.cancels and the funds are free again', async () => {
		const old = limitBuy(T0 - 25 * HOUR);
		const answer = await master().cancelOrder({ orderId: old.orderId });
		expect(answer.status).toBe(200);
		expect(answer.json).toMatchObject({
			orderId: old.orderId,
			status: 'CANCELED',
			transactTime: String(T0),
		});
		expect(sandbox().ledger.cancels).toEqual([
			expect.objectContaining({ orderId: old.orderId, via: 'single', at: T0 }),
		]);
		expect(sandbox().getOrder(old.orderId)).toMatchObject({
			status: 'CANCELED',
			time: String(T0 - 25 * HOUR),
			updateTime: String(T0),
		});
		expect(sandbox().getBalanceDetail('10001', 'USDT')).toEqual({
			free: '100000',
			locked: '0',
			total: '100000',
		});
		expect((await master().openOrders()).json).toEqual([]);
	});

	it('the sub key seeds on its own trading account; only the master key reads both', async () => {
		const mine = limitBuy(T0 - 3 * HOUR);
		const theirs = limitBuy(T0 - HOUR, { key: DEMO_KEYS.sub });
		expect(theirs.accountId).toBe('20001');
		expect(((await sub().openOrders()).json as OrderView[]).map((o) => o.orderId)).toEqual([
			theirs.orderId,
		]);
		expect(((await master().openOrders()).json as OrderView[]).map((o) => o.orderId)).toEqual([
			mine.orderId,
			theirs.orderId,
		]);
	});

	it('an order placed over HTTP after seeding is newer than every seeded order', async () => {
		const old = limitBuy(T0 - 10 * HOUR);
		const placed = await master().order({
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'LIMIT',
			price: '41000',
			quantity: '0.1',
		});
		expect(placed.status).toBe(200);
		expect(BigInt(placed.json.orderId as string) > BigInt(old.orderId)).toBe(true);
		expect(sandbox().ledger.orders.map((o) => o.orderId)).toEqual([placed.json.orderId]);
	});

	it('refuses what the exchange cannot hold: a future time, a time before the newest order, a MARKET order, a bad field, too little balance, a client order ID in use', async () => {
		expect(() => limitBuy(T0 + 1)).toThrow(/after the sandbox clock/);
		expect(() => limitBuy(Number.NaN)).toThrow(/millisecond timestamp/);
		limitBuy(T0 - HOUR, { clientOrderId: 'taken' });
		expect(() => limitBuy(T0 - 2 * HOUR)).toThrow(
			/before the newest order's time .*seed the oldest first/,
		);
		expect(() =>
			sandbox().seedOpenOrder({
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'MARKET' as 'LIMIT',
				price: '1',
				quantity: '1',
				time: T0,
			}),
		).toThrow(/LIMIT or LIMIT_MAKER/);
		expect(() => limitBuy(T0, { symbol: 'NOPEUSDT' })).toThrow(/seeded order refused: .*'symbol'/);
		expect(() => limitBuy(T0, { price: '-1' })).toThrow(/field 'price'/);
		expect(() => limitBuy(T0, { quantity: '1000' })).toThrow(
			/seeded order refused: .*field 'quantity'/,
		);
		expect(() => limitBuy(T0, { clientOrderId: 'taken' })).toThrow(
			/seeded order refused: Duplicate order/,
		);
		// Nothing of the refused ones stayed: one order, its lock only.
		expect(((await master().openOrders()).json as OrderView[]).map((o) => o.clientOrderId)).toEqual(
			['taken'],
		);
		expect(sandbox().getBalanceDetail('10001', 'USDT').locked).toBe('4000');
	});

	it('reset() clears seeded orders and their locks', async () => {
		limitBuy(T0 - HOUR);
		sandbox().reset();
		expect((await master().openOrders()).json).toEqual([]);
		expect(sandbox().getBalanceDetail('10001', 'USDT')).toEqual({
			free: '100000',
			locked: '0',
			total: '100000',
		});
	});
});
