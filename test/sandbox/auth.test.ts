/**
 * auth.ts: the checks of a signed request (spec section 5): the signature over query + body, the
 * API key and its permissions, the timestamp and recvWindow rule at exactly +-1 ms of each edge.
 */
import { DEMO_KEYS } from '../../sandbox';
import { hmacHex, rawRequest } from '../../sandbox/testClient';
import { useSandboxClients } from '../support/sandbox';
import { T0, HISTORY, ORDER, historyQuery, limitBuy } from './support';

let clock = T0;
beforeEach(() => {
	clock = T0;
});
const { sandbox, master } = useSandboxClients({ now: () => clock, requestRates: false });

describe('signature (spec 5.3)', () => {
	it('accepts a signature in the query string (all params in the query)', async () => {
		const r = await master().history(historyQuery);
		expect(r.status).toBe(200);
		expect(r.json).toEqual([]);
	});

	it('accepts a signature in the form body (all params in the body)', async () => {
		const r = await master().call({
			method: 'POST',
			path: ORDER,
			form: limitBuy,
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
		const r1 = await rawRequest(sandbox().baseUrl, {
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
		const r2 = await rawRequest(sandbox().baseUrl, {
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
		const r3 = await rawRequest(sandbox().baseUrl, {
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
		const r = await master().batch([limitBuy]);
		expect(r.status).toBe(200);
		expect(r.json.result[0].code).toBe(0);
		// JSON body tampered after signing
		const req = master().build({
			method: 'POST',
			path: '/api/v1/spot/batchOrders',
			json: JSON.stringify([limitBuy]),
		});
		const bad = await rawRequest(sandbox().baseUrl, {
			...req,
			body: req.body!.replace('0.01', '0.02'),
		});
		expect(bad.json.code).toBe('0002');
	});

	it('removes the signature pair wherever it sits in the query', async () => {
		const q = `flowType=32&startTime=0&endTime=${T0}&timestamp=${T0}`;
		const sig = hmacHex(DEMO_KEYS.master.secret, q);
		const mid = `flowType=32&startTime=0&signature=${sig}&endTime=${T0}&timestamp=${T0}`;
		const r = await rawRequest(sandbox().baseUrl, {
			method: 'GET',
			url: `${HISTORY}?${mid}`,
			headers: { 'X-APIKEY': DEMO_KEYS.master.apiKey },
		});
		expect(r.status).toBe(200);
	});

	it('compares the hex signature case-insensitively', async () => {
		const r = await master().history(historyQuery, { mangleSignature: (s) => s.toUpperCase() });
		expect(r.status).toBe(200);
		const mixed = await master().history(historyQuery, {
			mangleSignature: (s) => s.slice(0, 10).toUpperCase() + s.slice(10),
		});
		expect(mixed.status).toBe(200);
	});

	it('rejects a tampered parameter', async () => {
		const r = await master().history(historyQuery, {
			mangleQuery: (q) => q.replace('flowType=32', 'flowType=51'),
		});
		expect(r.status).toBe(400);
		expect(r.json.code).toBe('0002');
		const req = master().build({
			method: 'POST',
			path: ORDER,
			form: limitBuy,
			signatureIn: 'query',
		});
		const tampered = await rawRequest(sandbox().baseUrl, {
			...req,
			body: req.body!.replace('price=40000', 'price=4000'),
		});
		expect(tampered.json.code).toBe('0002');
	});

	it('rejects a signature made with another secret, a malformed one, and one sent twice', async () => {
		const other = master().withCredentials({
			apiKey: DEMO_KEYS.master.apiKey,
			secret: DEMO_KEYS.sub.secret,
		});
		expect((await other.history(historyQuery)).json.code).toBe('0002');
		expect((await master().history(historyQuery, { mangleSignature: () => 'zz' })).json.code).toBe(
			'0002',
		);
		const twice = await master().history(historyQuery, { mangleQuery: (q) => `${q}&signature=00` });
		expect(twice.json.code).toBe('0001');
	});

	it('answers a bad signature with 0001 instead of 0002 when told to (the same message text)', async () => {
		sandbox().setBehaviour({ signatureErrorCode: '0001' });
		const r = await master().history(historyQuery, { mangleSignature: () => '0'.repeat(64) });
		expect([r.status, r.json]).toEqual([400, { code: '0001', msg: 'Incorrect signature' }]);
		sandbox().reset();
		expect(
			(await master().history(historyQuery, { mangleSignature: () => '0'.repeat(64) })).json.code,
		).toBe('0002');
	});

	it('requires signature and timestamp', async () => {
		const noSig = await master().history(historyQuery, { signatureIn: 'none' });
		expect(noSig.status).toBe(400);
		expect(noSig.json).toEqual({
			code: '0001',
			msg: "Required field 'signature' missing or invalid",
		});
		const noTs = await master().history(historyQuery, { timestamp: null });
		expect(noTs.status).toBe(400);
		expect(noTs.json.code).toBe('0001');
		expect(noTs.json.msg).toContain("'timestamp'");
	});
});

describe('API key (spec 5.2) and permissions (5.1)', () => {
	it('rejects a missing or unknown X-APIKEY with 0102', async () => {
		const none = await master().history(historyQuery, { apiKey: null });
		expect(none.status).toBe(400);
		expect(none.json).toEqual({ code: '0102', msg: 'Invalid APIKey (X-APIKEY header missing)' });
		const unknown = await master().history(historyQuery, { apiKey: 'who-is-this' });
		expect(unknown.json).toEqual({ code: '0102', msg: 'Invalid APIKey (unknown X-APIKEY)' });
	});

	it('a read-only key reads history but cannot trade or transfer', async () => {
		const ro = master().withCredentials(DEMO_KEYS.readOnly);
		expect((await ro.history(historyQuery)).status).toBe(200);
		const o = await ro.order(limitBuy);
		expect(o.status).toBe(400);
		expect(o.json).toEqual({
			code: '-1005',
			msg: "No permission (this API key lacks the 'trade' permission)",
		});
		const b = await ro.batch([limitBuy]);
		expect(b.json.code).toBe('-1005');
		const t = await ro.transfer({
			fromAccountId: '10001',
			toAccountId: '10005',
			coin: 'USDT',
			quantity: '1',
		});
		expect(t.json.code).toBe('-1005');
		expect(sandbox().ledger.orders).toHaveLength(0);
		expect(sandbox().ledger.transfers).toHaveLength(0);
	});
});

describe('timestamp rule (spec 5.4): timestamp < serverTime + 1000 && serverTime - timestamp <= recvWindow', () => {
	const at = (timestamp: number, recvWindow?: number) =>
		master().history(historyQuery, { timestamp, recvWindow });

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
		expect((await at(T0 - 8000, 8000)).status).toBe(200);
		expect((await at(T0 - 8001, 8000)).json.code).toBe('-1021');
		expect((await at(T0 - 2000, 1000)).json.code).toBe('-1021');
		expect((await at(T0, 0)).status).toBe(200);
		expect((await at(T0 - 1, 0)).json.code).toBe('-1021');
		expect((await at(T0 + 999, 0)).status).toBe(200);
	});

	it('UAE rule: receive window over 8000 is refused with 0001 (the UAE maximum; the documentation names no code), as is a malformed one', async () => {
		expect((await at(T0, 8000)).status).toBe(200);
		const r = await at(T0, 8001);
		expect(r.status).toBe(400);
		expect(r.json.code).toBe('0001');
		expect(r.json.msg).toContain("'recvWindow'");
		expect(r.json.msg).toContain('8000');
		expect((await at(T0, 60_000)).json.code).toBe('0001');
		expect((await master().history(historyQuery, { recvWindow: '5e3' })).json.code).toBe('0001');
	});

	it('uses the offset server clock (setFaults clockOffsetMs)', async () => {
		sandbox().setFaults({ clockOffsetMs: 3000 });
		const server = T0 + 3000;
		// the client here signs with the local clock T0: 3000 ms behind the server
		expect((await at(T0)).status).toBe(200);
		expect((await at(server + 999)).status).toBe(200);
		expect((await at(server + 1000)).json.code).toBe('-1021');
		expect((await at(server - 5000)).status).toBe(200);
		expect((await at(server - 5001)).json.code).toBe('-1021');
	});

	it('timestamp may sit in the form body', async () => {
		const r = await master().order(limitBuy, {
			timestampIn: 'body',
			signatureIn: 'body',
			timestamp: T0 - 5001,
		});
		expect(r.json.code).toBe('-1021');
	});
});

describe('behaviour historyRefusedKeys: a key that may not read the history (UAE: -1005)', () => {
	it('refuses the history list to the named key only, with -1005; its other requests pass', async () => {
		sandbox().setBehaviour({ historyRefusedKeys: [DEMO_KEYS.master.apiKey] });
		const refused = await master().history(historyQuery);
		expect(refused.status).toBe(400);
		expect(refused.json).toEqual({
			code: '-1005',
			msg: 'No permission (this API key may not read the history)',
		});
		expect(
			(await master().call({ method: 'GET', path: '/api/v1/account/checkApiKey' })).status,
		).toBe(200);
		expect((await master().order(limitBuy)).status).toBe(200);
		expect((await master().withCredentials(DEMO_KEYS.readOnly).history(historyQuery)).status).toBe(
			200,
		);
		sandbox().reset();
		expect((await master().history(historyQuery)).status).toBe(200);
	});
});
