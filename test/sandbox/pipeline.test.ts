/**
 * pipeline.ts: one request from arrival to answer: its ledger entry, faults that drop the
 * connection before or after the write, 5xx answers after the write, the redirect loop's hops.
 */
import { DEMO_KEYS } from '../../sandbox';
import { rawRequest } from '../../sandbox/testClient';
import { useSandboxClients } from '../support/sandbox';
import { T0, HISTORY, TRANSFER, ORDER, historyQuery, move, limitBuy } from './support';

const { sandbox, master } = useSandboxClients({ now: () => T0 });

describe('ledger', () => {
	it('records every request, rejected ones included', async () => {
		await rawRequest(sandbox().baseUrl, { method: 'GET', url: '/api/v1/time' });
		await master().history(historyQuery, { apiKey: 'nope' });
		await master().history(historyQuery);
		expect(sandbox().ledger.requests.map((r) => [r.path, r.status, r.code, r.weight])).toEqual([
			['/api/v1/time', 200, undefined, 1],
			[HISTORY, 400, '0102', 5],
			[HISTORY, 200, undefined, 5],
		]);
		expect(sandbox().ledger.requests[2].apiKey).toBe(DEMO_KEYS.master.apiKey);
		expect(sandbox().ledger.requests[2].query).toContain('signature=');
		expect(sandbox().ledger.requests[2].at).toBe(T0);
	});
});

describe('fault injection', () => {
	it('dropBefore: the connection dies and nothing is applied', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropBefore', times: 1, path: TRANSFER }] });
		await expect(master().transfer(move)).rejects.toThrow(/socket hang up|ECONNRESET/);
		expect(sandbox().getBalance('10001', 'USDT')).toBe('100000');
		expect(sandbox().ledger.transfers).toHaveLength(0);
		expect(sandbox().ledger.requests[0]).toMatchObject({
			path: TRANSFER,
			status: 0,
			fault: 'dropBefore',
		});
	});

	it('dropAfter: the write is applied and recorded, but no response arrives', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: TRANSFER }] });
		await expect(master().transfer(move)).rejects.toThrow(/socket hang up|ECONNRESET/);
		expect(sandbox().getBalance('10001', 'USDT')).toBe('99900');
		expect(sandbox().getBalance('10005', 'USDT')).toBe('250100');
		expect(sandbox().ledger.transfers).toHaveLength(1);
		expect(sandbox().ledger.requests[0]).toMatchObject({
			path: TRANSFER,
			status: 200,
			fault: 'dropAfter',
		});
	});

	it('dropAfter on a resting order: retrying with the same client order id is answered -1141 (Duplicate order)', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: ORDER }] });
		const order = {
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'LIMIT',
			quantity: '1',
			price: '40000',
			newClientOrderId: 'retry-me',
		};
		await expect(master().order(order)).rejects.toThrow();
		const retry = await master().order(order);
		expect(retry.json.code).toBe('-1141');
		expect(sandbox().ledger.orders).toHaveLength(1);
		expect(sandbox().ledger.requests[0]).toMatchObject({
			fault: 'dropAfter',
			status: 200,
			appliedStatus: 200,
		});
	});

	it('dropAfter on a MARKET order: the same client order id sent again fills a second time', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: ORDER }] });
		const order = {
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'MARKET',
			quantity: '0.5',
			newClientOrderId: 'retry-me',
		};
		await expect(master().order(order)).rejects.toThrow();
		const retry = await master().order(order);
		expect(retry.status).toBe(200);
		expect(sandbox().getBalance('10001', 'BTC')).toBe('11');
		expect(sandbox().ledger.orders).toHaveLength(2);
	});
});

