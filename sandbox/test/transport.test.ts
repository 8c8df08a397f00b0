/**
 * Faults aimed at the node's transport (issue 12): redirects, drip-fed answers, malformed answers to
 * writes, unbounded or misordered history pages, 64-bit ids as JSON numbers, the 418 IP ban.
 */
import * as http from 'node:http';
import { gunzipSync } from 'node:zlib';

import { DEMO_KEYS, startSandbox, type HistoryRecord, type Sandbox } from '../index';
import { TestClient, rawRequest } from '../testClient';

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

const TRANSFER = '/api/v1/account/assetTransfer';
const ORDER = '/api/v1/spot/new/order';
const HISTORY = '/api/v1/account/balanceFlow';
const move = { fromAccountId: '10001', toAccountId: '10005', coin: 'USDT', quantity: '100' };
const limitBuy = {
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	quantity: '0.01',
	price: '40000',
};

/** Send a prepared request to an absolute URL (a naive client following a Location header). */
function sendTo(
	url: string,
	r: { method: string; body?: string; headers?: Record<string, string> },
) {
	const u = new URL(url);
	return rawRequest(`${u.protocol}//${u.host}`, {
		method: r.method,
		url: u.pathname + u.search,
		body: r.body,
		headers: r.headers,
	});
}

describe('redirects', () => {
	it('redirectSameHost 307: answered without processing; a client that follows re-sends the signed write to the same URL', async () => {
		sb.setFaults({ rules: [{ kind: 'redirectSameHost', times: 1, path: TRANSFER }] });
		const req = master.build({ method: 'POST', path: TRANSFER, query: move });
		const r = await rawRequest(sb.baseUrl, req);
		expect(r.status).toBe(307);
		expect(r.headers.location).toBe(`${sb.baseUrl}${req.url}`);
		expect(sb.ledger.transfers).toHaveLength(0);
		const followed = await sendTo(r.headers.location!, req);
		expect(followed.json.success).toBe(true);
		expect(sb.ledger.transfers).toHaveLength(1);
		expect(sb.ledger.requests.map((x) => [x.status, x.fault])).toEqual([
			[307, 'redirectSameHost'],
			[200, undefined],
		]);
	});

	it('redirectSameHost 303: points at /api/v1/time, which a following client fetches with GET', async () => {
		sb.setFaults({
			rules: [{ kind: 'redirectSameHost', times: 1, path: ORDER, redirectStatus: 303 }],
		});
		const r = await master.order(limitBuy);
		expect(r.status).toBe(303);
		expect(r.headers.location).toBe(`${sb.baseUrl}/api/v1/time`);
		const followed = await sendTo(r.headers.location!, { method: 'GET' });
		expect(followed.json).toEqual({ serverTime: T0 });
		expect(sb.ledger.orders).toHaveLength(0);
	});

	it('redirectSameHost takes an explicit Location', async () => {
		sb.setFaults({
			rules: [{ kind: 'redirectSameHost', times: 1, redirectStatus: 302, location: '/elsewhere' }],
		});
		const r = await master.transfer(move);
		expect([r.status, r.headers.location]).toEqual([302, '/elsewhere']);
	});

	it('redirectOtherHost: the other host (another loopback address) records what a following client sends, headers included', async () => {
		sb.setFaults({ rules: [{ kind: 'redirectOtherHost', times: 1, path: TRANSFER }] });
		const req = master.build({ method: 'POST', path: TRANSFER, query: move });
		const r = await rawRequest(sb.baseUrl, req);
		expect(r.status).toBe(307);
		expect(sb.otherHost.url).not.toBe(sb.baseUrl);
		expect(r.headers.location).toBe(`${sb.otherHost.url}${req.url}`);
		expect(sb.otherHost.requests).toHaveLength(0); // a careful client stops here

		// Node's own fetch follows a cross-origin 307 and keeps the custom X-APIKEY header
		sb.setFaults({ rules: [{ kind: 'redirectOtherHost', times: 1, path: TRANSFER }] });
		const res = await fetch(`${sb.baseUrl}${req.url}`, { method: 'POST', headers: req.headers });
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({
			success: true,
			timestamp: 1,
			clientOrderId: '',
			orderId: '1',
		});
		expect(sb.otherHost.requests).toHaveLength(1);
		const caught = sb.otherHost.requests[0];
		expect(caught.method).toBe('POST');
		expect(caught.url).toBe(req.url);
		expect(caught.headers['x-apikey']).toBe(DEMO_KEYS.master.apiKey);
		expect(sb.ledger.transfers).toHaveLength(0);
	});

	it('the other host answers what the test sets, and reset() clears it', async () => {
		sb.otherHost.setReply({ status: 201, body: '{"orderId":"42"}' });
		const a = await sendTo(`${sb.otherHost.url}/x`, { method: 'GET' });
		expect([a.status, a.json]).toEqual([201, { orderId: '42' }]);
		expect(sb.otherHost.requests.map((q) => q.url)).toEqual(['/x']);
		sb.reset();
		expect(sb.otherHost.requests).toHaveLength(0);
		expect((await sendTo(`${sb.otherHost.url}/x`, { method: 'GET' })).status).toBe(200);
	});

	it('redirectLoop: every hop redirects again; a following client gives up after its redirect limit', async () => {
		sb.setFaults({ rules: [{ kind: 'redirectLoop', times: 1, path: ORDER }] });
		const req = master.build({ method: 'POST', path: ORDER, form: limitBuy });
		await expect(
			fetch(`${sb.baseUrl}${req.url}`, { method: 'POST', headers: req.headers, body: req.body }),
		).rejects.toThrow();
		const hops = sb.ledger.requests.filter((x) => x.fault === 'redirectLoop');
		expect(hops.length).toBeGreaterThan(15);
		expect(new Set(hops.map((x) => x.status))).toEqual(new Set([307]));
		expect(sb.ledger.orders).toHaveLength(0);
	});
});

