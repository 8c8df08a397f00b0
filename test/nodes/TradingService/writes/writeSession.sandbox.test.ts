/**
 * A run of the node that a crash cut short, run again: the node context (its write ledger) is lost
 * with the crashed process, the execution context n8n established is carried over (a retry starts
 * from the crashed execution's saved data; a re-delivery is the same execution). In-process, the
 * crash is a run whose context the next run does not get (`lostRunOf`). The sandbox's ledger says
 * what reached the exchange.
 */
import type { IDataObject } from 'n8n-workflow';

import { DEMO_ACCOUNTS } from '../../../../sandbox';
import { requestsTo, runTradingService, type NodeRun } from '../../../../tools/harness/node';
import { onSandboxRequest } from '../../../../tools/queue/workflows';
import { placeRestingOrders } from '../../../support/orders';
import { PATHS } from '../../../support/runs';
import { forgetServices } from '../../../../nodes/TradingService/transport/pacing';
import { useSandbox } from '../../../support/sandbox';

const {
	batch: BATCH,
	order: NEW_ORDER,
	queryOrder: QUERY,
	openOrders: OPEN,
	pastOrders: PAST,
	transfer: TRANSFER,
	history: HISTORY,
} = PATHS;
const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'lenient' });

const orders = (count: number, base = 1000) =>
	Array.from({ length: count }, (_, i) => ({
		symbol: 'BTCUSDT',
		side: 'BUY',
		type: 'LIMIT',
		price: String(base + i),
		quantity: '0.001',
	}));

const createMany = {
	resource: 'order',
	operation: 'createMany',
	inputMode: 'json',
	ordersJson: '={{ JSON.stringify($json.orders) }}',
	options: {},
};
const create = (overrides: IDataObject = {}) => ({
	resource: 'order',
	operation: 'create',
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	quantity: '0.001',
	price: '={{ $json.price }}',
	options: {},
	...overrides,
});

/** The execution context of an execution n8n established `agoMs` ago (a re-delivered one is late). */
const establishedAgo = (agoMs: number): IDataObject => ({
	version: 1,
	establishedAt: Date.now() - agoMs,
	source: 'webhook',
});

/** Client order IDs of the orders each batch and single-order request carried. */
function sentClientOrderIds(since = 0): string[] {
	const ids: string[] = [];
	for (const request of sandbox().ledger.requests.slice(since)) {
		if (request.method !== 'POST') continue;
		if (request.path === BATCH)
			for (const order of JSON.parse(request.body) as IDataObject[])
				ids.push(String(order.newClientOrderId));
		if (request.path === NEW_ORDER)
			ids.push(new URLSearchParams(request.query).get('newClientOrderId') ?? '');
	}
	return ids;
}

/** Prices placed more than once in the sandbox's ledger (every order of a run has its own price). */
function doubledPrices(): string[] {
	const seen = new Map<string, number>();
	for (const order of sandbox().ledger.orders)
		seen.set(order.price, (seen.get(order.price) ?? 0) + 1);
	return [...seen].filter(([, count]) => count > 1).map(([price]) => price);
}

const outcomes = (run: NodeRun) =>
	run.items.reduce<Record<string, number>>((counts, item) => {
		const key = `${String(item.json.outcome)}${item.json.alreadyPlaced === true ? ' (found)' : ''}`;
		counts[key] = (counts[key] ?? 0) + 1;
		return counts;
	}, {});

/**
 * Runs `run`, refusing every request to `path` after the first `through` (rate limited for an
 * hour): the lost run got that far.
 */
async function cutAfter(
	path: string,
	through: number,
	run: () => Promise<NodeRun>,
): Promise<NodeRun> {
	let requests = 0;
	const stop = onSandboxRequest(sandbox(), (request) => {
		// The ledger lists a request before the sandbox picks its fault: the next one is refused.
		if (request.path !== path || ++requests !== through + 1) return;
		sandbox().setFaults({
			rules: [{ kind: 'rateLimit', path, times: 1_000, retryAfterSeconds: 3600 }],
		});
	});
	try {
		return await run();
	} finally {
		stop();
		sandbox().clearFaults();
		// The lost run's process is gone, and with it the hour it was told to keep away.
		forgetServices();
	}
}

