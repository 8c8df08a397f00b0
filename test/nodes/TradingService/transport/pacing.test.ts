import {
	CLAIM_LINGER_MS,
	IP_BAN_DEFAULT_MS,
	RequestPacer,
	ServiceBan,
	banFor,
	monotonicNow,
	normaliseBaseUrl,
	pacerFor,
} from '../../../../nodes/TradingService/transport/pacing';
import {
	IntervalGate,
	WeightLimiter,
	gateFor,
	limiterFor,
} from '../../../../nodes/TradingService/transport/throttles';
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

	it('spellings of one Base URL share one limiter, one interval gate, one pacer per key and class, and one ban', () => {
		const limiter = limiterFor('http://spelt.example:8080', 'key-1', 10, 60)!;
		void limiter.acquire(1);
		expect(limiterFor('HTTP://Spelt.Example:8080/', 'key-1', 10, 60)).toBe(limiter);
		const gate = gateFor('https://spelt.example', 'key-1', 'POST /x', 1000);
		void gate.pass();
		expect(gateFor('https://SPELT.example:443//', 'key-1', 'POST /x', 1000)).toBe(gate);
		expect(gateFor('https://spelt.example', 'key-2', 'POST /x', 1000)).not.toBe(gate);
		const pacer = pacerFor('https://spelt.example', 'key-1', 'order', 20);
		pacer.suspend(monotonicNow() + 60_000);
		expect(pacerFor('https://SPELT.example:443/', 'key-1', 'order', 20)).toBe(pacer);
		expect(pacerFor('https://spelt.example', 'key-1', 'query', 5)).not.toBe(pacer);
		expect(pacerFor('https://spelt.example', 'key-2', 'order', 20)).not.toBe(pacer);
		const ban = banFor('https://spelt.example');
		ban.banned();
		expect(banFor('https://spelt.example:443/')).toBe(ban);
	});

	it('a credential with another rate gets the same pacer: its places and its suspension stay', async () => {
		const pacer = pacerFor('https://rates.example', 'key-1', 'order', 20);
		const done = await pacer.acquire(0, { perSecond: 20 });
		const until = monotonicNow() + 60_000;
		pacer.suspend(until);
		expect(pacerFor('https://rates.example', 'key-1', 'order', 10)).toBe(pacer);
		expect(pacer.suspension()).toBe(until);
		if (done.kind === 'go') done.done();
		// Another key looked up meanwhile does not drop it: it holds a place and a suspension.
		pacerFor('https://other.example', 'key-1', 'order', 20);
		expect(pacerFor('https://rates.example', 'key-1', 'order', 5)).toBe(pacer);
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
		// Free to go, but its interval stays in force a while (Claims, pacing.ts): dropping it would forget it.
		expect(gate.isIdle()).toBe(false);
		advance(CLAIM_LINGER_MS);
		expect(gate.isIdle()).toBe(true);
	});

	it('two credentials of one key with other intervals: the longest in force applies', async () => {
		const { gate, waits } = fakeGate(1000);
		(await gate.pass(2000))();
		(await gate.pass(1000))();
		expect(waits).toEqual([2000]);
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

describe('RequestPacer: the key’s rate of one class, with an injected clock', () => {
	function fakePacer(limit = 3, windowMs = 1000) {
		let now = 1_000_000;
		const waits: number[] = [];
		const pacer = new RequestPacer(
			limit,
			windowMs,
			() => now,
			async (ms) => {
				waits.push(ms);
				now += ms;
			},
		);
		return { pacer, waits, advance: (ms: number) => (now += ms), now: () => now };
	}
	const WINDOW = 1000 + RequestPacer.marginMs;

	async function go(pacer: RequestPacer, maxWaitMs = 70_000): Promise<() => void> {
		const turn = await pacer.acquire(maxWaitMs);
		if (turn.kind !== 'go') throw new Error(`expected to go, got ${JSON.stringify(turn)}`);
		return turn.done;
	}

	it('up to the limit at once; the next waits until the first answer is a window old', async () => {
		const { pacer, waits, advance, now } = fakePacer();
		const dones = [await go(pacer), await go(pacer), await go(pacer)];
		expect(waits).toEqual([]);
		advance(30); // answered 30 ms after they left
		for (const done of dones) done();
		const fourth = go(pacer);
		await fourth;
		// A window from the first answer, not from the first departure.
		expect(waits).toEqual([WINDOW]);
		expect(now()).toBe(1_000_000 + 30 + WINDOW);
	});

	it('a window full of requests in flight waits for an answer, then a window more', async () => {
		const { pacer, waits, advance } = fakePacer(1);
		const done = await go(pacer);
		let left = false;
		const next = go(pacer).then((d) => {
			left = true;
			return d;
		});
		await Promise.resolve();
		await Promise.resolve();
		expect(left).toBe(false);
		advance(5_000); // a slow answer
		done();
		(await next)();
		expect(left).toBe(true);
		expect(waits).toEqual([WINDOW]);
	});

	it('requests leave in the order they asked', async () => {
		const { pacer, advance } = fakePacer(1);
		const order: number[] = [];
		await Promise.all(
			[0, 1, 2, 3].map(async (n) => {
				const done = await go(pacer);
				order.push(n);
				advance(1);
				done();
			}),
		);
		expect(order).toEqual([0, 1, 2, 3]);
	});

	it('never more than the limit within any window, whatever the answer times', async () => {
		const { pacer, advance, now } = fakePacer(5);
		const departures: Array<{ at: number; answered: number }> = [];
		await Promise.all(
			Array.from({ length: 40 }, async (_, n) => {
				const done = await go(pacer);
				const at = now();
				advance((n * 37) % 90); // answers 0 to 89 ms later
				done();
				departures.push({ at, answered: now() });
			}),
		);
		expect(departures).toHaveLength(40);
		// The service stamps each request somewhere between its departure and its answer: count
		// the worst case, every other request stamped as late as it can be.
		for (const request of departures) {
			const within = departures.filter(
				(other) => other.answered > request.at - 1000 && other.at <= request.at,
			);
			expect(within.length).toBeLessThanOrEqual(5);
		}
	});

	it('after a rate limit nothing leaves until the suspension is over, waiters included', async () => {
		const { pacer, waits, now } = fakePacer(20);
		const until = now() + 60_500;
		pacer.suspend(until);
		const sentAt: number[] = [];
		await Promise.all(
			[0, 1, 2].map(async () => {
				const done = await go(pacer);
				sentAt.push(now());
				done();
			}),
		);
		expect(sentAt).toEqual([until, until, until]);
		expect(waits).toEqual([60_500]);
	});

	it('a request that may not wait that long is refused at once, without queueing', async () => {
		const { pacer, waits, now } = fakePacer();
		const until = now() + 60_500;
		pacer.suspend(until);
		expect(await pacer.acquire(0)).toEqual({ kind: 'suspended', until });
		expect(await pacer.acquire(60_000)).toEqual({ kind: 'suspended', until });
		expect(waits).toEqual([]);
		expect(pacer.suspension()).toBe(until);
	});

	it('a later rate limit extends the suspension, never shortens it', () => {
		const { pacer, now } = fakePacer();
		pacer.suspend(now() + 60_000);
		pacer.suspend(now() + 10_000);
		expect(pacer.suspension()).toBe(now() + 60_000);
	});

	it('idle once nothing waits, flies or counts and no suspension is on; done twice counts once', async () => {
		const { pacer, advance } = fakePacer(2);
		expect(pacer.isIdle()).toBe(true);
		const done = await go(pacer);
		expect(pacer.isIdle()).toBe(false);
		done();
		done();
		expect(pacer.isIdle()).toBe(false);
		await go(pacer); // one place left: a second done would have filled the window
		advance(WINDOW);
		expect(pacer.isIdle()).toBe(false); // the second is still in flight
	});
});

describe('RequestPacer: one per key and class, whatever each credential says', () => {
	function fakePacer() {
		let now = 1_000_000;
		const waits: number[] = [];
		const pacer = new RequestPacer(
			20,
			1000,
			() => now,
			async (ms) => {
				waits.push(ms);
				now += ms;
			},
		);
		return { pacer, waits, advance: (ms: number) => (now += ms), now: () => now };
	}

	async function go(pacer: RequestPacer, perSecond: number, urgent = false) {
		const turn = await pacer.acquire(70_000, { perSecond, urgent });
		if (turn.kind !== 'go') throw new Error(`expected to go, got ${JSON.stringify(turn)}`);
		return turn.done;
	}

	it('the strictest rate in force wins: a credential at 10 holds back one at 20', async () => {
		const { pacer, now } = fakePacer();
		const sentAt: number[] = [];
		await Promise.all(
			Array.from({ length: 40 }, async (_, n) => {
				const done = await go(pacer, n % 2 === 0 ? 20 : 10);
				sentAt.push(now());
				done();
			}),
		);
		for (const at of sentAt)
			expect(sentAt.filter((other) => other >= at && other < at + 1000).length).toBeLessThanOrEqual(
				10,
			);
	});

	it('a rate change keeps the places taken: 20 sent, then a credential at 5 waits a whole window', async () => {
		const { pacer, waits } = fakePacer();
		const dones = await Promise.all(Array.from({ length: 20 }, () => go(pacer, 20)));
		for (const done of dones) done();
		expect(waits).toEqual([]);
		(await go(pacer, 5))();
		expect(waits).toEqual([1000 + RequestPacer.marginMs]);
	});

	it('a stricter rate lapses CLAIM_LINGER_MS after its last request, then the other applies', async () => {
		const { pacer, advance } = fakePacer();
		(await go(pacer, 2))();
		expect(pacer.limit).toBe(2);
		advance(CLAIM_LINGER_MS - 1);
		expect(pacer.limit).toBe(2);
		advance(1);
		expect(pacer.limit).toBe(20);
		expect(pacer.isIdle()).toBe(true);
	});

	it('an urgent request goes before every waiting request that is not urgent', async () => {
		const { pacer, advance } = fakePacer();
		const order: string[] = [];
		const first = await go(pacer, 1);
		const waiting = ['bulk 1', 'bulk 2', 'bulk 3'].map(async (name) => {
			const done = await go(pacer, 1);
			order.push(name);
			advance(1);
			done();
		});
		const urgent = (async () => {
			const done = await go(pacer, 1, true);
			order.push('urgent');
			advance(1);
			done();
		})();
		advance(1);
		first();
		await Promise.all([...waiting, urgent]);
		expect(order).toEqual(['urgent', 'bulk 1', 'bulk 2', 'bulk 3']);
	});

	it('a suspension set while requests wait refuses those that may not wait it out, and keeps the others', async () => {
		const { pacer, now } = fakePacer();
		const first = await go(pacer, 1);
		const patient = pacer.acquire(70_000, { perSecond: 1 });
		const hasty = pacer.acquire(1_000, { perSecond: 1 });
		const until = now() + 60_500;
		pacer.suspend(until);
		first();
		expect(await hasty).toEqual({ kind: 'suspended', until });
		const turn = await patient;
		expect(turn.kind).toBe('go');
		expect(now()).toBeGreaterThanOrEqual(until);
	});
});

describe('the pacers run on the monotonic clock: a stepped wall clock moves nothing', () => {
	afterEach(() => jest.restoreAllMocks());

	it('a suspension of 60.5 s does not end when the wall clock jumps 61 s ahead', () => {
		const pacer = pacerFor('https://stepped.example', 'key', 'order', 20);
		pacer.suspend(monotonicNow() + 60_500);
		const real = Date.now();
		jest.spyOn(Date, 'now').mockReturnValue(real + 61_000);
		expect(pacer.suspension()).toBeDefined();
		expect(banFor('https://stepped.example').bannedUntil()).toBeUndefined();
	});

	it('places taken do not hold for an hour when the wall clock jumps an hour back', async () => {
		const pacer = new RequestPacer(1, 50);
		const turn = await pacer.acquire(0);
		if (turn.kind === 'go') turn.done();
		const real = Date.now();
		jest.spyOn(Date, 'now').mockReturnValue(real - 3_600_000);
		// Had the pacer used the wall clock this would wait an hour (and time the test out).
		const next = await pacer.acquire(0);
		expect(next.kind).toBe('go');
		if (next.kind === 'go') next.done();
	});
});

describe('limiterFor and the weight budget: one limiter per key, the smallest budget in force', () => {
	it('a limiter a request waits on is not dropped when another key is looked up', async () => {
		let now = 0;
		const limiter = new WeightLimiter(
			5,
			1000,
			() => now,
			async (ms) => void (now += ms),
		);
		await limiter.acquire(5);
		// The next one waits for room: meanwhile the limiter holds it, so it is not idle.
		const waiting = limiter.acquire(5);
		expect(limiter.isIdle()).toBe(false);
		await waiting;
	});

	it('two budgets for one key: the smaller applies to both', async () => {
		let now = 0;
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
		await limiter.acquire(5, 10);
		await limiter.acquire(5, 5);
		expect(waits.length).toBe(1);
		expect(limiter.budget).toBe(5);
	});

	it('limiterFor: one per key whatever budget each credential gives', () => {
		const first = limiterFor('https://budgets.example', 'key', 10, 60)!;
		void first.acquire(1);
		expect(limiterFor('https://budgets.example', 'key', 4, 60)).toBe(first);
	});
});

describe('ServiceBan: a 418', () => {
	it('with Retry-After: held for as long as it says, whatever the default', () => {
		let now = 1_000_000;
		const ban = new ServiceBan(() => now);
		expect(ban.banned(120_000)).toBe(now + 120_000);
		now += 119_999;
		expect(ban.bannedUntil()).toBeDefined();
		now += 1;
		expect(ban.bannedUntil()).toBeUndefined();
	});

	it('holds the service for the default ban, then lets go', () => {
		let now = 1_000_000;
		const ban = new ServiceBan(() => now);
		expect(ban.bannedUntil()).toBeUndefined();
		const until = ban.banned();
		expect(until).toBe(now + IP_BAN_DEFAULT_MS);
		expect(ban.bannedUntil()).toBe(until);
		expect(ban.isIdle()).toBe(false);
		now += IP_BAN_DEFAULT_MS;
		expect(ban.bannedUntil()).toBeUndefined();
		expect(ban.isIdle()).toBe(true);
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
