import { DEMO_KEYS, startSandbox, type Sandbox } from '../index';
import { TestClient, hmacHex, rawRequest } from '../testClient';

const T0 = 1_800_000_000_000;
let clock = T0;
let sb: Sandbox;
let master: TestClient;

const HISTORY = '/api/v1/account/balanceFlow';
const ORDER = '/api/v1/spot/new/order';
const historyQuery = { flowType: 32, startTime: 0, endTime: T0 + 10_000 };
const limitOrder = {
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	quantity: '0.01',
	price: '40000',
};

beforeAll(async () => {
	sb = await startSandbox({ now: () => clock });
	master = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
});
afterAll(async () => {
	await sb.stop();
});
beforeEach(() => {
	clock = T0;
	sb.reset();
});

describe('GET /api/v1/time', () => {
	it('is public and returns the server clock', async () => {
		const r = await rawRequest(sb.baseUrl, { method: 'GET', url: '/api/v1/time' });
		expect(r.status).toBe(200);
		expect(r.headers['content-type']).toMatch(/application\/json/);
		expect(r.json).toEqual({ serverTime: T0 });
	});

	it('follows the fault plan clock offset, and reset() puts it back', async () => {
		sb.setFaults({ clockOffsetMs: -2500 });
		expect(sb.now()).toBe(T0 - 2500);
		expect((await rawRequest(sb.baseUrl, { method: 'GET', url: '/api/v1/time' })).json).toEqual({
			serverTime: T0 - 2500,
		});
		sb.reset();
		expect((await rawRequest(sb.baseUrl, { method: 'GET', url: '/api/v1/time' })).json).toEqual({
			serverTime: T0,
		});
	});
});

describe('unknown paths and methods', () => {
	it('404 for an unknown path, 405 for a wrong method', async () => {
		const a = await rawRequest(sb.baseUrl, { method: 'GET', url: '/api/v1/nope' });
		expect(a.status).toBe(404);
		expect(a.json.code).toBe('-1020');
		expect(a.json.msg).toMatch(/^Unsupported operation/);
		const b = await rawRequest(sb.baseUrl, { method: 'POST', url: '/api/v1/time' });
		expect(b.status).toBe(405);
		expect(b.json.code).toBe('-1020');
	});
});