describe('slow and malformed answers', () => {
	it('dripFeed: the write is applied, the answer arrives one byte at a time', async () => {
		sb.setFaults({ rules: [{ kind: 'dripFeed', times: 1, path: TRANSFER, dripIntervalMs: 5 }] });
		const req = master.build({ method: 'POST', path: TRANSFER, query: move });
		const chunks = await new Promise<Buffer[]>((resolve, reject) => {
			const u = new URL(sb.baseUrl);
			const h = http.request(
				{
					host: u.hostname,
					port: Number(u.port),
					method: 'POST',
					path: req.url,
					headers: req.headers,
					agent: false,
				},
				(res) => {
					const got: Buffer[] = [];
					res.on('data', (c: Buffer) => got.push(c));
					res.on('end', () => resolve(got));
					res.on('error', reject);
				},
			);
			h.on('error', reject);
			h.end();
		});
		expect(sb.ledger.transfers).toHaveLength(1);
		expect(chunks[0]).toHaveLength(1);
		expect(chunks.length).toBeGreaterThan(1);
		expect(JSON.parse(Buffer.concat(chunks).toString('utf8')).success).toBe(true);
	});

	it('a drip-feed stops when the client goes away, and stop() leaves no timer behind', async () => {
		const other = await startSandbox({ now: () => T0 });
		const c = new TestClient(other.baseUrl, DEMO_KEYS.master, () => other.now());
		other.setFaults({ rules: [{ kind: 'dripFeed', times: 1, dripIntervalMs: 10_000 }] });
		const req = c.build({ method: 'POST', path: TRANSFER, query: move });
		const first = await new Promise<number>((resolve, reject) => {
			const u = new URL(other.baseUrl);
			const h = http.request(
				{
					host: u.hostname,
					port: Number(u.port),
					method: 'POST',
					path: req.url,
					headers: req.headers,
					agent: false,
				},
				(res) => {
					res.once('data', (b: Buffer) => {
						resolve(b.length);
						h.destroy();
					});
				},
			);
			h.on('error', () => undefined);
			h.on('close', () => undefined);
			h.end();
			setTimeout(() => reject(new Error('no first byte')), 5000).unref();
		});
		expect(first).toBe(1);
		await other.stop(); // jest would report an open handle if the 10 s timer lived on
	});

	it.each([
		['answerHtml', 'text/html', (t: string) => expect(t).toMatch(/^<!DOCTYPE html>/)],
		['answerNull', 'application/json', (t: string) => expect(t).toBe('null')],
		['answerEmptyString', 'application/json', (t: string) => expect(t).toBe('""')],
		['answerEmptyBody', 'application/json', (t: string) => expect(t).toBe('')],
		['answerTrue', 'application/json', (t: string) => expect(t).toBe('true')],
	] as const)(
		'%s: HTTP 200 with a body that is not the answer; the write was applied',
		async (kind, type, check) => {
			sb.setFaults({ rules: [{ kind, times: 1 }] });
			const t = await master.transfer(move);
			expect(t.status).toBe(200);
			expect(t.headers['content-type']).toContain(type);
			check(t.text);
			expect(sb.ledger.transfers).toHaveLength(1);
			sb.setFaults({ rules: [{ kind, times: 1 }] });
			const o = await master.order(limitBuy);
			check(o.text);
			expect(sb.ledger.orders).toHaveLength(1);
			expect(sb.ledger.requests.map((r) => r.appliedStatus)).toEqual([200, 200]);
		},
	);

	it('answerTruncated: half the answer, then the connection closes; the write was applied', async () => {
		sb.setFaults({ rules: [{ kind: 'answerTruncated', times: 1, path: TRANSFER }] });
		await expect(master.transfer(move)).rejects.toThrow();
		expect(sb.ledger.transfers).toHaveLength(1);
		expect(sb.ledger.requests[0]).toMatchObject({ fault: 'answerTruncated', status: 200 });
	});

	it('answerBadGzip: Content-Encoding gzip over plain JSON; the write was applied', async () => {
		sb.setFaults({ rules: [{ kind: 'answerBadGzip', times: 1, path: ORDER }] });
		const r = await master.order(limitBuy);
		expect(r.headers['content-encoding']).toBe('gzip');
		expect(() => gunzipSync(Buffer.from(r.text, 'utf8'))).toThrow();
		expect(r.json.status).toBe('NEW');
		expect(sb.ledger.orders).toHaveLength(1);
	});

	it('transferSuccessFalse: HTTP 200 {"success": false} and nothing is applied', async () => {
		sb.setFaults({ rules: [{ kind: 'transferSuccessFalse', times: 1, path: TRANSFER }] });
		const r = await master.transfer(move);
		expect([r.status, r.json]).toEqual([200, { success: false }]);
		expect(sb.ledger.transfers).toHaveLength(0);
		expect(sb.getBalance('10001', 'USDT')).toBe('100000');
	});

	it('ipBan: HTTP 418, code -3145, Retry-After; nothing is applied', async () => {
		sb.setFaults({
			rules: [
				{ kind: 'ipBan', times: 1 },
				{ kind: 'ipBan', times: 1, retryAfterSeconds: 30 },
			],
		});
		const r = await master.transfer(move);
		expect([r.status, r.json]).toEqual([
			418,
			{ code: '-3145', msg: 'Please DO NOT submit request too frequently (IP banned for 120 s)' },
		]);
		expect(r.headers['retry-after']).toBe('120');
		expect(
			(await master.history({ flowType: 51, startTime: 0, endTime: T0 })).headers['retry-after'],
		).toBe('30');
		expect(sb.ledger.transfers).toHaveLength(0);
	});
});

