/**
 * The stream never goes back in time (stream/emitter.ts): the rule on its own, then, through
 * n8n-core's trigger path (tools/harness/realTime.ts) against the sandbox, a push raced against a
 * catch-up's REST answer for a position, a balance and an order. The sandbox holds the answer back
 * after it has read the state (its dripFeed fault: one byte every few milliseconds, seconds in all),
 * the test makes a change while the answer is on its way, and the push of that change reaches the
 * trigger first. The older answer must be neither emitted nor kept: a later reconnect, whose
 * catch-up compares with what was kept, shows what was.
 */
import type { StreamEvent } from '../../../../nodes/TradingService/stream/events';
import { MAX_STAMPS, Stamps, isOlder } from '../../../../nodes/TradingService/stream/emitter';
import { DEMO_ACCOUNTS, DEMO_KEYS, type Sandbox } from '../../../../sandbox';
import { TestClient } from '../../../../sandbox/testClient';
import type { RealTimeRunner } from '../../../../tools/harness/realTime';
import { sleep, useRealTimeRunners } from '../../../support/realTime';

const { sandbox, runner, connected } = useRealTimeRunners();

const balance = (
	source: 'stream' | 'catchUp',
	time: number,
	seenAt: number,
	clock: 'exchange' | 'n8n' = source === 'stream' ? 'exchange' : 'n8n',
): StreamEvent => ({
	channel: 'balance',
	id: `balance-${source}-${time}`,
	source,
	market: 'spot',
	time,
	clock,
	seenAt,
	coin: 'ETH',
	free: '1',
	locked: '0',
	raw: {},
});

const order = (source: 'stream' | 'catchUp', time: number, orderId = '1'): StreamEvent => ({
	channel: 'order',
	id: `order-${orderId}-${source}-${time}`,
	source,
	market: 'spot',
	time,
	clock: 'exchange',
	seenAt: time,
	orderId,
	symbol: 'BTCUSDT',
	status: 'NEW',
	executedQuantity: '0',
	raw: {},
});

const stampOf = (event: StreamEvent) => ({
	time: event.time,
	clock: event.clock,
	seenAt: event.seenAt,
	source: event.source,
});

describe('the ordering rule', () => {
	it('a REST snapshot without a time of its own is older than a push that arrived after its request left', () => {
		// The push is stamped by the exchange's clock (here 2 s ahead of n8n's): only n8n's times count.
		const push = balance('stream', 12_000, 10_050);
		expect(isOlder(balance('catchUp', 10_000, 10_000), stampOf(push))).toBe(true);
		expect(isOlder(balance('catchUp', 10_050, 10_050), stampOf(push))).toBe(true);
		// A push that arrived before the request left was already in its answer.
		expect(isOlder(balance('catchUp', 10_051, 10_051), stampOf(push))).toBe(false);
		// Of two REST answers, the later request's is the newer.
		const rest = balance('catchUp', 10_000, 10_000);
		expect(isOlder(balance('catchUp', 9_999, 9_999), stampOf(rest))).toBe(true);
		expect(isOlder(balance('catchUp', 10_000, 10_000), stampOf(rest))).toBe(false);
	});

	it('exchange times are compared as they are; at the same millisecond the push wins', () => {
		const push = order('stream', 5_000);
		expect(isOlder(order('catchUp', 4_999), stampOf(push))).toBe(true);
		expect(isOlder(order('catchUp', 5_000), stampOf(push))).toBe(true);
		expect(isOlder(order('catchUp', 5_001), stampOf(push))).toBe(false);
		// A push older than an order's update time a REST answer showed is older; pushes among
		// themselves, and pushes after a snapshot without a time, never are.
		expect(isOlder(order('stream', 4_000), stampOf(order('catchUp', 5_000)))).toBe(true);
		expect(isOlder(order('stream', 4_000), stampOf(push))).toBe(false);
		expect(isOlder(balance('stream', 1, 1), stampOf(balance('catchUp', 9, 9)))).toBe(false);
	});

	it('keeps each subject’s time apart, and at most MAX_STAMPS of them', () => {
		const stamps = new Stamps();
		stamps.take(order('stream', 5_000));
		expect(stamps.freshness(order('catchUp', 4_000))).toBe('older');
		expect(stamps.freshness(order('catchUp', 4_000, '2'))).toBe('newer');
		expect(stamps.freshness(balance('catchUp', 4_000, 4_000))).toBe('newer');
		for (let index = 0; index < MAX_STAMPS; index++)
			stamps.take(order('stream', 6_000, `x${index}`));
		// The oldest taken is forgotten first: order 1's time is gone.
		expect(stamps.freshness(order('catchUp', 4_000))).toBe('newer');
	});
});

