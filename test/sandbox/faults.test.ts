/**
 * faults.ts: what each fault kind answers: 5xx and rate-limit answers, unknown-outcome codes
 * (-1146 order create, -1147 cancel, -1007 other) before and after the write, redirects, bodies
 * that are not the answer, {"success": false}, the 418 IP ban, error codes under HTTP 200 and the
 * request-rate refusal with its suspension (rateLimitSuspension).
 * createLate: pipeline.createLate.test.ts; cancelByIdsOtherKey: routes/orders/cancel.test.ts.
 */
import { IN_FLIGHT_MS } from '../../sandbox/requestRates';
import { rawRequest } from '../../sandbox/testClient';
import { useSandboxClients } from '../support/sandbox';
import { T0, TRANSFER, ORDER, BATCH, move, limitBuy, limit, sendTo, serverTime } from './support';

// No request rates: the rateLimitSuspension tests turn them on themselves (reset() turns them off).
const { sandbox, master, sub } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});
const time = () => serverTime(sandbox());
const historyQ = () => ({ flowType: 32, startTime: 0, endTime: sandbox().now() });

describe('fault injection', () => {
	it('http500 / http502 / http503 answer without processing, then the rule is used up', async () => {
		sandbox().setFaults({
			rules: [
				{ kind: 'http500', times: 1, path: TRANSFER },
				{ kind: 'http502', times: 1, path: TRANSFER },
				{ kind: 'http503', times: 1, path: TRANSFER, method: 'post' },
			],
		});
		const a = await master().transfer(move);
		expect(a.status).toBe(500);
		expect(a.json).toEqual({
			code: '-1000',
			msg: 'An unknown error occurred while processing the request',
		});
		const b = await master().transfer(move);
		expect(b.status).toBe(502);
		expect(b.headers['content-type']).toMatch(/text\/html/);
		const c = await master().transfer(move);
		expect(c.status).toBe(503);
		expect(sandbox().getBalance('10001', 'USDT')).toBe('100000');
		expect(sandbox().ledger.transfers).toHaveLength(0);
		expect((await master().transfer(move)).status).toBe(200);
		expect(sandbox().ledger.requests.map((r) => r.fault)).toEqual([
			'http500',
			'http502',
			'http503',
			undefined,
		]);
	});

	it('rateLimit fault: 429 with the configured Retry-After', async () => {
		sandbox().setFaults({
			rules: [
				{ kind: 'rateLimit', times: 2, retryAfterSeconds: 7 },
				{ kind: 'rateLimit', times: 1 },
			],
		});
		const a = await master().history(historyQ());
		expect(a.status).toBe(429);
		expect(a.json.code).toBe('0003');
		expect(a.headers['retry-after']).toBe('7');
		expect((await time()).headers['retry-after']).toBe('7');
		expect((await time()).headers['retry-after']).toBe('1');
		expect((await time()).status).toBe(200);
	});
});

