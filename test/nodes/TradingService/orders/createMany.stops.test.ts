import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { onRequestArrival } from '../../../fault/lib';
import { useSandbox } from '../../../support/sandbox';

// Issue 49, B and C2: however a Create Many run ends, every order it placed is reported. Under
// Continue On Fail a stopped run gives one item per order, each placed, rejected or unknown, and
// the error's item (n8n would otherwise pass the input item on unchanged); without it, the error
// leads with the run's counts and never says nothing was executed when something was. Through
// n8n-core's real executor, against the sandbox.

const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'lenient' });

// Version 2 sends the unified batch endpoint.
const BATCH = '/api/v1.1/spot/batchOrders';

/** Orders of BTCUSDT, each of its own price; the one at `refused` is beyond the balance. */
function orders(count: number, refused: number): IDataObject[] {
	return Array.from({ length: count }, (_, index) => ({
		symbol: 'BTCUSDT',
		side: 'BUY',
		type: 'LIMIT',
		price: `${100 + index}.5`,
		quantity: index === refused ? '1000000' : '0.001',
	}));
}

const jsonMode = (options: IDataObject) => ({
	resource: 'order',
	operation: 'createMany',
	inputMode: 'json',
	ordersJson: '={{ JSON.stringify($json.orders) }}',
	options,
});

/** The ledger's order ID under each client order ID. */
const placedById = () =>
	new Map(sandbox().ledger.orders.map((order) => [order.clientOrderId, order.orderId]));

/** Every order item of a run says placed (with the ledger's order), rejected or unknown. */
function expectEveryOrderReported(items: INodeExecutionData[]) {
	const placed = placedById();
	for (const { json } of items) {
		if (json.error !== undefined) continue;
		expect(['placed', 'rejected', 'unknown']).toContain(json.outcome);
		const held = placed.get(json.clientOrderId as string);
		if (json.outcome === 'placed') expect((json.order as IDataObject | null)?.orderId).toBe(held);
		if (json.outcome === 'rejected') expect(held).toBeUndefined();
	}
}

describe('Create Many stopped under Continue On Fail: an item per order and the error’s (issue 49, B)', () => {
	it('Fail on Any Rejected Order, one item of 60 orders, one refused, three batches in flight: 59 placed items, the refused one, and the error item; not the input item', async () => {
		const input = { orders: orders(60, 3) };
		const run = await runTradingService(sandbox(), {
			parameters: jsonMode({ failOnRejected: true, parallelRequests: 3 }),
			inputItems: [{ json: input }],
			continueOnFail: true,
			node: { typeVersion: 2 },
		});
		expect(run.error).toBeUndefined();
		expect(sandbox().ledger.orders).toHaveLength(59);
		expect(run.items).toHaveLength(61);
		expect(run.items.some((item) => item.json.orders !== undefined)).toBe(false);
		expect(run.items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
		const outcomes = run.items.slice(0, 60).map((item) => item.json.outcome);
		expect(outcomes.filter((outcome) => outcome === 'placed')).toHaveLength(59);
		expect(run.items[3].json).toMatchObject({ outcome: 'rejected', success: false, code: 401 });
		expectEveryOrderReported(run.items);
		const errorItem = run.items[60].json;
		expect(errorItem).toMatchObject({ outcome: 'rejected' });
		expect(errorItem.error).toMatch(
			/^59 orders placed before the run stopped: 1 order\(s\) were rejected/,
		);
		expect(String(errorItem.description)).toMatch(
			/^Orders of this run, once every batch in flight was answered: 59 placed, 1 refused \(executed nothing\)\./,
		);
	});

	it('one batch at a time: the batches never sent come out as orders rejected, not sent, each its own item', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: jsonMode({ failOnRejected: true, parallelRequests: 1 }),
			inputItems: [{ json: { orders: orders(60, 3) } }],
			continueOnFail: true,
			node: { typeVersion: 2 },
		});
		expect(run.error).toBeUndefined();
		expect(requestsTo(sandbox(), BATCH)).toHaveLength(1);
		expect(sandbox().ledger.orders).toHaveLength(19);
		expect(run.items).toHaveLength(61);
		const json = run.items.map((item) => item.json);
		expect(json.slice(0, 20).filter((one) => one.outcome === 'placed')).toHaveLength(19);
		for (const one of json.slice(20, 60))
			expect(one).toMatchObject({
				outcome: 'rejected',
				success: false,
				notSent: true,
				message: expect.stringMatching(/^Not sent: the run stopped before this order was sent/),
				request: expect.objectContaining({ symbol: 'BTCUSDT' }),
			});
		expectEveryOrderReported(run.items);
		expect(json[60].error).toMatch(/^19 orders placed before the run stopped/);
		expect(json.map((one) => one.clientOrderId).slice(0, 60)).toEqual(
			expect.arrayContaining([...placedById().keys()]),
		);
	});

	it('60 items, one order each: each item gets its order’s item, the item the error names also the error’s', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'createMany',
				inputMode: 'autoMap',
				options: { failOnRejected: true, parallelRequests: 1 },
			},
			inputItems: orders(60, 3).map((json) => ({ json })),
			continueOnFail: true,
			node: { typeVersion: 2 },
		});
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(61);
		const paired = run.items.map((item) => (item.pairedItem as { item: number }).item);
		expect(paired).toEqual([0, 1, 2, 3, 3, ...Array.from({ length: 56 }, (_, index) => index + 4)]);
		expect(run.items[4].json.error).toMatch(/^19 orders placed before the run stopped/);
		expectEveryOrderReported(run.items);
	});
});

describe('a Create Many stopped by a rate limit with orders placed leads with its counts (issue 49, C2)', () => {
	it('600 orders one batch at a time, the 21st batch answered 429 (Wait After a Rate Limit off): "400 orders placed before the run stopped", never "nothing was executed"', async () => {
		let arrivals = 0;
		const undo = onRequestArrival(sandbox(), (request) => {
			if (request.path !== BATCH || ++arrivals !== 21) return;
			sandbox().setFaults({ rules: [{ kind: 'rateLimit', times: 1, path: BATCH }] });
		});
		let run;
		try {
			run = await runTradingService(sandbox(), {
				parameters: jsonMode({ parallelRequests: 1, waitAfterRateLimit: false }),
				inputItems: [{ json: { orders: orders(600, -1) } }],
				node: { typeVersion: 2 },
			});
		} finally {
			undo();
		}
		expect(requestsTo(sandbox(), BATCH)).toHaveLength(21);
		expect(requestsTo(sandbox(), BATCH)[20].status).toBe(429);
		expect(sandbox().ledger.orders).toHaveLength(400);
		const { message, description } = run.error!;
		expect(message).toMatch(/^400 orders placed before the run stopped: .*rate limit/i);
		expect(description).toMatch(
			/^Orders of this run, once every batch in flight was answered: 400 placed, 20 refused \(executed nothing\), 180 not sent\. /,
		);
		expect(`${message} ${description}`).not.toMatch(/nothing was executed/i);
		// Whatever the error says of its own request comes after the counts.
		expect(String(description).indexOf('What stopped it:')).toBeGreaterThan(0);
		expect(
			String(description).slice(0, String(description).indexOf('What stopped it:')),
		).not.toMatch(/not executed/i);
		expect(run.error?.context).toMatchObject({
			outcome: 'rejected',
			runReport: { placed: '0', orders: { placed: 400, unknown: 0, rejected: 20, notSent: 180 } },
		});
	});
});