interface LiveState {
	savedAt: number;
	open: Record<string, string>;
	balances: Record<string, string>;
	positions: Record<string, { state: string }>;
}

/** The trigger's state as it wrote it last (the live static data, not n8n's last save). */
function liveState(r: RealTimeRunner): LiveState {
	const [node] = Object.values(r.workflow.staticData) as Array<{ realTime: LiveState }>;
	return node.realTime;
}

/** Waits until the trigger wrote its state after `after` (ms): a catch-up ends with that write. */
async function caughtUp(r: RealTimeRunner, after: number): Promise<void> {
	await r.waitFor(() => liveState(r).savedAt > after, 15_000, 'the end of the catch-up');
}

/** Activates, and waits for the first connection and the catch-up after it. */
async function activated(r: RealTimeRunner): Promise<void> {
	await r.activate();
	const at = Date.now();
	await connected(r, 1);
	await caughtUp(r, at);
}

/**
 * Holds back the next answer of `path` (set at once): read when it arrives, sent a byte every
 * `dripMs` ms. Resolves once the sandbox has read it (the ledger entry is written as the request
 * arrives, and the state is read in the same turn), so what changes afterwards is not in it.
 */
async function holdBackNext(
	sb: Sandbox,
	r: RealTimeRunner,
	path: string,
	dripMs = 5,
): Promise<void> {
	const from = sb.ledger.requests.length;
	sb.setFaults({
		rules: [{ kind: 'dripFeed', times: 1, path, method: 'GET', dripIntervalMs: dripMs }],
	});
	await r.waitFor(
		() => sb.ledger.requests.slice(from).some((request) => request.fault === 'dripFeed'),
		10_000,
		`the catch-up's ${path}`,
	);
}

/** Drops the connection, lets the trigger reconnect and catch up, with nothing changed meanwhile. */
async function reconnectQuietly(sb: Sandbox, r: RealTimeRunner, opened: number): Promise<void> {
	const before = Date.now();
	sb.stream.dropConnections();
	await connected(r, opened);
	await caughtUp(r, before);
	await sleep(300);
}

const summary = (r: RealTimeRunner, field: string) =>
	r.items().map((item) => `${String(item[field])} ${String(item.source)}`);

