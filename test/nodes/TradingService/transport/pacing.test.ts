import {
	IP_BAN_DEFAULT_MS,
	IntervalGate,
	MAX_SILENCE_WAIT_MS,
	RATE_LIMIT_SILENCE_MS,
	ServiceSilence,
	WeightLimiter,
	gateFor,
	limiterFor,
	normaliseBaseUrl,
	silenceFor,
} from '../../../../nodes/TradingService/transport/pacing';
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

describe('defect 14: one service, however its Base URL is spelt', () => {
	it.each([
		['http://h:8080', 'http://h:8080'],
		['http://h:8080/', 'http://h:8080'],
		['http://h:8080///', 'http://h:8080'],
		[' HTTP://H:8080/ ', 'http://h:8080'],
		['https://API.Example.com:443/', 'https://api.example.com'],
		['http://api.example.com:80', 'http://api.example.com'],
		['https://api.example.com:80/', 'https://api.example.com:80'],
		['https://api.example.com/Prefix/', 'https://api.example.com/Prefix'],
		['not a url/', 'not a url'],
	])('%p is %p', (typed, normalised) => {
		expect(normaliseBaseUrl(typed)).toBe(normalised);
	});

	it('spellings of one Base URL share one limiter, one interval gate and one silence', () => {
		const limiter = limiterFor('http://spelt.example:8080', 'key-1', 10, 60)!;
		void limiter.acquire(1);
		expect(limiterFor('HTTP://Spelt.Example:8080/', 'key-1', 10, 60)).toBe(limiter);
		const gate = gateFor('https://spelt.example', 'key-1', 'POST /x', 1000);
		void gate.pass();
		expect(gateFor('https://SPELT.example:443//', 'key-1', 'POST /x', 1000)).toBe(gate);
		expect(gateFor('https://spelt.example', 'key-2', 'POST /x', 1000)).not.toBe(gate);
		const silence = silenceFor('https://spelt.example');
		silence.rateLimited();
		expect(silenceFor('https://spelt.example:443/')).toBe(silence);
	});
});

describe('IntervalGate: the UAE rule of one transfer per second', () => {
	function fakeGate(intervalMs = 1000) {
		let now = 5_000;
		const waits: number[] = [];
		const gate = new IntervalGate(
			intervalMs,
			() => now,
			async (ms) => {
				waits.push(ms);
				now += ms;
			},
		);
		return { gate, waits, advance: (ms: number) => (now += ms), now: () => now };
	}

	it('the first call goes at once; the next waits out the interval since the previous was answered', async () => {
		const { gate, waits, advance } = fakeGate();
		const first = await gate.pass();
		advance(200); // the first call's answer takes 200 ms
		first();
		advance(300);
		(await gate.pass())();
		expect(waits).toEqual([700]);
		advance(2500);
		(await gate.pass())();
		expect(waits).toEqual([700]);
		expect(gate.isIdle()).toBe(false);
		advance(1000);
		expect(gate.isIdle()).toBe(true);
	});

	it('calls arriving together go one at a time, each an interval after the previous one ended', async () => {
		const { gate, now } = fakeGate();
		const sentAt: number[] = [];
		await Promise.all(
			[0, 1, 2].map(async () => {
				const end = await gate.pass();
				sentAt.push(now());
				end();
			}),
		);
		expect(sentAt).toEqual([5_000, 6_000, 7_000]);
	});

	it('ending a call twice counts once', async () => {
		const { gate } = fakeGate();
		const end = await gate.pass();
		end();
		end();
		expect(gate.isIdle()).toBe(false);
	});
});

describe('UAE rule: 429 without Retry-After, the silence logic with an injected clock', () => {
	function fakeSilence() {
		let now = 1_000_000;
		const silence = new ServiceSilence(() => now);
		return { silence, advance: (ms: number) => (now += ms), now: () => now };
	}

	it('nothing held back before any 429', () => {
		const { silence } = fakeSilence();
		expect(silence.step(false, 0)).toEqual({ kind: 'go' });
		expect(silence.step(true, 0)).toEqual({ kind: 'go' });
		expect(silence.isIdle()).toBe(true);
	});

	it('after a 429: a minute of silence; a read waits the rest of it, a write is refused unsent', () => {
		const { silence, advance, now } = fakeSilence();
		const until = silence.rateLimited();
		expect(until).toBe(now() + RATE_LIMIT_SILENCE_MS);
		advance(10_000);
		expect(silence.step(false, 0)).toEqual({ kind: 'wait', ms: RATE_LIMIT_SILENCE_MS - 10_000 });
		expect(silence.step(true, 0)).toEqual({ kind: 'refuse', until, banned: false });
		advance(RATE_LIMIT_SILENCE_MS - 10_000);
		expect(silence.step(false, 0)).toEqual({ kind: 'go' });
		expect(silence.step(true, 0)).toEqual({ kind: 'go' });
		expect(silence.isIdle()).toBe(true);
	});

	it('a read that has waited one silence does not wait for the next: the total wait is bounded', () => {
		const { silence, advance } = fakeSilence();
		silence.rateLimited();
		const first = silence.step(false, 0);
		expect(first).toEqual({ kind: 'wait', ms: RATE_LIMIT_SILENCE_MS });
		advance(RATE_LIMIT_SILENCE_MS);
		const until = silence.rateLimited();
		expect(silence.step(false, RATE_LIMIT_SILENCE_MS)).toEqual({
			kind: 'refuse',
			until,
			banned: false,
		});
		expect(RATE_LIMIT_SILENCE_MS * 2).toBeGreaterThan(MAX_SILENCE_WAIT_MS);
	});

	it('another 429 during the silence extends it, never shortens it', () => {
		const { silence, advance } = fakeSilence();
		const first = silence.rateLimited();
		advance(30_000);
		const second = silence.rateLimited();
		expect(second).toBe(first + 30_000);
	});

	it('after a 418 without Retry-After: nothing at all for the default ban, reads included', () => {
		const { silence, advance } = fakeSilence();
		const until = silence.banned();
		expect(silence.step(false, 0)).toEqual({ kind: 'refuse', until, banned: true });
		expect(silence.step(true, 0)).toEqual({ kind: 'refuse', until, banned: true });
		advance(IP_BAN_DEFAULT_MS);
		expect(silence.step(false, 0)).toEqual({ kind: 'go' });
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
