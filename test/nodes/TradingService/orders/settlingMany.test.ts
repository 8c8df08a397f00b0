import type { IDataObject } from 'n8n-workflow';

import { DEMO_ACCOUNTS, DEMO_KEYS } from '../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { useSandbox } from '../../../support/sandbox';

// Issue 49, A: many writes whose outcome is unknown are settled together, from the account's open
// and past order lists matched by client order ID (orders) or order ID (cancels) in the account,
// not one query each; what the lists cannot show is looked up on its own. Through n8n-core's real
// executor, against the sandbox at the exchange's documented request rates (20 order and 5 query
// requests a second): the request log counts the lookups. The time it takes is bench/'s to print
// (bench/settling.ts), not a verdict here.

const sandbox = useSandbox({ symbolRules: 'lenient' });

// Version 2 sends the unified batch endpoint.
const BATCH = '/api/v1.1/spot/batchOrders';
const QUERY_ORDER = '/api/v1/spot/order';
const OPEN_ORDERS = '/api/v1/spot/openOrders';
const PAST_ORDERS = '/api/v1/spot/tradeOrders';
const BY_IDS = '/api/v1/spot/cancelOrderByIds';

const gets = (path: string) =>
	requestsTo(sandbox(), path).filter((request) => request.method === 'GET');

/**
 * 200 orders of one symbol, each of its own quantity: the even ones LIMIT BUYs that rest on the
 * book (open orders), the odd ones MARKET BUYs that fill at once (past orders).
 */
function orders(): IDataObject[] {
	return Array.from({ length: 200 }, (_, index) => ({
		symbol: 'BTCUSDT',
		side: 'BUY',
		type: index % 2 === 0 ? 'LIMIT' : 'MARKET',
		...(index % 2 === 0 ? { price: '100' } : {}),
		quantity: `0.${String(index + 1).padStart(4, '0')}1`,
	}));
}

