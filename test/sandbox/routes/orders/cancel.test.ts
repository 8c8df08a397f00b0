/**
 * routes/orders/cancel.ts: DELETE /api/v1/spot/order (one order, the UAE code 0212 for final or
 * unknown orders, or the specific codes) and /api/v1/spot/cancelOrderByIds (only the failures listed). The two cancel-all
 * endpoints: cancel.all.test.ts; cancels applied late: ../../orders/cancelling.test.ts.
 */
import { DEMO_KEYS } from '../../../../sandbox';
import { weightOf } from '../../../../sandbox/routes/table';
import { hmacHex, rawRequest } from '../../../../sandbox/testClient';
import { useSandboxClients } from '../../../support/sandbox';
import { T0, buy, placeWith } from '../../support';

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

describe('DELETE /api/v1/spot/order', () => {
	it('cancels by orderId: CANCELED, funds unlocked, recorded in ledger.cancels; the client order id is free again', async () => {
		const o = await place(buy('c1'));
		clock = T0 + 5;
		const r = await master().cancelOrder({ orderId: o.orderId });
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			accountId: '10001',
			symbol: 'BTCUSDT',
			clientOrderId: 'c1',
			orderId: o.orderId,
			transactTime: String(T0 + 5),
			price: '40000',
			origQty: '0.5',
			executedQty: '0',
			status: 'CANCELED',
			timeInForce: 'GTC',
			type: 'LIMIT',
			side: 'BUY',
		});
		expect(sandbox().getBalanceDetail('10001', 'USDT').locked).toBe('0');
		expect(sandbox().ledger.cancels).toEqual([
			{
				orderId: o.orderId,
				clientOrderId: 'c1',
				accountId: '10001',
				status: 'CANCELED',
				via: 'single',
				apiKey: DEMO_KEYS.master.apiKey,
				at: T0 + 5,
			},
		]);
		expect((await master().order(buy('c1'))).status).toBe(200);
	});

	it('cancels by clientOrderId (the open order holding it), parameters in the query or a form body', async () => {
		const o = await place(buy('c2'));
		const r = await master().call({
			method: 'DELETE',
			path: '/api/v1/spot/order',
			form: { clientOrderId: 'c2' },
		});
		expect([r.status, r.json.orderId, r.json.status]).toEqual([200, o.orderId, 'CANCELED']);
	});

	it('UAE rule: cancel code 0212: a filled, cancelled or partly cancelled order, and an unknown one, get 0212 (the default), nothing changed', async () => {
		const filled = await place(buy('u1'));
		sandbox().fillOrder(filled.orderId);
		const cancelled = await place(buy('u2'));
		await master().cancelOrder({ orderId: cancelled.orderId });
		const partly = await place(buy('u3'));
		sandbox().fillOrder(partly.orderId, '0.1');
		await master().cancelOrder({ orderId: partly.orderId });
		const completed = {
			code: '0212',
			msg: 'Order has already been completed (filled, canceled, etc) or does not exist. Please check the order status to verify',
		};
		for (const orderId of [
			filled.orderId,
			cancelled.orderId,
			partly.orderId,
			'1950000000000000999',
		]) {
			const r = await master().cancelOrder({ orderId });
			expect([r.status, r.json]).toEqual([400, completed]);
		}
		expect((await master().cancelOrder({ clientOrderId: 'nope' })).json).toEqual(completed);
		expect((await master().cancelOrder({ clientOrderId: 'u1' })).json).toEqual(completed);
		expect(sandbox().ledger.cancels.map((x) => x.status)).toEqual([
			'CANCELED',
			'PARTIALLY_CANCELED',
		]);
	});

	it("cancelNotOpenCodes 'specific': a filled order gets -1139, a cancelled one -1142, a partly filled then cancelled one -1138; unknown ids -1143", async () => {
		sandbox().setBehaviour({ cancelNotOpenCodes: 'specific' });
		const filled = await place(buy('x1'));
		sandbox().fillOrder(filled.orderId);
		expect(
			await master()
				.cancelOrder({ orderId: filled.orderId })
				.then((r) => [r.status, r.json]),
		).toEqual([400, { code: '-1139', msg: 'Order has been filled' }]);
		expect((await master().cancelOrder({ clientOrderId: 'x1' })).json.code).toBe('-1139');
		const market = (
			await master().order({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.1' })
		).json;
		expect((await master().cancelOrder({ orderId: market.orderId })).json.code).toBe('-1139');

		const c = await place(buy('x2'));
		await master().cancelOrder({ orderId: c.orderId });
		expect((await master().cancelOrder({ orderId: c.orderId })).json).toEqual({
			code: '-1142',
			msg: 'Order has been cancelled',
		});

		const p = await place(buy('x3'));
		sandbox().fillOrder(p.orderId, '0.1');
		const pc = await master().cancelOrder({ orderId: p.orderId });
		expect([pc.json.status, pc.json.executedQty]).toEqual(['PARTIALLY_CANCELED', '0.1']);
		expect(sandbox().getBalanceDetail('10001', 'USDT').locked).toBe('0');
		expect((await master().cancelOrder({ orderId: p.orderId })).json.code).toBe('-1138');

		expect((await master().cancelOrder({ orderId: '1950000000000000999' })).json).toEqual({
			code: '-1143',
			msg: 'Order not found on order book',
		});
		expect((await master().cancelOrder({ clientOrderId: 'nope' })).json.code).toBe('-1143');
		expect(sandbox().ledger.cancels.map((x) => x.status)).toEqual([
			'CANCELED',
			'PARTIALLY_CANCELED',
		]);
	});

	it("a sub key cannot cancel the master account's order; a read-only key cannot cancel at all", async () => {
		const o = await place(buy('m'));
		expect((await sub().cancelOrder({ orderId: o.orderId })).json.code).toBe('0212');
		expect(
			(await master().withCredentials(DEMO_KEYS.readOnly).cancelOrder({ orderId: o.orderId })).json
				.code,
		).toBe('-1005');
		expect(sandbox().getOrder(o.orderId)!.status).toBe('NEW');
	});

	it.each([
		[{}, 'orderId'],
		[{ orderId: '12x' }, 'orderId'],
		[{ clientOrderId: '' }, 'clientOrderId'],
	])('rejects %j with 0001 naming %s', async (params, field) => {
		const r = await master().cancelOrder(params);
		expect([r.status, r.json.code]).toEqual([400, '0001']);
		expect(r.json.msg).toContain(`'${field}'`);
	});

	it('unknownAfter on a cancel: applied, answered -1147 (Order cancellation timeout)', async () => {
		const o = await place(buy());
		sandbox().setFaults({ rules: [{ kind: 'unknownAfter', times: 1, method: 'DELETE' }] });
		const r = await master().cancelOrder({ orderId: o.orderId });
		expect([r.status, r.json]).toEqual([400, { code: '-1147', msg: 'Order cancellation timeout' }]);
		expect(sandbox().getOrder(o.orderId)!.status).toBe('CANCELED');
	});
});