describe('rateLimitSuspension: the request-rate refusal on demand', () => {
	const REFUSAL = { code: '0003', msg: 'Rate limit exceeded' };
	const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

	it('answers 429 0003 without Retry-After, places nothing, and suspends the key’s class as the limiter would: in flight 429, later 418; no fault rule is used by a refused request', async () => {
		sandbox().setRequestRates({ suspensionMs: 1000 });
		sandbox().setFaults({ rules: [{ kind: 'rateLimitSuspension', times: 1, path: ORDER }] });
		const refused = await master().order(limitBuy);
		expect(refused.status).toBe(429);
		expect(refused.json).toEqual(REFUSAL);
		expect(refused.headers['retry-after']).toBeUndefined();
		expect(sandbox().ledger.orders).toHaveLength(0);
		expect(sandbox().ledger.requests[0]).toMatchObject({
			status: 429,
			code: '0003',
			fault: 'rateLimitSuspension',
			limit: 'rateLimited',
			rateClass: 'order',
		});
		// The clock is frozen at T0: the suspension began at T0 on it.
		const inFlight = await master().order(limitBuy, { timestamp: T0 - 1 });
		expect(inFlight.status).toBe(429);
		expect(inFlight.json).toEqual(REFUSAL);
		// another class, another key: untouched
		expect((await master().history(historyQ())).status).toBe(200);
		expect((await sub().order(limitBuy)).status).toBe(200);
		sandbox().setFaults({ rules: [{ kind: 'http500', times: 1, path: ORDER }] });
		// signed a second after the refusal began: the client could have known
		const into = await master().order(limitBuy, { timestamp: T0 + IN_FLIGHT_MS });
		expect(into.status).toBe(418);
		expect(into.json.code).toBe('-3145');
		expect(sandbox().rateLimitStats()).toEqual({ rateLimited: 2, intoSuspension: 1 });
		// after the suspension the http500 rule, which the 418 did not use, acts
		await sleep(1050);
		expect((await master().order(limitBuy)).status).toBe(500);
		expect((await master().order(limitBuy)).status).toBe(200);
	});

	it('answers HTTP 400 0003 under behaviour rateLimitStatus 400', async () => {
		sandbox().setRequestRates({ suspensionMs: 1000 });
		sandbox().setBehaviour({ rateLimitStatus: 400 });
		sandbox().setFaults({ rules: [{ kind: 'rateLimitSuspension', times: 1 }] });
		const refused = await master().history(historyQ());
		expect(refused.status).toBe(400);
		expect(refused.json).toEqual(REFUSAL);
		expect(refused.headers['retry-after']).toBeUndefined();
		expect((await master().history(historyQ(), { timestamp: T0 - 1 })).status).toBe(400);
		expect((await master().history(historyQ(), { timestamp: T0 + IN_FLIGHT_MS })).status).toBe(418);
	});

	it('the refused request leaves the window, as the limiter’s refusals do', async () => {
		sandbox().setRequestRates({ orderPerSecond: 1, suspensionMs: 0 });
		sandbox().setFaults({ rules: [{ kind: 'rateLimitSuspension', times: 1, path: ORDER }] });
		expect((await master().order(limitBuy)).status).toBe(429);
		expect((await master().order(limitBuy)).status).toBe(200);
		// the one-a-second limit is in force
		expect((await master().order(limitBuy)).status).toBe(429);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('with request rates off: the same refusal, and nothing suspended', async () => {
		sandbox().setFaults({ rules: [{ kind: 'rateLimitSuspension', times: 1, path: ORDER }] });
		const refused = await master().order(limitBuy);
		expect(refused.status).toBe(429);
		expect(refused.json).toEqual(REFUSAL);
		expect((await master().order(limitBuy)).status).toBe(200);
		expect(sandbox().ledger.requests.map((r) => r.limit)).toEqual(['rateLimited', undefined]);
		expect(sandbox().rateLimitStats()).toEqual({ rateLimited: 1, intoSuspension: 0 });
	});
});

describe('unknown-outcome codes', () => {
	it('unknownBefore: an order is answered 400 -1146 (Order creation timeout) and nothing is placed', async () => {
		sandbox().setFaults({ rules: [{ kind: 'unknownBefore', times: 1, path: ORDER }] });
		const r = await master().order(limit('u1'));
		expect([r.status, r.json]).toEqual([400, { code: '-1146', msg: 'Order creation timeout' }]);
		expect(sandbox().ledger.orders).toHaveLength(0);
		expect((await master().queryOrder({ origClientOrderId: 'u1' })).json.code).toBe('0211');
		expect(sandbox().ledger.requests[0]).toMatchObject({
			status: 400,
			code: '-1146',
			fault: 'unknownBefore',
		});
		expect(sandbox().ledger.requests[0].appliedStatus).toBeUndefined();
	});

	it('unknownAfter: the order is placed, then answered -1146; a lookup finds it', async () => {
		sandbox().setFaults({ rules: [{ kind: 'unknownAfter', times: 1, path: ORDER }] });
		const r = await master().order(limit('u2'));
		expect([r.status, r.json.code]).toEqual([400, '-1146']);
		expect(sandbox().ledger.orders.map((o) => o.clientOrderId)).toEqual(['u2']);
		expect(sandbox().ledger.requests[0]).toMatchObject({
			status: 400,
			code: '-1146',
			appliedStatus: 200,
		});
		expect((await master().queryOrder({ origClientOrderId: 'u2' })).json.status).toBe('NEW');
	});

	it('unknownAfter on a batch: every order is placed, the answer is a top-level -1146', async () => {
		sandbox().setFaults({ rules: [{ kind: 'unknownAfter', times: 1, path: BATCH }] });
		const r = await master().batch([limit('b1'), limit('b2')]);
		expect([r.status, r.json]).toEqual([400, { code: '-1146', msg: 'Order creation timeout' }]);
		expect(sandbox().ledger.orders).toHaveLength(2);
	});

	it('unknown codes on a transfer are -1007 (applied with unknownAfter, not with unknownBefore)', async () => {
		sandbox().setFaults({
			rules: [
				{ kind: 'unknownBefore', times: 1, path: TRANSFER },
				{ kind: 'unknownAfter', times: 1, path: TRANSFER },
			],
		});
		const a = await master().transfer(move);
		expect([a.status, a.json]).toEqual([
			400,
			{ code: '-1007', msg: 'Timeout waiting for response from server' },
		]);
		expect(sandbox().ledger.transfers).toHaveLength(0);
		const b = await master().transfer(move);
		expect(b.json.code).toBe('-1007');
		expect(sandbox().ledger.transfers).toHaveLength(1);
		expect(sandbox().getBalance('10001', 'USDT')).toBe('99900');
	});

	it('a rule may choose the code and the HTTP status', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'unknownAfter', times: 1, code: '-1006', status: 500 }],
		});
		const r = await master().order(limit('u3'));
		expect([r.status, r.json]).toEqual([500, { code: '-1006', msg: 'Execution status unknown' }]);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});
});

