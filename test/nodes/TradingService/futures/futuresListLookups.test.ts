import type { IDataObject } from 'n8n-workflow';

import type { LedgerRequest } from '../../../../sandbox';
import { runCounting } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';
import { BATCH_PATH, ORDER_PATH, bookOrders, queries } from './futuresOrderSupport';
import { BTC, FUTURES, runFutures } from './support';

// Issue 51: futures orders settled from the order lists (futures/futuresListLookups.ts), not one
// GET /api/v2/futures/order each: a lost batch answer, and Create Many's business keys. Through
// n8n-core's real executor against the sandbox at the documented request rates (20 order and 5
// query requests a second); the sandbox's request log counts the lookups.

const sandbox = useSandbox({ symbolRules: 'lenient' });
const MARK = '60000';

beforeEach(() => sandbox().futures.setMarkPrice(BTC, MARK));

const limit = (side: 'BUY' | 'SELL', price: string, extra: IDataObject = {}): IDataObject => ({
	symbol: BTC,
	side,
	type: 'LIMIT',
	price,
	baseQty: '0.001',
	...extra,
});

/** The lookup requests of a run: one order by ID, open orders, past orders (GET). */
function lookups(requests: LedgerRequest[]) {
	const gets = (path: string) => queries(requests, path, 'GET');
	return {
		single: gets(ORDER_PATH),
		open: gets(FUTURES.openOrders),
		past: gets(FUTURES.historyOrders),
	};
}

/** The batch requests' orders, parsed. */
function sentInBatches(requests: LedgerRequest[]): IDataObject[] {
	return requests
		.filter((request) => request.path === BATCH_PATH && request.method === 'POST')
		.flatMap((request) => JSON.parse(request.body ?? '[]') as IDataObject[]);
}

/** The book's orders by client order ID. */
function bookByClientId(): Map<string, IDataObject[]> {
	const byId = new Map<string, IDataObject[]>();
	for (const order of bookOrders(sandbox()) as unknown as IDataObject[]) {
		const id = String(order.clientOrderId);
		byId.set(id, [...(byId.get(id) ?? []), order]);
	}
	return byId;
}

describe('Futures > Create Many Orders: a lost batch answer settled from the lists', () => {
	it('20 orders, the batch answer lost after they were placed: one page of open and one of past orders settle all 20, each placed once and reported with its own order', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: BATCH_PATH }] });
		// Even ones rest below the mark (open orders), odd ones go through it and fill (past orders).
		const inputItems = Array.from({ length: 20 }, (_, n) => ({
			json: limit('BUY', n % 2 === 0 ? String(50000 + n) : String(61000 + n)),
		}));
		const run = await runFutures(sandbox(), 'createManyOrders', {}, { inputItems });
		expect(run.error).toBeUndefined();
		const batches = run.requests.filter((request) => request.path === BATCH_PATH);
		expect(batches.map((request) => request.fault)).toEqual(['dropAfter']);
		const book = bookByClientId();
		expect(book.size).toBe(20);
		expect([...book.values()].every((orders) => orders.length === 1)).toBe(true);
		run.items.forEach((item, n) => {
			const json = item.json as { outcome: string; clientOrderId: string; order: IDataObject };
			const [held] = book.get(json.clientOrderId)!;
			expect([n, json.outcome, json.order.orderId, json.order.price]).toEqual([
				n,
				'placed',
				held.orderId,
				inputItems[n].json.price,
			]);
		});
		expect(new Set(run.items.map((item) => (item.json.order as IDataObject).status))).toEqual(
			new Set(['NEW', 'FILLED']),
		);
		// Pages, not orders: no GET per order.
		const { single, open, past } = lookups(run.requests);
		expect(single).toHaveLength(0);
		expect(single.length + open.length + past.length).toBeLessThanOrEqual(4);
		expect([open.length, past.length]).toEqual([1, 1]);
		for (const query of [...open, ...past])
			expect([query.get('symbol'), query.get('type'), query.get('limit')]).toEqual([
				BTC,
				'LIMIT',
				'500',
			]);
		expect(run.requests.filter((request) => request.status === 429)).toEqual([]);
	});
});