describe('DELETE /api/v1/spot/cancelOrderByIds', () => {
	it('UAE rule: cancel code 0211: each id not cancelled (filled, cancelled, unknown) is listed with 0211, the documentation example’s code', async () => {
		const a = await place(buy('a'));
		const filled = await place(buy('f'));
		sandbox().fillOrder(filled.orderId);
		const unknown = '1950000000000000999';
		const r = await master().cancelOrdersByIds([a.orderId, filled.orderId, unknown, a.orderId]);
		expect(r.json).toEqual({
			code: '0000',
			result: [
				{ orderId: filled.orderId, code: '0211' },
				{ orderId: unknown, code: '0211' },
				{ orderId: a.orderId, code: '0211' },
			],
		});
		expect(sandbox().ledger.cancels.map((c) => c.orderId)).toEqual([a.orderId]);
	});

	it("cancelNotOpenCodes 'specific': cancels each id; result lists only the ids that failed, with their codes as strings", async () => {
		sandbox().setBehaviour({ cancelNotOpenCodes: 'specific' });
		const a = await place(buy('a'));
		const b = await place(buy('b'));
		const filled = await place(buy('f'));
		sandbox().fillOrder(filled.orderId);
		const unknown = '1950000000000000999';
		const r = await master().cancelOrdersByIds([
			a.orderId,
			filled.orderId,
			unknown,
			b.orderId,
			a.orderId,
		]);
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			code: '0000',
			result: [
				{ orderId: filled.orderId, code: '-1139' },
				{ orderId: unknown, code: '-1143' },
				{ orderId: a.orderId, code: '-1142' },
			],
		});
		expect(sandbox().ledger.cancels.map((c) => [c.orderId, c.via])).toEqual([
			[a.orderId, 'ids'],
			[b.orderId, 'ids'],
		]);
	});

	it('all cancelled: result [] (or null with cancelByIdsAllCancelled "null"); ids may be sent with raw commas', async () => {
		const a = await place(buy());
		expect((await master().cancelOrdersByIds([a.orderId])).json).toEqual({
			code: '0000',
			result: [],
		});
		const b = await place(buy());
		const c = await place(buy());
		sandbox().setBehaviour({ cancelByIdsAllCancelled: 'null' });
		const q = `ids=${b.orderId},${c.orderId}&timestamp=${T0}`;
		const r = await rawRequest(sandbox().baseUrl, {
			method: 'DELETE',
			url: `/api/v1/spot/cancelOrderByIds?${q}&signature=${hmacHex(DEMO_KEYS.master.secret, q)}`,
			headers: { 'X-APIKEY': DEMO_KEYS.master.apiKey },
		});
		expect(r.json).toEqual({ code: '0000', result: null });
		expect([b, c].map((o) => sandbox().getOrder(o.orderId)!.status)).toEqual([
			'CANCELED',
			'CANCELED',
		]);
	});

	it('more than 100 ids get -2022; malformed ids 0001', async () => {
		const many = Array.from({ length: 101 }, (_, i) => String(1950000000000000100n + BigInt(i)));
		expect((await master().cancelOrdersByIds(many)).json.code).toBe('-2022');
		expect((await master().cancelOrdersByIds('1,,2')).json.code).toBe('0001');
		expect((await master().cancelOrdersByIds('abc')).json.code).toBe('0001');
		const none = await master().call({ method: 'DELETE', path: '/api/v1/spot/cancelOrderByIds' });
		expect([none.json.code, none.json.msg]).toEqual([
			'0001',
			"Required field 'ids' missing or invalid (comma-separated order ids)",
		]);
		const weight = weightOf('/api/v1/spot/cancelOrderByIds', 'DELETE');
		expect(sandbox().ledger.requests.map((r) => r.weight)).toEqual([
			weight,
			weight,
			weight,
			weight,
		]);
	});

	it('cancelByIdsOtherKey: processed as usual, but each failure names its order under `id`', async () => {
		const a = await place(buy());
		const unknown = '1950000000000000999';
		sandbox().setFaults({ rules: [{ kind: 'cancelByIdsOtherKey', times: 1 }] });
		const r = await master().cancelOrdersByIds([a.orderId, unknown]);
		expect([r.status, r.json]).toEqual([
			200,
			{ code: '0000', result: [{ id: unknown, code: '0211' }] },
		]);
		expect(sandbox().getOrder(a.orderId)!.status).toBe('CANCELED');
		expect(sandbox().ledger.requests[1].fault).toBe('cancelByIdsOtherKey');
		const again = await master().cancelOrdersByIds([unknown]);
		expect(again.json.result).toEqual([{ orderId: unknown, code: '0211' }]);
	});

	it('cancelByIdsEntryCode: processed as usual, each failure carries the rule’s code (default -2013)', async () => {
		const a = await place(buy());
		const unknown = '1950000000000000999';
		sandbox().setFaults({ rules: [{ kind: 'cancelByIdsEntryCode', times: 1 }] });
		const r = await master().cancelOrdersByIds([a.orderId, unknown]);
		expect(r.json).toEqual({ code: '0000', result: [{ orderId: unknown, code: '-2013' }] });
		expect(sandbox().getOrder(a.orderId)!.status).toBe('CANCELED');
		sandbox().setFaults({ rules: [{ kind: 'cancelByIdsEntryCode', times: 1, code: '0212' }] });
		expect((await master().cancelOrdersByIds([a.orderId])).json.result).toEqual([
			{ orderId: a.orderId, code: '0212' },
		]);
	});
});
