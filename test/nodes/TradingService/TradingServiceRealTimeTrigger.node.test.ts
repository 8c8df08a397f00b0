/**
 * The real-time trigger through n8n-core's real trigger path (tools/harness/realTime.ts) against
 * the sandbox's user data stream over loopback: events within a second, exactly once across
 * dropped sockets, a dead heartbeat, an expired listen key, duplicated and late events and a
 * restart; the listen key's life; the outage report; bad input before any request.
 */
import { STREAM_TIMINGS } from '../../../nodes/TradingService/stream/activation';
import { DEMO_ACCOUNTS, DEMO_KEYS, type Sandbox } from '../../../sandbox';
import type { RealTimeRunner } from '../../../tools/harness/realTime';
import { sleep, useRealTimeRunners } from '../../support/realTime';

// Each test starts from the stream's own timings: the helper puts back what a test shortened.
const { sandbox, runner, connected } = useRealTimeRunners({ settleMs: 150 });

let priceStep = 0;
/** A resting BUY of the master key, its own price so each order is told apart. */
function restingOrder(sb: Sandbox): string {
	priceStep++;
	return sb.seedOpenOrder({
		symbol: 'BTCUSDT',
		side: 'BUY',
		price: `${100 + priceStep}`,
		quantity: '0.01',
		time: sb.now(),
	}).orderId;
}

const ids = (r: RealTimeRunner) => r.items().map((item) => String(item.eventId));
const filledOrderIds = (r: RealTimeRunner) =>
	r
		.items()
		.filter((item) => item.status === 'FILLED')
		.map((item) => String(item.orderId));

