import type { IDataObject } from 'n8n-workflow';

import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { useSandbox } from '../../../support/sandbox';

// Issue 49, C1: two items of one run that cancel the same orders. The first to get there cancels
// each order once; the other reports the order as cancelled by this run (`outcome: "placed"`,
// `sameCancelAsItem`), never as "already cancelled" by someone else. Through n8n-core's real
// executor, against the sandbox (its UAE answers: 0211 for each ID it cannot cancel).

const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'lenient' });

const BY_IDS = '/api/v1/spot/cancelOrderByIds';
const CANCEL = '/api/v1/spot/order';

/** 30 resting BUY orders and 10 resting SELL orders of BTCUSDT, placed straight on the sandbox. */
function seedBook(): { buys: string[]; sells: string[] } {
	const now = sandbox().now();
	const seed = (side: 'BUY' | 'SELL', count: number, price: string) =>
		Array.from(
			{ length: count },
			(_, index) =>
				sandbox().seedOpenOrder({
					symbol: 'BTCUSDT',
					side,
					price,
					quantity: `0.00${index + 1}`,
					time: now,
				}).orderId,
		);
	return { buys: seed('BUY', 30, '45000'), sells: seed('SELL', 10, '55000') };
}

const itemsOf = (
	run: { items: Array<{ json: IDataObject; pairedItem?: unknown }> },
	item: number,
) =>
	run.items
		.filter((one) => (one.pairedItem as { item: number }).item === item)
		.map((one) => one.json);

