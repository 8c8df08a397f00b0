/**
 * The polling trigger's Order Filled event against the sandbox, through n8n-core's real poll path:
 * fills of resting LIMIT orders (partial fills included) and seeded volume, read from
 * GET /api/v1/account/trades. Each fill after activation is emitted exactly once, oldest first.
 */
import { DAY_MS } from '../../../nodes/TradingService/constants';
import { TradingServiceTrigger } from '../../../nodes/TradingService/TradingServiceTrigger.node';
import {
	FlakyCredentialsHelper,
	pollCounting,
	queryParam,
	triggerRunner,
} from '../../support/trigger';
import { useSandbox } from '../../support/sandbox';
import { TRADES_PATH, allFills, oldestFirstIds, restingOrders } from './trigger/fills';

const MINUTE = 60_000;
const ORDER_FILLED = { event: 'orderFilled' };

/** The sandbox's clock is the real one shifted by this, so a test can make a fill with an older time. */
let shift = 0;
const sandbox = useSandbox({
	rateLimit: false,
	requestRates: false,
	now: () => Date.now() + shift,
});
beforeEach(() => {
	shift = 0;
});

const ids = (outcome: { items: Array<{ json: { id?: unknown } }> }) =>
	outcome.items.map((item) => String(item.json.id));

/** Fills one resting order `agoMs` in the past: the fill is listed now, with an older time. */
function fillAt(orderId: string, agoMs: number, quantity?: string) {
	shift = -agoMs;
	try {
		sandbox().fillOrder(orderId, quantity);
	} finally {
		shift = 0;
	}
}

/** The fills the trade list gained since `before` (a list from allFills). */
async function fillsSince(before: Array<{ id: string }>) {
	const known = new Set(before.map((fill) => fill.id));
	return (await allFills(sandbox())).filter((fill) => !known.has(fill.id));
}

describe('Order Filled: the description', () => {
	const description = new TradingServiceTrigger().description;
	const property = (name: string) => description.properties.filter((p) => p.name === name);

	it('offers Order Filled as a string value, keeps the flow type numbers, and names both in the subtitle', () => {
		const [event] = property('event');
		const values = (event.options as Array<{ value: unknown }>).map((option) => option.value);
		expect(values).toContain('orderFilled');
		expect(values).toEqual(expect.arrayContaining([1, 2, 32, 51, 900, 904, 906, 910]));
		expect(event.default).toBe(32);
		expect(description.subtitle).toContain('"orderFilled":"Order Filled"');
		expect(description.subtitle).toContain('"32":"Funding Fee Charged"');
	});

	it('hides Account Type and Direction for Order Filled', () => {
		expect(property('accountType')[0].displayOptions).toEqual({
			hide: {
				event: ['orderFilled', 'fundingRateCrossing', 'futuresOrderFilled', 'depositReceived'],
			},
		});
		expect(property('direction')[0].displayOptions?.show?.event).not.toContain('orderFilled');
	});
});

describe('Order Filled: first activation', () => {
	it('emits nothing, remembers the fills that exist in one request, and the idle poll changes nothing', async () => {
		const [a, b] = await restingOrders(sandbox(), 2);
		fillAt(a, 2 * MINUTE, '0.0004');
		sandbox().fillOrder(b);
		const existing = await allFills(sandbox());
		const runner = triggerRunner(sandbox(), { parameters: ORDER_FILLED });

		const first = await pollCounting(sandbox(), runner);
		expect(first.error).toBeUndefined();
		expect(first.emitted).toBeNull();
		// The key's accounts, once per process: only its own trading account's fills start it.
		expect(first.requests.map((request) => request.path)).toEqual([
			'/api/v1/account/type',
			TRADES_PATH,
		]);
		expect(queryParam(first.requests[1], 'accountId')).toBe('10001');
		const startTime = Number(queryParam(first.requests[1], 'startTime'));
		expect(startTime).toBeGreaterThan(sandbox().now() - 30 * DAY_MS);
		expect(startTime).toBeLessThan(sandbox().now() - 30 * DAY_MS + MINUTE);
		const state = runner.nodeStaticData();
		expect(state.query).toBe('event=orderFilled;symbol=null');
		expect(state.watermark).toBe(Math.max(...existing.map((fill) => Number(fill.time))));
		expect(
			Object.values(state.seen as object)
				.flat()
				.sort(),
		).toEqual(existing.map((fill) => fill.id).sort());
		runner.markSaved();

		const idle = await pollCounting(sandbox(), runner);
		expect(idle.emitted).toBeNull();
		expect(idle.requests).toHaveLength(1);
		expect(runner.staticDataChanged()).toBe(false);
	});

	it('starts over when the Event changes from a flow type to Order Filled, or the Symbol changes', async () => {
		const funding = triggerRunner(sandbox());
		await funding.poll();
		const [order] = await restingOrders(sandbox(), 1);
		sandbox().fillOrder(order);

		const fills = triggerRunner(sandbox(), {
			parameters: ORDER_FILLED,
			staticData: funding.savedStaticData(),
		});
		expect((await fills.poll()).emitted).toBeNull();
		const bySymbol = triggerRunner(sandbox(), {
			parameters: { ...ORDER_FILLED, filters: { symbol: 'BTCUSDT' } },
			staticData: fills.savedStaticData(),
		});
		const baseline = await pollCounting(sandbox(), bySymbol);
		expect(baseline.emitted).toBeNull();
		expect(bySymbol.nodeStaticData().query).toBe('event=orderFilled;symbol="BTCUSDT"');
	});
});

