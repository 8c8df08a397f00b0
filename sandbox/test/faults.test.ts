import { DEMO_KEYS, startSandbox, type Sandbox } from '../index';
import { TestClient, rawRequest } from '../testClient';

let sb: Sandbox;
let master: TestClient;
let sub: TestClient;

beforeAll(async () => {
	sb = await startSandbox();
	master = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
	sub = master.withCredentials(DEMO_KEYS.sub);
});
afterAll(async () => {
	await sb.stop();
});
beforeEach(() => sb.reset());

const TRANSFER = '/api/v1/account/assetTransfer';
const ORDER = '/api/v1/spot/new/order';
const time = () => rawRequest(sb.baseUrl, { method: 'GET', url: '/api/v1/time' });
const historyQ = () => ({ flowType: 32, startTime: 0, endTime: sb.now() });
const move = { fromAccountId: '10001', toAccountId: '10005', coin: 'USDT', quantity: '100' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('rate limit (weight budget per API key)', () => {
	it('answers 429 0003 with Retry-After once the weight budget is spent, per key, and frees up after the window', async () => {
		sb.setRateLimit({ windowMs: 1000, maxWeight: 12 });
		expect((await master.history(historyQ())).status).toBe(200); // 5
		expect((await master.history(historyQ())).status).toBe(200); // 10
		const over = await master.history(historyQ()); // 15 > 12
		expect(over.status).toBe(429);
		expect(over.json).toEqual({ code: '0003', msg: 'Rate limit exceeded' });
		expect(over.headers['retry-after']).toBe('1');
		// weight 1 requests still fit: 11, 12
		expect(
			(
				await master.order({
					symbol: 'BTCUSDT',
					side: 'BUY',
					type: 'LIMIT',
					quantity: '0.01',
					price: '1',
				})
			).status,
		).toBe(200);
		expect(
			(
				await master.order({
					symbol: 'BTCUSDT',
					side: 'BUY',
					type: 'LIMIT',
					quantity: '0.01',
					price: '1',
				})
			).status,
		).toBe(200);
		expect(
			(
				await master.order({
					symbol: 'BTCUSDT',
					side: 'BUY',
					type: 'LIMIT',
					quantity: '0.01',
					price: '1',
				})
			).status,
		).toBe(429);
		// another key has its own budget; public /time is not counted
		expect((await sub.history(historyQ())).status).toBe(200);
		expect((await time()).status).toBe(200);
		expect(sb.ledger.requests.filter((r) => r.status === 429).map((r) => r.code)).toEqual([
			'0003',
			'0003',
		]);
		await sleep(1050);
		expect((await master.history(historyQ())).status).toBe(200);
	});

	it('Retry-After counts the seconds until enough weight leaves the window', async () => {
		sb.setRateLimit({ windowMs: 5000, maxWeight: 5 });
		expect((await master.history(historyQ())).status).toBe(200);
		const r = await master.history(historyQ());
		expect(r.status).toBe(429);
		expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(4);
		expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(5);
	});

	it('defaults to 6000 weight per 60 s, can be switched off, and reset() restores the start option', async () => {
		sb.setRateLimit({ windowMs: 60_000, maxWeight: 5 });
		await master.history(historyQ());
		expect((await master.history(historyQ())).status).toBe(429);
		sb.setRateLimit(false);
		for (let i = 0; i < 5; i++) expect((await master.history(historyQ())).status).toBe(200);
		sb.reset(); // back to the default budget of 6000
		for (let i = 0; i < 5; i++) expect((await master.history(historyQ())).status).toBe(200);
	});
});

describe('fault injection', () => {
	it('http500 / http502 / http503 answer without processing, then the rule is used up', async () => {
		sb.setFaults({
			rules: [
				{ kind: 'http500', times: 1, path: TRANSFER },
				{ kind: 'http502', times: 1, path: TRANSFER },
				{ kind: 'http503', times: 1, path: TRANSFER, method: 'post' },
			],
		});
		const a = await master.transfer(move);
		expect(a.status).toBe(500);
		expect(a.json).toEqual({
			code: '-1000',
			msg: 'An unknown error occurred while processing the request',
		});
		const b = await master.transfer(move);
		expect(b.status).toBe(502);
		expect(b.headers['content-type']).toMatch(/text\/html/);
		const c = await master.transfer(move);
		expect(c.status).toBe(503);
		expect(sb.getBalance('10001', 'USDT')).toBe('100000');
		expect(sb.ledger.transfers).toHaveLength(0);
		expect((await master.transfer(move)).status).toBe(200);
		expect(sb.ledger.requests.map((r) => r.fault)).toEqual([
			'http500',
			'http502',
			'http503',
			undefined,
		]);
	});

	it('rules match on path and method only', async () => {
		sb.setFaults({
			rules: [
				{ kind: 'http500', times: 2, path: ORDER },
				{ kind: 'http503', times: 1, method: 'GET' },
			],
		});
		expect((await master.transfer(move)).status).toBe(200);
		expect((await time()).status).toBe(503);
		expect((await time()).status).toBe(200);
	});

	it('rateLimit fault: 429 with the configured Retry-After', async () => {
		sb.setFaults({
			rules: [
				{ kind: 'rateLimit', times: 2, retryAfterSeconds: 7 },
				{ kind: 'rateLimit', times: 1 },
			],
		});
		const a = await master.history(historyQ());
		expect(a.status).toBe(429);
		expect(a.json.code).toBe('0003');
		expect(a.headers['retry-after']).toBe('7');
		expect((await time()).headers['retry-after']).toBe('7');
		expect((await time()).headers['retry-after']).toBe('1');
		expect((await time()).status).toBe(200);
	});

	it('dropBefore: the connection dies and nothing is applied', async () => {
		sb.setFaults({ rules: [{ kind: 'dropBefore', times: 1, path: TRANSFER }] });
		await expect(master.transfer(move)).rejects.toThrow(/socket hang up|ECONNRESET/);
		expect(sb.getBalance('10001', 'USDT')).toBe('100000');
		expect(sb.ledger.transfers).toHaveLength(0);
		expect(sb.ledger.requests[0]).toMatchObject({ path: TRANSFER, status: 0, fault: 'dropBefore' });
	});

	it('dropAfter: the write is applied and recorded, but no response arrives', async () => {
		sb.setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: TRANSFER }] });
		await expect(master.transfer(move)).rejects.toThrow(/socket hang up|ECONNRESET/);
		expect(sb.getBalance('10001', 'USDT')).toBe('99900');
		expect(sb.getBalance('10005', 'USDT')).toBe('250100');
		expect(sb.ledger.transfers).toHaveLength(1);
		expect(sb.ledger.requests[0]).toMatchObject({
			path: TRANSFER,
			status: 200,
			fault: 'dropAfter',
		});
	});

	it('dropAfter on a resting order: retrying with the same client order id is answered -1141 (Duplicate order)', async () => {
		sb.setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: ORDER }] });
		const order = {
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'LIMIT',
			quantity: '1',
			price: '40000',
			newClientOrderId: 'retry-me',
		};
		await expect(master.order(order)).rejects.toThrow();
		const retry = await master.order(order);
		expect(retry.json.code).toBe('-1141');
		expect(sb.ledger.orders).toHaveLength(1);
		expect(sb.ledger.requests[0]).toMatchObject({
			fault: 'dropAfter',
			status: 200,
			appliedStatus: 200,
		});
	});

	it('dropAfter on a MARKET order: the same client order id sent again fills a second time', async () => {
		sb.setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: ORDER }] });
		const order = {
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'MARKET',
			quantity: '0.5',
			newClientOrderId: 'retry-me',
		};
		await expect(master.order(order)).rejects.toThrow();
		const retry = await master.order(order);
		expect(retry.status).toBe(200);
		expect(sb.getBalance('10001', 'BTC')).toBe('11');
		expect(sb.ledger.orders).toHaveLength(2);
	});

	it('latency is added before every response', async () => {
		sb.setFaults({ latencyMs: 150 });
		const t = Date.now();
		expect((await time()).status).toBe(200);
		expect(Date.now() - t).toBeGreaterThanOrEqual(140);
		sb.clearFaults();
		expect((await time()).status).toBe(200);
	});

	it('random faults are reproducible for a seed and can be limited to paths', async () => {
		const run = async () => {
			sb.reset();
			sb.setFaults({
				random: { seed: 42, http5xx: 0.2, dropBefore: 0.1, dropAfter: 0.1, rateLimit: 0.2 },
			});
			const out: string[] = [];
			for (let i = 0; i < 40; i++) {
				try {
					out.push(String((await time()).status));
				} catch {
					out.push('drop');
				}
			}
			return { out, faults: sb.ledger.requests.map((r) => r.fault ?? '-') };
		};
		const a = await run();
		const b = await run();
		expect(b).toEqual(a);
		expect(new Set(a.out).size).toBeGreaterThanOrEqual(4);
		expect(a.out.filter((s) => s === '200').length).toBeGreaterThan(5);
		sb.setFaults({ random: { seed: 1, http5xx: 1, paths: [TRANSFER] } });
		expect((await time()).status).toBe(200);
		expect((await master.transfer(move)).status).toBeGreaterThanOrEqual(500);
	});
});

describe('reset()', () => {
	it('restores balances, clears records, ledger, faults and budgets', async () => {
		await master.transfer(move);
		sb.setFaults({ clockOffsetMs: 99_000, rules: [{ kind: 'http500', times: 5 }] });
		sb.setRateLimit({ windowMs: 60_000, maxWeight: 1 });
		sb.reset();
		expect(sb.getBalance('10001', 'USDT')).toBe('100000');
		expect(sb.ledger.requests).toHaveLength(0);
		expect(sb.ledger.transfers).toHaveLength(0);
		expect(Math.abs(sb.now() - Date.now())).toBeLessThan(1000);
		const r = await master.history({ flowType: 51, startTime: 0, endTime: sb.now() });
		expect(r.status).toBe(200);
		expect(r.json).toEqual([]);
	});
});
