/**
 * routes/orders/batch.ts: POST /api/v1/spot/batchOrders: each order placed on its own, exact JSON
 * numbers, whole-request rejections; the answer variants (behaviours and inline batch faults).
 */
import { DEMO_KEYS, startSandbox } from '../../../../sandbox';
import { TestClient } from '../../../../sandbox/testClient';
import { useSandboxClients } from '../../../support/sandbox';
import { T0, BATCH, limitBuy, limit } from '../../support';

const { sandbox, master } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});
const tooBig = (id: string) => ({ ...limit(id), quantity: '1000' });

describe('POST /api/v1/spot/batchOrders', () => {
	it('places each order independently: one bad order does not sink the others', async () => {
		const r = await master().batch([
			{ ...limitBuy, newClientOrderId: 'b1' },
			{ ...limitBuy, price: undefined, newClientOrderId: 'b2' },
			{ symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: 0.5, newClientOrderId: 'b3' },
			{ ...limitBuy, quantity: '1000' },
			'not an order',
		]);
		expect(r.status).toBe(200);
		expect(r.json.code).toBe(0);
		expect(r.json.concentration).toBe('');
		expect(r.json.stpMode).toBe('EXPIRE_TAKER');
		const res = r.json.result as Array<{
			code: number;
			msg: string;
			order?: { clientOrderId: string; status: string };
		}>;
		expect(res.map((x) => x.code)).toEqual([0, 1, 0, 401, 1]);
		expect(res[0]).toEqual({
			code: 0,
			msg: 'success',
			order: expect.objectContaining({ clientOrderId: 'b1', status: 'NEW' }),
		});
		expect(res[1].msg).toMatch(/^Create order failed: .*'price'/);
		expect(res[1].order).toBeUndefined();
		expect(res[2].order).toEqual(
			expect.objectContaining({ clientOrderId: 'b3', status: 'FILLED', executedQty: '0.5' }),
		);
		expect(res[3].msg).toMatch(/^Create order failed: Insufficient asset/);
		expect(sandbox().ledger.orders.map((o) => [o.clientOrderId, o.via])).toEqual([
			['b1', 'batch'],
			['b3', 'batch'],
		]);
	});

	it('accepts numbers as JSON numbers or strings, exactly (0.00000001 is not 1e-8), but no exponent notation', async () => {
		const body =
			'[{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":0.00000001,"price":40000.5},' +
			'{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":"0.00000002","price":"40000"},' +
			'{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":1e-8,"price":40000},' +
			'{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":-1,"price":40000},' +
			'{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":true,"price":40000}]';
		const r = await master().batch(body);
		const res = r.json.result;
		expect(res.map((x: { code: number }) => x.code)).toEqual([0, 0, 1, 1, 1]);
		expect([res[0].order.origQty, res[0].order.price]).toEqual(['0.00000001', '40000.5']);
		expect(res[1].order.origQty).toBe('0.00000002');
		for (const x of res.slice(2)) expect(x.msg).toContain("'quantity'");
	});

	it('reports an unknown symbol per order with 201 (the integer form of 0201)', async () => {
		const r = await master().batch([
			{ ...limitBuy, symbol: 'XYZUSDT' },
			{ ...limitBuy, symbol: 'XYZUSDT' },
		]);
		expect(r.status).toBe(200);
		expect(r.json.result.map((x: { code: number }) => x.code)).toEqual([201, 201]);
		expect(r.json.result[0].msg).toContain('symbol');
	});

	it('echoes the stpMode of the batch', async () => {
		const r = await master().batch([{ ...limitBuy, stpMode: 'EXPIRE_MAKER' }]);
		expect(r.json.stpMode).toBe('EXPIRE_MAKER');
	});

	it.each([
		[
			'mixed symbols',
			JSON.stringify([limitBuy, { ...limitBuy, symbol: 'ETHUSDT', price: '3000' }]),
		],
		['an empty array', '[]'],
		['an object', JSON.stringify(limitBuy)],
		['invalid JSON', '[{"symbol":'],
	])('rejects the whole request with 0001: %s', async (_what, body) => {
		const r = await master().batch(body);
		expect(r.status).toBe(400);
		expect(r.json.code).toBe('0001');
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('rejects more than 20 orders with -2022 (Order batch size exceeds the limit)', async () => {
		const r = await master().batch(Array.from({ length: 21 }, () => limitBuy));
		expect([r.status, r.json]).toEqual([
			400,
			{ code: '-2022', msg: 'Order batch size exceeds the limit (at most 20 orders per batch)' },
		]);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('takes exactly 20 orders', async () => {
		const r = await master().batch(Array.from({ length: 20 }, () => limitBuy));
		expect(r.json.result).toHaveLength(20);
		expect(sandbox().ledger.orders).toHaveLength(20);
	});

	it('requires Content-Type application/json', async () => {
		const r = await master().batch([limitBuy], { contentType: 'text/plain' });
		expect(r.status).toBe(400);
		expect(r.json.code).toBe('0001');
		const ok = await master().batch([limitBuy], { contentType: 'application/json; charset=utf-8' });
		expect(ok.status).toBe(200);
	});
});

describe('batch answer variants', () => {
	it('top-level success code: 0 by default, "0000" with the batchSuccessCode option or setting', async () => {
		expect((await master().batch([limit('a')])).json.code).toBe(0);
		sandbox().setBehaviour({ batchSuccessCode: '0000' });
		const r = await master().batch([limit('b')]);
		expect(r.json.code).toBe('0000');
		expect(r.text).toContain('"code":"0000"');
		expect(r.json.result[0].code).toBe(0);
		sandbox().reset();
		expect((await master().batch([limit('c')])).json.code).toBe(0);

		const other = await startSandbox({ now: () => T0, behaviour: { batchSuccessCode: '0000' } });
		try {
			const c = new TestClient(other.baseUrl, DEMO_KEYS.master, () => other.now());
			expect((await c.batch([limit('d')])).json.code).toBe('0000');
			other.reset();
			expect((await c.batch([limit('e')])).json.code).toBe('0000');
		} finally {
			await other.stop();
		}
	});

	it('per-order codes as strings with batchEntryCodes "string": "0000" success, "0401", "-1141"', async () => {
		sandbox().setBehaviour({ batchEntryCodes: 'string' });
		const r = await master().batch([limit('s1'), tooBig('s2'), limit('s1'), 'x']);
		expect(r.json.result.map((e: { code: string }) => e.code)).toEqual([
			'0000',
			'0401',
			'-1141',
			'0001',
		]);
		expect(r.json.code).toBe(0);
	});

	it('batchCode0000 fault: one answer with top-level "0000"', async () => {
		sandbox().setFaults({ rules: [{ kind: 'batchCode0000', times: 1, path: BATCH }] });
		expect((await master().batch([limit('a')])).json.code).toBe('0000');
		expect((await master().batch([limit('b')])).json.code).toBe(0);
		expect(sandbox().ledger.requests[0].fault).toBe('batchCode0000');
	});

	it('batchReorder fault: result[] comes back reversed; every order is placed', async () => {
		sandbox().setFaults({ rules: [{ kind: 'batchReorder', times: 1 }] });
		const r = await master().batch([limit('r1'), tooBig('r2'), limit('r3')]);
		const res = r.json.result as Array<{ code: number; order?: { clientOrderId: string } }>;
		expect(res.map((e) => e.code)).toEqual([0, 401, 0]);
		expect(res.map((e) => e.order?.clientOrderId)).toEqual(['r3', undefined, 'r1']);
		expect(sandbox().ledger.orders.map((o) => o.clientOrderId)).toEqual(['r1', 'r3']);
	});

	it('batchTopCodeNonZero fault: top-level "-1000" while result[] still reports placed orders', async () => {
		sandbox().setFaults({ rules: [{ kind: 'batchTopCodeNonZero', times: 1 }] });
		const r = await master().batch([limit('t1'), tooBig('t2')]);
		expect(r.status).toBe(200);
		expect(r.json.code).toBe('-1000');
		expect(r.json.result.map((e: { code: number }) => e.code)).toEqual([0, 401]);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('batchNullEntry fault: the last entry is null although its order was placed', async () => {
		sandbox().setFaults({ rules: [{ kind: 'batchNullEntry', times: 1 }] });
		const r = await master().batch([limit('n1'), limit('n2')]);
		expect(r.json.result[0].code).toBe(0);
		expect(r.json.result[1]).toBeNull();
		expect(sandbox().ledger.orders.map((o) => o.clientOrderId)).toEqual(['n1', 'n2']);
	});

	it('batchEntryNoCode fault: entries carry no code (placed and failed alike)', async () => {
		sandbox().setFaults({ rules: [{ kind: 'batchEntryNoCode', times: 1 }] });
		const r = await master().batch([limit('c1'), tooBig('c2')]);
		for (const e of r.json.result) expect(e).not.toHaveProperty('code');
		expect(r.json.result[0].order.clientOrderId).toBe('c1');
		expect(r.json.result[1].order).toBeUndefined();
		expect(r.json.result[1].msg).toMatch(/^Create order failed/);
	});
});