describe('redirects', () => {
	it('redirectSameHost 307: answered without processing; a client that follows re-sends the signed write to the same URL', async () => {
		sandbox().setFaults({ rules: [{ kind: 'redirectSameHost', times: 1, path: TRANSFER }] });
		const req = master().build({ method: 'POST', path: TRANSFER, query: move });
		const r = await rawRequest(sandbox().baseUrl, req);
		expect(r.status).toBe(307);
		expect(r.headers.location).toBe(`${sandbox().baseUrl}${req.url}`);
		expect(sandbox().ledger.transfers).toHaveLength(0);
		const followed = await sendTo(r.headers.location!, req);
		expect(followed.json.success).toBe(true);
		expect(sandbox().ledger.transfers).toHaveLength(1);
		expect(sandbox().ledger.requests.map((x) => [x.status, x.fault])).toEqual([
			[307, 'redirectSameHost'],
			[200, undefined],
		]);
	});

	it('redirectSameHost 303: points at /api/v1/time, which a following client fetches with GET', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'redirectSameHost', times: 1, path: ORDER, redirectStatus: 303 }],
		});
		const r = await master().order(limitBuy);
		expect(r.status).toBe(303);
		expect(r.headers.location).toBe(`${sandbox().baseUrl}/api/v1/time`);
		const followed = await sendTo(r.headers.location!, { method: 'GET' });
		expect(followed.json).toEqual({ serverTime: T0 });
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('redirectSameHost takes an explicit Location', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'redirectSameHost', times: 1, redirectStatus: 302, location: '/elsewhere' }],
		});
		const r = await master().transfer(move);
		expect([r.status, r.headers.location]).toEqual([302, '/elsewhere']);
	});
});

