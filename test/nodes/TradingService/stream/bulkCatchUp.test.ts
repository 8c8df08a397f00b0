/**
 * The real-time catch-up reads lists, not one order at a time (stream/orderCatchUp.ts), through
 * n8n-core's trigger path (tools/harness/realTime.ts) against the sandbox at the exchange's
 * documented request rates: with 200 open orders, the catch-up after a drop costs a request per
 * page of each list, counted in the sandbox's request log; orders beyond the past orders' reach are
 * looked up one by one, at most MAX_LOOKUPS per catch-up; and 200 fills across five drops, a
 * listen-key expiry and a restart are each one event, none doubled. Nothing here measures time.
 */
import { MAX_LOOKUPS } from '../../../../nodes/TradingService/stream/orderCatchUp';
import { DEMO_KEYS, type LedgerRequest, type Sandbox } from '../../../../sandbox';
import { TestClient } from '../../../../sandbox/testClient';
import type { RealTimeRunner } from '../../../../tools/harness/realTime';
import { sleep, useRealTimeRunners } from '../../../support/realTime';

// The documented rates (5 query requests a second per key) and weight budget: the node paces itself.
const { sandbox, runner, connected } = useRealTimeRunners({
	sandbox: { symbolRules: 'lenient', streamPingIntervalMs: 1_000 },
	connectTimeoutMs: 15_000,
});

const ORDER_EVENTS = { events: ['orderFilled', 'orderPartiallyFilled', 'orderCancelled'] };

/** `count` resting BUYs of 0.01 BTC placed `ageMs` ago, oldest first, each at its own price. */
function seedOrders(sb: Sandbox, count: number, ageMs: number): string[] {
	const placedAt = sb.now() - ageMs;
	return Array.from(
		{ length: count },
		(_, index) =>
			sb.seedOpenOrder({
				symbol: 'BTCUSDT',
				side: 'BUY',
				price: `${100 + index}`,
				quantity: '0.01',
				time: placedAt + index,
			}).orderId,
	);
}

/** When the trigger last wrote its state: a catch-up ends with that write. */
function savedAt(r: RealTimeRunner): number {
	const [node] = Object.values(r.workflow.staticData) as Array<{ realTime: { savedAt: number } }>;
	return node.realTime.savedAt;
}

async function caughtUp(r: RealTimeRunner, after: number): Promise<void> {
	await r.waitFor(() => savedAt(r) > after, 20_000, 'the end of the catch-up');
}

/** The trigger's reads in a slice of the request log, counted by path. */
function readsByPath(requests: LedgerRequest[]): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const request of requests)
		if (request.method === 'GET') counts[request.path] = (counts[request.path] ?? 0) + 1;
	return counts;
}

const OPEN_ORDERS = '/api/v1/spot/openOrders';
const PAST_ORDERS = '/api/v1/spot/tradeOrders';
const FILLS = '/api/v1/account/trades';
const LOOKUP = '/api/v1/spot/order';