describe('Trading Service Real-Time Trigger', () => {
	it('starts one execution per fill within a second, with the exchange fields kept exact', async () => {
		const sb = sandbox();
		const r = runner();
		await r.activate();
		await connected(r);
		expect(sb.stream.stats().listenKeys).toHaveLength(1);
		const orderId = restingOrder(sb);
		const before = Date.now();
		sb.fillOrder(orderId);
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the fill');
		expect(r.executions[0].at - before).toBeLessThan(1_000);
		const [item] = r.items();
		expect(item).toMatchObject({
			event: 'orderFilled',
			eventId: `order-${orderId}-FILLED-0.01`,
			source: 'stream',
			orderId,
			symbol: 'BTCUSDT',
			side: 'BUY',
			status: 'FILLED',
			quantity: '0.01',
		});
		expect(typeof item.orderId).toBe('string');
		expect(r.executions[0].deduplicationKey).toBe(
			`trading-service:real-time-test-workflow:real-time-node-1:order-${orderId}-FILLED-0.01`,
		);
		// The NEW placement was not chosen: nothing else started.
		await sleep(300);
		expect(r.executions).toHaveLength(1);
	});

	it('tells partial fills, cancels, placements and balance changes apart, as chosen', async () => {
		const sb = sandbox();
		const r = runner({
			parameters: {
				events: ['orderPartiallyFilled', 'orderCancelled', 'orderUpdated', 'balanceChanged'],
				filters: { coin: { __rl: true, mode: 'list', value: 'BTC' } },
			},
		});
		await r.activate();
		await connected(r);
		const orderId = restingOrder(sb);
		sb.fillOrder(orderId, '0.004');
		await r.waitFor(
			() => r.items().some((item) => item.event === 'orderPartiallyFilled'),
			5_000,
			'the partial fill',
		);
		const master = new (await import('../../../sandbox/testClient')).TestClient(
			sb.baseUrl,
			DEMO_KEYS.master,
			() => sb.now(),
		);
		expect((await master.cancelOrder({ orderId })).status).toBe(200);
		await r.waitFor(
			() => r.items().some((item) => item.event === 'orderCancelled'),
			5_000,
			'the cancel',
		);
		const kinds = r
			.items()
			.map((item) => `${String(item.event)}:${String(item.status ?? item.coin)}`);
		expect(kinds).toContain('orderUpdated:NEW');
		expect(kinds).toContain('orderPartiallyFilled:PARTIALLY_FILLED');
		// Cancelled after a partial fill: the UAE status for that.
		expect(kinds).toContain('orderCancelled:PARTIALLY_CANCELED');
		// The BUY's fill credited BTC; the Coin filter leaves USDT out.
		expect(kinds).toContain('balanceChanged:BTC');
		expect(kinds.filter((kind) => kind.startsWith('balanceChanged:USDT'))).toEqual([]);
		expect(new Set(ids(r)).size).toBe(ids(r).length);
	});

	it('misses and repeats nothing across dropped sockets, duplicated and late events', async () => {
		const sb = sandbox();
		const r = runner();
		await r.activate();
		await connected(r);
		const orders = Array.from({ length: 40 }, () => restingOrder(sb));
		let opened = 1;
		for (let round = 0; round < 4; round++) {
			const batch = orders.slice(round * 10, round * 10 + 10);
			if (round === 1) sb.stream.duplicateNext(20);
			if (round === 2) sb.stream.setEventDelay(300);
			sb.fillOrder(batch[0]);
			sb.fillOrder(batch[1]);
			sb.stream.dropConnections();
			// Filled while nobody listens: only a catch-up can find these.
			for (const orderId of batch.slice(2)) sb.fillOrder(orderId);
			opened++;
			await connected(r, opened);
		}
		sb.stream.setEventDelay(0);
		await r.waitFor(() => r.executions.length >= 40, 10_000, 'all 40 fills');
		await sleep(700);
		expect(filledOrderIds(r).sort()).toEqual([...orders].sort());
		expect(r.executions).toHaveLength(40);
		expect(r.items().some((item) => item.source === 'catchUp')).toBe(true);
	});

	it('after a reconnect gives one balance snapshot per coin that changed meanwhile', async () => {
		const sb = sandbox();
		const r = runner({ parameters: { events: ['balanceChanged'] } });
		await r.activate();
		await connected(r);
		sb.setBalance(DEMO_ACCOUNTS.mainTrading, 'ETH', '7.5');
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the streamed balance change');
		expect(r.items()[0]).toMatchObject({ coin: 'ETH', free: '7.5', source: 'stream' });
		sb.stream.dropConnections();
		// Changed twice while nobody listens, and one coin changed back: only the end state counts.
		sb.setBalance(DEMO_ACCOUNTS.mainTrading, 'ETH', '9');
		sb.setBalance(DEMO_ACCOUNTS.mainTrading, 'ETH', '9.25');
		const usdt = sb.getBalance(DEMO_ACCOUNTS.mainTrading, 'USDT');
		sb.setBalance(DEMO_ACCOUNTS.mainTrading, 'USDT', '1');
		sb.setBalance(DEMO_ACCOUNTS.mainTrading, 'USDT', usdt);
		await connected(r, 2);
		await r.waitFor(() => r.executions.length === 2, 5_000, 'the snapshot');
		await sleep(300);
		expect(r.items()[1]).toMatchObject({
			event: 'balanceChanged',
			coin: 'ETH',
			free: '9.25',
			source: 'catchUp',
		});
		expect(r.executions).toHaveLength(2);
	});

	it('notices a silent connection by its heartbeat and reconnects', async () => {
		STREAM_TIMINGS.pingEveryMs = 200;
		STREAM_TIMINGS.silenceLimitMs = 800;
		const sb = sandbox();
		const r = runner();
		await r.activate();
		await connected(r);
		sb.stream.setHeartbeat({ answerPings: false, sendPings: false });
		const orderId = restingOrder(sb);
		// The socket stays open but brings nothing: the trigger must give up on it.
		await r.waitFor(() => sb.stream.stats().connectionsOpened >= 2, 5_000, 'a reconnect');
		sb.stream.setHeartbeat({ answerPings: true, sendPings: true });
		sb.fillOrder(orderId);
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the fill after the reconnect');
		expect(sb.stream.stats().pingsFromClients).toBeGreaterThan(0);
	});

	it('answers the exchange’s pings, so the server keeps the connection', async () => {
		const sb = sandbox();
		const r = runner();
		await r.activate();
		await connected(r);
		// The sandbox pings every second and ends a socket after two unanswered pings.
		await sleep(3_500);
		expect(sb.stream.stats().connectionsOpened).toBe(1);
		expect(sb.stream.stats().connections).toBe(1);
	});

	it('creates a new listen key when the old one expired, and catches up', async () => {
		const sb = sandbox();
		const r = runner();
		await r.activate();
		await connected(r);
		const [first] = sb.stream.stats().listenKeys;
		const early = restingOrder(sb);
		sb.stream.expireListenKeys();
		sb.fillOrder(early);
		await r.waitFor(() => r.executions.length === 1, 10_000, 'the fill made while the key expired');
		const [second] = sb.stream.stats().listenKeys;
		expect(second).toBeDefined();
		expect(second).not.toBe(first);
		expect(r.items()[0]).toMatchObject({ orderId: early, source: 'catchUp' });
	});

	it('on deactivation closes the socket and deletes the listen key', async () => {
		const sb = sandbox();
		const r = runner();
		await r.activate();
		await connected(r);
		const [key] = sb.stream.stats().listenKeys;
		await r.deactivate();
		expect(sb.stream.stats().connections).toBe(0);
		expect(sb.stream.stats().listenKeys).toEqual([]);
		expect(sb.stream.stats().deletedListenKeys).toEqual([key]);
		// Nothing reconnects afterwards.
		await sleep(1_200);
		expect(sb.stream.stats().connectionsOpened).toBe(1);
	});

	it('after a restart emits what happened while it was down, once, and nothing from before', async () => {
		const sb = sandbox();
		const first = runner();
		await first.activate();
		await connected(first);
		const before = restingOrder(sb);
		const during = restingOrder(sb);
		sb.fillOrder(before);
		await first.waitFor(() => first.executions.length === 1, 5_000, 'the first fill');
		await first.deactivate();
		sb.fillOrder(during);
		const second = runner({ staticData: first.saved, existingKeys: first.keys });
		await second.activate();
		await second.waitFor(() => second.executions.length === 1, 10_000, 'the fill made while down');
		await sleep(500);
		expect(filledOrderIds(second)).toEqual([during]);
		// The first fill was emitted moments before its state was saved: after a restart the trigger
		// cannot know that its execution exists, emits it again, and n8n refuses it by its key.
		expect(second.duplicates.map((key) => key.split(':').pop())).toEqual([
			`order-${before}-FILLED-0.01`,
		]);
	});

	it('a crash before the state was saved repeats no execution: n8n refuses the same key', async () => {
		const sb = sandbox();
		const first = runner();
		await first.activate();
		await connected(first);
		const orders = [restingOrder(sb), restingOrder(sb), restingOrder(sb)];
		sb.fillOrder(orders[0]);
		await first.waitFor(() => first.executions.length === 1, 5_000, 'the first fill');
		// What the database holds when the process dies: the state saved with the first emit.
		const stale = structuredClone(first.saved ?? {});
		sb.fillOrder(orders[1]);
		sb.fillOrder(orders[2]);
		await first.waitFor(() => first.executions.length === 3, 5_000, 'three fills');
		await first.deactivate();
		const second = runner({ staticData: stale, existingKeys: first.keys });
		await second.activate();
		await second.waitFor(() => second.duplicates.length === 3, 10_000, 'the refused repeats');
		await sleep(300);
		expect(second.executions).toEqual([]);
		expect(second.duplicates.map((key) => key.split(':').pop()).sort()).toEqual(
			orders.map((orderId) => `order-${orderId}-FILLED-0.01`).sort(),
		);
	});

	it('an event saved as seen whose execution was never created is emitted after the restart', async () => {
		const sb = sandbox();
		const first = runner({ loseExecutionsFrom: 1 });
		await first.activate();
		await connected(first);
		const orders = [restingOrder(sb), restingOrder(sb), restingOrder(sb)];
		sb.fillOrder(orders[0]);
		await first.waitFor(() => first.executions.length === 1, 5_000, 'the first fill');
		sb.fillOrder(orders[1]);
		sb.fillOrder(orders[2]);
		// The state naming both is saved; the process dies before either execution exists.
		await first.waitFor(
			() => JSON.stringify(first.saved).includes(`order-${orders[2]}-`),
			5_000,
			'the saved state',
		);
		await first.deactivate();
		const second = runner({ staticData: first.saved, existingKeys: first.keys });
		await second.activate();
		await second.waitFor(() => second.executions.length === 2, 10_000, 'the two lost fills');
		await sleep(300);
		expect(filledOrderIds(second).sort()).toEqual(orders.slice(1).sort());
		expect(second.duplicates.map((key) => key.split(':').pop())).toEqual([
			`order-${orders[0]}-FILLED-0.01`,
		]);
	});

	it('keeps the baseline of its first activation: fills made before any event and a restart arrive', async () => {
		const sb = sandbox();
		const first = runner();
		await first.activate();
		await connected(first);
		const orderId = restingOrder(sb);
		// No event yet: what n8n saved is the activation's state.
		await first.deactivate();
		sb.fillOrder(orderId);
		const second = runner({ staticData: first.saved });
		await second.activate();
		await second.waitFor(() => second.executions.length === 1, 10_000, 'the fill made while down');
		expect(second.items()[0]).toMatchObject({ orderId, source: 'catchUp' });
	});

	it('deletes the listen key a killed process left behind', async () => {
		const sb = sandbox();
		const first = runner();
		await first.activate();
		await connected(first);
		const [leaked] = sb.stream.stats().listenKeys;
		// Killed: no close function ran, the key stays alive.
		const second = runner({ staticData: first.saved });
		await second.activate();
		expect(sb.stream.stats().deletedListenKeys).toEqual([leaked]);
		expect(sb.stream.stats().listenKeys).not.toContain(leaked);
	});

	it('reports a long outage as a failed execution and keeps reconnecting', async () => {
		STREAM_TIMINGS.minuteMs = 300;
		const sb = sandbox();
		const r = runner({
			credentials: { streamUrl: 'ws://127.0.0.1:1' },
			parameters: { events: ['orderFilled'], options: { outageReportMinutes: 1 } },
		});
		await r.activate();
		await r.waitFor(() => r.failures.length === 1, 10_000, 'the outage report');
		expect(r.failures[0].message).toMatch(/real-time stream has been unreachable/);
		expect(r.fatal).toEqual([]);
		await sleep(600);
		expect(r.failures).toHaveLength(1);
		expect(sb.stream.stats().listenKeys).toHaveLength(1);
	});

	it('listens for one test event in manual mode and keeps no state', async () => {
		const sb = sandbox();
		const r = runner();
		const response = await r.activate('manual');
		await connected(r);
		const orderId = restingOrder(sb);
		sb.fillOrder(orderId);
		const data = (await response.manualTriggerResponse) as Array<
			Array<{ json: { orderId: string } }>
		>;
		expect(data[0][0].json.orderId).toBe(orderId);
		expect(r.workflow.staticData).toEqual({});
	});

	it('refuses bad input before any request', async () => {
		const sb = sandbox();
		await expect(runner({ parameters: { events: [] } }).activate()).rejects.toThrow(/Events/);
		await expect(
			runner({
				parameters: { events: ['orderFilled'], filters: { symbol: ' BTCUSDT' } },
			}).activate(),
		).rejects.toThrow(/Symbol/);
		await expect(
			runner({ credentials: { streamUrl: 'https://x.example.com' } }).activate(),
		).rejects.toThrow(/Stream URL must start with wss:\/\/ or ws:\/\//);
		expect(sb.ledger.requests).toEqual([]);
	});

	it('says clearly when the Node.js running n8n has no WebSocket', async () => {
		const holder = globalThis as { WebSocket?: unknown };
		const saved = holder.WebSocket;
		const r = runner();
		delete holder.WebSocket;
		try {
			await expect(r.activate()).rejects.toThrow(/without a built-in WebSocket/);
		} finally {
			holder.WebSocket = saved;
		}
		expect(sandbox().ledger.requests).toEqual([]);
	});
});