describe('Order Filled: new fills', () => {
	it('emits every fill once, partial fills as items of their own, oldest first, exactly as listed', async () => {
		const runner = triggerRunner(sandbox(), { parameters: ORDER_FILLED });
		expect((await runner.poll()).emitted).toBeNull();
		const before = await allFills(sandbox());
		const [a, b] = await restingOrders(sandbox(), 2);
		sandbox().advanceOrders(); // each order half filled
		sandbox().fillOrder(b, '0.0002');
		sandbox().advanceOrders(); // the rest of each
		const added = await fillsSince(before);
		expect(added).toHaveLength(5);
		expect(new Set(added.map((fill) => fill.orderId))).toEqual(new Set([a, b]));

		const poll = await pollCounting(sandbox(), runner);
		expect(poll.error).toBeUndefined();
		expect(poll.requests).toHaveLength(1);
		expect(ids(poll)).toEqual(oldestFirstIds(added));
		// The exchange's record, every field kept: decimal strings, 19-digit ids as strings.
		const byId = new Map(added.map((fill) => [fill.id, fill]));
		for (const item of poll.items) {
			expect(item.json).toEqual(byId.get(String(item.json.id)));
			expect(item.json.id).toMatch(/^\d{19}$/);
			expect(typeof item.json.qty).toBe('string');
		}

		const idle = await pollCounting(sandbox(), runner);
		expect(idle.emitted).toBeNull();
		expect(idle.requests).toHaveLength(1);
	});

	it('catches a fill listed late inside the late records window once; one later than the window is not emitted', async () => {
		const orders = await restingOrders(sandbox(), 3);
		sandbox().fillOrder(orders[0]);
		const runner = triggerRunner(sandbox(), { parameters: ORDER_FILLED });
		await runner.poll();
		const before = await allFills(sandbox());

		fillAt(orders[1], 4 * MINUTE);
		const [late] = await fillsSince(before);
		expect(Number(late.time)).toBeLessThan(runner.nodeStaticData().watermark as number);
		const poll = await pollCounting(sandbox(), runner);
		expect(ids(poll)).toEqual([late.id]);
		expect(poll.requests).toHaveLength(1);
		expect((await runner.poll()).emitted).toBeNull();

		fillAt(orders[2], 30 * MINUTE);
		expect((await runner.poll()).emitted).toBeNull();
	});

	it('sends the Symbol as `symbol` and emits only its fills', async () => {
		const btc = await restingOrders(sandbox(), 1);
		const eth = await restingOrders(sandbox(), 1, 'ETHUSDT');
		const runner = triggerRunner(sandbox(), {
			parameters: { ...ORDER_FILLED, filters: { symbol: 'ETHUSDT' } },
		});
		await runner.poll();
		const before = await allFills(sandbox());
		sandbox().fillOrder(btc[0]);
		sandbox().fillOrder(eth[0]);
		const poll = await pollCounting(sandbox(), runner);
		const [ethFill] = (await fillsSince(before)).filter((fill) => fill.symbol === 'ETHUSDT');
		expect(ids(poll)).toEqual([ethFill.id]);
		expect(queryParam(poll.requests[0], 'symbol')).toBe('ETHUSDT');
	});

	it('refuses a Coin filter with Order Filled, naming the field, before sending anything', async () => {
		const runner = triggerRunner(sandbox(), {
			parameters: { ...ORDER_FILLED, filters: { coin: 'BTC' } },
		});
		const poll = await pollCounting(sandbox(), runner);
		expect(poll.error?.message).toBe(
			'Filters › Coin: does not apply to Order Filled: a fill has no single coin',
		);
		expect(poll.requests).toHaveLength(0);
		expect(runner.nodeStaticData()).toEqual({});
	});
});