describe('Real-time catch-up in bulk', () => {
	it('after a drop with 200 open orders, reads a page of each list: no order is looked up', async () => {
		const sb = sandbox();
		const master = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
		// Placed 10 minutes ago: before the catch-up's range, so the past orders are paged below it.
		const orders = seedOrders(sb, 200, 10 * 60_000);
		const r = runner({ parameters: ORDER_EVENTS });
		await r.activate();
		const activatedAt = Date.now();
		await connected(r, 1);
		await caughtUp(r, activatedAt);
		const from = sb.ledger.requests.length;
		sb.stream.dropConnections();
		// While nobody listens: 60 filled, 40 partly filled, 20 cancelled; 80 stay as they were.
		for (const orderId of orders.slice(0, 60)) sb.fillOrder(orderId);
		for (const orderId of orders.slice(60, 100)) sb.fillOrder(orderId, '0.004');
		expect((await master.cancelOrdersByIds(orders.slice(100, 120))).status).toBe(200);
		const droppedAt = Date.now();
		await connected(r, 2);
		await r.waitFor(() => r.executions.length === 120, 20_000, 'the 120 changes');
		await caughtUp(r, droppedAt);
		await sleep(300);
		const reads = readsByPath(sb.ledger.requests.slice(from));
		// One page of open orders (100 < 1,000), the past orders created since the range's start and
		// one page below it (the 80 that ended), one page of fills: 4 reads for 200 orders.
		expect(reads).toEqual({ [OPEN_ORDERS]: 1, [PAST_ORDERS]: 2, [FILLS]: 1 });
		const ids = r.items().map((item) => String(item.eventId));
		expect(new Set(ids).size).toBe(120);
		const statuses = r.items().map((item) => String(item.status));
		expect(statuses.filter((status) => status === 'FILLED')).toHaveLength(60);
		expect(statuses.filter((status) => status === 'PARTIALLY_FILLED')).toHaveLength(40);
		expect(statuses.filter((status) => status === 'CANCELED')).toHaveLength(20);
		expect(r.items().every((item) => item.source === 'catchUp')).toBe(true);
	});

	it('looks up one by one only orders older than the past orders reach, at most MAX_LOOKUPS a catch-up', async () => {
		const sb = sandbox();
		const master = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
		// Placed 100 days ago: past orders reach back 90 days, so their cancels are in no list.
		const orders = seedOrders(sb, MAX_LOOKUPS + 5, 100 * 24 * 3_600_000);
		const r = runner({ parameters: ORDER_EVENTS });
		await r.activate();
		const activatedAt = Date.now();
		await connected(r, 1);
		await caughtUp(r, activatedAt);
		const from = sb.ledger.requests.length;
		sb.stream.dropConnections();
		expect((await master.cancelOrdersByIds(orders)).status).toBe(200);
		const droppedAt = Date.now();
		await connected(r, 2);
		await caughtUp(r, droppedAt);
		await sleep(300);
		expect(readsByPath(sb.ledger.requests.slice(from))).toEqual({
			[OPEN_ORDERS]: 1,
			[PAST_ORDERS]: 2,
			[FILLS]: 1,
			[LOOKUP]: MAX_LOOKUPS,
		});
		expect(r.executions).toHaveLength(MAX_LOOKUPS);
		// The rest at the next catch-up.
		const next = sb.ledger.requests.length;
		const droppedAgainAt = Date.now();
		sb.stream.dropConnections();
		await connected(r, 3);
		await caughtUp(r, droppedAgainAt);
		await sleep(300);
		expect(readsByPath(sb.ledger.requests.slice(next))[LOOKUP]).toBe(5);
		const cancelled = r.items().map((item) => String(item.orderId));
		expect(cancelled.sort()).toEqual([...orders].sort());
		expect(r.items().every((item) => item.status === 'CANCELED')).toBe(true);
	});

	it('orders that ended before the range, read on the way down to an older one, are no event', async () => {
		const sb = sandbox();
		// 41 orders placed 11 minutes ago; 40 of them filled then (the sandbox's clock set back).
		sb.setFaults({ clockOffsetMs: -10 * 60_000 });
		const old = seedOrders(sb, 41, 60_000);
		for (const orderId of old.slice(0, 40)) sb.fillOrder(orderId);
		sb.clearFaults();
		const followed = old[40];
		const r = runner({ parameters: ORDER_EVENTS });
		await r.activate();
		const activatedAt = Date.now();
		await connected(r, 1);
		await caughtUp(r, activatedAt);
		const from = sb.ledger.requests.length;
		sb.stream.dropConnections();
		sb.fillOrder(followed);
		const droppedAt = Date.now();
		await connected(r, 2);
		await r.waitFor(() => r.executions.length >= 1, 20_000, 'the fill');
		await caughtUp(r, droppedAt);
		await sleep(300);
		// The page below the range holds the 40 old ones too: only the followed order is news.
		expect(readsByPath(sb.ledger.requests.slice(from))[PAST_ORDERS]).toBe(2);
		expect(r.items().map((item) => [item.orderId, item.status, item.source])).toEqual([
			[followed, 'FILLED', 'catchUp'],
		]);
	});

	it('200 fills across five drops, a listen-key expiry and a restart: every fill one event, none doubled', async () => {
		const sb = sandbox();
		const orders = seedOrders(sb, 200, 60_000);
		const first = runner({ parameters: ORDER_EVENTS });
		await first.activate();
		await connected(first, 1);
		let second: RealTimeRunner | undefined;
		const drops = new Set([20, 50, 80, 110, 130]);
		let opened = 1;
		// Each disruption meets an open connection; fills go on while the trigger reconnects.
		const disrupt = async (act: () => void | Promise<void>) => {
			await connected(second ?? first, opened);
			await act();
			opened++;
		};
		for (const [index, orderId] of orders.entries()) {
			if (drops.has(index)) await disrupt(() => sb.stream.dropConnections());
			if (index === 150) await disrupt(() => sb.stream.expireListenKeys());
			if (index === 170) await disrupt(() => first.deactivate());
			if (index === 180) {
				second = runner({
					parameters: ORDER_EVENTS,
					staticData: first.saved,
					existingKeys: first.keys,
				});
				await second.activate();
			}
			sb.fillOrder(orderId);
			await sleep(40);
		}
		const all = () => [...first.items(), ...(second?.items() ?? [])];
		await first.waitFor(() => all().length >= 200, 30_000, 'an event for each of the 200 fills');
		await sleep(1_000);
		const ids = all().map((item) => String(item.eventId));
		expect(ids).toHaveLength(200);
		expect(new Set(ids).size).toBe(200);
		expect(
			all()
				.map((item) => String(item.orderId))
				.sort(),
		).toEqual([...orders].sort());
		expect(all().every((item) => item.status === 'FILLED')).toBe(true);
		expect(all().some((item) => item.source === 'catchUp')).toBe(true);
		// Every disruption happened: five drops, a new listen key, the restart's connection.
		expect(sb.stream.stats().connectionsOpened).toBeGreaterThanOrEqual(8);
		expect(sb.stream.stats().deletedListenKeys).toHaveLength(1);
	});
});
