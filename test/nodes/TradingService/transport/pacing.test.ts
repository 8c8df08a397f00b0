import { WeightLimiter, limiterFor } from '../../../../nodes/TradingService/transport/pacing';
import { DAY_MS } from '../../../../nodes/TradingService/constants';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { useSandbox } from '../../../support/sandbox';

describe('WeightLimiter', () => {
	function fakeClock() {
		let now = 1_000_000;
		const waits: number[] = [];
		const limiter = new WeightLimiter(
			10,
			1000,
			() => now,
			async (ms) => {
				waits.push(ms);
				now += ms;
			},
		);
		return { limiter, waits, advance: (ms: number) => (now += ms) };
	}

	it('lets requests through while the window has room', async () => {
		const { limiter, waits } = fakeClock();
		for (let i = 0; i < 2; i++) expect(await limiter.acquire(5)).toBe(0);
		expect(waits).toEqual([]);
	});

	it('waits until the oldest weight leaves the window (plus a margin for the service’s later stamp)', async () => {
		const { limiter, waits, advance } = fakeClock();
		await limiter.acquire(5);
		advance(100);
		await limiter.acquire(5);
		advance(100);
		expect(await limiter.acquire(5)).toBe(1000 + WeightLimiter.marginMs - 200);
		expect(waits).toEqual([1050]);
	});

	it('frees only as much as is needed', async () => {
		const { limiter, advance } = fakeClock();
		await limiter.acquire(2);
		advance(10);
		await limiter.acquire(2);
		advance(10);
		await limiter.acquire(6);
		advance(10);
		// 10 used; 3 more need the first two events gone (4 freed), which happens 1000+margin after the second.
		expect(limiter.delayFor(3)).toBe(1000 + WeightLimiter.marginMs - 20);
	});
});

describe('limiterFor: one limiter per Base URL and API key, kept while it counts something', () => {
	it('the same key shares one limiter; another key has its own', () => {
		const first = limiterFor('https://a.example', 'key-1', 10, 60);
		expect(first).toBeDefined();
		void first!.acquire(1);
		expect(limiterFor('https://a.example', 'key-1', 10, 60)).toBe(first);
		expect(limiterFor('https://a.example', 'key-2', 10, 60)).not.toBe(first);
		expect(limiterFor('https://b.example', 'key-1', 10, 60)).not.toBe(first);
		expect(limiterFor('https://a.example', 'key-1', 0, 60)).toBeUndefined();
	});

	it('an idle limiter (nothing in its window) is dropped when another key is looked up; a busy one is kept', () => {
		const idle = limiterFor('https://idle.example', 'key', 10, 60)!;
		const busy = limiterFor('https://busy.example', 'key', 10, 60)!;
		void busy.acquire(1);
		limiterFor('https://other.example', 'key', 10, 60);
		expect(limiterFor('https://busy.example', 'key', 10, 60)).toBe(busy);
		expect(limiterFor('https://idle.example', 'key', 10, 60)).not.toBe(idle);
	});
});

describe('pacing against the sandbox’s weight budget', () => {
	const sandbox = useSandbox({ rateLimit: { windowMs: 1000, maxWeight: 10 } });
	// After the fixture's reset: 1,600 records, four pages of Return All.
	beforeEach(() => {
		const now = Date.now();
		sandbox().seedRecords({
			flowType: 32,
			count: 1600,
			startTime: now - DAY_MS / 2,
			endTime: now - 1000,
			seed: 7,
		});
	});
	const parameters = () => ({
		resource: 'account',
		operation: 'getHistory',
		flowType: 32,
		returnAll: true,
		startTime: new Date(Date.now() - DAY_MS).toISOString(),
		endTime: new Date().toISOString(),
	});

	it('with the budget in the credential, Return All (4 pages × weight 5) never trips the limit', async () => {
		const started = Date.now();
		const run = await runTradingService(sandbox(), {
			parameters: parameters(),
			credentials: { weightBudget: 10, weightWindowSeconds: 1 },
		});
		expect(run.items).toHaveLength(1600);
		const statuses = requestsTo(sandbox(), '/api/v1/account/balanceFlow').map(
			(request) => request.status,
		);
		expect(statuses).toEqual([200, 200, 200, 200]);
		expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
	});

	it('without it, the same run is refused with 429 and recovers by waiting for Retry-After', async () => {
		const run = await runTradingService(sandbox(), { parameters: parameters() });
		expect(run.items).toHaveLength(1600);
		const statuses = requestsTo(sandbox(), '/api/v1/account/balanceFlow').map(
			(request) => request.status,
		);
		expect(statuses).toContain(429);
		expect(statuses.filter((status) => status === 200)).toHaveLength(4);
	});
});