describe('ids as JSON numbers', () => {
	it('numericIds: orderId and accountId written as bare integers, every digit verbatim', async () => {
		sb.setFaults({ rules: [{ kind: 'numericIds', times: 2 }] });
		const o = await master.order({ ...limitBuy, newClientOrderId: '777' });
		const id = sb.ledger.orders[0].orderId;
		expect(BigInt(id)).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
		expect(o.text).toContain(`"orderId":${id},`);
		expect(o.text).toContain('"accountId":10001,');
		expect(o.text).toContain('"clientOrderId":"777"'); // a client order id stays a string
		expect(o.text).toContain('"price":"40000"');
		expect(String(o.json.orderId)).not.toBe(id); // what a plain JSON.parse makes of it
		const t = await master.transfer(move);
		expect(t.text).toMatch(/"orderId":\d{19}\}$/);
	});

	it('numericIds on history: record ids and account ids as integers', async () => {
		const [rec] = sb.addRecords([
			{ accountId: '10003', flowTypeValue: 32, change: '-1', created: String(T0) },
		]);
		sb.setFaults({ rules: [{ kind: 'numericIds', times: 1 }] });
		const r = await master.history({ flowType: 32, startTime: 0, endTime: T0 });
		expect(r.text).toContain(`"id":${rec.id},"accountId":10003,`);
		expect(r.text).toContain('"created":"');
	});
});

