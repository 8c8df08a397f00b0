import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { LedgerRequest } from '../../../../sandbox';
import { requestsTo, runTradingService, type NodeRun } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { useSandbox } from '../../../support/sandbox';

// Parallel Requests (version 2) through n8n-core's real executor against the sandbox: how many
// requests are in flight, the order and pairing of the output, the first failure without Continue
// On Fail, and the weight budget across parallel requests.

const V2 = { typeVersion: 2 };
const ORDER = '/api/v1/spot/order';
// Get Order Book: one request per item (Get Price shares one all-symbols request among many items).
const DEPTH = '/quote/v1/depth';
// Version 2's Create Many sends the unified batch endpoint.
const BATCH = '/api/v1.1/spot/batchOrders';
const HISTORY = '/api/v1/account/balanceFlow';
const SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'];
const pairedItems = (items: INodeExecutionData[]) =>
	items.map((item) => (item.pairedItem as { item: number }).item);
const range = (count: number) => Array.from({ length: count }, (_, index) => index);

/**
 * The requests grouped by when they reached the sandbox: a gap longer than `gapMs` starts a new
 * wave. With a fixed latency and N lanes, each wave is the N requests in flight at once.
 */
function waves(requests: LedgerRequest[], gapMs: number): number[] {
	const times = requests.map((request) => request.at).sort((a, b) => a - b);
	const sizes: number[] = [];
	times.forEach((at, index) => {
		if (index === 0 || at - times[index - 1] > gapMs) sizes.push(1);
		else sizes[sizes.length - 1]++;
	});
	return sizes;
}

const orderBookOf = (items: number, options: IDataObject = {}) => ({
	parameters: {
		resource: 'market',
		operation: 'getOrderBook',
		symbol: { __rl: true, mode: 'id', value: '={{ $json.symbol }}' },
		options,
	},
	inputItems: range(items).map((index) => ({ json: { symbol: SYMBOLS[index % 3] } })),
	node: V2,
});