describe('Order Filled: paging, failures and the time budget', () => {
	it('pages through more fills than a page between polls, each once, oldest first; a failed later page keeps nothing', async () => {
		const runner = triggerRunner(sandbox(), {
			parameters: ORDER_FILLED,
			credentialsHelper: new FlakyCredentialsHelper(sandbox()),
		});
		await runner.poll();
		runner.markSaved();
		const now = sandbox().now();
		const seeded = sandbox().seedTrades({
			count: 2300,
			startTime: now - 3 * MINUTE,
			endTime: now,
			bothSides: true,
		});

		// The second page's request is refused (a wrong signature): the poll fails and keeps nothing.
		(runner.credentialsHelper as FlakyCredentialsHelper).breakRequest(2);
		const failed = await pollCounting(sandbox(), runner);
		expect(failed.error).toBeDefined();
		expect(failed.emitted).toBeNull();
		expect(failed.requests).toHaveLength(2);
		expect(runner.staticDataChanged()).toBe(false);

		const poll = await pollCounting(sandbox(), runner);
		expect(poll.error).toBeUndefined();
		expect(poll.requests).toHaveLength(3);
		expect(poll.requests.map((request) => queryParam(request, 'toId'))).toEqual([
			undefined,
			expect.stringMatching(/^\d{19}$/),
			expect.stringMatching(/^\d{19}$/),
		]);
		expect(ids(poll)).toEqual(oldestFirstIds(seeded));
		expect((await runner.poll()).emitted).toBeNull();
	});

	it('a catch-up larger than one poll can read continues below the smallest trade ID read, each fill once', async () => {
		// A 1 ms budget: every poll reads exactly one page.
		const runner = triggerRunner(sandbox(), { parameters: ORDER_FILLED, pollBudgetMs: 1 });
		await runner.poll();
		const now = sandbox().now();
		const seeded = sandbox().seedTrades({ count: 2500, startTime: now - MINUTE, endTime: now });

		const chunks: string[][] = [];
		const first = await pollCounting(sandbox(), runner);
		expect(first.requests).toHaveLength(1);
		expect(first.items).toHaveLength(1000);
		expect(runner.nodeStaticData().resume).toMatchObject({ belowId: expect.any(String) });
		chunks.push(ids(first));
		const [order] = await restingOrders(sandbox(), 1);
		const before = await allFills(sandbox());
		sandbox().fillOrder(order);
		const [meanwhile] = await fillsSince(before);
		for (let poll = 0; poll < 4 && runner.nodeStaticData().resume !== undefined; poll++) {
			const next = await pollCounting(sandbox(), runner);
			expect(next.requests).toHaveLength(1);
			chunks.push(ids(next));
		}
		expect(runner.nodeStaticData().resume).toBeUndefined();
		chunks.push(ids(await runner.poll()));

		const all = chunks.flat();
		expect(new Set(all).size).toBe(all.length);
		expect([...all].sort()).toEqual([...seeded.map((fill) => fill.id), meanwhile.id].sort());
		const time = new Map([...seeded, meanwhile].map((fill) => [fill.id, Number(fill.time)]));
		for (const chunk of chunks) {
			const times = chunk.map((id) => time.get(id) as number);
			expect(times).toEqual([...times].sort((x, y) => x - y));
		}
	});
});

describe('Order Filled: Fetch Test Event (manual mode)', () => {
	it('returns the newest fill as one item and leaves the state alone', async () => {
		const runner = triggerRunner(sandbox(), { parameters: ORDER_FILLED });
		const none = await runner.poll('manual');
		expect(none.error?.message).toBe('No fill of your orders in the last 30 days');

		const [a, b] = await restingOrders(sandbox(), 2);
		fillAt(a, MINUTE);
		sandbox().fillOrder(b, '0.0003');
		const [newest] = await allFills(sandbox());
		const manual = await pollCounting(sandbox(), runner, 'manual');
		expect(manual.error).toBeUndefined();
		expect(manual.items.map((item) => item.json)).toEqual([newest]);
		expect(manual.requests).toHaveLength(1);
		expect(runner.nodeStaticData()).toEqual({});

		await runner.poll();
		const state = runner.nodeStaticData();
		sandbox().fillOrder(b);
		expect((await runner.poll('manual')).items).toHaveLength(1);
		expect(runner.nodeStaticData()).toEqual(state);
	});
});