describe('many writes left unknown are settled from the order lists (issue 49)', () => {
	it('Create Many, 200 orders, every batch answer lost after the exchange placed it: one page of open orders and one of past orders settle all 200, each placed once and reported with its own order', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 10, path: BATCH }] });
		const run = await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'createMany', inputMode: 'autoMap' },
			inputItems: orders().map((json) => ({ json })),
			node: { typeVersion: 2 },
		});
		expect(run.error).toBeUndefined();
		// Every batch was sent once and its answer lost: 200 writes left unknown.
		const batches = requestsTo(sandbox(), BATCH);
		expect(batches).toHaveLength(10);
		expect(batches.every((request) => request.fault === 'dropAfter')).toBe(true);
		// None doubled: 200 orders, one per client order ID.
		const placed = sandbox().ledger.orders;
		expect(placed).toHaveLength(200);
		const byClientId = new Map(placed.map((order) => [order.clientOrderId, order.orderId]));
		expect(byClientId.size).toBe(200);
		// Every item placed, with the order the exchange holds under its client order ID.
		expect(run.items).toHaveLength(200);
		run.items.forEach((item, index) => {
			const json = item.json as { outcome: string; clientOrderId: string; order: IDataObject };
			expect([index, json.outcome, json.order.orderId]).toEqual([
				index,
				'placed',
				byClientId.get(json.clientOrderId),
			]);
			expect(json.order.accountId).toBe(DEMO_ACCOUNTS.mainTrading);
		});
		// Settled by pages, not by orders: the resting ones on a page of open orders, the filled ones
		// on a page of past orders; not one query per order.
		expect(gets(QUERY_ORDER)).toHaveLength(0);
		expect(gets(OPEN_ORDERS)).toHaveLength(1);
		expect(gets(PAST_ORDERS)).toHaveLength(1);
		for (const list of [...gets(OPEN_ORDERS), ...gets(PAST_ORDERS)])
			expect(list.query).toMatch(/(^|&)symbol=BTCUSDT&accountId=10001(&|$)/);
		// The exchange's rates were kept: nothing refused.
		expect(sandbox().ledger.requests.filter((request) => request.status === 429)).toEqual([]);
	});

	it('Cancel Many, 200 order IDs, both answers (100 IDs each) lost after the cancels were applied: each answer settled by a page of open and one of past orders, every order cancelled once, none sent again', async () => {
		const ids = await placeRestingOrders(sandbox(), 200, { quantity: '0.0001' });
		const since = sandbox().ledger.requests.length;
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 2, path: BY_IDS }] });
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'cancelMany',
				cancelBy: 'ids',
				orderIds: ids.join(','),
			},
		});
		expect(run.error).toBeUndefined();
		expect(requestsTo(sandbox(), BY_IDS, since)).toHaveLength(2);
		expect(run.items.map((item) => item.json.orderId)).toEqual(ids);
		for (const item of run.items)
			expect(item.json).toMatchObject({
				outcome: 'placed',
				cancelled: true,
				confirmedByLookup: true,
				status: 'CANCELED',
			});
		const cancelled = sandbox().ledger.cancels.map((cancel) => cancel.orderId);
		expect(cancelled).toHaveLength(200);
		expect(new Set(cancelled)).toEqual(new Set(ids));
		// One gathering per request (they go one after the other): a page of open orders (none left)
		// and a page of past orders each, no query per order.
		const lookups = requestsTo(sandbox(), QUERY_ORDER, since).filter(
			(request) => request.method === 'GET',
		);
		expect(lookups).toHaveLength(0);
		expect(gets(OPEN_ORDERS)).toHaveLength(2);
		expect(gets(PAST_ORDERS)).toHaveLength(2);
	});

	it('what the lists cannot show is looked up on its own: another account’s order ID among the lost ones', async () => {
		const ids = await placeRestingOrders(sandbox(), 8, { quantity: '0.0001' });
		const [subOrder] = await placeRestingOrders(sandbox(), 1, {
			quantity: '0.0001',
			key: DEMO_KEYS.sub,
		});
		const since = sandbox().ledger.requests.length;
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: BY_IDS }] });
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'cancelMany',
				cancelBy: 'ids',
				orderIds: [...ids, subOrder].join(','),
			},
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(Array(9).fill('placed'));
		// The main account's lists settle its 8; the sub account's order is queried by its ID.
		const lookups = requestsTo(sandbox(), QUERY_ORDER, since).filter(
			(request) => request.method === 'GET',
		);
		expect(lookups.map((request) => new URLSearchParams(request.query).get('orderId'))).toEqual([
			subOrder,
		]);
		expect(new Set(sandbox().ledger.cancels.map((cancel) => cancel.orderId)).size).toBe(9);
	});

	it('a batch never applied (dropped before the exchange): listed, not found, listed again once no attempt can be accepted, then unknown, never sent again', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropBefore', times: 1, path: BATCH }] });
		const run = await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'createMany', inputMode: 'autoMap' },
			inputItems: orders()
				.slice(0, 20)
				.map((json) => ({ json })),
			node: { typeVersion: 2 },
			continueOnFail: true,
			credentials: { recvWindow: 1000 },
		});
		expect(run.items.map((item) => item.json.outcome)).toEqual(Array(20).fill('unknown'));
		expect(sandbox().ledger.orders).toHaveLength(0);
		expect(requestsTo(sandbox(), BATCH)).toHaveLength(1);
		expect(gets(QUERY_ORDER)).toHaveLength(0);
		expect(gets(OPEN_ORDERS)).toHaveLength(2);
		expect(gets(PAST_ORDERS)).toHaveLength(2);
		// The second listing came after the last attempt's window (recvWindow + 1 s), not before.
		const [, second] = gets(OPEN_ORDERS);
		const [batch] = requestsTo(sandbox(), BATCH);
		expect(second.at - batch.at).toBeGreaterThanOrEqual(2000 - 50);
	});
});
