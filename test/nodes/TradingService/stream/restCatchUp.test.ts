/**
 * The real-time trigger's catch-up (stream/restCatchUp.ts) through n8n-core's trigger path
 * (tools/harness/realTime.ts) against the sandbox over loopback: every fill made while the stream
 * was down becomes its own fill event once (a partial fill before a cancel, several fills of one
 * order, across restarts, never again after the stream brought it); every request names the
 * account and another account's orders never trigger; an order the exchange does not know leaves
 * the state.
 */
import { fillChangesOfOrder } from '../../../../nodes/TradingService/stream/restOrders';
import { DEMO_ACCOUNTS, DEMO_KEYS, type Sandbox } from '../../../../sandbox';
import { TestClient } from '../../../../sandbox/testClient';
import type { RealTimeRunner } from '../../../../tools/harness/realTime';
import { sleep, useRealTimeRunners } from '../../../support/realTime';

const { sandbox, runner, connected } = useRealTimeRunners({ settleMs: 200 });

const FILL_EVENTS = { events: ['orderFilled', 'orderPartiallyFilled'] };

let priceStep = 0;
/** A resting BUY of 0.01 BTC, its own price so each order is told apart. */
function restingOrder(
	sb: Sandbox,
	options: { sub?: boolean; clientOrderId?: string } = {},
): string {
	priceStep++;
	return sb.seedOpenOrder({
		key: options.sub ? DEMO_KEYS.sub : DEMO_KEYS.master,
		symbol: 'BTCUSDT',
		side: 'BUY',
		price: `${100 + priceStep}`,
		quantity: '0.01',
		clientOrderId: options.clientOrderId,
		time: sb.now(),
	}).orderId;
}

const eventIds = (r: RealTimeRunner) => r.items().map((item) => String(item.eventId));

describe('Real-time catch-up: every fill once', () => {
	it('a partial fill followed by a cancel while the socket was down is its fill event', async () => {
		const sb = sandbox();
		const r = runner({ parameters: FILL_EVENTS });
		await r.activate();
		await connected(r);
		const orderId = restingOrder(sb);
		sb.stream.dropConnections();
		sb.fillOrder(orderId, '0.004');
		const master = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
		expect((await master.cancelOrder({ orderId })).status).toBe(200);
		await connected(r, 2);
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the partial fill');
		await sleep(500);
		expect(r.executions).toHaveLength(1);
		const [item] = r.items();
		expect(item).toMatchObject({
			event: 'orderPartiallyFilled',
			eventId: `order-${orderId}-PARTIALLY_FILLED-0.004`,
			source: 'catchUp',
			orderId,
			status: 'PARTIALLY_FILLED',
			executedQuantity: '0.004',
			lastFill: { quantity: '0.004' },
		});
		expect(typeof (item.lastFill as { tradeId: unknown }).tradeId).toBe('string');
	});

	it('several fills of one order while n8n was down are one event each, once across restarts', async () => {
		const sb = sandbox();
		const first = runner({ parameters: FILL_EVENTS });
		await first.activate();
		await connected(first);
		const orderId = restingOrder(sb);
		await first.deactivate();
		sb.fillOrder(orderId, '0.003');
		sb.fillOrder(orderId, '0.003');
		sb.fillOrder(orderId, '0.004');
		const second = runner({ parameters: FILL_EVENTS, staticData: first.saved });
		await second.activate();
		await second.waitFor(() => second.executions.length === 3, 10_000, 'three fills');
		await sleep(500);
		expect(eventIds(second)).toEqual([
			`order-${orderId}-PARTIALLY_FILLED-0.003`,
			`order-${orderId}-PARTIALLY_FILLED-0.006`,
			`order-${orderId}-FILLED-0.01`,
		]);
		expect(second.items().map((item) => item.event)).toEqual([
			'orderPartiallyFilled',
			'orderPartiallyFilled',
			'orderFilled',
		]);
		// The order read now is the state after its last fill: that event has its average price;
		// the earlier fills' moments are not the order's state now, so theirs say none.
		expect(second.items().map((item) => item.averagePrice)).toEqual([
			undefined,
			undefined,
			String(sb.getOrder(orderId)?.avgPrice),
		]);
		await second.deactivate();
		// Restarted again: the same fills are read again and emitted never again (those emitted just
		// before the save go to n8n once more under the same key, which n8n refuses).
		const third = runner({
			parameters: FILL_EVENTS,
			staticData: second.saved,
			existingKeys: second.keys,
		});
		await third.activate();
		await connected(third, 3);
		await sleep(500);
		expect(third.executions).toEqual([]);
	});

	it('a fill the stream brought is not emitted again by the catch-up; the rest of the order is', async () => {
		const sb = sandbox();
		const r = runner({ parameters: FILL_EVENTS });
		await r.activate();
		await connected(r);
		const orderId = restingOrder(sb);
		sb.fillOrder(orderId, '0.004');
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the streamed fill');
		sb.stream.dropConnections();
		sb.fillOrder(orderId, '0.002');
		sb.fillOrder(orderId, '0.004');
		await connected(r, 2);
		await r.waitFor(() => r.executions.length === 3, 5_000, 'the fills made while down');
		await sleep(500);
		expect(eventIds(r)).toEqual([
			`order-${orderId}-PARTIALLY_FILLED-0.004`,
			`order-${orderId}-PARTIALLY_FILLED-0.006`,
			`order-${orderId}-FILLED-0.01`,
		]);
		expect(r.items().map((item) => item.source)).toEqual(['stream', 'catchUp', 'catchUp']);
	});

	it('order state events stay one per state: a cancel after fills is one cancel event', async () => {
		const sb = sandbox();
		const r = runner({ parameters: { events: ['orderPartiallyFilled', 'orderCancelled'] } });
		await r.activate();
		await connected(r);
		const orderId = restingOrder(sb);
		sb.stream.dropConnections();
		sb.fillOrder(orderId, '0.002');
		sb.fillOrder(orderId, '0.002');
		const master = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
		expect((await master.cancelOrder({ orderId })).status).toBe(200);
		await connected(r, 2);
		await r.waitFor(() => r.executions.length === 3, 5_000, 'two fills and the cancel');
		await sleep(500);
		expect(eventIds(r)).toEqual([
			`order-${orderId}-PARTIALLY_FILLED-0.002`,
			`order-${orderId}-PARTIALLY_FILLED-0.004`,
			`order-${orderId}-PARTIALLY_CANCELED-0.004`,
		]);
	});
});

