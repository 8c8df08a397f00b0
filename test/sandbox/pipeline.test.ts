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
