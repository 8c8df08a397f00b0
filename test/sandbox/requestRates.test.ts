/**
 * requestRates.ts: the documented request rates per API key and class over real HTTP: 20 order and
 * 5 query requests in any 1000 ms (real clock), the next one refused 429 0003 without Retry-After
 * and its key and class suspended; during the suspension a request signed before it began gets the
 * same refusal, one signed later (or unsigned) 418 -3145; the 400 variant, the options, the ledger
 * marks, rateLimitStats() and reset(). The exact window edge: the limiter itself, at the end.
 */
import {
	DEMO_KEYS,
	DOCUMENTED_REQUEST_RATES,
	startSandbox,
	type LedgerRequest,
	type Sandbox,
} from '../../sandbox';
import { IN_FLIGHT_MS, RequestRateLimiter, requestRatesFrom } from '../../sandbox/requestRates';
import { ROUTES } from '../../sandbox/routes/table';
import { TestClient, rawRequest, type RawResponse } from '../../sandbox/testClient';
import { useSandboxClients } from '../support/sandbox';
import { HISTORY } from './support';

const SUSPENSION_MS = 1500;
// The documented rates with a short suspension: this file is about the request rates themselves.
const { sandbox, master, sub } = useSandboxClients({
	requestRates: { suspensionMs: SUSPENSION_MS },
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Wait until the real clock reads at least `at`. */
const until = (at: number) => sleep(Math.max(0, at - Date.now()));
/** Past the second a client has to hear of a refusal: what it signs now is sent into the suspension. */
const pastInFlight = () => sleep(IN_FLIGHT_MS + 20);

/** A weight-1 LIMIT BUY far below the market: it rests and locks almost nothing. */
const cheapOrder = (c: TestClient = master(), extra = {}) =>
	c.order({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: '0.01', price: '1' }, extra);
/** A weight-1 signed query. */
const query = (c: TestClient = master(), extra = {}) => c.openOrders({}, extra);
const statuses = (rs: RawResponse[]) => rs.map((r) => r.status);
const times = <T>(n: number, f: () => Promise<T>) =>
	Promise.all(Array.from({ length: n }, () => f()));
const limited = (sb: Sandbox): LedgerRequest[] =>
	sb.ledger.requests.filter((r) => r.limit !== undefined);

const REFUSAL = { code: '0003', msg: 'Rate limit exceeded' };

describe('the documented request rates, on by default', () => {
	it('DOCUMENTED_REQUEST_RATES are 20 order and 5 query requests a second, a 60 s suspension; a sandbox started without the option enforces them', async () => {
		expect(DOCUMENTED_REQUEST_RATES).toEqual({
			orderPerSecond: 20,
			queryPerSecond: 5,
			suspensionMs: 60_000,
		});
		const sb = await startSandbox();
		try {
			expect(sb.requestRates()).toEqual(DOCUMENTED_REQUEST_RATES);
			const other = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
			expect(statuses(await times(5, () => other.openOrders()))).toEqual([200, 200, 200, 200, 200]);
			const sixth = await other.openOrders();
			expect(sixth.status).toBe(429);
			expect(sixth.json).toEqual(REFUSAL);
			// a minute's suspension: a request signed a second later is sent into it
			await pastInFlight();
			expect((await other.openOrders()).status).toBe(418);
		} finally {
			await sb.stop();
		}
	});
});

describe('limits per key and class in any 1000 ms', () => {
	it('20 orders in a burst are accepted; the 21st is refused 429 0003 without Retry-After and not placed', async () => {
		expect(statuses(await times(20, () => cheapOrder()))).toEqual(Array(20).fill(200));
		const over = await cheapOrder();
		expect(over.status).toBe(429);
		expect(over.json).toEqual(REFUSAL);
		expect(over.headers['retry-after']).toBeUndefined();
		expect(sandbox().ledger.orders).toHaveLength(20);
		const last = sandbox().ledger.requests.at(-1)!;
		expect(last).toMatchObject({
			status: 429,
			code: '0003',
			rateClass: 'order',
			limit: 'rateLimited',
		});
		expect(sandbox().ledger.requests.filter((r) => r.rateClass === 'order')).toHaveLength(21);
		expect(sandbox().rateLimitStats()).toEqual({ rateLimited: 1, intoSuspension: 0 });
	});

	it('every order endpoint counts as an order: creates, batches and the four cancels', async () => {
		const sent = await Promise.all([
			...Array.from({ length: 14 }, () => cheapOrder()),
			master().batch([
				{ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: '0.01', price: '1' },
			]),
			master().cancelOrder({ orderId: '1' }),
			master().cancelOrdersByIds(['1']),
			master().cancelOpenOrders({ symbol: 'BTCUSDT' }),
			master().cancelAllOpenOrders(),
			cheapOrder(),
		]);
		expect(sent.filter((r) => r.status === 429)).toHaveLength(0);
		const over = await master().cancelAllOpenOrders();
		expect(over.status).toBe(429);
		expect(over.json).toEqual(REFUSAL);
		expect(new Set(sandbox().ledger.requests.map((r) => r.rateClass))).toEqual(new Set(['order']));
	});

	it('5 queries are accepted, the 6th refused 429 0003 without Retry-After; every other endpoint a key reaches is a query, also /time and market data sent with a key', async () => {
		// not counted: no key, or one the gateway does not know
		for (let i = 0; i < 7; i++) {
			expect(
				(await rawRequest(sandbox().baseUrl, { method: 'GET', url: '/api/v1/time' })).status,
			).toBe(200);
			expect((await query(master(), { apiKey: 'no-such-key' })).status).toBe(400);
		}
		const sent = await Promise.all([
			master().history({ flowType: 32, startTime: 0, endTime: Date.now() }),
			master().account(),
			rawRequest(sandbox().baseUrl, {
				method: 'GET',
				url: '/api/v1/time',
				headers: { 'X-APIKEY': DEMO_KEYS.master.apiKey },
			}),
			master().marketData('/quote/v1/ticker/price', { symbol: 'BTCUSDT' }),
			master().orderTest({
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'LIMIT',
				quantity: '0.01',
				price: '1',
			}),
		]);
		expect(statuses(sent)).toEqual([200, 200, 200, 200, 200]);
		const sixth = await master().createListenKey();
		expect(sixth.status).toBe(429);
		expect(sixth.json).toEqual(REFUSAL);
		expect(sixth.headers['retry-after']).toBeUndefined();
		const classes = sandbox().ledger.requests.map((r) => r.rateClass);
		expect(classes.filter((c) => c === 'query')).toHaveLength(6);
		expect(classes.filter((c) => c === undefined)).toHaveLength(14);
		expect(sandbox().rateLimitStats()).toEqual({ rateLimited: 1, intoSuspension: 0 });
	});

	it('the classes are independent: a full or suspended query class leaves orders alone, and the other way round', async () => {
		expect(statuses(await times(5, () => query()))).toEqual(Array(5).fill(200));
		expect((await query()).status).toBe(429);
		expect(statuses(await times(20, () => cheapOrder()))).toEqual(Array(20).fill(200));
		expect((await cheapOrder()).status).toBe(429);
		expect(sandbox().ledger.orders).toHaveLength(20);
		expect(sandbox().rateLimitStats()).toEqual({ rateLimited: 2, intoSuspension: 0 });
	});

	it('the keys are independent', async () => {
		expect(statuses(await times(5, () => query()))).toEqual(Array(5).fill(200));
		expect((await query()).status).toBe(429);
		expect(statuses(await times(5, () => query(sub())))).toEqual(Array(5).fill(200));
		expect((await query(sub())).status).toBe(429);
		const readOnly = master().withCredentials(DEMO_KEYS.readOnly);
		expect((await query(readOnly)).status).toBe(200);
	});

	it('is checked before the signature and the weight budget: badly signed requests count, and the 6th is refused for its rate, not its weight', async () => {
		// A tiny weight budget the 6th query would also break: the request rate answers first.
		sandbox().setRateLimit({ windowMs: 60_000, maxWeight: 5 });
		const badlySigned = await times(5, () =>
			query(master(), { mangleSignature: () => 'f'.repeat(64) }),
		);
		expect(statuses(badlySigned)).toEqual(Array(5).fill(400));
		const sixth = await query();
		expect(sixth.status).toBe(429);
		expect(sixth.json).toEqual(REFUSAL);
		expect(sixth.headers['retry-after']).toBeUndefined();
		// during the suspension a bad signature is not even looked at
		await pastInFlight();
		expect((await query(master(), { mangleSignature: () => 'f'.repeat(64) })).json.code).toBe(
			'-3145',
		);
	});

	it('the window slides: a request 1000 ms after the first of a full window is accepted, one while the others are still within 1000 ms is refused', async () => {
		const firstSent = Date.now();
		expect((await query()).status).toBe(200);
		const firstAnswered = Date.now();
		// the other four half a second later
		await until(firstSent + 500);
		expect(statuses(await times(4, () => query()))).toEqual(Array(4).fill(200));
		// the first has left the window 1000 ms after it arrived (at the latest when answered)
		await until(firstAnswered + 1000);
		expect((await query()).status).toBe(200);
		// the four of half a second ago are still in it: a fixed one-second bucket would let this in
		const seventh = await query();
		expect(seventh.status).toBe(429);
		expect(seventh.json).toEqual(REFUSAL);
		// the four arrived at firstSent + 500 or later: within 1000 ms of the seventh
		expect(Date.now()).toBeLessThan(firstSent + 1500);
	});
});

describe('the suspension', () => {
	/** Fill the query window of `c` and have the 6th refused; the server clock when it was sent. */
	async function suspendQueries(
		c: TestClient = master(),
	): Promise<{ sentAt: number; answeredAt: number }> {
		expect(statuses(await times(5, () => query(c)))).toEqual(Array(5).fill(200));
		const sentAt = Date.now();
		const refused = await query(c);
		expect(refused.status).toBe(429);
		return { sentAt, answeredAt: Date.now() };
	}

	it('in flight: a request signed before the suspension began gets the same refusal; one signed after it, or unsigned, 418 -3145 (into the suspension); neither extends it, and it ends after suspensionMs', async () => {
		// signed before the refusal was sent: on its way when the client could not know yet
		const early = master().build({
			method: 'GET',
			path: '/api/v1/account',
			timestamp: sandbox().now() - 1,
		});
		const earlyOrderInBody = master().build({
			method: 'GET',
			path: '/api/v1/spot/order',
			query: { orderId: '1' },
			timestampIn: 'body',
			timestamp: sandbox().now() - 1,
		});
		const { answeredAt } = await suspendQueries();
		const inFlight = await rawRequest(sandbox().baseUrl, early);
		expect(inFlight.status).toBe(429);
		expect(inFlight.json).toEqual(REFUSAL);
		expect(inFlight.headers['retry-after']).toBeUndefined();
		// the timestamp in a form body counts as well
		expect((await rawRequest(sandbox().baseUrl, earlyOrderInBody)).status).toBe(429);
		// signed within a second of the refusal: in flight too, refused the same
		expect((await query()).status).toBe(429);
		// signed later: sent into the suspension
		await pastInFlight();
		const into = await query();
		expect(into.status).toBe(418);
		expect(into.json).toEqual({
			code: '-3145',
			msg: 'Please DO NOT submit request too frequently',
		});
		// market data carries no timestamp: the client cannot show it was in flight
		expect((await master().marketData('/quote/v1/depth', { symbol: 'BTCUSDT' })).status).toBe(418);
		// orders are another class
		expect((await cheapOrder()).status).toBe(200);
		expect(sandbox().rateLimitStats()).toEqual({ rateLimited: 4, intoSuspension: 2 });
		expect(limited(sandbox()).map((r) => [r.status, r.limit, r.rateClass])).toEqual([
			[429, 'rateLimited', 'query'],
			[429, 'rateLimited', 'query'],
			[429, 'rateLimited', 'query'],
			[429, 'rateLimited', 'query'],
			[418, 'intoSuspension', 'query'],
			[418, 'intoSuspension', 'query'],
		]);
		// late in the suspension, still refused: 418 again, and nothing processed
		await until(answeredAt + SUSPENSION_MS - 400);
		expect((await query()).status).toBe(418);
		expect(sandbox().ledger.requests.filter((r) => r.status === 200)).toHaveLength(6);
		// over after suspensionMs (from the refusal), not extended by what came in meanwhile
		await until(answeredAt + SUSPENSION_MS + 30);
		expect((await query()).status).toBe(200);
		expect(sandbox().rateLimitStats()).toEqual({ rateLimited: 4, intoSuspension: 3 });
	});

	it('is per key and class: the suspended class of one key stops nothing else', async () => {
		await suspendQueries();
		await pastInFlight();
		expect((await query()).status).toBe(418);
		expect((await query(sub())).status).toBe(200);
		expect((await cheapOrder()).status).toBe(200);
		expect((await cheapOrder(sub())).status).toBe(200);
	});

	it('behaviour rateLimitStatus 400: the refusals are HTTP 400 0003 (also in flight), a request into the suspension still 418', async () => {
		sandbox().setBehaviour({ rateLimitStatus: 400 });
		const early = master().build({
			method: 'GET',
			path: '/api/v1/account',
			timestamp: sandbox().now() - 1,
		});
		expect(statuses(await times(5, () => query()))).toEqual(Array(5).fill(200));
		const sixth = await query();
		expect(sixth.status).toBe(400);
		expect(sixth.json).toEqual(REFUSAL);
		expect(sixth.headers['retry-after']).toBeUndefined();
		const inFlight = await rawRequest(sandbox().baseUrl, early);
		expect(inFlight.status).toBe(400);
		expect(inFlight.json).toEqual(REFUSAL);
		await pastInFlight();
		expect((await query()).status).toBe(418);
		expect(sandbox().rateLimitStats()).toEqual({ rateLimited: 2, intoSuspension: 1 });
	});

	it('under rateLimitRule "uae" a request-rate 429 silences the address as any 429 does (418 for every key and class)', async () => {
		sandbox().setBehaviour({ rateLimitRule: 'uae', uaeSilenceMs: 300 });
		const { answeredAt } = await suspendQueries();
		const anyOther = await cheapOrder(sub());
		expect(anyOther.status).toBe(418);
		expect(sandbox().ledger.orders).toHaveLength(0);
		await until(answeredAt + 350);
		expect((await cheapOrder(sub())).status).toBe(200);
	});
});

describe('options, setRequestRates, rateLimitStats and reset()', () => {
	it('a partial option takes the rest from the documented rates', () => {
		expect(sandbox().requestRates()).toEqual({
			orderPerSecond: 20,
			queryPerSecond: 5,
			suspensionMs: SUSPENSION_MS,
		});
		expect(requestRatesFrom({ queryPerSecond: 2 })).toEqual({
			orderPerSecond: 20,
			queryPerSecond: 2,
			suspensionMs: 60_000,
		});
		expect(requestRatesFrom(undefined)).toEqual(DOCUMENTED_REQUEST_RATES);
		expect(requestRatesFrom(false)).toBe(false);
		expect(() => requestRatesFrom({ orderPerSecond: 0 })).toThrow(/orderPerSecond/);
		expect(() => requestRatesFrom({ queryPerSecond: 1.5 })).toThrow(/queryPerSecond/);
		expect(() => requestRatesFrom({ suspensionMs: -1 })).toThrow(/suspensionMs/);
	});

	it('setRequestRates takes new rates (the rest from the documented ones); false turns them off; reset() restores the start option', async () => {
		sandbox().setRequestRates({ queryPerSecond: 2 });
		expect(sandbox().requestRates()).toEqual({
			orderPerSecond: 20,
			queryPerSecond: 2,
			suspensionMs: 60_000,
		});
		expect(statuses(await times(2, () => query()))).toEqual([200, 200]);
		expect((await query()).status).toBe(429);

		sandbox().setRequestRates(false);
		expect(sandbox().requestRates()).toBe(false);
		// the suspension went with the rates; nothing is counted or classed
		expect(statuses(await times(30, () => query()))).toEqual(Array(30).fill(200));
		expect(statuses(await times(25, () => cheapOrder()))).toEqual(Array(25).fill(200));
		expect(
			sandbox()
				.ledger.requests.slice(3)
				.every((r) => r.rateClass === undefined),
		).toBe(true);

		sandbox().reset();
		expect(sandbox().requestRates()).toEqual({
			orderPerSecond: 20,
			queryPerSecond: 5,
			suspensionMs: SUSPENSION_MS,
		});
		expect(statuses(await times(5, () => query()))).toEqual(Array(5).fill(200));
		expect((await query()).status).toBe(429);
	});

	it('requestRates: false as a start option: no limit, and reset() keeps it off', async () => {
		const sb = await startSandbox({ requestRates: false });
		try {
			const c = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
			expect(sb.requestRates()).toBe(false);
			expect(statuses(await times(12, () => c.openOrders()))).toEqual(Array(12).fill(200));
			sb.reset();
			expect(sb.requestRates()).toBe(false);
			expect(statuses(await times(12, () => c.openOrders()))).toEqual(Array(12).fill(200));
			expect(sb.rateLimitStats()).toEqual({ rateLimited: 0, intoSuspension: 0 });
		} finally {
			await sb.stop();
		}
	});

	it('rateLimitStats counts over the ledger since the last reset(); reset() also ends every suspension and empties every window', async () => {
		expect(sandbox().rateLimitStats()).toEqual({ rateLimited: 0, intoSuspension: 0 });
		expect(statuses(await times(5, () => query()))).toEqual(Array(5).fill(200));
		expect((await query()).status).toBe(429);
		await pastInFlight();
		expect((await query()).status).toBe(418);
		expect((await query()).status).toBe(418);
		expect(sandbox().rateLimitStats()).toEqual({ rateLimited: 1, intoSuspension: 2 });
		sandbox().reset();
		expect(sandbox().rateLimitStats()).toEqual({ rateLimited: 0, intoSuspension: 0 });
		// the suspension (1.5 s) would still run, and the window hold 5
		expect(statuses(await times(5, () => query()))).toEqual(Array(5).fill(200));
		expect(sandbox().rateLimitStats()).toEqual({ rateLimited: 0, intoSuspension: 0 });
	});
});

describe('RequestRateLimiter: the exact edges, on given clock readings', () => {
	const rates = { orderPerSecond: 2, queryPerSecond: 1, suspensionMs: 500 };
	const key = DEMO_KEYS.master.apiKey;
	const noTs = () => undefined;

	it('the (N+1)-th within 1000 ms is refused; at 1000 ms after the first it is accepted', () => {
		const a = new RequestRateLimiter(rates);
		expect(a.judge(key, 'order', noTs, 10_000, 0)).toBe('accepted');
		expect(a.judge(key, 'order', noTs, 10_400, 0)).toBe('accepted');
		expect(a.judge(key, 'order', noTs, 10_999, 0)).toBe('rateLimited');
		const b = new RequestRateLimiter(rates);
		expect(b.judge(key, 'order', noTs, 10_000, 0)).toBe('accepted');
		expect(b.judge(key, 'order', noTs, 10_400, 0)).toBe('accepted');
		expect(b.judge(key, 'order', noTs, 11_000, 0)).toBe('accepted');
		// 10_400 and 11_000 are within 1000 ms of 11_399
		expect(b.judge(key, 'order', noTs, 11_399, 0)).toBe('rateLimited');
	});

	it('during a suspension: a timestamp before its start (server clock) or within IN_FLIGHT_MS after it is in flight, a later one, or none, is into it; it ends suspensionMs later', () => {
		const l = new RequestRateLimiter({ ...rates, suspensionMs: 1200 });
		expect(l.judge(key, 'query', noTs, 20_000, 5_000)).toBe('accepted');
		expect(l.judge(key, 'query', noTs, 20_100, 5_100)).toBe('rateLimited'); // began at 5_100
		expect(l.judge(key, 'query', () => 5_099, 20_200, 5_200)).toBe('rateLimited');
		expect(l.judge(key, 'query', () => 5_100 + IN_FLIGHT_MS - 1, 20_200, 5_200)).toBe(
			'rateLimited',
		);
		expect(l.judge(key, 'query', () => 5_100 + IN_FLIGHT_MS, 20_200, 5_200)).toBe('intoSuspension');
		expect(l.judge(key, 'query', noTs, 21_299, 6_299)).toBe('intoSuspension');
		expect(l.judge(key, 'order', noTs, 20_200, 5_200)).toBe('accepted');
		// over at 20_100 + 1200, and none of the refused requests is in the window
		expect(l.judge(key, 'query', noTs, 21_300, 6_300)).toBe('accepted');
	});

	it('a suspension over while the window is still full: the next request is refused again, and suspends again', () => {
		const l = new RequestRateLimiter(rates); // suspensionMs 500
		expect(l.judge(key, 'query', noTs, 20_000, 0)).toBe('accepted');
		expect(l.judge(key, 'query', noTs, 20_100, 0)).toBe('rateLimited');
		expect(l.judge(key, 'query', noTs, 20_600, 0)).toBe('rateLimited');
		expect(l.judge(key, 'query', noTs, 21_099, 0)).toBe('intoSuspension');
		expect(l.judge(key, 'query', noTs, 21_100, 0)).toBe('accepted');
	});

	it('the route table names every route’s class: the spot and futures order writes are orders, every other route a query', () => {
		const classes = Object.entries(ROUTES).flatMap(([path, methods]) =>
			Object.entries(methods).map(([method, route]) => [`${method} ${path}`, route.rateClass]),
		);
		expect(new Set(classes.map(([, c]) => c))).toEqual(new Set(['order', 'query']));
		expect(
			classes
				.filter(([, c]) => c === 'order')
				.map(([r]) => r)
				.sort(),
		).toEqual(
			[
				'POST /api/v1/spot/new/order',
				'POST /api/v1/spot/batchOrders',
				'POST /api/v1.1/spot/order',
				'POST /api/v1.1/spot/batchOrders',
				'DELETE /api/v1/spot/order',
				'DELETE /api/v1/spot/cancelOrderByIds',
				'DELETE /api/v1/spot/openOrders',
				'DELETE /api/v1/spot/cancelAllOpenOrders',
				// the futures writes (issue 51)
				'POST /api/v2/futures/order',
				'POST /api/v2/futures/batchOrders',
				'DELETE /api/v2/futures/order',
				'DELETE /api/v2/futures/cancelOrders',
				'POST /api/v2/futures/position/trading-stop',
				'POST /api/v2/futures/leverage',
			].sort(),
		);
	});

	it('classOf: only a known demo key on an endpoint is counted, and only while rates are on', () => {
		const l = new RequestRateLimiter(rates);
		expect(l.classOf(key, '/api/v1/spot/new/order', 'POST')).toBe('order');
		expect(l.classOf(key, '/api/v1/spot/order', 'DELETE')).toBe('order');
		expect(l.classOf(key, '/api/v1/spot/order', 'GET')).toBe('query');
		expect(l.classOf(key, '/api/v1/spot/orderTest', 'POST')).toBe('query');
		expect(l.classOf(key, '/api/v1/account/assetTransfer', 'POST')).toBe('query');
		expect(l.classOf(key, HISTORY, 'GET')).toBe('query');
		expect(l.classOf(key, '/api/v1/nothing', 'GET')).toBeUndefined();
		expect(l.classOf('someone-else', HISTORY, 'GET')).toBeUndefined();
		expect(l.classOf(undefined, HISTORY, 'GET')).toBeUndefined();
		l.configure(false);
		expect(l.classOf(key, HISTORY, 'GET')).toBeUndefined();
	});
});
