/**
 * send.ts: answers written the way a send fault mangles them: drip-fed one byte at a time (and
 * stopped with the client or the sandbox), cut off halfway, labelled gzip; ids as bare JSON numbers.
 */
import * as http from 'node:http';
import { gunzipSync } from 'node:zlib';

import { DEMO_KEYS, startSandbox } from '../../sandbox';
import { TestClient } from '../../sandbox/testClient';
import { useSandboxClients } from '../support/sandbox';
import { T0, TRANSFER, ORDER, move, limitBuy } from './support';

const { sandbox, master } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});

describe('slow and malformed answers', () => {
	it('dripFeed: the write is applied, the answer arrives one byte at a time', async () => {
		// 20 ms apart: the client shares this process, so a busy event loop can join two bytes
		// into one read; most reads still hold a single byte.
		sandbox().setFaults({
			rules: [{ kind: 'dripFeed', times: 1, path: TRANSFER, dripIntervalMs: 20 }],
		});
		const req = master().build({ method: 'POST', path: TRANSFER, query: move });
		const chunks = await new Promise<Buffer[]>((resolve, reject) => {
			const u = new URL(sandbox().baseUrl);
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
		expect(sandbox().ledger.transfers).toHaveLength(1);
		const single = chunks.filter((c) => c.length === 1).length;
		expect(chunks.length).toBeGreaterThan(1);
		expect(single).toBeGreaterThanOrEqual(chunks.length / 2);
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

	it('answerTruncated: half the answer, then the connection closes; the write was applied', async () => {
		sandbox().setFaults({ rules: [{ kind: 'answerTruncated', times: 1, path: TRANSFER }] });
		await expect(master().transfer(move)).rejects.toThrow();
		expect(sandbox().ledger.transfers).toHaveLength(1);
		expect(sandbox().ledger.requests[0]).toMatchObject({ fault: 'answerTruncated', status: 200 });
	});

	it('answerBadGzip: Content-Encoding gzip over plain JSON; the write was applied', async () => {
		sandbox().setFaults({ rules: [{ kind: 'answerBadGzip', times: 1, path: ORDER }] });
		const r = await master().order(limitBuy);
		expect(r.headers['content-encoding']).toBe('gzip');
		expect(() => gunzipSync(Buffer.from(r.text, 'utf8'))).toThrow();
		expect(r.json.status).toBe('NEW');
		expect(sandbox().ledger.orders).toHaveLength(1);
	});
});

describe('ids as JSON numbers', () => {
	it('numericIds: orderId and accountId written as bare integers, every digit verbatim', async () => {
		sandbox().setFaults({ rules: [{ kind: 'numericIds', times: 2 }] });
		const o = await master().order({ ...limitBuy, newClientOrderId: '777' });
		const id = sandbox().ledger.orders[0].orderId;
		expect(BigInt(id)).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
		expect(o.text).toContain(`"orderId":${id},`);
		expect(o.text).toContain('"accountId":10001,');
		expect(o.text).toContain('"clientOrderId":"777"'); // a client order id stays a string
		expect(o.text).toContain('"price":"40000"');
		expect(String(o.json.orderId)).not.toBe(id); // what a plain JSON.parse makes of it
		const t = await master().transfer(move);
		expect(t.text).toMatch(/"orderId":\d{19}\}$/);
	});

	it('numericIds on history: record ids and account ids as integers', async () => {
		const [rec] = sandbox().addRecords([
			{ accountId: '10003', flowTypeValue: 32, change: '-1', created: String(T0) },
		]);
		sandbox().setFaults({ rules: [{ kind: 'numericIds', times: 1 }] });
		const r = await master().history({ flowType: 32, startTime: 0, endTime: T0 });
		expect(r.text).toContain(`"id":${rec.id},"accountId":10003,`);
		expect(r.text).toContain('"created":"');
	});
});
