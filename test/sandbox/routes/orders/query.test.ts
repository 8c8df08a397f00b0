/**
 * routes/orders/query.ts: GET /api/v1/spot/order (by either id, visibility, the query shape),
 * /api/v1/spot/openOrders (filters, paging, main then sub account) and /api/v1/spot/tradeOrders
 * (final orders of the last 90 days).
 */
import { DEMO_KEYS, type OrderView } from '../../../../sandbox';
import { placeRestingOrders } from '../../../support/orders';
import { useSandboxClients } from '../../../support/sandbox';
import { T0, DAY, limitBuy, buy, sell, placeWith } from '../../support';

let clock = T0;
beforeEach(() => {
	clock = T0;
});
const { sandbox, master, sub } = useSandboxClients({
	now: () => clock,
	rateLimit: false,
	requestRates: false,
});
const marketBuy = { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.1' };
const place = placeWith(master);

describe('GET /api/v1/spot/order', () => {
	it("finds an order by orderId, in the family's query shape (ids, times and decimals as strings)", async () => {
		const placed = (await master().order({ ...limitBuy, newClientOrderId: 'q-1' })).json;
		const r = await master().queryOrder({ orderId: placed.orderId });
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
		expect(sandbox().getOrder(placed.orderId)).toEqual(r.json);
	});

	it('finds an order by origClientOrderId; a filled MARKET order shows what it executed', async () => {
		await master().order({ ...marketBuy, newClientOrderId: 'mk' });
		const r = await master().queryOrder({ origClientOrderId: 'mk' });
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
		const m1 = (await master().order({ ...marketBuy, newClientOrderId: 'x' })).json;
		const m2 = (await master().order({ ...marketBuy, newClientOrderId: 'x' })).json;
		expect((await master().queryOrder({ origClientOrderId: 'x' })).json.orderId).toBe(m2.orderId);
		const open = (await master().order({ ...limitBuy, newClientOrderId: 'x' })).json;
		await master().order({ ...marketBuy, newClientOrderId: 'x' });
		expect((await master().queryOrder({ origClientOrderId: 'x' })).json.orderId).toBe(open.orderId);
		expect((await master().queryOrder({ orderId: m1.orderId })).json.clientOrderId).toBe('x');
	});

	it('orderId wins when both ids are sent', async () => {
		const a = (await master().order({ ...limitBuy, newClientOrderId: 'a' })).json;
		await master().order({ ...limitBuy, newClientOrderId: 'b' });
		expect(
			(await master().queryOrder({ orderId: a.orderId, origClientOrderId: 'b' })).json
				.clientOrderId,
		).toBe('a');
	});

	it('answers 0211 (Order not found) for an unknown id, and for an order of an account the key cannot see', async () => {
		const notFound = { code: '0211', msg: 'Order not found' };
		const a = await master().queryOrder({ orderId: '1950000000000000999' });
		expect([a.status, a.json]).toEqual([400, notFound]);
		expect((await master().queryOrder({ origClientOrderId: 'never-sent' })).json).toEqual(notFound);
		const mine = (await master().order({ ...limitBuy, newClientOrderId: 'mine' })).json;
		expect((await sub().queryOrder({ orderId: mine.orderId })).json).toEqual(notFound);
		expect((await sub().queryOrder({ origClientOrderId: 'mine' })).json).toEqual(notFound);
	});

	it("a master key sees its sub account's orders, or one account with accountId; other accountIds get 0104", async () => {
		const s = (await sub().order({ ...limitBuy, newClientOrderId: 's' })).json;
		expect((await master().queryOrder({ orderId: s.orderId })).json.accountId).toBe('20001');
		expect((await master().queryOrder({ orderId: s.orderId, accountId: '20001' })).status).toBe(
			200,
		);
		expect((await master().queryOrder({ orderId: s.orderId, accountId: '10001' })).json.code).toBe(
			'0211',
		);
		const other = await master().queryOrder({ orderId: s.orderId, accountId: '10005' });
		expect([other.status, other.json.code]).toEqual([400, '0104']);
		expect((await sub().queryOrder({ orderId: s.orderId, accountId: '10001' })).json.code).toBe(
			'0104',
		);
	});

	it.each([
		[{}, 'orderId'],
		[{ orderId: 'abc' }, 'orderId'],
		[{ origClientOrderId: '' }, 'origClientOrderId'],
		[{ orderId: '1', accountId: 'x' }, 'accountId'],
	])('rejects %j with 0001 naming %s', async (params, field) => {
		const r = await master().queryOrder(params);
		expect([r.status, r.json.code]).toEqual([400, '0001']);
		expect(r.json.msg).toContain(`'${field}'`);
	});

	it('is a signed read: weight 1, any key with read permission', async () => {
		const ro = master().withCredentials(DEMO_KEYS.readOnly);
		const placed = (await master().order(limitBuy)).json;
		expect((await ro.queryOrder({ orderId: placed.orderId })).status).toBe(200);
		expect(
			(await master().queryOrder({ orderId: placed.orderId }, { signatureIn: 'none' })).json.code,
		).toBe('0001');
		expect(
			sandbox()
				.ledger.requests.filter((r) => r.method === 'GET')
				.map((r) => r.weight),
		).toEqual([1, 1]);
	});
});

describe('GET /api/v1/spot/openOrders', () => {
	it('lists open orders newest first, in the query shape; filters by symbol and side', async () => {
		const a = await place(buy('a'));
		const s = await place(sell('s'));
		const e = await place({
			symbol: 'ETHUSDT',
			side: 'BUY',
			type: 'LIMIT',
			quantity: '1',
			price: '2000',
		});
		const done = await place(buy('done'));
		sandbox().fillOrder(done.orderId);
		const all = (await master().openOrders()).json as OrderView[];
		expect(all.map((o) => o.orderId)).toEqual([e.orderId, s.orderId, a.orderId]);
		expect(all[0]).toEqual(sandbox().getOrder(e.orderId));
		expect(
			(await master().openOrders({ symbol: 'BTCUSDT' })).json.map((o: OrderView) => o.orderId),
		).toEqual([s.orderId, a.orderId]);
		expect(
			(await master().openOrders({ symbol: 'BTCUSDT', side: 'SELL' })).json.map(
				(o: OrderView) => o.orderId,
			),
		).toEqual([s.orderId]);
		expect((await master().openOrders({ symbol: 'SOLUSDT' })).json).toEqual([]);
	});

	it('pages with limit and fromOrderId (orders strictly older than it): Return All over several pages', async () => {
		const ids: string[] = [];
		for (let i = 0; i < 7; i++)
			ids.push((await place(buy(undefined, { quantity: '0.01' }))).orderId);
		const seen: string[] = [];
		let from: string | undefined;
		for (;;) {
			const page = (await master().openOrders({ limit: 3, ...(from ? { fromOrderId: from } : {}) }))
				.json as OrderView[];
			expect(page.length).toBeLessThanOrEqual(3);
			seen.push(...page.map((o) => o.orderId));
			if (page.length < 3) break;
			from = page[page.length - 1].orderId;
		}
		expect(seen).toEqual([...ids].reverse());
	});

	it('defaults to 500 per page, at most 1000', async () => {
		for (let i = 0; i < 3; i++) await place(buy(undefined, { quantity: '0.01' }));
		expect((await master().openOrders({ limit: 1000 })).json).toHaveLength(3);
		expect((await master().openOrders({ limit: 1001 })).json.code).toBe('0001');
		expect((await master().openOrders({ limit: 0 })).json.code).toBe('0001');
	});

	it('a master key without accountId sees the main account first, then the sub account; accountId narrows it', async () => {
		const s = await place(buy('s', { quantity: '0.1' }), sub());
		const m = await place(buy('m'));
		expect((await master().openOrders()).json.map((o: OrderView) => o.orderId)).toEqual([
			m.orderId,
			s.orderId,
		]);
		expect(
			(await master().openOrders({ accountId: '20001' })).json.map((o: OrderView) => o.orderId),
		).toEqual([s.orderId]);
		expect((await sub().openOrders()).json.map((o: OrderView) => o.orderId)).toEqual([s.orderId]);
		expect((await sub().openOrders({ accountId: '10001' })).json.code).toBe('0104');
	});

	it('an unknown symbol gets 0201; bad side or fromOrderId 0001', async () => {
		expect((await master().openOrders({ symbol: 'DOGEUSDT' })).json).toEqual({
			code: '0201',
			msg: "Instrument not found ('DOGEUSDT')",
		});
		expect((await master().openOrders({ side: 'HOLD' })).json.code).toBe('0001');
		expect((await master().openOrders({ fromOrderId: 'x' })).json.code).toBe('0001');
	});
});

describe('GET /api/v1/spot/tradeOrders (past orders)', () => {
	it('lists filled and cancelled orders newest first, pages by fromOrderId, filters by symbol and time', async () => {
		const f = await place(buy('f'));
		sandbox().fillOrder(f.orderId);
		clock = T0 + 10;
		const c = await place(buy('c'));
		await master().cancelOrder({ orderId: c.orderId });
		const m = (
			await master().order({ symbol: 'ETHUSDT', side: 'BUY', type: 'MARKET', quantity: '1' })
		).json;
		await place(buy('open'));
		const all = (await master().tradeOrders()).json as OrderView[];
		expect(all.map((o) => [o.orderId, o.status])).toEqual([
			[m.orderId, 'FILLED'],
			[c.orderId, 'CANCELED'],
			[f.orderId, 'FILLED'],
		]);
		expect(
			(await master().tradeOrders({ limit: 1, fromOrderId: m.orderId })).json.map(
				(o: OrderView) => o.orderId,
			),
		).toEqual([c.orderId]);
		expect((await master().tradeOrders({ symbol: 'ETHUSDT' })).json).toHaveLength(1);
		expect((await master().tradeOrders({ startTime: T0 + 1, endTime: T0 + 10 })).json).toHaveLength(
			2,
		);
		expect((await master().tradeOrders({ startTime: T0 + 11, endTime: T0 })).json.code).toBe(
			'0001',
		);
	});

	it('keeps past orders for 90 days', async () => {
		const f = await place(buy());
		sandbox().fillOrder(f.orderId);
		clock = T0 + 90 * DAY;
		expect((await master().tradeOrders()).json).toHaveLength(1);
		clock = T0 + 90 * DAY + 1;
		expect((await master().tradeOrders()).json).toHaveLength(0);
		expect(sandbox().ledger.requests.map((r) => r.weight)).toEqual([1, 5, 5]);
	});
});

describe('UAE rule: a master key’s order lists (main account first, sub accounts only below 500)', () => {
	const ids = (r: { json: unknown }) => (r.json as OrderView[]).map((o) => o.orderId);

	it('open orders: with 500 main-account orders the sub account’s are not listed, with 499 they follow; accountId and fromOrderId per account', async () => {
		const subOrders = await placeRestingOrders(sandbox(), 3, { key: DEMO_KEYS.sub });
		const main = await placeRestingOrders(sandbox(), 499);
		const newest = [...main].reverse();
		expect(ids(await master().openOrders({ limit: 1000 }))).toEqual([
			...newest,
			...[...subOrders].reverse(),
		]);
		// fromOrderId applies to each account listed: the sub account's are all older than it
		expect(ids(await master().openOrders({ limit: 1000, fromOrderId: main[1] }))).toEqual([
			main[0],
			...[...subOrders].reverse(),
		]);
		const fiveHundredth = (await placeRestingOrders(sandbox(), 1))[0];
		expect(ids(await master().openOrders({ limit: 1000 }))).toEqual([fiveHundredth, ...newest]);
		expect(
			ids(await master().openOrders({ accountId: '20001', fromOrderId: subOrders[2] })),
		).toEqual([subOrders[1], subOrders[0]]);
		expect(ids(await master().openOrders({ accountId: '10001', limit: 2 }))).toEqual([
			fiveHundredth,
			main[498],
		]);
	});

	it('past orders: the same rule, paged by fromOrderId', async () => {
		const subOrders = await placeRestingOrders(sandbox(), 2, { key: DEMO_KEYS.sub });
		const main = await placeRestingOrders(sandbox(), 2);
		for (const orderId of [...subOrders, ...main]) sandbox().fillOrder(orderId);
		expect(ids(await master().tradeOrders())).toEqual([
			main[1],
			main[0],
			subOrders[1],
			subOrders[0],
		]);
		expect(ids(await master().tradeOrders({ fromOrderId: main[1] }))).toEqual([
			main[0],
			subOrders[1],
			subOrders[0],
		]);
		expect(ids(await master().tradeOrders({ accountId: '20001' }))).toEqual([
			subOrders[1],
			subOrders[0],
		]);
		expect(ids(await sub().tradeOrders())).toEqual([subOrders[1], subOrders[0]]);
	});
});
