/**
 * The futures order events of the real-time trigger (stream/futuresCatchUp.ts, futuresOrders.ts)
 * through n8n-core's trigger path against the sandbox: Futures Order Filled, Partially Filled,
 * Cancelled and Liquidation from the stream's contractExecutionReport, one execution per event;
 * after a dropped connection and a restart, what happened meanwhile once, from the futures lists.
 */
import { STREAM_TIMINGS } from '../../../../nodes/TradingService/stream/activation';
import { DEMO_KEYS, type Sandbox } from '../../../../sandbox';
import { TestClient } from '../../../../sandbox/testClient';
import { credentialsFor } from '../../../../tools/harness/node';
import type { RealTimeRunner } from '../../../../tools/harness/realTime';
import { sleep, useRealTimeRunners } from '../../../support/realTime';

const FUTURES = {
	events: [
		'futuresOrderFilled',
		'futuresOrderPartiallyFilled',
		'futuresOrderCanceled',
		'futuresLiquidation',
	],
};
const BTC = 'BTCUSDT-PERPETUAL';
const ETH = 'ETHUSDT-PERPETUAL';

const { sandbox, runner, connected } = useRealTimeRunners({
	runnerDefaults: { parameters: FUTURES },
	settleMs: 300,
});

let price = 40000;
/** A resting BUY of `quantity` below the fixed mark, a new price each time. */
function rest(sb: Sandbox, quantity = '0.01', symbol = BTC): string {
	price -= 10;
	return sb.futures.placeOpenOrder({ symbol, side: 'BUY', quantity, price: `${price}` }).orderId;
}

async function cancel(sb: Sandbox, orderId: string): Promise<void> {
	const client = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
	const answer = await client.call({
		method: 'DELETE',
		path: '/api/v2/futures/order',
		query: { orderId, type: 'LIMIT' },
	});
	expect(answer.status).toBe(200);
}

/** A stop-market BUY of 0.01 BTC, triggered when the mark reaches `stopPrice`. */
async function stopBuy(sb: Sandbox, stopPrice: string): Promise<string> {
	const client = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
	const answer = await client.call({
		method: 'POST',
		path: '/api/v2/futures/order',
		query: { symbol: BTC, side: 'BUY', type: 'STOP', baseQty: '0.01', stopPrice },
	});
	expect(answer.status).toBe(200);
	return String((answer.json as { orderId: string }).orderId);
}

/** Each item as "event order status executed source" (liquidations: "liquidation side qty"). */
const summary = (r: RealTimeRunner) =>
	r
		.items()
		.map((item) =>
			[item.event, item.orderId, item.status, item.executedQuantity, item.source].join(' '),
		);

beforeEach(() => {
	sandbox().futures.setMarkPrice(BTC, '50000');
	sandbox().futures.setMarkPrice(ETH, '3000');
});