describe('a push raced against a catch-up', () => {
	it('a position: the list read before a push arrived is neither emitted nor kept', async () => {
		const sb = sandbox();
		const BTC = 'BTCUSDT-PERPETUAL';
		const r = runner({ parameters: { events: ['positionChanged'] } });
		await activated(r);
		sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01' });
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the first change');
		const onItsWay = holdBackNext(sb, r, '/api/v2/futures/positions');
		sb.stream.dropConnections();
		await onItsWay;
		// Read as 0.01; the position grows to 0.02 and is pushed while that answer is on its way.
		sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01' });
		await r.waitFor(() => r.executions.length === 2, 5_000, 'the pushed change');
		const pushed = Date.now();
		await caughtUp(r, pushed);
		expect(summary(r, 'position')).toEqual(['0.01 stream', '0.02 stream']);
		expect(liveState(r).positions[`${BTC}|LONG`].state).toBe('0.02');
		// Kept 0.01, the next catch-up would report 0.02 again.
		await reconnectQuietly(sb, r, 3);
		expect(summary(r, 'position')).toEqual(['0.01 stream', '0.02 stream']);
	});

	it('a balance: the snapshot read before a push arrived is neither emitted nor kept', async () => {
		const sb = sandbox();
		const r = runner({ parameters: { events: ['balanceChanged'], filters: { coin: 'ETH' } } });
		await activated(r);
		const onItsWay = holdBackNext(sb, r, '/api/v1/account');
		sb.stream.dropConnections();
		sb.setBalance(DEMO_ACCOUNTS.mainTrading, 'ETH', '7.5');
		await onItsWay;
		// Read as 7.5 (changed while nobody listened); 9 is pushed while that answer is on its way.
		sb.setBalance(DEMO_ACCOUNTS.mainTrading, 'ETH', '9');
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the pushed change');
		const pushed = Date.now();
		await caughtUp(r, pushed);
		expect(summary(r, 'free')).toEqual(['9 stream']);
		expect(liveState(r).balances.ETH).toBe('9|0');
		await reconnectQuietly(sb, r, 3);
		expect(summary(r, 'free')).toEqual(['9 stream']);
	});

	it('an order: the open-orders answer read before its cancel was pushed is neither emitted nor kept', async () => {
		const sb = sandbox();
		const master = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
		const r = runner({ parameters: { events: ['orderUpdated'] } });
		await activated(r);
		const onItsWay = holdBackNext(sb, r, '/api/v1/spot/openOrders', 4);
		sb.stream.dropConnections();
		// Placed while nobody listens: its NEW state is news to the catch-up.
		const { orderId } = sb.seedOpenOrder({
			symbol: 'BTCUSDT',
			side: 'BUY',
			price: '101',
			quantity: '0.01',
			time: sb.now(),
		});
		await onItsWay;
		expect((await master.cancelOrder({ orderId })).status).toBe(200);
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the pushed cancel');
		const pushed = Date.now();
		await caughtUp(r, pushed);
		expect(summary(r, 'status')).toEqual(['CANCELED stream']);
		expect(liveState(r).open).not.toHaveProperty(orderId);
		await reconnectQuietly(sb, r, 3);
		expect(summary(r, 'status')).toEqual(['CANCELED stream']);
	});

	it('an order: a fill made while nobody listened is emitted once, but not kept over the cancel pushed after it', async () => {
		const sb = sandbox();
		const master = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
		// Placed well before the catch-up's range: only the open-orders answer shows it.
		const { orderId } = sb.seedOpenOrder({
			symbol: 'BTCUSDT',
			side: 'BUY',
			price: '101',
			quantity: '0.01',
			time: sb.now() - 10 * 60_000,
		});
		const r = runner({ parameters: { events: ['orderUpdated'] } });
		await activated(r);
		const onItsWay = holdBackNext(sb, r, '/api/v1/spot/openOrders', 4);
		sb.stream.dropConnections();
		sb.fillOrder(orderId, '0.004');
		await onItsWay;
		expect((await master.cancelOrder({ orderId })).status).toBe(200);
		await r.waitFor(() => r.executions.length >= 1, 5_000, 'the pushed cancel');
		const pushed = Date.now();
		await caughtUp(r, pushed);
		// The fill is a past event, emitted once with its own time; the order's state stays the
		// pushed cancel's.
		expect(r.items().map((item) => [item.eventId, item.source])).toEqual([
			[`order-${orderId}-PARTIALLY_CANCELED-0.004`, 'stream'],
			[`order-${orderId}-PARTIALLY_FILLED-0.004`, 'catchUp'],
		]);
		expect(r.items()[1].lastFill).toMatchObject({ quantity: '0.004' });
		expect(Number(r.items()[1].eventTime)).toBeLessThan(Number(r.items()[0].eventTime));
		expect(liveState(r).open).not.toHaveProperty(orderId);
		// Kept open, the next catch-up would look the order up again.
		const from = sb.ledger.requests.length;
		await reconnectQuietly(sb, r, 3);
		const lookups = sb.ledger.requests
			.slice(from)
			.filter((request) => request.path === '/api/v1/spot/order' && request.method === 'GET');
		expect(lookups).toEqual([]);
		expect(r.executions).toHaveLength(2);
	});
});
