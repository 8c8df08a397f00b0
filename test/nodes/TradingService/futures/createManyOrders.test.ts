import { byInputItem, reportedOutcome } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';
import { BATCH_PATH, ORDER_PATH, bookOrders, queries } from './futuresOrderSupport';
import { BTC, ETH, runFutures } from './support';

const sandbox = useSandbox();
const MARK = '60000';

beforeEach(() => {
	sandbox().futures.setMarkPrice(BTC, MARK);
	sandbox().futures.setMarkPrice(ETH, '3000');
});

const limit = (n: number, extra: Record<string, unknown> = {}) => ({
	symbol: BTC,
	side: 'BUY',
	type: 'LIMIT',
	price: String(50000 + n),
	baseQty: '0.001',
	...extra,
});

/** The batch requests' bodies, parsed. */
function batches(requests: Array<{ path: string; method: string; body?: string }>) {
	return requests
		.filter((request) => request.path === BATCH_PATH && request.method === 'POST')
		.map((request) => JSON.parse(request.body ?? '[]') as Array<Record<string, unknown>>);
}

describe('Futures > Create Many Orders: batches', () => {
	it('25 orders of one contract, side and type: batches of 20 and 5, each item paired with its input', async () => {
		const inputItems = Array.from({ length: 25 }, (_, n) => ({ json: limit(n) }));
		const run = await runFutures(sandbox(), 'createManyOrders', {}, { inputItems });
		expect(run.error).toBeUndefined();
		expect(batches(run.requests).map((batch) => batch.length)).toEqual([20, 5]);
		expect(run.items).toHaveLength(25);
		const paired = byInputItem(run.items);
		for (let n = 0; n < 25; n++) {
			const [item] = paired.get(n)!;
			expect(item.json).toMatchObject({ outcome: 'placed', success: true, symbol: BTC });
			expect((item.json.order as Record<string, unknown>).price).toBe(String(50000 + n));
		}
		expect(bookOrders(sandbox())).toHaveLength(25);
	});

	it('STOP orders go 3 to a batch', async () => {
		const inputItems = Array.from({ length: 4 }, (_, n) => ({
			json: {
				symbol: BTC,
				side: 'BUY',
				type: 'STOP',
				stopPrice: String(65000 + n),
				baseQty: '0.001',
			},
		}));
		const run = await runFutures(sandbox(), 'createManyOrders', {}, { inputItems });
		expect(run.error).toBeUndefined();
		expect(batches(run.requests).map((batch) => batch.length)).toEqual([3, 1]);
		expect(run.items.map((item) => item.json.outcome)).toEqual([
			'placed',
			'placed',
			'placed',
			'placed',
		]);
	});

	it('groups by contract, side and type, and keeps the output in input order', async () => {
		const inputItems = [
			{ json: limit(1) },
			{ json: { symbol: ETH, side: 'BUY', type: 'LIMIT', price: '2900', baseQty: '0.1' } },
			{ json: { symbol: BTC, side: 'BUY', type: 'MARKET', quoteQty: '100' } },
			{ json: limit(2) },
		];
		const run = await runFutures(sandbox(), 'createManyOrders', {}, { inputItems });
		expect(run.error).toBeUndefined();
		const sent = batches(run.requests).map((batch) =>
			batch.map((one) => `${String(one.symbol)} ${String(one.type)}`),
		);
		expect(sent).toEqual([[`${BTC} LIMIT`, `${BTC} LIMIT`], [`${ETH} LIMIT`], [`${BTC} MARKET`]]);
		expect(run.items.map((item) => item.pairedItem)).toEqual(
			[0, 1, 2, 3].map((item) => ({ item })),
		);
		expect(run.items.map((item) => item.json.symbol)).toEqual([BTC, ETH, BTC, BTC]);
	});

	it('JSON mode: an item with many orders; TP/SL children named after each order', async () => {
		const ordersJson = JSON.stringify([
			limit(1, { clientOrderId: 'grid-1', tpTriggerPrice: '66000', slTriggerPrice: '45000' }),
			limit(2, { clientOrderId: 'grid-2' }),
		]);
		const run = await runFutures(sandbox(), 'createManyOrders', { inputMode: 'json', ordersJson });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toMatchObject([
			{
				outcome: 'placed',
				clientOrderId: 'grid-1',
				tpClientOrderId: 'grid-1-tp',
				slClientOrderId: 'grid-1-sl',
			},
			{ outcome: 'placed', clientOrderId: 'grid-2' },
		]);
		expect(batches(run.requests)[0][0]).toMatchObject({
			tpClientOrderId: 'grid-1-tp',
			slClientOrderId: 'grid-1-sl',
		});
	});
});