describe('signature (spec 5.3)', () => {
	it('accepts a signature in the query string (all params in the query)', async () => {
		const r = await master.history(historyQuery);
		expect(r.status).toBe(200);
		expect(r.json).toEqual([]);
	});

	it('accepts a signature in the form body (all params in the body)', async () => {
		const r = await master.call({
			method: 'POST',
			path: ORDER,
			form: limitOrder,
			timestampIn: 'body',
			signatureIn: 'body',
		});
		expect(r.status).toBe(200);
		expect(r.json.symbol).toBe('BTCUSDT');
	});

	it('accepts params split between query and body, signed as query + body with no "&" between', async () => {
		const query = 'symbol=BTCUSDT&side=BUY&type=LIMIT';
		const body = `quantity=0.01&price=40000&timestamp=${T0}`;
		const sig = hmacHex(DEMO_KEYS.master.secret, query + body);
		// signature in the body
		const r1 = await rawRequest(sb.baseUrl, {
			method: 'POST',
			url: `${ORDER}?${query}`,
			body: `${body}&signature=${sig}`,
			headers: {
				'X-APIKEY': DEMO_KEYS.master.apiKey,
				'Content-Type': 'application/x-www-form-urlencoded',
			},
		});
		expect(r1.status).toBe(200);
		// signature in the query instead (same signed text)
		const r2 = await rawRequest(sb.baseUrl, {
			method: 'POST',
			url: `${ORDER}?${query}&signature=${sig}`,
			body,
			headers: {
				'X-APIKEY': DEMO_KEYS.master.apiKey,
				'Content-Type': 'application/x-www-form-urlencoded',
			},
		});
		expect(r2.status).toBe(200);
		// a client that joins with '&' signs a different text
		const wrong = hmacHex(DEMO_KEYS.master.secret, `${query}&${body}`);
		const r3 = await rawRequest(sb.baseUrl, {
			method: 'POST',
			url: `${ORDER}?${query}&signature=${wrong}`,
			body,
			headers: {
				'X-APIKEY': DEMO_KEYS.master.apiKey,
				'Content-Type': 'application/x-www-form-urlencoded',
			},
		});
		expect(r3.status).toBe(400);
		expect(r3.json).toEqual({ code: '0002', msg: 'Incorrect signature' });
	});

	it('accepts a signature over query + JSON body (batch)', async () => {
		const r = await master.batch([limitOrder]);
		expect(r.status).toBe(200);
		expect(r.json.result[0].code).toBe(0);
		// JSON body tampered after signing
		const req = master.build({
			method: 'POST',
			path: '/api/v1/spot/batchOrders',
			json: JSON.stringify([limitOrder]),
		});
		const bad = await rawRequest(sb.baseUrl, { ...req, body: req.body!.replace('0.01', '0.02') });
		expect(bad.json.code).toBe('0002');
	});

	it('removes the signature pair wherever it sits in the query', async () => {
		const q = `flowType=32&startTime=0&endTime=${T0}&timestamp=${T0}`;
		const sig = hmacHex(DEMO_KEYS.master.secret, q);
		const mid = `flowType=32&startTime=0&signature=${sig}&endTime=${T0}&timestamp=${T0}`;
		const r = await rawRequest(sb.baseUrl, {
			method: 'GET',
			url: `${HISTORY}?${mid}`,
			headers: { 'X-APIKEY': DEMO_KEYS.master.apiKey },
		});
		expect(r.status).toBe(200);
	});

	it('compares the hex signature case-insensitively', async () => {
		const r = await master.history(historyQuery, { mangleSignature: (s) => s.toUpperCase() });
		expect(r.status).toBe(200);
		const mixed = await master.history(historyQuery, {
			mangleSignature: (s) => s.slice(0, 10).toUpperCase() + s.slice(10),
		});
		expect(mixed.status).toBe(200);
	});

	it('rejects a tampered parameter', async () => {
		const r = await master.history(historyQuery, {
			mangleQuery: (q) => q.replace('flowType=32', 'flowType=51'),
		});
		expect(r.status).toBe(400);
		expect(r.json.code).toBe('0002');
		const req = master.build({
			method: 'POST',
			path: ORDER,
			form: limitOrder,
			signatureIn: 'query',
		});
		const tampered = await rawRequest(sb.baseUrl, {
			...req,
			body: req.body!.replace('price=40000', 'price=4000'),
		});
		expect(tampered.json.code).toBe('0002');
	});

	it('rejects a signature made with another secret, a malformed one, and one sent twice', async () => {
		const other = master.withCredentials({
			apiKey: DEMO_KEYS.master.apiKey,
			secret: DEMO_KEYS.sub.secret,
		});
		expect((await other.history(historyQuery)).json.code).toBe('0002');
		expect((await master.history(historyQuery, { mangleSignature: () => 'zz' })).json.code).toBe(
			'0002',
		);
		const twice = await master.history(historyQuery, { mangleQuery: (q) => `${q}&signature=00` });
		expect(twice.json.code).toBe('0001');
	});

	it('answers a bad signature with 0001 instead of 0002 when told to (the same message text)', async () => {
		sb.setBehaviour({ signatureErrorCode: '0001' });
		const r = await master.history(historyQuery, { mangleSignature: () => '0'.repeat(64) });
		expect([r.status, r.json]).toEqual([400, { code: '0001', msg: 'Incorrect signature' }]);
		sb.reset();
		expect(
			(await master.history(historyQuery, { mangleSignature: () => '0'.repeat(64) })).json.code,
		).toBe('0002');
	});

	it('requires signature and timestamp', async () => {
		const noSig = await master.history(historyQuery, { signatureIn: 'none' });
		expect(noSig.status).toBe(400);
		expect(noSig.json).toEqual({
			code: '0001',
			msg: "Required field 'signature' missing or invalid",
		});
		const noTs = await master.history(historyQuery, { timestamp: null });
		expect(noTs.status).toBe(400);
		expect(noTs.json.code).toBe('0001');
		expect(noTs.json.msg).toContain("'timestamp'");
	});
});

