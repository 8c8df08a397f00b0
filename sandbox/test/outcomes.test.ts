/**
 * Answers that decide a write's outcome: batch answer variants, unknown-outcome codes, faults that
 * act after the write was applied.
 */
import {
	DEMO_KEYS,
	FAULT_KINDS,
	UNKNOWN_OUTCOME_CODES,
	startSandbox,
	type Sandbox,
} from '../index';
import { TestClient } from '../testClient';

const T0 = 1_800_000_000_000;
let sb: Sandbox;
let master: TestClient;

beforeAll(async () => {
	sb = await startSandbox({ now: () => T0, rateLimit: false });
	master = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
});
afterAll(async () => {
	await sb.stop();
});
beforeEach(() => sb.reset());

const BATCH = '/api/v1/spot/batchOrders';
const ORDER = '/api/v1/spot/new/order';
const TRANSFER = '/api/v1/account/assetTransfer';
const limit = (id: string) => ({
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	quantity: '0.01',
	price: '40000',
	newClientOrderId: id,
});
const tooBig = (id: string) => ({ ...limit(id), quantity: '1000' });
const move = { fromAccountId: '10001', toAccountId: '10005', coin: 'USDT', quantity: '100' };

describe('batch answer variants', () => {
	it('top-level success code: 0 by default, "0000" with the batchSuccessCode option or setting', async () => {
		expect((await master.batch([limit('a')])).json.code).toBe(0);
		sb.setBehaviour({ batchSuccessCode: '0000' });
		const r = await master.batch([limit('b')]);
		expect(r.json.code).toBe('0000');
		expect(r.text).toContain('"code":"0000"');
		expect(r.json.result[0].code).toBe(0);
		sb.reset();
		expect((await master.batch([limit('c')])).json.code).toBe(0);

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
		sb.setBehaviour({ batchEntryCodes: 'string' });
		const r = await master.batch([limit('s1'), tooBig('s2'), limit('s1'), 'x']);
		expect(r.json.result.map((e: { code: string }) => e.code)).toEqual([
			'0000',
			'0401',
			'-1141',
			'0001',
		]);
		expect(r.json.code).toBe(0);
	});

	it('batchCode0000 fault: one answer with top-level "0000"', async () => {
		sb.setFaults({ rules: [{ kind: 'batchCode0000', times: 1, path: BATCH }] });
		expect((await master.batch([limit('a')])).json.code).toBe('0000');
		expect((await master.batch([limit('b')])).json.code).toBe(0);
		expect(sb.ledger.requests[0].fault).toBe('batchCode0000');
	});

	it('batchReorder fault: result[] comes back reversed; every order is placed', async () => {
		sb.setFaults({ rules: [{ kind: 'batchReorder', times: 1 }] });
		const r = await master.batch([limit('r1'), tooBig('r2'), limit('r3')]);
		const res = r.json.result as Array<{ code: number; order?: { clientOrderId: string } }>;
		expect(res.map((e) => e.code)).toEqual([0, 401, 0]);
		expect(res.map((e) => e.order?.clientOrderId)).toEqual(['r3', undefined, 'r1']);
		expect(sb.ledger.orders.map((o) => o.clientOrderId)).toEqual(['r1', 'r3']);
	});

	it('batchTopCodeNonZero fault: top-level "-1000" while result[] still reports placed orders', async () => {
		sb.setFaults({ rules: [{ kind: 'batchTopCodeNonZero', times: 1 }] });
		const r = await master.batch([limit('t1'), tooBig('t2')]);
		expect(r.status).toBe(200);
		expect(r.json.code).toBe('-1000');
		expect(r.json.result.map((e: { code: number }) => e.code)).toEqual([0, 401]);
		expect(sb.ledger.orders).toHaveLength(1);
	});

	it('batchNullEntry fault: the last entry is null although its order was placed', async () => {
		sb.setFaults({ rules: [{ kind: 'batchNullEntry', times: 1 }] });
		const r = await master.batch([limit('n1'), limit('n2')]);
		expect(r.json.result[0].code).toBe(0);
		expect(r.json.result[1]).toBeNull();
		expect(sb.ledger.orders.map((o) => o.clientOrderId)).toEqual(['n1', 'n2']);
	});

	it('batchEntryNoCode fault: entries carry no code (placed and failed alike)', async () => {
		sb.setFaults({ rules: [{ kind: 'batchEntryNoCode', times: 1 }] });
		const r = await master.batch([limit('c1'), tooBig('c2')]);
		for (const e of r.json.result) expect(e).not.toHaveProperty('code');
		expect(r.json.result[0].order.clientOrderId).toBe('c1');
		expect(r.json.result[1].order).toBeUndefined();
		expect(r.json.result[1].msg).toMatch(/^Create order failed/);
	});
});