describe('slow and malformed answers', () => {
	it.each([
		['answerHtml', 'text/html', (t: string) => expect(t).toMatch(/^<!DOCTYPE html>/)],
		['answerNull', 'application/json', (t: string) => expect(t).toBe('null')],
		['answerEmptyString', 'application/json', (t: string) => expect(t).toBe('""')],
		['answerEmptyBody', 'application/json', (t: string) => expect(t).toBe('')],
		['answerTrue', 'application/json', (t: string) => expect(t).toBe('true')],
	] as const)(
		'%s: HTTP 200 with a body that is not the answer; the write was applied',
		async (kind, type, check) => {
			sandbox().setFaults({ rules: [{ kind, times: 1 }] });
			const t = await master().transfer(move);
			expect(t.status).toBe(200);
			expect(t.headers['content-type']).toContain(type);
			check(t.text);
			expect(sandbox().ledger.transfers).toHaveLength(1);
			sandbox().setFaults({ rules: [{ kind, times: 1 }] });
			const o = await master().order(limitBuy);
			check(o.text);
			expect(sandbox().ledger.orders).toHaveLength(1);
			expect(sandbox().ledger.requests.map((r) => r.appliedStatus)).toEqual([200, 200]);
		},
	);

	it('transferSuccessFalse: HTTP 200 {"success": false} and nothing is applied', async () => {
		sandbox().setFaults({ rules: [{ kind: 'transferSuccessFalse', times: 1, path: TRANSFER }] });
		const r = await master().transfer(move);
		expect([r.status, r.json]).toEqual([200, { success: false }]);
		expect(sandbox().ledger.transfers).toHaveLength(0);
		expect(sandbox().getBalance('10001', 'USDT')).toBe('100000');
	});

	it('ipBan: HTTP 418, code -3145, Retry-After; nothing is applied', async () => {
		sandbox().setFaults({
			rules: [
				{ kind: 'ipBan', times: 1 },
				{ kind: 'ipBan', times: 1, retryAfterSeconds: 30 },
			],
		});
		const r = await master().transfer(move);
		expect([r.status, r.json]).toEqual([
			418,
			{ code: '-3145', msg: 'Please DO NOT submit request too frequently (IP banned for 120 s)' },
		]);
		expect(r.headers['retry-after']).toBe('120');
		expect(
			(await master().history({ flowType: 51, startTime: 0, endTime: T0 })).headers['retry-after'],
		).toBe('30');
		expect(sandbox().ledger.transfers).toHaveLength(0);
	});
});

describe('error codes under HTTP 200', () => {
	it('answer200Code: 200 {"code": "-1147", "msg", "result": []} by default, nothing applied', async () => {
		const o = await master().order(limit('k1'));
		sandbox().setFaults({ rules: [{ kind: 'answer200Code', times: 1, method: 'DELETE' }] });
		const r = await master().cancelOrdersByIds([o.json.orderId]);
		expect([r.status, r.json]).toEqual([
			200,
			{ code: '-1147', msg: 'Order cancellation timeout', result: [] },
		]);
		expect(sandbox().getOrder(o.json.orderId)!.status).toBe('NEW');
		expect(sandbox().ledger.cancels).toHaveLength(0);
		expect(sandbox().ledger.requests[1]).toMatchObject({
			status: 200,
			code: '-1147',
			fault: 'answer200Code',
		});
	});

	it("answer200Code takes the code of the rule, with that code's message", async () => {
		sandbox().setFaults({ rules: [{ kind: 'answer200Code', times: 1, code: '-1149' }] });
		const r = await master().order(limit('k2'));
		expect([r.status, r.json]).toEqual([
			200,
			{ code: '-1149', msg: 'Order creation failed', result: [] },
		]);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});
});

describe('numericDecimals', () => {
	it('decimals written as bare JSON numbers, every digit verbatim; ids and other strings untouched', async () => {
		sandbox().setFaults({ rules: [{ kind: 'numericDecimals', times: 1, path: ORDER }] });
		const o = await master().order({
			...limitBuy,
			price: '0.123456789012345678',
			quantity: '1.000000000000000001',
			newClientOrderId: '42',
		});
		expect(o.status).toBe(200);
		expect(o.text).toContain('"price":0.123456789012345678,');
		expect(o.text).toContain('"origQty":1.000000000000000001,');
		expect(o.text).toContain('"executedQty":0,');
		expect(o.text).toContain('"clientOrderId":"42"');
		expect(o.text).toMatch(/"orderId":"\d{19}"/);
		// What a plain JSON.parse makes of it: digits lost.
		expect(String(o.json.price)).not.toBe('0.123456789012345678');
		expect(sandbox().ledger.requests[0].fault).toBe('numericDecimals');
	});
});
