import { LIMITS } from '../../../../nodes/TradingService/constants';
import {
	clearSymbolRulesCache,
	readSymbolRules,
} from '../../../../nodes/TradingService/orders/symbolRulesCache';
import type { ServiceClient } from '../../../../nodes/TradingService/transport';

// The per-process cache of symbol rules on its own, with a stand-in client that counts reads and
// a stand-in clock: the lifetime, the shared in-flight read, failed reads never kept, the key. The
// same cache through the node against the sandbox: orders/create.symbolRules.test.ts.

const ANSWER = { symbols: [{ symbol: 'BTCUSDT', status: 'TRADING', filters: [] }] };

function client(baseUrl: string, answers: Array<() => Promise<unknown>> = []) {
	const reads: unknown[] = [];
	const stub = {
		serviceUrl: async () => baseUrl.replace(/\/+$/, '').toLowerCase(),
		request: async (...args: unknown[]) => {
			reads.push(args);
			const next = answers.shift();
			return next === undefined ? ANSWER : await next();
		},
	};
	return { client: stub as unknown as ServiceClient, reads };
}

describe('symbol rules cache', () => {
	let now = 1_000_000;
	beforeEach(() => {
		clearSymbolRulesCache();
		jest.spyOn(Date, 'now').mockImplementation(() => now);
	});
	afterEach(() => jest.restoreAllMocks());

	it('keeps the rules for LIMITS.symbolRulesTtlMs, then reads them again', async () => {
		const { client: c, reads } = client('http://127.0.0.1:1');
		await readSymbolRules(c);
		now += LIMITS.symbolRulesTtlMs - 1;
		expect((await readSymbolRules(c)).get('BTCUSDT')?.status).toBe('TRADING');
		expect(reads).toHaveLength(1);
		now += 1;
		await readSymbolRules(c);
		expect(reads).toHaveLength(2);
	});

	it('asks for the MENA site', async () => {
		const { client: c, reads } = client('http://127.0.0.1:1');
		await readSymbolRules(c, 3);
		expect(reads[0]).toEqual([
			expect.objectContaining({ path: '/api/v1/exchangeInfo' }),
			{ qs: { site: 'MENA' }, itemIndex: 3 },
		]);
	});

	it('shares one read among callers while it is in flight', async () => {
		let release: (value: unknown) => void = () => undefined;
		const { client: c, reads } = client('http://127.0.0.1:1', [
			async () => await new Promise((resolve) => (release = resolve)),
		]);
		const first = readSymbolRules(c);
		const second = readSymbolRules(c);
		await Promise.resolve();
		await Promise.resolve();
		release(ANSWER);
		expect(await first).toBe(await second);
		expect(reads).toHaveLength(1);
	});

	it('never keeps a failed read: every caller of it fails, the next one reads again', async () => {
		const { client: c, reads } = client('http://127.0.0.1:1', [
			async () => {
				throw new Error('down');
			},
		]);
		await expect(Promise.all([readSymbolRules(c), readSymbolRules(c)])).rejects.toThrow('down');
		expect((await readSymbolRules(c)).has('BTCUSDT')).toBe(true);
		expect(reads).toHaveLength(2);
	});

	it('keys by the normalised Base URL: spellings of one service share, other services do not', async () => {
		const a = client('http://Sandbox.Example/');
		const b = client('http://sandbox.example');
		const other = client('http://other.example');
		await readSymbolRules(a.client);
		await readSymbolRules(b.client);
		await readSymbolRules(other.client);
		expect([a.reads.length, b.reads.length, other.reads.length]).toEqual([1, 0, 1]);
	});

	it('fresh: reads whatever the cache holds, and keeps what it read', async () => {
		const { client: c, reads } = client('http://127.0.0.1:1');
		await readSymbolRules(c);
		await readSymbolRules(c, 0, { fresh: true });
		await readSymbolRules(c);
		expect(reads).toHaveLength(2);
	});
});