describe('Futures > Create Many Orders: business keys checked from the lists', () => {
	it('200 orders with Client Order IDs, 50 of them placed before (25 filled, 25 open): 3 list reads, no GET per order; the 50 reported alreadyPlaced, exactly the 150 missing placed', async () => {
		const price = (n: number) => String(40000 + n);
		const id = (n: number) => `signal-${n}`;
		const before = new Map<string, string>();
		for (let n = 0; n < 50; n++) {
			const order =
				n % 2 === 0
					? sandbox().futures.fill({
							symbol: BTC,
							side: 'BUY',
							quantity: '0.001',
							price: price(n),
							clientOrderId: id(n),
						}).order
					: sandbox().futures.placeOpenOrder({
							symbol: BTC,
							side: 'BUY',
							quantity: '0.001',
							price: price(n),
							clientOrderId: id(n),
						});
			before.set(id(n), order.orderId);
		}
		const inputItems = Array.from({ length: 200 }, (_, n) => ({
			json: limit('BUY', price(n), { clientOrderId: id(n) }),
		}));
		const run = await runFutures(sandbox(), 'createManyOrders', {}, { inputItems });
		expect(run.error).toBeUndefined();
		// The precheck's requests are the lookups before the first batch.
		const firstBatch = run.requests.findIndex((request) => request.path === BATCH_PATH);
		const { single, open, past } = lookups(run.requests.slice(0, firstBatch));
		expect(single).toHaveLength(0);
		expect(single.length + open.length + past.length).toBeLessThanOrEqual(10);
		expect(open.map((query) => [query.get('symbol'), query.get('type')])).toEqual([
			[null, 'LIMIT'],
			[null, 'STOP'],
		]);
		expect(past.map((query) => [query.get('symbol'), query.get('type')])).toEqual([[BTC, 'LIMIT']]);
		expect(lookups(run.requests).single).toHaveLength(0);
		// Exactly the 150 missing were sent, each once.
		const sent = sentInBatches(run.requests).map((order) => order.clientOrderId);
		expect(sent).toEqual(Array.from({ length: 150 }, (_, n) => id(n + 50)));
		const book = bookByClientId();
		expect(book.size).toBe(200);
		expect([...book.values()].every((orders) => orders.length === 1)).toBe(true);
		run.items.forEach((item, n) => {
			const json = item.json as { outcome: string; alreadyPlaced?: boolean; order: IDataObject };
			expect([n, json.outcome, json.order.orderId, json.alreadyPlaced === true]).toEqual([
				n,
				'placed',
				book.get(id(n))![0].orderId,
				n < 50,
			]);
			if (n < 50) expect(json.order.orderId).toBe(before.get(id(n)));
		});
		expect(run.requests.filter((request) => request.status === 429)).toEqual([]);
	});
});