describe('5xx after the write was applied', () => {
	it.each([
		['http500After', 500, 'application/json'],
		['http502After', 502, 'text/html'],
		['http503After', 503, 'application/json'],
	] as const)('%s: the transfer is applied, the answer is %i', async (kind, status, type) => {
		sandbox().setFaults({ rules: [{ kind, times: 1, path: TRANSFER }] });
		const r = await master().transfer(move);
		expect(r.status).toBe(status);
		expect(r.headers['content-type']).toContain(type);
		expect(sandbox().ledger.transfers).toHaveLength(1);
		expect(sandbox().ledger.requests[0]).toMatchObject({ fault: kind, status, appliedStatus: 200 });
	});

	it('a rejected write stays rejected under an after-fault (appliedStatus tells)', async () => {
		sandbox().setFaults({ rules: [{ kind: 'http500After', times: 1, path: TRANSFER }] });
		const r = await master().transfer({ ...move, quantity: '1000000' });
		expect(r.status).toBe(500);
		expect(sandbox().ledger.transfers).toHaveLength(0);
		expect(sandbox().ledger.requests[0]).toMatchObject({ status: 500, appliedStatus: 400 });
	});
});

describe('redirects', () => {
	it('redirectLoop: every hop redirects again; a following client gives up after its redirect limit', async () => {
		sandbox().setFaults({ rules: [{ kind: 'redirectLoop', times: 1, path: ORDER }] });
		const req = master().build({ method: 'POST', path: ORDER, form: limitBuy });
		await expect(
			fetch(`${sandbox().baseUrl}${req.url}`, {
				method: 'POST',
				headers: req.headers,
				body: req.body,
			}),
		).rejects.toThrow();
		const hops = sandbox().ledger.requests.filter((x) => x.fault === 'redirectLoop');
		expect(hops.length).toBeGreaterThan(15);
		expect(new Set(hops.map((x) => x.status))).toEqual(new Set([307]));
		expect(sandbox().ledger.orders).toHaveLength(0);
	});
});

describe('UAE rule: rateLimitRule "uae"', () => {
	it('a 429 carries no Retry-After, and an address that sends again within the silence is answered 418 -3145 (nothing applied); after it, requests go through', async () => {
		sandbox().setBehaviour({ rateLimitRule: 'uae', uaeSilenceMs: 400 });
		sandbox().setFaults({ rules: [{ kind: 'rateLimit', times: 1, path: HISTORY }] });
		const limited = await master().history(historyQuery);
		expect(limited.status).toBe(429);
		expect(limited.headers['retry-after']).toBeUndefined();
		const banned = await master().transfer(move);
		expect(banned.status).toBe(418);
		expect(banned.json).toMatchObject({ code: '-3145' });
		// Any key from that address.
		expect((await master().withCredentials(DEMO_KEYS.sub).history(historyQuery)).status).toBe(418);
		expect(sandbox().ledger.transfers).toHaveLength(0);
		await new Promise((resolve) => setTimeout(resolve, 450));
		expect((await master().history(historyQuery)).status).toBe(200);
		expect(sandbox().ledger.requests.map((r) => r.status)).toEqual([429, 418, 418, 200]);
	});

	it('the weight budget’s 429 loses its Retry-After too; the default rule keeps it and bans nobody', async () => {
		sandbox().setRateLimit({ windowMs: 60_000, maxWeight: 5 });
		expect((await master().history(historyQuery)).status).toBe(200);
		const kept = await master().history(historyQuery);
		expect(kept.status).toBe(429);
		expect(kept.headers['retry-after']).toBeDefined();
		expect((await master().history(historyQuery)).status).toBe(429);
		sandbox().setBehaviour({ rateLimitRule: 'uae', uaeSilenceMs: 60_000 });
		sandbox().setRateLimit({ windowMs: 60_000, maxWeight: 5 });
		expect((await master().history(historyQuery)).status).toBe(200);
		const bare = await master().history(historyQuery);
		expect(bare.status).toBe(429);
		expect(bare.headers['retry-after']).toBeUndefined();
		expect(
			(await rawRequest(sandbox().baseUrl, { method: 'GET', url: '/api/v1/time' })).status,
		).toBe(418);
		sandbox().reset();
		expect((await master().history(historyQuery)).status).toBe(200);
	});
});