describe('a run cut short by a crash, run again without its ledger', () => {
	it('Create Many, re-delivered: the 20 orders the lost run placed are found (one list of each kind), the 40 it did not place are sent once', async () => {
		const input = [{ json: { orders: orders(60) } }];
		const runtimeData = establishedAgo(30_000);
		const lost = await cutAfter(BATCH, 1, () =>
			runTradingService(sandbox(), { parameters: createMany, inputItems: input, runtimeData }),
		);
		expect(sandbox().ledger.orders).toHaveLength(20);
		const since = sandbox().ledger.requests.length;
		const again = await runTradingService(sandbox(), {
			parameters: createMany,
			inputItems: input,
			runtimeData,
			mode: 'webhook',
		});
		expect(again.error).toBeUndefined();
		expect(outcomes(again)).toEqual({ 'placed (found)': 20, placed: 40 });
		expect(sandbox().ledger.orders).toHaveLength(60);
		expect(doubledPrices()).toEqual([]);
		// The lost run's IDs again: nothing it placed is in a request of the new run.
		const placedBefore = new Set(sentClientOrderIds().slice(0, 20));
		expect(sentClientOrderIds(since).filter((id) => placedBefore.has(id))).toEqual([]);
		expect(sentClientOrderIds(since)).toHaveLength(40);
		const reads = sandbox()
			.ledger.requests.slice(since)
			.filter((r) => r.method === 'GET')
			.map((r) => r.path);
		expect(reads.filter((path) => path === OPEN || path === PAST).sort()).toEqual([OPEN, PAST]);
		// The lost run stopped at the refused batch (its error, like its ledger, died with it).
		expect(lost.error).toBeDefined();
	});

	it('Create Many, retried: the retry waits out the crashed run’s receive window, then finds every order and sends none', async () => {
		const input = [{ json: { orders: orders(25) } }];
		const lost = await runTradingService(sandbox(), {
			parameters: createMany,
			inputItems: input,
		});
		expect(lost.error).toBeUndefined();
		const since = sandbox().ledger.requests.length;
		const started = Date.now();
		const retry = await runTradingService(sandbox(), {
			parameters: createMany,
			inputItems: input,
			lostRunOf: lost,
			mode: 'retry',
		});
		const waited = Date.now() - started;
		expect(outcomes(retry)).toEqual({ 'placed (found)': 25 });
		expect(sentClientOrderIds(since)).toEqual([]);
		expect(sandbox().ledger.orders).toHaveLength(25);
		// 8 s (the longest receive window) + 1 s (the tolerance for clocks ahead).
		expect(waited).toBeGreaterThanOrEqual(9_000 - 50);
		expect(retry.items[0].json.clientOrderId).toBe(lost.items[0].json.clientOrderId);
	}, 30_000);

	it('a retry of a run whose try ended (its ledger saved) answers from the ledger: no lookups, no wait', async () => {
		const input = [{ json: { orders: orders(5) } }];
		const first = await runTradingService(sandbox(), { parameters: createMany, inputItems: input });
		const since = sandbox().ledger.requests.length;
		const retry = await runTradingService(sandbox(), {
			parameters: createMany,
			inputItems: input,
			retryOf: first,
			lostRunOf: first,
			mode: 'retry',
		});
		expect(retry.items.every((item) => item.json.replayed === true)).toBe(true);
		expect(sandbox().ledger.requests.slice(since)).toEqual([]);
	});

	it('a fresh run of a fresh execution looks nothing up: the lookups cost only after a crash', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: createMany,
			inputItems: [{ json: { orders: orders(5) } }],
			runtimeData: establishedAgo(0),
		});
		expect(outcomes(run)).toEqual({ placed: 5 });
		expect(
			sandbox()
				.ledger.requests.filter((r) => r.method === 'GET')
				.map((r) => r.path)
				.filter((path) => path === QUERY || path === OPEN || path === PAST),
		).toEqual([]);
	});

	it('Create, one order per item: the 3 orders the lost run placed are looked up one by one and found, the other 2 sent', async () => {
		const runtimeData = establishedAgo(30_000);
		const items = [1, 2, 3, 4, 5].map((i) => ({ json: { price: String(2000 + i) } }));
		await cutAfter(NEW_ORDER, 3, () =>
			runTradingService(sandbox(), {
				parameters: create(),
				inputItems: items,
				runtimeData,
			}),
		);
		expect(sandbox().ledger.orders).toHaveLength(3);
		const since = sandbox().ledger.requests.length;
		const again = await runTradingService(sandbox(), {
			parameters: create(),
			inputItems: items,
			runtimeData,
		});
		expect(again.items.map((item) => item.json.alreadyPlaced === true)).toEqual([
			true,
			true,
			true,
			false,
			false,
		]);
		expect(again.items.every((item) => item.json.outcome === 'placed')).toBe(true);
		expect(requestsTo(sandbox(), QUERY, since)).toHaveLength(5);
		expect(requestsTo(sandbox(), NEW_ORDER, since)).toHaveLength(2);
		expect(sandbox().ledger.orders).toHaveLength(5);
		expect(doubledPrices()).toEqual([]);
	});

	it('an order the lost run placed with other values (upstream gave another price) is unknown, not sent: never a second order for the item', async () => {
		const runtimeData = establishedAgo(30_000);
		// The same trigger data; the price, read anew upstream, is another this time.
		await runTradingService(sandbox(), { parameters: create({ price: '3000' }), runtimeData });
		const since = sandbox().ledger.requests.length;
		const again = await runTradingService(sandbox(), {
			parameters: create({ price: '3001' }),
			runtimeData,
			continueOnFail: true,
		});
		expect(again.items[0].json.outcome).toBe('unknown');
		expect(String(again.items[0].json.error)).toMatch(/Unknown outcome/);
		expect(JSON.stringify(again.items[0].json)).toMatch(
			/holds client order ID n8n-[0-9a-f]{24}-0-0-0 with other values than this order has now: the earlier run placed that one for this item, so this one was not sent/,
		);
		expect(requestsTo(sandbox(), NEW_ORDER, since)).toEqual([]);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('when the lookup fails after a lost run, the order is unknown and not sent', async () => {
		const runtimeData = establishedAgo(30_000);
		sandbox().setFaults({ rules: [{ kind: 'http503', path: QUERY, times: 100 }] });
		const again = await runTradingService(sandbox(), {
			parameters: create(),
			inputItems: [{ json: { price: '3100' } }],
			runtimeData,
			continueOnFail: true,
		});
		sandbox().clearFaults();
		expect(again.items[0].json.outcome).toBe('unknown');
		expect(JSON.stringify(again.items[0].json)).toMatch(/looking client order ID .* up failed/);
		expect(requestsTo(sandbox(), NEW_ORDER)).toEqual([]);
	});

	it('an order without a client order ID (generation off) cannot be looked up in a retry after a crash: unknown, not sent', async () => {
		const parameters = create({ price: '3200', options: { generateClientOrderId: false } });
		const lost = await runTradingService(sandbox(), { parameters });
		expect(sandbox().ledger.orders).toHaveLength(1);
		const since = sandbox().ledger.requests.length;
		const again = await runTradingService(sandbox(), {
			parameters,
			lostRunOf: lost,
			mode: 'retry',
			continueOnFail: true,
		});
		expect(again.items[0].json.outcome).toBe('unknown');
		expect(JSON.stringify(again.items[0].json)).toMatch(
			/the order has no client order ID to look it up by \(Generate Client Order ID is off\), so it was not sent/,
		);
		expect(requestsTo(sandbox(), NEW_ORDER, since)).toEqual([]);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('Transfer Asset: the transfer the lost run made is found in the history by its client order ID and not sent again', async () => {
		const runtimeData = establishedAgo(30_000);
		const parameters = {
			resource: 'account',
			operation: 'transferAsset',
			fromAccountId: DEMO_ACCOUNTS.mainTrading,
			toAccountId: DEMO_ACCOUNTS.subTrading,
			coin: 'USDT',
			quantity: '7.5',
		};
		const lost = await runTradingService(sandbox(), { parameters, runtimeData });
		expect(sandbox().ledger.transfers).toHaveLength(1);
		const since = sandbox().ledger.requests.length;
		const again = await runTradingService(sandbox(), { parameters, runtimeData });
		expect(again.items[0].json).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			confirmedByLookup: true,
			clientOrderId: lost.items[0].json.clientOrderId,
		});
		expect(requestsTo(sandbox(), HISTORY, since)).toHaveLength(1);
		expect(requestsTo(sandbox(), TRANSFER, since)).toEqual([]);
		expect(sandbox().ledger.transfers).toHaveLength(1);

		// One the lost run never made is not in the history: sent, once.
		const other = await runTradingService(sandbox(), {
			parameters: { ...parameters, quantity: '2' },
			runtimeData: establishedAgo(30_000),
		});
		expect(other.items[0].json).toMatchObject({ outcome: 'placed' });
		expect(other.items[0].json.alreadyPlaced).toBeUndefined();
		expect(sandbox().ledger.transfers).toHaveLength(2);
	});

	it('Cancel: an order the lost run cancelled is found cancelled and reported placed, no cancel sent', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		const runtimeData = establishedAgo(30_000);
		const parameters = { resource: 'order', operation: 'cancel', orderId, options: {} };
		await runTradingService(sandbox(), { parameters, runtimeData });
		expect(sandbox().ledger.cancels).toHaveLength(1);
		const since = sandbox().ledger.requests.length;
		const again = await runTradingService(sandbox(), { parameters, runtimeData });
		expect(again.items[0].json).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			status: 'CANCELED',
		});
		expect(
			sandbox()
				.ledger.requests.slice(since)
				.map((r) => `${r.method} ${r.path}`),
		).toEqual([`GET ${QUERY}`]);
	});
});