describe('API key (spec 5.2) and permissions (5.1)', () => {
	it('rejects a missing or unknown X-APIKEY with 0102', async () => {
		const none = await master.history(historyQuery, { apiKey: null });
		expect(none.status).toBe(400);
		expect(none.json).toEqual({ code: '0102', msg: 'Invalid APIKey (X-APIKEY header missing)' });
		const unknown = await master.history(historyQuery, { apiKey: 'who-is-this' });
		expect(unknown.json).toEqual({ code: '0102', msg: 'Invalid APIKey (unknown X-APIKEY)' });
	});

	it('a read-only key reads history but cannot trade or transfer', async () => {
		const ro = master.withCredentials(DEMO_KEYS.readOnly);
		expect((await ro.history(historyQuery)).status).toBe(200);
		const o = await ro.order(limitOrder);
		expect(o.status).toBe(400);
		expect(o.json).toEqual({
			code: '-1005',
			msg: "No permission (this API key lacks the 'trade' permission)",
		});
		const b = await ro.batch([limitOrder]);
		expect(b.json.code).toBe('-1005');
		const t = await ro.transfer({
			fromAccountId: '10001',
			toAccountId: '10005',
			coin: 'USDT',
			quantity: '1',
		});
		expect(t.json.code).toBe('-1005');
		expect(sb.ledger.orders).toHaveLength(0);
		expect(sb.ledger.transfers).toHaveLength(0);
	});
});

describe('timestamp rule (spec 5.4): timestamp < serverTime + 1000 && serverTime - timestamp <= recvWindow', () => {
	const at = (timestamp: number, recvWindow?: number) =>
		master.history(historyQuery, { timestamp, recvWindow });

	it('future edge: +999 ms passes, +1000 ms fails', async () => {
		expect((await at(T0 + 999)).status).toBe(200);
		const r = await at(T0 + 1000);
		expect(r.status).toBe(400);
		expect(r.json).toEqual({
			code: '-1021',
			msg: 'Timestamp for this request is outside of the recvWindow',
		});
		expect((await at(T0 + 1001)).json.code).toBe('-1021');
	});

	it('past edge with the default recvWindow 5000: -5000 passes, -5001 fails', async () => {
		expect((await at(T0 - 4999)).status).toBe(200);
		expect((await at(T0 - 5000)).status).toBe(200);
		expect((await at(T0 - 5001)).json.code).toBe('-1021');
	});

	it('recvWindow moves the past edge; 0 allows only the current ms and up to 999 ms ahead', async () => {
		expect((await at(T0 - 10_000, 10_000)).status).toBe(200);
		expect((await at(T0 - 10_001, 10_000)).json.code).toBe('-1021');
		expect((await at(T0 - 60_000, 60_000)).status).toBe(200);
		expect((await at(T0, 0)).status).toBe(200);
		expect((await at(T0 - 1, 0)).json.code).toBe('-1021');
		expect((await at(T0 + 999, 0)).status).toBe(200);
	});

	it('rejects recvWindow above 60000 or malformed with 0001', async () => {
		const r = await at(T0, 60_001);
		expect(r.json.code).toBe('0001');
		expect(r.json.msg).toContain("'recvWindow'");
		expect((await master.history(historyQuery, { recvWindow: '5e3' })).json.code).toBe('0001');
	});

	it('uses the offset server clock (setFaults clockOffsetMs)', async () => {
		sb.setFaults({ clockOffsetMs: 3000 });
		const server = T0 + 3000;
		// the client here signs with the local clock T0: 3000 ms behind the server
		expect((await at(T0)).status).toBe(200);
		expect((await at(server + 999)).status).toBe(200);
		expect((await at(server + 1000)).json.code).toBe('-1021');
		expect((await at(server - 5000)).status).toBe(200);
		expect((await at(server - 5001)).json.code).toBe('-1021');
	});

	it('timestamp may sit in the form body', async () => {
		const r = await master.order(limitOrder, {
			timestampIn: 'body',
			signatureIn: 'body',
			timestamp: T0 - 5001,
		});
		expect(r.json.code).toBe('-1021');
	});
});

describe('ledger', () => {
	it('records every request, rejected ones included', async () => {
		await rawRequest(sb.baseUrl, { method: 'GET', url: '/api/v1/time' });
		await master.history(historyQuery, { apiKey: 'nope' });
		await master.history(historyQuery);
		expect(sb.ledger.requests.map((r) => [r.path, r.status, r.code, r.weight])).toEqual([
			['/api/v1/time', 200, undefined, 1],
			[HISTORY, 400, '0102', 5],
			[HISTORY, 200, undefined, 5],
		]);
		expect(sb.ledger.requests[2].apiKey).toBe(DEMO_KEYS.master.apiKey);
		expect(sb.ledger.requests[2].query).toContain('signature=');
		expect(sb.ledger.requests[2].at).toBe(T0);
	});
});