describe('unknown-outcome codes', () => {
	it('the list of unknown-outcome codes is exported', () => {
		expect(UNKNOWN_OUTCOME_CODES).toEqual(['-1000', '-1001', '-1006', '-1007', '-1146', '-1147']);
	});

	it('unknownBefore: an order is answered 400 -1146 (Order creation timeout) and nothing is placed', async () => {
		sb.setFaults({ rules: [{ kind: 'unknownBefore', times: 1, path: ORDER }] });
		const r = await master.order(limit('u1'));
		expect([r.status, r.json]).toEqual([400, { code: '-1146', msg: 'Order creation timeout' }]);
		expect(sb.ledger.orders).toHaveLength(0);
		expect((await master.queryOrder({ origClientOrderId: 'u1' })).json.code).toBe('0211');
		expect(sb.ledger.requests[0]).toMatchObject({
			status: 400,
			code: '-1146',
			fault: 'unknownBefore',
		});
		expect(sb.ledger.requests[0].appliedStatus).toBeUndefined();
	});

	it('unknownAfter: the order is placed, then answered -1146; a lookup finds it', async () => {
		sb.setFaults({ rules: [{ kind: 'unknownAfter', times: 1, path: ORDER }] });
		const r = await master.order(limit('u2'));
		expect([r.status, r.json.code]).toEqual([400, '-1146']);
		expect(sb.ledger.orders.map((o) => o.clientOrderId)).toEqual(['u2']);
		expect(sb.ledger.requests[0]).toMatchObject({ status: 400, code: '-1146', appliedStatus: 200 });
		expect((await master.queryOrder({ origClientOrderId: 'u2' })).json.status).toBe('NEW');
	});

	it('unknownAfter on a batch: every order is placed, the answer is a top-level -1146', async () => {
		sb.setFaults({ rules: [{ kind: 'unknownAfter', times: 1, path: BATCH }] });
		const r = await master.batch([limit('b1'), limit('b2')]);
		expect([r.status, r.json]).toEqual([400, { code: '-1146', msg: 'Order creation timeout' }]);
		expect(sb.ledger.orders).toHaveLength(2);
	});

	it('unknown codes on a transfer are -1007 (applied with unknownAfter, not with unknownBefore)', async () => {
		sb.setFaults({
			rules: [
				{ kind: 'unknownBefore', times: 1, path: TRANSFER },
				{ kind: 'unknownAfter', times: 1, path: TRANSFER },
			],
		});
		const a = await master.transfer(move);
		expect([a.status, a.json]).toEqual([
			400,
			{ code: '-1007', msg: 'Timeout waiting for response from server' },
		]);
		expect(sb.ledger.transfers).toHaveLength(0);
		const b = await master.transfer(move);
		expect(b.json.code).toBe('-1007');
		expect(sb.ledger.transfers).toHaveLength(1);
		expect(sb.getBalance('10001', 'USDT')).toBe('99900');
	});

	it('a rule may choose the code and the HTTP status', async () => {
		sb.setFaults({ rules: [{ kind: 'unknownAfter', times: 1, code: '-1006', status: 500 }] });
		const r = await master.order(limit('u3'));
		expect([r.status, r.json]).toEqual([500, { code: '-1006', msg: 'Execution status unknown' }]);
		expect(sb.ledger.orders).toHaveLength(1);
	});
});

describe('5xx after the write was applied', () => {
	it.each([
		['http500After', 500, 'application/json'],
		['http502After', 502, 'text/html'],
		['http503After', 503, 'application/json'],
	] as const)('%s: the transfer is applied, the answer is %i', async (kind, status, type) => {
		sb.setFaults({ rules: [{ kind, times: 1, path: TRANSFER }] });
		const r = await master.transfer(move);
		expect(r.status).toBe(status);
		expect(r.headers['content-type']).toContain(type);
		expect(sb.ledger.transfers).toHaveLength(1);
		expect(sb.ledger.requests[0]).toMatchObject({ fault: kind, status, appliedStatus: 200 });
	});

	it('a rejected write stays rejected under an after-fault (appliedStatus tells)', async () => {
		sb.setFaults({ rules: [{ kind: 'http500After', times: 1, path: TRANSFER }] });
		const r = await master.transfer({ ...move, quantity: '1000000' });
		expect(r.status).toBe(500);
		expect(sb.ledger.transfers).toHaveLength(0);
		expect(sb.ledger.requests[0]).toMatchObject({ status: 500, appliedStatus: 400 });
	});
});

describe('random faults draw the new kinds too', () => {
	it('http5xxAfter, unknownBefore, unknownAfter and batchReorder are reproducible for a seed', async () => {
		const run = async () => {
			sb.reset();
			sb.setFaults({
				random: {
					seed: 7,
					http5xxAfter: 0.2,
					unknownBefore: 0.2,
					unknownAfter: 0.2,
					batchReorder: 0.2,
					paths: [BATCH],
				},
			});
			for (let i = 0; i < 30; i++) await master.batch([limit(`o${i}a`), limit(`o${i}b`)]);
			return sb.ledger.requests.map((r) => r.fault ?? '-');
		};
		const a = await run();
		expect(await run()).toEqual(a);
		for (const k of ['unknownBefore', 'unknownAfter', 'batchReorder']) expect(a).toContain(k);
		expect(a.some((f) => f.endsWith('After') && f.startsWith('http5'))).toBe(true);
		// unknownBefore placed nothing; every other request placed both orders
		const placing = a.filter((f) => f !== 'unknownBefore').length;
		expect(sb.ledger.orders).toHaveLength(placing * 2);
	});

	it('FAULT_KINDS lists every kind setFaults accepts', () => {
		expect(FAULT_KINDS).toEqual(
			expect.arrayContaining(['dropAfter', 'unknownAfter', 'batchReorder', 'http503After']),
		);
		expect(() => sb.setFaults({ rules: [{ kind: 'nope' as never, times: 1 }] })).toThrow(
			/unknown fault kind/,
		);
	});
});