describe('Real-time catch-up: one account', () => {
	it('with a master key, a sub account’s identical order never triggers, and every request names the account', async () => {
		const sb = sandbox();
		const r = runner({ parameters: FILL_EVENTS });
		await r.activate();
		await connected(r);
		const subOrder = restingOrder(sb, { sub: true, clientOrderId: 'signal-7' });
		const ownOrder = restingOrder(sb, { clientOrderId: 'signal-7' });
		sb.stream.dropConnections();
		sb.fillOrder(subOrder);
		await connected(r, 2);
		await sleep(700);
		expect(r.executions).toEqual([]);
		sb.stream.dropConnections();
		sb.fillOrder(ownOrder);
		await connected(r, 3);
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the own fill');
		await sleep(300);
		expect(r.items().map((item) => item.orderId)).toEqual([ownOrder]);
		const reads = sb.ledger.requests.filter((request) =>
			[
				'/api/v1/spot/openOrders',
				'/api/v1/spot/tradeOrders',
				'/api/v1/spot/order',
				'/api/v1/account/trades',
			].includes(request.path),
		);
		expect(reads.length).toBeGreaterThan(0);
		for (const request of reads)
			expect(new URLSearchParams(request.query).get('accountId')).toBe(DEMO_ACCOUNTS.mainTrading);
	});

	it('drops stream events that name another account', async () => {
		const sb = sandbox();
		sb.stream.setEventShape({ subAccountEvents: true, accountField: true });
		const r = runner({ parameters: FILL_EVENTS });
		await r.activate();
		await connected(r);
		const subOrder = restingOrder(sb, { sub: true, clientOrderId: 'signal-7' });
		const ownOrder = restingOrder(sb, { clientOrderId: 'signal-7' });
		sb.fillOrder(subOrder);
		sb.fillOrder(ownOrder);
		await r.waitFor(() => r.executions.length >= 1, 5_000, 'the own fill');
		await sleep(500);
		expect(r.items().map((item) => [item.orderId, item.source])).toEqual([[ownOrder, 'stream']]);
	});

	it('takes the Account option: the key’s own account is followed, a sub account is refused', async () => {
		const own = runner({
			parameters: {
				...FILL_EVENTS,
				options: { account: { __rl: true, mode: 'list', value: DEMO_ACCOUNTS.mainTrading } },
			},
		});
		await own.activate();
		await connected(own);
		await own.deactivate();
		await expect(
			runner({
				parameters: {
					...FILL_EVENTS,
					options: { account: { __rl: true, mode: 'id', value: DEMO_ACCOUNTS.subTrading } },
				},
			}).activate(),
		).rejects.toThrow(/cannot be followed with this API key's real-time stream/);
		await expect(
			runner({
				parameters: {
					...FILL_EVENTS,
					options: { account: { __rl: true, mode: 'id', value: '99999' } },
				},
			}).activate(),
		).rejects.toThrow(/not a trading account of this API key/);
	});
});

describe('Real-time catch-up: orders the exchange does not know', () => {
	it('an order answered "not found" leaves the state and is not asked for at the next reconnect', async () => {
		const sb = sandbox();
		const first = runner({ parameters: FILL_EVENTS });
		await first.activate();
		await connected(first);
		await first.deactivate();
		const saved = structuredClone(first.saved ?? {}) as {
			[node: string]: { realTime: { open: Record<string, string> } };
		};
		const [node] = Object.keys(saved);
		saved[node].realTime.open['1999999999999999999'] = 'BTCUSDT';
		const second = runner({ parameters: FILL_EVENTS, staticData: saved });
		await second.activate();
		await connected(second, 2);
		sb.stream.dropConnections();
		await connected(second, 3);
		const lookups = sb.ledger.requests.filter(
			(request) =>
				request.path === '/api/v1/spot/order' && request.query.includes('1999999999999999999'),
		);
		expect(lookups).toHaveLength(1);
		expect(lookups[0].code).toBe('0211');
		// What n8n saves next (at the next emit or the end of an activation).
		expect(JSON.stringify(second.workflow.staticData)).not.toContain('1999999999999999999');
	});
});

describe('fillChangesOfOrder', () => {
	const order = {
		orderId: '1891234567890123456',
		symbol: 'BTCUSDT',
		side: 'BUY',
		type: 'LIMIT',
		status: 'PARTIALLY_FILLED',
		origQty: '1',
		executedQty: '0.7',
		time: '1000',
		updateTime: '5000',
	};
	const fill = (id: string, qty: string, time: string) => ({
		id,
		orderId: order.orderId,
		symbol: 'BTCUSDT',
		qty,
		price: '50000',
		time,
		isMaker: true,
	});

	it('counts back from the filled quantity now, whatever filled before the range', () => {
		// 0.2 filled before the range; 0.2 and 0.3 in it, listed newest first.
		const changes = fillChangesOfOrder(
			order,
			[fill('19000000000000000002', '0.3', '5000'), fill('9000000000000000001', '0.2', '4000')],
			9_000,
		);
		expect(changes.map((change) => change.id)).toEqual([
			`order-${order.orderId}-PARTIALLY_FILLED-0.4`,
			`order-${order.orderId}-PARTIALLY_FILLED-0.7`,
		]);
		expect(changes[1].lastFill).toMatchObject({ quantity: '0.3', tradeId: '19000000000000000002' });
	});

	it('counts forward a fill newer than the order read, and names the one that completes it FILLED', () => {
		const changes = fillChangesOfOrder(
			order,
			[fill('3', '0.3', '6000'), fill('2', '0.3', '5000')],
			9_000,
		);
		expect(changes.map((change) => change.id)).toEqual([
			`order-${order.orderId}-PARTIALLY_FILLED-0.7`,
			`order-${order.orderId}-FILLED-1`,
		]);
	});

	it('gives nothing when the fills add up to more than the order filled', () => {
		expect(fillChangesOfOrder(order, [fill('2', '0.8', '5000')], 9_000)).toEqual([]);
	});
});