describe('Futures > Create Many Orders: a half-succeeded batch is reported order by order', () => {
	it('a reduce-only SELL beyond the position is rejected in its entry, the others placed', async () => {
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01', price: MARK });
		const sell = (baseQty: string, n: number) => ({
			json: {
				symbol: BTC,
				side: 'SELL',
				type: 'LIMIT',
				price: String(70000 + n),
				baseQty,
				reduceOnly: true,
			},
		});
		const inputItems = [sell('0.004', 0), sell('0.02', 1), sell('0.004', 2)];
		const run = await runFutures(sandbox(), 'createManyOrders', {}, { inputItems });
		expect(run.error).toBeUndefined();
		expect(batches(run.requests)).toHaveLength(1);
		expect(
			run.items.map((item) => [item.pairedItem, item.json.outcome, item.json.success]),
		).toEqual([
			[{ item: 0 }, 'placed', true],
			[{ item: 1 }, 'rejected', false],
			[{ item: 2 }, 'placed', true],
		]);
		expect(run.items[1].json).toMatchObject({ code: '-1149', order: null });
		expect(bookOrders(sandbox()).filter((one) => one.side === 'SELL')).toHaveLength(2);
	});

	it('Fail on Any Rejected Order stops after the batch with the refusal', async () => {
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01', price: MARK });
		const inputItems = [
			{
				json: {
					symbol: BTC,
					side: 'SELL',
					type: 'LIMIT',
					price: '70000',
					baseQty: '0.02',
					reduceOnly: true,
				},
			},
			{ json: limit(1) },
		];
		const run = await runFutures(
			sandbox(),
			'createManyOrders',
			{ options: { failOnRejected: true } },
			{ inputItems },
		);
		expect(run.error?.message).toMatch(/1 order\(s\) were rejected/);
		expect(batches(run.requests)).toHaveLength(1);
	});
});

describe('Futures > Create Many Orders: bad input refused before any request', () => {
	it.each([
		[
			'an unknown field in JSON',
			{ inputMode: 'json', ordersJson: JSON.stringify([limit(1), { ...limit(2), qty: '1' }]) },
			[],
			/^Orders \(JSON\)\[1\]\.qty: is not a futures order field/,
		],
		[
			'a near-miss field name in an item',
			{},
			[{ json: { ...limit(1), BaseQty: '0.001', baseQty: undefined } }],
			/^Item 0, field BaseQty: is not an order field, but baseQty is/,
		],
		[
			'a take profit on a reduce-only order',
			{},
			[{ json: limit(1, { reduceOnly: true, tpTriggerPrice: '66000' }) }],
			/tpTriggerPrice: is for an opening BUY only/,
		],
		[
			'a price on a MARKET order',
			{},
			[{ json: { symbol: BTC, side: 'BUY', type: 'MARKET', price: '1', baseQty: '0.001' } }],
			/^Item 0, field price: is not used by MARKET orders/,
		],
		[
			'two orders with one client order ID',
			{},
			[{ json: limit(1, { clientOrderId: 'a' }) }, { json: limit(2, { clientOrderId: 'a' }) }],
			/clientOrderId: "a" is used by more than one order/,
		],
		[
			'a client order ID that is another order’s stop-loss order’s ID',
			{},
			[
				{ json: limit(1, { clientOrderId: 'b', slTriggerPrice: '45000' }) },
				{ json: limit(2, { clientOrderId: 'b-sl' }) },
			],
			/^Item 1, field clientOrderId: "b-sl" is used by more than one order \(items 0 and 1\): item 0’s stop-loss order’s ID, and item 1’s client order ID/,
		],
		[
			'Create Order’s name of the stop loss (stopLossPrice)',
			{},
			[{ json: limit(1, { stopLossPrice: '45000' }) }],
			/^Item 0, field stopLossPrice: is not a field of Create Many Orders/,
		],
		[
			'a position’s name of the take profit (takeProfit)',
			{},
			[{ json: limit(1, { takeProfit: '66000' }) }],
			/^Item 0, field takeProfit: is not a field of Create Many Orders/,
		],
		[
			'a reduce-only BUY (a BUY never reduces a LONG position)',
			{},
			[{ json: limit(1) }, { json: limit(2, { reduceOnly: true }) }],
			/^Item 1, field reduceOnly: is on for a BUY, which never reduces a position/,
		],
		[
			'a reduce-only BUY in JSON',
			{ inputMode: 'json', ordersJson: JSON.stringify([{ ...limit(1), reduceOnly: true }]) },
			[],
			/^Orders \(JSON\)\[0\]\.reduceOnly: is on for a BUY/,
		],
		[
			'a BUY under Reduce Only Required',
			{ guardrails: { reduceOnlyRequired: true } },
			[{ json: limit(1, { reduceOnly: true }) }],
			/^Item 0, field side: BUY never reduces a position \(positions are LONG only\), and this node may only reduce positions/,
		],
		[
			'an output item’s orderType',
			{},
			[{ json: { ...limit(1), type: undefined, orderType: 'LIMIT' } }],
			/^Item 0, field orderType: is not a field of Create Many Orders/,
		],
	])('%s', async (_what, parameters, inputItems, message) => {
		const before = sandbox().ledger.requests.length;
		const run = await runFutures(
			sandbox(),
			'createManyOrders',
			parameters,
			inputItems.length > 0 ? { inputItems } : {},
		);
		expect(run.error?.message).toMatch(message);
		expect(reportedOutcome(run)).toBe('rejected');
		expect(sandbox().ledger.requests.length).toBe(before);
	});
});