describe('two items of one run cancelling the same orders (issue 49, C1)', () => {
	it('Cancel Many by symbol, side Both and side Buy: the 30 buy orders are cancelled once and both items report them cancelled by this run, none "already cancelled"', async () => {
		const { buys, sells } = seedBook();
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'cancelMany',
				cancelBy: 'symbol',
				symbol: { __rl: true, mode: 'id', value: 'BTCUSDT' },
				options: { side: '={{ $json.side }}' },
			},
			inputItems: [{ json: { side: 'BOTH' } }, { json: { side: 'BUY' } }],
			node: { typeVersion: 2 },
		});
		expect(run.error).toBeUndefined();
		const both = itemsOf(run, 0);
		const buy = itemsOf(run, 1);
		expect(both.map((json) => json.orderId).sort()).toEqual([...buys, ...sells].sort());
		expect(buy.map((json) => json.orderId).sort()).toEqual([...buys].sort());
		for (const json of [...both, ...buy]) {
			expect(json).toMatchObject({ outcome: 'placed', cancelled: true });
			expect(json.reason).toBeUndefined();
		}
		// Each buy order is reported by the item that cancelled it and by the other, which names it.
		for (const orderId of buys) {
			const reports = [...both, ...buy].filter((json) => json.orderId === orderId);
			expect(reports).toHaveLength(2);
			expect(reports.filter((json) => json.sameCancelAsItem === undefined)).toHaveLength(1);
			const shared = reports.find((json) => json.sameCancelAsItem !== undefined);
			expect([0, 1]).toContain(shared?.sameCancelAsItem);
		}
		// Cancelled once each: 40 orders, 40 cancels, each ID sent once.
		const cancelled = sandbox().ledger.cancels.map((cancel) => cancel.orderId);
		expect(cancelled.sort()).toEqual([...buys, ...sells].sort());
		const sent = requestsTo(sandbox(), BY_IDS).flatMap(
			(request) => new URLSearchParams(request.query).get('ids')?.split(',') ?? [],
		);
		expect(sent.sort()).toEqual([...buys, ...sells].sort());
	});

	it('Cancel Many by order IDs, two items naming overlapping IDs: each order cancelled once, the shared ones reported placed by both', async () => {
		const ids = await placeRestingOrders(sandbox(), 6);
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'cancelMany',
				cancelBy: 'ids',
				orderIds: '={{ $json.ids }}',
			},
			inputItems: [
				{ json: { ids: ids.slice(0, 4).join(',') } },
				{ json: { ids: ids.slice(2).join(',') } },
			],
			node: { typeVersion: 2 },
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(Array(8).fill('placed'));
		const shared = run.items.filter((item) => item.json.sameCancelAsItem !== undefined);
		expect(shared.map((item) => item.json.orderId).sort()).toEqual(ids.slice(2, 4).sort());
		expect(
			sandbox()
				.ledger.cancels.map((cancel) => cancel.orderId)
				.sort(),
		).toEqual([...ids].sort());
		const sent = requestsTo(sandbox(), BY_IDS).flatMap(
			(request) => new URLSearchParams(request.query).get('ids')?.split(',') ?? [],
		);
		expect(sent.sort()).toEqual([...ids].sort());
	});

	it('Cancel, two items naming one order: one cancel, both items say it was cancelled', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		const run = await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'cancel', orderId: '={{ $json.id }}' },
			inputItems: [{ json: { id: orderId } }, { json: { id: orderId } }],
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => [item.json.outcome, item.json.cancelled])).toEqual([
			['placed', true],
			['placed', true],
		]);
		expect(run.items.map((item) => item.json.sameCancelAsItem)).toEqual([undefined, 0]);
		expect(
			requestsTo(sandbox(), CANCEL).filter((request) => request.method === 'DELETE'),
		).toHaveLength(1);
		expect(sandbox().ledger.cancels).toHaveLength(1);
	});

	it('n8n Retry On Fail: a try that meets the orders an earlier try cancelled reports them from the ledger, cancelled by this node run, and sends none again', async () => {
		const ids = await placeRestingOrders(sandbox(), 4);
		// Item 2 names an order the service does not know: every try fails on it. Item 1 names the
		// orders item 0 cancelled in the first try.
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'cancelMany',
				cancelBy: 'ids',
				orderIds: '={{ $json.ids }}',
			},
			inputItems: [
				{ json: { ids: ids.join(',') } },
				{ json: { ids: ids.join(',') } },
				{ json: { ids: 'not-an-id' } },
			],
			node: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		});
		expect(run.error?.message).toBe('Order IDs: "not-an-id" is not an order ID');
		// Every order cancelled once, each ID sent once over both tries.
		const sent = requestsTo(sandbox(), BY_IDS).flatMap(
			(request) => new URLSearchParams(request.query).get('ids')?.split(',') ?? [],
		);
		expect(sent.sort()).toEqual([...ids].sort());
		expect(sandbox().ledger.cancels).toHaveLength(4);
	});

	it('a retry of the execution whose first try cancelled the orders under another item: the item that meets them reports them cancelled by this node run, from the ledger, and sends nothing', async () => {
		const ids = await placeRestingOrders(sandbox(), 4);
		const parameters = {
			resource: 'order',
			operation: 'cancelMany',
			cancelBy: 'ids',
			orderIds: '={{ $json.ids }}',
		};
		// The first try: item 0 cancels the four, item 1 is refused for its input.
		const first = await runTradingService(sandbox(), {
			parameters,
			inputItems: [{ json: { ids: ids.join(',') } }, { json: { ids: 'not-an-id' } }],
		});
		expect(first.error?.message).toBe('Order IDs: "not-an-id" is not an order ID');
		const sentBefore = requestsTo(sandbox(), BY_IDS).length;
		// A retry of that execution whose items name them the other way round (its ledger knows
		// item 0's cancels, not item 1's): item 1 is the one that meets the orders.
		const retry = await runTradingService(sandbox(), {
			parameters,
			inputItems: [{ json: { ids: 'not-an-id' } }, { json: { ids: ids.join(',') } }],
			continueOnFail: true,
			retryOf: first,
		});
		expect(requestsTo(sandbox(), BY_IDS)).toHaveLength(sentBefore);
		const ofItem1 = itemsOf(retry, 1);
		expect(ofItem1.map((json) => json.orderId)).toEqual(ids);
		for (const json of ofItem1)
			expect(json).toMatchObject({
				outcome: 'placed',
				cancelled: true,
				replayed: true,
				sameCancelAsItem: 0,
			});
		expect(sandbox().ledger.cancels).toHaveLength(4);
	});
});