describe('Futures > Create Many Orders: a reused client order ID is not taken for this write', () => {
	/**
	 * The execution n8n established (set by each test, just before its first run): every run of it
	 * generates the same client order IDs, and each starts within 20 s of it, as a fresh run.
	 */
	let established: IDataObject = {};
	/** SELL orders through the mark: they fill at once. */
	const inputItems = Array.from({ length: 5 }, (_, n) => ({
		json: limit('SELL', String(59000 + n)),
	}));
	const run = (extra: { faulted?: 'dropAfter' | 'dropBefore' } = {}) => {
		if (extra.faulted !== undefined)
			sandbox().setFaults({ rules: [{ kind: extra.faulted, times: 1, path: BATCH_PATH }] });
		return runCounting(sandbox(), {
			parameters: { resource: 'futures', operation: 'createManyOrders' },
			node: { typeVersion: 2 },
			inputItems,
			runtimeData: established,
		});
	};

	/**
	 * The IDs this execution generates (a first run: no LONG position, so every SELL is refused),
	 * then, 30 s before now, an order under each that matches it in every field, filled.
	 */
	async function reusedIds(): Promise<{ ids: string[]; old: Map<string, IDataObject> }> {
		established = { version: 1, establishedAt: Date.now(), source: 'webhook' };
		const probe = await run();
		expect(probe.items.map((item) => item.json.outcome)).toEqual(Array(5).fill('rejected'));
		const ids = sentInBatches(probe.requests).map((order) => String(order.clientOrderId));
		const time = Date.now() - 30_000;
		const old = new Map<string, IDataObject>();
		const resting = ids.map((clientOrderId, n) =>
			sandbox().futures.placeOpenOrder({
				symbol: BTC,
				side: 'SELL',
				quantity: '0.001',
				price: String(59000 + n),
				clientOrderId,
				time,
			}),
		);
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.1' });
		for (const order of resting) {
			const { order: filled } = sandbox().futures.fill({
				symbol: BTC,
				side: 'SELL',
				orderId: order.orderId,
			});
			old.set(order.clientOrderId, filled as unknown as IDataObject);
		}
		return { ids, old };
	}

	it('placed again by this write: the order created within its window is the one reported, not the older one', async () => {
		const { ids, old } = await reusedIds();
		const second = await run({ faulted: 'dropAfter' });
		expect(second.error).toBeUndefined();
		expect(sentInBatches(second.requests).map((order) => order.clientOrderId)).toEqual(ids);
		const book = bookByClientId();
		second.items.forEach((item, n) => {
			const json = item.json as { outcome: string; order: IDataObject };
			const held = book.get(ids[n])!;
			expect(held.map((order) => order.status)).toEqual(['FILLED', 'FILLED']);
			const [before, now] = held;
			expect(before.orderId).toBe(old.get(ids[n])!.orderId);
			expect([json.outcome, json.order.orderId]).toEqual(['placed', now.orderId]);
		});
		// Settled by the lists, which reached back past the older orders.
		const { single, open, past } = lookups(second.requests);
		expect([single.length, open.length, past.length]).toEqual([0, 1, 1]);
		expect(Number(past[0].get('startTime'))).toBeLessThan(Number(old.get(ids[0])!.time));
	});

	it('not placed by this write: the older order is not claimed; unknown, and nothing sent again', async () => {
		const { ids } = await reusedIds();
		const second = await run({ faulted: 'dropBefore' });
		// An unknown outcome stops the run (no Continue On Fail): its report counts the five.
		expect(second.items).toEqual([]);
		expect(second.error?.context).toMatchObject({
			outcome: 'unknown',
			runReport: { orders: { placed: 0, rejected: 0, unknown: 5, notSent: 0 } },
		});
		expect(second.error?.message).toMatch(
			/no LIMIT order with client order ID n8n-\S+ was found among the open and past/,
		);
		// One batch, lost before the exchange read it; none sent again.
		const batches = second.requests.filter((request) => request.path === BATCH_PATH);
		expect(batches.map((request) => request.fault)).toEqual(['dropBefore']);
		const book = bookByClientId();
		for (const id of ids) expect(book.get(id)).toHaveLength(1);
		// Listed twice (again once no attempt could be accepted any more), no GET per order.
		const { single, open, past } = lookups(second.requests);
		expect([single.length, open.length, past.length]).toEqual([0, 2, 2]);
	});
});

describe('Futures > Create Many Orders: a triggered stop is told from the order it placed', () => {
	it('2 STOP orders with Client Order IDs sent again after they triggered (each placed a MARKET order under its ID, which a GET by client order ID names): found in the stop lists as the stop orders they are, alreadyPlaced, nothing sent', async () => {
		const id = (n: number) => `breakout-${n}`;
		const inputItems = Array.from({ length: 2 }, (_, n) => ({
			json: {
				symbol: BTC,
				side: 'BUY',
				type: 'STOP',
				stopPrice: String(61000 + n),
				baseQty: '0.001',
				clientOrderId: id(n),
			},
		}));
		const first = await runFutures(sandbox(), 'createManyOrders', {}, { inputItems });
		expect(first.items.map((item) => item.json.outcome)).toEqual(['placed', 'placed']);
		sandbox().futures.setMarkPrice(BTC, '62000');
		const book = bookByClientId();
		for (let n = 0; n < 2; n++)
			expect(book.get(id(n))!.map((order) => [order.orderType, order.status])).toEqual([
				['stop', 'ORDER_FILLED'],
				['market', 'FILLED'],
			]);
		const again = await runFutures(sandbox(), 'createManyOrders', {}, { inputItems });
		expect(again.error).toBeUndefined();
		again.items.forEach((item, n) => {
			const json = item.json as { outcome: string; alreadyPlaced?: boolean; order: IDataObject };
			expect([json.outcome, json.alreadyPlaced, json.order.orderId]).toEqual([
				'placed',
				true,
				book.get(id(n))![0].orderId,
			]);
		});
		expect(sentInBatches(again.requests)).toEqual([]);
		const { single, open, past } = lookups(again.requests);
		expect([single.length, open.length]).toEqual([0, 2]);
		expect(past.map((query) => [query.get('symbol'), query.get('type')])).toEqual([[BTC, 'STOP']]);
	});
});