describe('Futures order events in the real-time trigger, against the sandbox', () => {
	it('live: one item per fill, cancel and liquidation fill; a resting order and a placement are none', async () => {
		const sb = sandbox();
		const r = runner();
		await r.activate();
		await connected(r);
		const filled = rest(sb);
		sb.futures.fill({ symbol: BTC, side: 'BUY', orderId: filled, quantity: '0.004' });
		sb.futures.fill({ symbol: BTC, side: 'BUY', orderId: filled });
		const cancelled = rest(sb);
		await cancel(sb, cancelled);
		const { order: liquidation, trade } = sb.futures.liquidate(BTC);
		await r.waitFor(() => r.executions.length === 4, 5_000, 'four events');
		await sleep(500);
		expect(summary(r)).toEqual([
			`futuresOrderPartiallyFilled ${filled} PARTIALLY_FILLED 0.004 stream`,
			`futuresOrderFilled ${filled} FILLED 0.01 stream`,
			`futuresOrderCanceled ${cancelled} CANCELED 0 stream`,
			`futuresLiquidation ${liquidation.orderId} FILLED 0.01 stream`,
		]);
		const items = r.items();
		expect(items[3]).toMatchObject({
			eventId: `futures-fill-${trade.tradeId}`,
			market: 'contract',
			symbol: BTC,
			side: 'SELL',
			orderType: 'MARKET',
			reduceOnly: true,
			isLiquidation: true,
			liquidationType: 'LIQUIDATION_TAKER',
			lastFill: { quantity: '0.01', tradeId: trade.tradeId, feeCoin: 'USDT' },
		});
		expect(items[0]).toMatchObject({ isLiquidation: false, leverage: '5', side: 'BUY' });
		expect(items.map((item) => String(r.executions[items.indexOf(item)].deduplicationKey))).toEqual(
			items.map((item) => expect.stringContaining(String(item.eventId))),
		);
	});

	it('a dropped connection: what happened meanwhile once, from the futures lists in bulk; nothing twice', async () => {
		const sb = sandbox();
		const r = runner();
		await r.activate();
		await connected(r);
		const followed = rest(sb);
		sb.futures.fill({ symbol: BTC, side: 'BUY', orderId: followed, quantity: '0.004' });
		const leftOpen = rest(sb, '0.1', ETH);
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the live partial fill');
		sb.stream.dropConnections();
		// While nobody listens: the followed order fills, one placed and cancelled, one placed and
		// filled in two parts, the position liquidated.
		sb.futures.fill({ symbol: BTC, side: 'BUY', orderId: followed });
		const placedAndCancelled = rest(sb);
		await cancel(sb, placedAndCancelled);
		const twice = rest(sb, '0.02');
		sb.futures.fill({ symbol: BTC, side: 'BUY', orderId: twice, quantity: '0.015' });
		sb.futures.fill({ symbol: BTC, side: 'BUY', orderId: twice });
		const { order: liquidation } = sb.futures.liquidate(BTC);
		const before = sb.ledger.requests.length;
		await connected(r, 2);
		await r.waitFor(() => r.executions.length === 6, 8_000, 'the caught-up events');
		await sleep(500);
		expect(summary(r).slice(1).sort()).toEqual(
			[
				`futuresOrderFilled ${followed} FILLED 0.01 catchUp`,
				`futuresOrderCanceled ${placedAndCancelled} CANCELED 0 catchUp`,
				`futuresOrderPartiallyFilled ${twice} PARTIALLY_FILLED 0.015 catchUp`,
				`futuresOrderFilled ${twice} FILLED 0.02 catchUp`,
				`futuresLiquidation ${liquidation.orderId} FILLED 0.03 catchUp`,
			].sort(),
		);
		// In bulk: the futures reads are lists, one or two per contract and type, no lookup.
		const futuresReads = sb.ledger.requests
			.slice(before)
			.map((request) => `${request.method} ${request.path}`)
			.filter((line) => line.includes('/api/v2/futures/'));
		expect(futuresReads.filter((line) => line.endsWith('/api/v2/futures/order'))).toEqual([]);
		expect(futuresReads.length).toBeLessThanOrEqual(2 + 3 * 4);
		// Dropped again with nothing new: nothing; the open ETH order is still no event.
		sb.stream.dropConnections();
		await connected(r, 3);
		await sleep(800);
		expect(r.executions).toHaveLength(6);
		expect(summary(r).some((line) => line.includes(leftOpen))).toBe(false);
	});

	it('in bulk: 520 orders placed before the range and cancelled while down cost pages, not lookups', async () => {
		const sb = sandbox();
		const placedAt = sb.now() - 10 * 60_000;
		const placed = Array.from({ length: 520 }, (_, index) =>
			sb.futures.placeOpenOrder({
				symbol: ETH,
				side: 'BUY',
				quantity: '0.01',
				price: `${2000 + Math.floor(index / 100)}.${String(index % 100).padStart(2, '0')}`,
				time: placedAt + index,
			}),
		);
		const r = runner();
		await r.activate();
		await connected(r);
		sb.stream.dropConnections();
		const client = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
		for (let page = 0; page < 3; page++) {
			const answer = await client.call({
				method: 'DELETE',
				path: '/api/v2/futures/cancelOrders',
				query: { side: 'BUY', orderType: 'LIMIT', limit: 200 },
			});
			expect(answer.status).toBe(200);
		}
		const before = sb.ledger.requests.length;
		await connected(r, 2);
		await r.waitFor(() => r.executions.length === 520, 20_000, 'the 520 cancels');
		await sleep(300);
		expect(new Set(r.items().map((item) => item.orderId))).toEqual(
			new Set(placed.map((order) => order.orderId)),
		);
		expect(r.items().every((item) => item.event === 'futuresOrderCanceled')).toBe(true);
		const reads = sb.ledger.requests
			.slice(before)
			.map((request) => `${request.path}?${request.query}`)
			.filter((line) => line.includes('/api/v2/futures/'));
		expect(reads.filter((line) => line.startsWith('/api/v2/futures/order?'))).toEqual([]);
		// ETH's past limit orders in two pages (520 above 500), every other list one page.
		const ethLimit = reads.filter(
			(line) => line.includes('historyOrders') && line.includes(ETH) && line.includes('LIMIT'),
		);
		expect(ethLimit).toHaveLength(2);
		expect(reads.length).toBeLessThanOrEqual(2 + 3 * 4 + 1);
	});

	it('a restart: the fill made while n8n was down once, the cancel of an order followed before', async () => {
		const sb = sandbox();
		const first = runner();
		await first.activate();
		await connected(first);
		const order = rest(sb);
		const other = rest(sb);
		sb.futures.fill({ symbol: BTC, side: 'BUY', orderId: order, quantity: '0.004' });
		await first.waitFor(() => first.executions.length === 1, 5_000, 'the live partial fill');
		await first.deactivate();
		sb.futures.fill({ symbol: BTC, side: 'BUY', orderId: order });
		await cancel(sb, other);
		const second = runner({ staticData: first.saved, existingKeys: first.keys });
		await second.activate();
		await connected(second);
		await second.waitFor(() => second.executions.length === 2, 5_000, 'the changes while down');
		await sleep(500);
		expect(summary(second).sort()).toEqual(
			[
				`futuresOrderFilled ${order} FILLED 0.01 catchUp`,
				`futuresOrderCanceled ${other} CANCELED 0 catchUp`,
			].sort(),
		);
		// The partial fill, emitted seconds before the state was saved, is emitted again under its
		// key and refused by n8n (docs/trigger.md, "Across restarts").
		expect(second.duplicates).toHaveLength(1);
		expect(second.duplicates[0]).toContain(String(first.items()[0].eventId));
	});

	it('a stop order: only the fill of the order it placed, live and caught up; its trigger (ORDER_FILLED) is none', async () => {
		const sb = sandbox();
		const r = runner();
		await r.activate();
		await connected(r);
		const live = await stopBuy(sb, '51000');
		sb.futures.setMarkPrice(BTC, '51000');
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the fill');
		const caughtUp = await stopBuy(sb, '52000');
		await sleep(300);
		sb.stream.dropConnections();
		sb.futures.setMarkPrice(BTC, '52000');
		await connected(r, 2);
		await r.waitFor(() => r.executions.length === 2, 8_000, 'the fill caught up');
		await sleep(800);
		// The polling twin fires on fills only: the stop's trigger is no Futures Order Filled.
		expect(summary(r)).toEqual([
			expect.stringMatching(/^futuresOrderFilled \d+ FILLED 0.01 stream$/),
			expect.stringMatching(/^futuresOrderFilled \d+ FILLED 0.01 catchUp$/),
		]);
		const orderIds = r.items().map((item) => item.orderId);
		expect(orderIds).not.toContain(live);
		expect(orderIds).not.toContain(caughtUp);
		expect(r.items()[0]).toMatchObject({ side: 'BUY', symbol: BTC });
	});

	it('futures events newly chosen in a workflow that ran: what happened before is no event, what follows is', async () => {
		const sb = sandbox();
		const first = runner({ parameters: { events: ['orderCancelled'] } });
		await first.activate();
		await connected(first);
		const before = rest(sb);
		sb.futures.fill({ symbol: BTC, side: 'BUY', orderId: before, quantity: '0.004' });
		await sleep(300);
		await first.deactivate();
		// A state of a workflow without futures order events: no futures baseline.
		expect(JSON.stringify(first.saved)).toContain('"realTime"');
		expect(JSON.stringify(first.saved)).not.toContain('futuresOpen');
		const second = runner({ staticData: first.saved, existingKeys: first.keys });
		await second.activate();
		await connected(second);
		await sleep(300);
		expect(second.executions).toHaveLength(0);
		// The order open before is followed from the baseline on: its fill is one event.
		sb.futures.fill({ symbol: BTC, side: 'BUY', orderId: before });
		await second.waitFor(() => second.executions.length === 1, 5_000, 'the fill');
		await sleep(300);
		expect(summary(second)).toEqual([`futuresOrderFilled ${before} FILLED 0.01 stream`]);
	});

	it('a futures list read that fails after the spot part moved the cursor: the next catch-up reads the gap again', async () => {
		// No overlap: only the futures cursor can bring the fill back.
		STREAM_TIMINGS.catchUpOverlapMs = 0;
		const sb = sandbox();
		const r = runner();
		await r.activate();
		await connected(r);
		const order = rest(sb);
		await sleep(300);
		sb.stream.dropConnections();
		sb.futures.fill({ symbol: BTC, side: 'BUY', orderId: order });
		// One fill list read refused (a code no read retries): the catch-up fails.
		const path = '/api/v2/futures/userTrades';
		sb.setFaults({
			rules: [{ kind: 'unknownBefore', code: '0001', times: 1, path, method: 'GET' }],
		});
		// The catch-up after connection 2 fails on the fill list; connection 3's succeeds.
		await connected(r, 3);
		await r.waitFor(() => r.executions.length === 1, 8_000, 'the fill of the gap');
		await sleep(500);
		expect(summary(r)).toEqual([`futuresOrderFilled ${order} FILLED 0.01 catchUp`]);
		expect(sb.ledger.requests.some((request) => request.fault === 'unknownBefore')).toBe(true);
	});

	it('a report naming its trade d, or none: the catch-up overlap emits no fill twice', async () => {
		const sb = sandbox();
		const r = runner();
		await r.activate();
		await connected(r);
		sb.stream.setEventShape({ contractTradeId: 'd' });
		const named = rest(sb);
		const { trade } = sb.futures.fill({
			symbol: BTC,
			side: 'BUY',
			orderId: named,
			quantity: '0.004',
		});
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the fill named by d');
		sb.stream.setEventShape({ contractTradeId: 'none' });
		const bare = rest(sb);
		sb.futures.fill({ symbol: BTC, side: 'BUY', orderId: bare, quantity: '0.004' });
		await r.waitFor(() => r.executions.length === 2, 5_000, 'the fill named by nothing');
		expect(r.items().map((item) => item.eventId)).toEqual([
			`futures-fill-${trade.tradeId}`,
			`order-${bare}-PARTIALLY_FILLED-0.004`,
		]);
		// The catch-up after a drop reads both fills again (its overlap), by their trade IDs.
		sb.stream.dropConnections();
		await connected(r, 2);
		await sleep(1_000);
		expect(summary(r)).toEqual([
			`futuresOrderPartiallyFilled ${named} PARTIALLY_FILLED 0.004 stream`,
			`futuresOrderPartiallyFilled ${bare} PARTIALLY_FILLED 0.004 stream`,
		]);
		// A fill of a gap: the catch-up's, once, under its trade ID.
		sb.stream.dropConnections();
		sb.futures.fill({ symbol: BTC, side: 'BUY', orderId: bare });
		await connected(r, 3);
		await r.waitFor(() => r.executions.length === 3, 8_000, 'the fill of the gap');
		await sleep(500);
		expect(summary(r)[2]).toBe(`futuresOrderFilled ${bare} FILLED 0.01 catchUp`);
	});

	it('futures events removed and chosen again: what happened meanwhile is no event', async () => {
		const sb = sandbox();
		const first = runner();
		await first.activate();
		await connected(first);
		const order = rest(sb);
		await sleep(300);
		await first.deactivate();
		expect(JSON.stringify(first.saved)).toContain('futuresOpen');
		const second = runner({
			parameters: { events: ['orderCancelled'] },
			staticData: first.saved,
			existingKeys: first.keys,
		});
		await second.activate();
		await connected(second);
		sb.futures.fill({ symbol: BTC, side: 'BUY', orderId: order });
		await sleep(300);
		await second.deactivate();
		expect(second.executions).toHaveLength(0);
		// Not followed meanwhile: the futures baseline is gone with them.
		expect(JSON.stringify(second.saved)).not.toContain('futuresOpen');
		const third = runner({ staticData: second.saved, existingKeys: second.keys });
		await third.activate();
		await connected(third);
		await sleep(500);
		expect(third.executions).toHaveLength(0);
		const next = rest(sb);
		sb.futures.fill({ symbol: BTC, side: 'BUY', orderId: next });
		await third.waitFor(() => third.executions.length === 1, 5_000, 'the new fill');
		await sleep(300);
		expect(summary(third)).toEqual([`futuresOrderFilled ${next} FILLED 0.01 stream`]);
	});

	it('a key without a futures account of its own cannot follow futures orders', async () => {
		const sb = sandbox();
		const r = runner({ credentials: credentialsFor(sb, DEMO_KEYS.sub) });
		await expect(r.activate()).rejects.toThrow('This API key has no futures account of its own');
	});
});