describe('history pages', () => {
	beforeEach(() => {
		sb.seedRecords({
			flowType: 51,
			count: 30,
			startTime: T0 - 29_000,
			endTime: T0,
			accountId: '10001',
		});
	});
	const page = async (extra: Record<string, number> = {}) =>
		(await master.history({ flowType: 51, startTime: 0, endTime: T0, limit: 10, ...extra }))
			.json as HistoryRecord[];
	const newestFirst = (recs: HistoryRecord[]) =>
		recs.every((r, i) => i === 0 || Number(recs[i - 1].created) >= Number(r.created));

	it('historyOversize: more records than the limit (by default twice as many), or extraRecords more', async () => {
		const normal = await page();
		expect(normal).toHaveLength(10);
		sb.setFaults({
			rules: [
				{ kind: 'historyOversize', times: 1 },
				{ kind: 'historyOversize', times: 1, extraRecords: 3 },
			],
		});
		const twice = await page();
		expect(twice).toHaveLength(20);
		expect(twice.slice(0, 10)).toEqual(normal);
		expect(newestFirst(twice)).toBe(true);
		expect(await page()).toHaveLength(13);
	});

	it('historyOldestFirst: the same page, ascending', async () => {
		const normal = await page();
		expect(newestFirst(normal)).toBe(true);
		sb.setFaults({ rules: [{ kind: 'historyOldestFirst', times: 1, path: HISTORY }] });
		const asc = await page();
		expect(asc).toEqual([...normal].reverse());
		expect(newestFirst(asc)).toBe(false);
	});
});

describe('random transport faults', () => {
	it('redirect, malformed, dripFeed, ipBan, numericIds and the rest are drawn reproducibly', async () => {
		const run = async () => {
			sb.reset();
			sb.setFaults({
				random: {
					seed: 11,
					redirect: 0.1,
					malformed: 0.2,
					dripFeed: 0.05,
					dripIntervalMs: 1,
					ipBan: 0.05,
					transferSuccessFalse: 0.05,
					numericIds: 0.1,
					historyOversize: 0.05,
					historyOldestFirst: 0.05,
					paths: [TRANSFER],
				},
			});
			for (let i = 0; i < 60; i++) {
				try {
					await master.transfer({ ...move, quantity: '1' });
				} catch {
					// truncated answers close the connection
				}
			}
			return sb.ledger.requests.map((r) => r.fault ?? '-');
		};
		const a = await run();
		expect(await run()).toEqual(a);
		const kinds = new Set(a);
		for (const k of ['dripFeed', 'ipBan', 'numericIds', 'transferSuccessFalse'])
			expect(kinds).toContain(k);
		expect([...kinds].some((k) => k.startsWith('redirect'))).toBe(true);
		expect([...kinds].some((k) => k.startsWith('answer'))).toBe(true);
	});
});