describe('router: Parallel Requests', () => {
	const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'lenient' });

	it('keeps Parallel Requests in flight: 20 items at 5 lanes reach the service in 4 waves of 5, and come out in input order', async () => {
		// Waves far apart (a busy machine spreads the requests of one wave over tens of ms).
		sandbox().setFaults({ latencyMs: 1000 });
		const run = await runTradingService(sandbox(), orderBookOf(20, { parallelRequests: 5 }));
		expect(run.error).toBeUndefined();
		expect(waves(requestsTo(sandbox(), DEPTH), 500)).toEqual([5, 5, 5, 5]);
		expect(pairedItems(run.items)).toEqual(range(20));
		expect(run.items.map((item) => item.json.symbol)).toEqual(range(20).map((i) => SYMBOLS[i % 3]));
	});

	it('by default 50 requests are in flight: 60 items in two waves, 50 then 10', async () => {
		// Sending 50 requests takes a busy machine hundreds of ms: the waves are 2 s apart.
		sandbox().setFaults({ latencyMs: 2000 });
		const run = await runTradingService(sandbox(), orderBookOf(60));
		expect(run.error).toBeUndefined();
		expect(waves(requestsTo(sandbox(), DEPTH), 1000)).toEqual([50, 10]);
	});

	it('output items keep their input order and pairing when answers come back in another order', async () => {
		// The first request's answer arrives one byte every 3 ms: it is the last to be read.
		sandbox().setFaults({
			rules: [{ kind: 'dripFeed', times: 1, path: DEPTH, dripIntervalMs: 3 }],
		});
		const run = await runTradingService(sandbox(), orderBookOf(9, { parallelRequests: 9 }));
		expect(run.error).toBeUndefined();
		expect(pairedItems(run.items)).toEqual(range(9));
		expect(run.items.map((item) => item.json.symbol)).toEqual(range(9).map((i) => SYMBOLS[i % 3]));
	});

	it('version 1 keeps sending one request after the other', async () => {
		sandbox().setFaults({ latencyMs: 300 });
		const run = await runTradingService(sandbox(), { ...orderBookOf(4), node: { typeVersion: 1 } });
		expect(run.error).toBeUndefined();
		expect(waves(requestsTo(sandbox(), DEPTH), 150)).toEqual([1, 1, 1, 1]);
	});

	it.each([
		[0, '0 is not a whole number from 1 to 200'],
		[2.5, '2.5 is not a whole number from 1 to 200'],
		[201, '201 is not a whole number from 1 to 200'],
		['={{ "5" }}', '"5" is not a whole number from 1 to 200'],
	])(
		'Parallel Requests %p is refused before any request, naming the field and the fix',
		async (value, problem) => {
			const run = await runTradingService(sandbox(), orderBookOf(3, { parallelRequests: value }));
			expect(run.error?.message).toBe(`Parallel Requests: ${problem}`);
			expect(run.error?.description).toMatch(/^Enter a whole number from 1 .* Nothing was sent\.$/);
			expect(sandbox().ledger.requests).toHaveLength(0);
		},
	);

	it('Create Many sends its batches in parallel: 200 orders at 5 lanes go in 2 waves of 5 batches, output in input order', async () => {
		const inputItems = range(200).map((index) => ({
			json: {
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'LIMIT',
				price: '1',
				quantity: `0.0${index + 1}1`,
			},
		}));
		sandbox().setFaults({ latencyMs: 120 });
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'createMany',
				inputMode: 'autoMap',
				options: { parallelRequests: 5 },
			},
			inputItems,
			node: V2,
		});
		expect(run.error).toBeUndefined();
		expect(waves(requestsTo(sandbox(), BATCH), 60)).toEqual([5, 5]);
		expect(run.items.map((item) => item.json.outcome)).toEqual(range(200).map(() => 'placed'));
		expect(pairedItems(run.items)).toEqual(range(200));
		expect(run.items.map((item) => (item.json.order as IDataObject).origQty)).toEqual(
			inputItems.map((item) => item.json.quantity),
		);
		expect(sandbox().ledger.orders).toHaveLength(200);
	});
});