describe('Futures > Create Many Orders: other names of order fields are refused, never ignored', () => {
	it.each([
		['takeProfitPrice', 'tpTriggerPrice'],
		['takeProfitLimitPrice', 'tpLimitPrice'],
		['stopLossTriggerBy', 'slTriggerBy'],
		['originalBaseQty', 'baseQty'],
	])('%s: refused, saying to rename it to %s', async (alias, field) => {
		const inputItems = [
			{ json: { ...limit(1), [alias]: alias.endsWith('By') ? 'MARK_PRICE' : '1' } },
		];
		const run = await runFutures(sandbox(), 'createManyOrders', {}, { inputItems });
		expect(run.error?.message).toBe(`Item 0, field ${alias}: is not a field of Create Many Orders`);
		expect(run.error?.description).toContain(`Rename it to ${field}`);
		expect(queries(run.requests, BATCH_PATH, 'POST')).toHaveLength(0);
	});
});

describe('Futures > Create Many Orders: a lost batch answer', () => {
	it('is looked up order by order by client order ID, each reported placed, nothing sent twice', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: BATCH_PATH }] });
		const inputItems = Array.from({ length: 3 }, (_, n) => ({ json: limit(n) }));
		const run = await runFutures(sandbox(), 'createManyOrders', {}, { inputItems });
		expect(run.error?.message).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(['placed', 'placed', 'placed']);
		expect(batches(run.requests)).toHaveLength(1);
		expect(queries(run.requests, ORDER_PATH, 'GET')).toHaveLength(3);
		expect(bookOrders(sandbox())).toHaveLength(3);
	});
});

describe('Futures > Create Many Orders: batch answers matched by client order ID', () => {
	it('entries in another order than sent: each matched to its own order, no lookup', async () => {
		sandbox().setFaults({ rules: [{ kind: 'batchReorder', times: 1, path: BATCH_PATH }] });
		const inputItems = Array.from({ length: 3 }, (_, n) => ({ json: limit(n) }));
		const run = await runFutures(sandbox(), 'createManyOrders', {}, { inputItems });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => (item.json.order as Record<string, unknown>).price)).toEqual([
			'50000',
			'50001',
			'50002',
		]);
		expect(run.items.map((item) => item.pairedItem)).toEqual([0, 1, 2].map((item) => ({ item })));
		expect(queries(run.requests, ORDER_PATH, 'GET')).toHaveLength(0);
	});

	it('an entry missing from the answer: that order is looked up, found placed', async () => {
		sandbox().setFaults({ rules: [{ kind: 'batchNullEntry', times: 1, path: BATCH_PATH }] });
		const inputItems = Array.from({ length: 3 }, (_, n) => ({ json: limit(n) }));
		const run = await runFutures(sandbox(), 'createManyOrders', {}, { inputItems });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(['placed', 'placed', 'placed']);
		expect(queries(run.requests, ORDER_PATH, 'GET')).toHaveLength(1);
		expect(bookOrders(sandbox())).toHaveLength(3);
	});

	it('orders sent without client order IDs (generation off): entries paired by position', async () => {
		const inputItems = [{ json: limit(1) }, { json: limit(2, { clientOrderId: 'mine-2' }) }];
		const run = await runFutures(
			sandbox(),
			'createManyOrders',
			{ options: { generateClientOrderId: false } },
			{ inputItems },
		);
		expect(run.error).toBeUndefined();
		expect(
			run.items.map((item) => [
				item.json.outcome,
				(item.json.order as Record<string, unknown>).price,
			]),
		).toEqual([
			['placed', '50001'],
			['placed', '50002'],
		]);
		expect(batches(run.requests)[0][0]).not.toHaveProperty('clientOrderId');
	});
});

describe('Futures > Create Many Orders: Continue On Fail', () => {
	it('a refused item comes out as its error, the other items’ orders are placed', async () => {
		const inputItems = [
			{ json: limit(1) },
			{ json: limit(2, { price: 'abc' }) },
			{ json: limit(3) },
		];
		const run = await runFutures(
			sandbox(),
			'createManyOrders',
			{},
			{ inputItems, continueOnFail: true },
		);
		expect(run.error).toBeUndefined();
		const paired = byInputItem(run.items);
		expect(paired.get(0)![0].json).toMatchObject({ outcome: 'placed' });
		expect(paired.get(1)![0].json).toMatchObject({
			outcome: 'rejected',
			error: expect.stringMatching(/^Item 1, field price:/),
		});
		expect(paired.get(2)![0].json).toMatchObject({ outcome: 'placed' });
		expect(bookOrders(sandbox())).toHaveLength(2);
	});
});