describe('router: the first failure without Continue On Fail', () => {
	const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'lenient' });
	const cancels = (orderIds: string[]) => ({
		parameters: {
			resource: 'order',
			operation: 'cancel',
			orderId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
			options: { parallelRequests: 3 },
		},
		inputItems: orderIds.map((id) => ({ json: { id } })),
		node: V2,
	});
	const cancelledIds = (since = 0) =>
		requestsTo(sandbox(), ORDER, since)
			.filter((request) => request.method === 'DELETE')
			.map((request) => /orderId=(\d+)/.exec(request.query)?.[1]);
	const report = (run: NodeRun) => run.error?.context?.runReport as IDataObject;
	const items = (ranges: unknown) =>
		String(ranges)
			.split(', ')
			.filter((part) => part !== '')
			.flatMap((part) => {
				const [from, to] = part.split('–').map(Number);
				return range((to ?? from) - from + 1).map((offset) => from + offset);
			});

	it('stops new requests; the error says which items were placed and which executed nothing, as the service holds them; a retry sends only what was not placed', async () => {
		const resting = await placeRestingOrders(sandbox(), 11);
		// Item 6 names an order the service does not have: its cancel is refused.
		const orderIds = [...resting.slice(0, 6), '1950000000999999999', ...resting.slice(6)];
		sandbox().setFaults({ latencyMs: 40 });
		const since = sandbox().ledger.requests.length;
		const first = await runTradingService(sandbox(), cancels(orderIds));
		expect(first.error?.context?.outcome).toBe('rejected');
		expect(first.error?.context?.itemIndex).toBe(6);
		const placed = items(report(first).placed);
		const nothing = items(report(first).nothingExecuted);
		expect(report(first).unknown).toBe('');
		// Every item but the failing one is in one list, and the lists match the service.
		expect([...placed, ...nothing, 6].sort((a, b) => a - b)).toEqual(range(12));
		const cancelledOrders = new Set(sandbox().ledger.cancels.map((cancel) => cancel.orderId));
		expect(placed.map((item) => orderIds[item]).every((id) => cancelledOrders.has(id))).toBe(true);
		expect(nothing.some((item) => cancelledOrders.has(orderIds[item]))).toBe(false);
		// It stopped: items after the failure and the lanes in flight were not all sent.
		expect(placed.length).toBeGreaterThanOrEqual(6);
		expect(nothing.length).toBeGreaterThan(0);
		expect(first.error?.description).toContain(
			`The other items of this run: placed, wholly or in part: ${placed.length} items`,
		);

		// A retry of the execution: placed items are answered from the ledger, nothing cancelled twice.
		const retrySince = sandbox().ledger.requests.length;
		const retry = await runTradingService(sandbox(), { ...cancels(orderIds), retryOf: first });
		expect(retry.error?.context?.itemIndex).toBe(6);
		const resent = cancelledIds(retrySince);
		expect(resent.filter((id) => placed.some((item) => orderIds[item] === id))).toEqual([]);
		const all = cancelledIds(since);
		expect(new Set(all.filter((id) => id !== orderIds[6])).size).toBe(
			all.filter((id) => id !== orderIds[6]).length,
		);
		expect(items(report(retry).placed).length).toBeGreaterThanOrEqual(placed.length);
	});

	it('a write refused for its input stops the run before the next item is sent', async () => {
		const [first, third] = await placeRestingOrders(sandbox(), 2);
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), cancels([first, '-5', third]));
		expect(run.error?.message).toBe('Order ID: "-5" is not an order ID');
		expect(cancelledIds(since)).toEqual([first]);
		expect(report(run)).toEqual({ placed: '0', unknown: '', nothingExecuted: '2' });
	});

	it('with Continue On Fail an unknown outcome in one request changes nothing for the others', async () => {
		const resting = await placeRestingOrders(sandbox(), 12);
		// The connection of one cancel drops after the service applied it.
		sandbox().setFaults({
			latencyMs: 20,
			rules: [{ kind: 'dropAfter', times: 1, path: ORDER, method: 'DELETE' }],
		});
		const run = await runTradingService(sandbox(), {
			...cancels(resting),
			continueOnFail: true,
		});
		expect(run.error).toBeUndefined();
		expect(pairedItems(run.items)).toEqual(range(12));
		// The dropped one is looked up and found cancelled; every other is cancelled as answered.
		expect(run.items.map((item) => item.json.outcome)).toEqual(range(12).map(() => 'placed'));
		expect(new Set(sandbox().ledger.cancels.map((cancel) => cancel.orderId))).toEqual(
			new Set(resting),
		);
	});
});

describe('router: the weight budget across parallel requests', () => {
	const sandbox = useSandbox({
		rateLimit: { windowMs: 1000, maxWeight: 25 },
		symbolRules: 'lenient',
	});

	it('15 history reads (weight 5 each) in 50 lanes under a budget of 25 per second: 0 × 429, all read', async () => {
		const now = Date.now();
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'account',
				operation: 'getHistory',
				flowType: 32,
				startTime: new Date(now - 3_600_000).toISOString(),
				endTime: new Date(now).toISOString(),
			},
			inputItems: range(15).map(() => ({ json: {} })),
			credentials: { weightBudget: 25, weightWindowSeconds: 1 },
			node: V2,
		});
		expect(run.error).toBeUndefined();
		const reads = requestsTo(sandbox(), HISTORY);
		expect(reads).toHaveLength(15);
		expect(sandbox().ledger.requests.filter((request) => request.status === 429)).toHaveLength(0);
		// Paced: at most 25 weight (5 reads) inside any one second the service counts.
		const times = reads.map((request) => request.at).sort((a, b) => a - b);
		times.forEach((at) =>
			expect(times.filter((other) => other >= at && other < at + 1000).length).toBeLessThanOrEqual(
				5,
			),
		);
	});
});
