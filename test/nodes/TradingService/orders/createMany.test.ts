import type { INodeExecutionData } from 'n8n-workflow';

import {
	generatedClientOrderId,
	requestsTo,
	runTradingService,
} from '../../../../tools/harness/node';
import { useSandbox } from '../../../support/sandbox';

const BATCH = '/api/v1/spot/batchOrders';
const QUERY_ORDER = '/api/v1/spot/order';
const OPEN_ORDERS = '/api/v1/spot/openOrders';
const PAST_ORDERS = '/api/v1/spot/tradeOrders';
const sandbox = useSandbox({ rateLimit: false, requestRates: false });

/** Item mode: every order field mapped from the input item by expression. */
const fromItems = (options: Record<string, unknown> = {}) => ({
	resource: 'order',
	operation: 'createMany',
	inputMode: 'items',
	symbol: '={{ $json.symbol }}',
	side: '={{ $json.side }}',
	type: '={{ $json.type }}',
	price: '={{ $json.price }}',
	quantity: '={{ $json.quantity }}',
	newClientOrderId: '={{ $json.clientOrderId ?? "" }}',
	options,
});

function orderItems(
	count: number,
	symbolOf: (index: number) => string = () => 'BTCUSDT',
): INodeExecutionData[] {
	return Array.from({ length: count }, (_, index) => ({
		json: {
			symbol: symbolOf(index),
			side: 'BUY',
			type: 'LIMIT',
			price: `${100 + index}.5`,
			quantity: '0.001',
		},
	}));
}

function batchBodies(): Array<Array<Record<string, string>>> {
	return requestsTo(sandbox(), BATCH).map((request) => JSON.parse(request.body));
}

describe('Order > Create Many', () => {
	it('groups 45 orders of two symbols into batches of at most 20, one item per order, paired to its input', async () => {
		const symbolOf = (index: number) => (index % 3 === 0 ? 'ETHUSDT' : 'BTCUSDT');
		const run = await runTradingService(sandbox(), {
			parameters: fromItems(),
			inputItems: orderItems(45, symbolOf),
			executionId: 'exec-45',
		});
		expect(run.error).toBeUndefined();
		// 30 BTCUSDT (20 + 10) and 15 ETHUSDT: three requests, each of one symbol.
		const bodies = batchBodies();
		expect(bodies.map((body) => [body[0].symbol, body.length])).toEqual([
			['ETHUSDT', 15],
			['BTCUSDT', 20],
			['BTCUSDT', 10],
		]);
		for (const body of bodies) expect(new Set(body.map((order) => order.symbol)).size).toBe(1);
		expect(run.items).toHaveLength(45);
		run.items.forEach((item, index) => {
			expect(item.pairedItem).toEqual({ item: index });
			expect(item.json).toMatchObject({
				success: true,
				code: 0,
				symbol: symbolOf(index),
				clientOrderId: expect.stringMatching(generatedClientOrderId(index)),
			});
			expect((item.json.order as Record<string, string>).price).toBe(`${100 + index}.5`);
		});
		expect(sandbox().ledger.orders).toHaveLength(45);
		expect(bodies[0][0]).toEqual({
			symbol: 'ETHUSDT',
			side: 'BUY',
			type: 'LIMIT',
			timeInForce: 'GTC',
			stpMode: 'EXPIRE_TAKER',
			quantity: '0.001',
			price: '100.5',
			newClientOrderId: run.items[0].json.clientOrderId,
		});
	});

	it('item mode: the type varies per item, each item gives only the fields its type takes', async () => {
		const parameters = { ...fromItems(), amount: '={{ $json.amount ?? "" }}' };
		const inputItems = [
			{ json: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '100', quantity: '0.01' } },
			{ json: { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', amount: '50' } },
			{ json: { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: '0.001' } },
		];
		const run = await runTradingService(sandbox(), { parameters, inputItems });
		expect(run.error).toBeUndefined();
		expect(
			batchBodies()[0].map((order) => [
				order.type,
				order.timeInForce,
				order.price,
				order.quantity,
				order.amount,
			]),
		).toEqual([
			['LIMIT', 'GTC', '100', '0.01', undefined],
			['MARKET', 'IOC', undefined, undefined, '50'],
			['MARKET', 'IOC', undefined, '0.001', undefined],
		]);
		const bad = await runTradingService(sandbox(), {
			parameters,
			inputItems: [{ json: { ...inputItems[1].json, price: '1' } }],
		});
		expect(bad.error?.message).toBe('Price: is not used by MARKET orders');
	});

	it('1,000 input items become 50 requests', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: fromItems(),
			inputItems: orderItems(1000, (index) => (index < 500 ? 'BTCUSDT' : 'SOLUSDT')),
		});
		expect(run.items).toHaveLength(1000);
		expect(requestsTo(sandbox(), BATCH)).toHaveLength(50);
		expect(sandbox().ledger.orders).toHaveLength(1000);
	});

	it('partial failure: rejected orders come out with success false and their code, the rest are placed', async () => {
		const items = orderItems(4);
		items[1].json.quantity = '1000000'; // more than the balance
		const run = await runTradingService(sandbox(), { parameters: fromItems(), inputItems: items });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.success)).toEqual([true, false, true, true]);
		expect(run.items.map((item) => item.json.outcome)).toEqual([
			'placed',
			'rejected',
			'placed',
			'placed',
		]);
		expect(run.items[1].json).toMatchObject({
			success: false,
			code: 401,
			order: null,
			msg: expect.stringContaining('Create order failed'),
		});
		expect(run.items[1].pairedItem).toEqual({ item: 1 });
		expect(sandbox().ledger.orders).toHaveLength(3);
	});

	it('Fail on Any Rejected Order stops before the next batch', async () => {
		const items = orderItems(25);
		items[3].json.quantity = '1000000';
		const run = await runTradingService(sandbox(), {
			parameters: fromItems({ failOnRejected: true }),
			inputItems: items,
		});
		// The run's counts lead (issue 49): 19 orders were placed before the refusal stopped it.
		expect(run.error?.message).toMatch(
			/^19 orders placed before the run stopped: 1 order\(s\) were rejected: Create order failed/,
		);
		expect(run.error?.description).toMatch(
			/^Orders of this run, once every batch in flight was answered: 19 placed, 1 refused \(executed nothing\), 5 not sent\. /,
		);
		expect(run.error?.description).toContain('no further batches were sent (1 left)');
		expect(run.error?.description).toContain(
			'Orders of this run, once every batch in flight was answered: 19 placed, 1 refused (executed nothing), 5 not sent.',
		);
		expect(run.error?.description).not.toMatch(/nothing was executed/);
		expect(run.error?.context).toMatchObject({
			runReport: {
				placed: '0–2, 4–19',
				nothingExecuted: '3, 20–24',
				orders: { placed: 19, unknown: 0, rejected: 1, notSent: 5 },
			},
		});
		expect(requestsTo(sandbox(), BATCH)).toHaveLength(1);
	});

	it('a batch committed but unanswered: its orders found by client order ID in one page of open orders and reported placed, nothing sent twice', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: BATCH }] });
		const run = await runTradingService(sandbox(), {
			parameters: fromItems(),
			inputItems: orderItems(20),
		});
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(20);
		expect(
			run.items.every((item) => item.json.outcome === 'placed' && item.json.success === true),
		).toBe(true);
		expect(
			run.items.map((item) => (item.json.order as { clientOrderId: string }).clientOrderId),
		).toEqual(run.items.map((item) => item.json.clientOrderId));
		expect(requestsTo(sandbox(), BATCH)).toHaveLength(1);
		// Settled together (issue 49): the 20 resting orders are all on the first page of open orders.
		expect(requestsTo(sandbox(), QUERY_ORDER)).toHaveLength(0);
		expect(requestsTo(sandbox(), OPEN_ORDERS)).toHaveLength(1);
		expect(requestsTo(sandbox(), PAST_ORDERS)).toHaveLength(0);
		expect(sandbox().ledger.orders).toHaveLength(20);
	});

	it('a batch refused unanswered (503, nothing placed): its orders listed, not found, listed again once no attempt can be accepted, unknown, never sent again (defect 8)', async () => {
		sandbox().setFaults({ rules: [{ kind: 'http503', times: 1, path: BATCH }] });
		const run = await runTradingService(sandbox(), {
			parameters: fromItems(),
			inputItems: orderItems(20),
			credentials: { recvWindow: 1500 },
			continueOnFail: true,
		});
		expect(run.items.every((item) => item.json.outcome === 'unknown')).toBe(true);
		expect(requestsTo(sandbox(), BATCH)).toHaveLength(1);
		// Two listings of open and past orders (the second once the receive window is over), no
		// query per order.
		expect(requestsTo(sandbox(), QUERY_ORDER)).toHaveLength(0);
		expect(requestsTo(sandbox(), OPEN_ORDERS)).toHaveLength(2);
		expect(requestsTo(sandbox(), PAST_ORDERS)).toHaveLength(2);
		expect(run.items[0].json.error).toMatch(
			/no order with client order ID .* was found among the open and past BTCUSDT orders, which does not prove it was not placed/,
		);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('business keys (defect 1): a second execution of 25 orders with the same client order IDs reads two lists per symbol, sends nothing, and reports each placed and already placed', async () => {
		const items = orderItems(25).map((item, index) => ({
			json: { ...item.json, clientOrderId: `row-${index}` },
		}));
		const first = await runTradingService(sandbox(), {
			parameters: fromItems(),
			inputItems: items,
		});
		expect(first.items.every((item) => item.json.outcome === 'placed')).toBe(true);
		const orderIdOf = (item: INodeExecutionData) =>
			(item.json.order as { orderId: string }).orderId;
		sandbox().fillOrder(orderIdOf(first.items[0]));
		const since = sandbox().ledger.requests.length;
		const again = await runTradingService(sandbox(), {
			parameters: fromItems(),
			inputItems: items,
		});
		expect(again.items.map((item) => [item.json.outcome, item.json.alreadyPlaced])).toEqual(
			items.map(() => ['placed', true]),
		);
		expect(again.items.map(orderIdOf)).toEqual(first.items.map(orderIdOf));
		const paths = sandbox()
			.ledger.requests.slice(since)
			.map((request) => request.path);
		expect(paths.filter((path) => path === BATCH)).toHaveLength(0);
		expect(paths.filter((path) => path === QUERY_ORDER)).toHaveLength(0);
		expect(sandbox().ledger.orders).toHaveLength(25);
	});

	it('a whole batch refused stops the run at its first order, yet n8n Retry On Fail sends all of it again: none of its orders is left recorded in flight', async () => {
		sandbox().setFaults({
			rules: [
				{ kind: 'numericIds', times: 1, path: BATCH },
				// A refusal of the whole batch (its symbol closed to the API for a moment), nothing placed.
				{ kind: 'unknownBefore', times: 1, path: BATCH, code: '-1155', status: 400 },
			],
		});
		const run = await runTradingService(sandbox(), {
			parameters: fromItems(),
			inputItems: orderItems(40),
			node: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(Array(40).fill('placed'));
		// Try 1: batch 1 placed, batch 2 refused; try 2: batch 1 from the ledger, batch 2 sent again.
		expect(requestsTo(sandbox(), BATCH)).toHaveLength(3);
		expect(requestsTo(sandbox(), QUERY_ORDER)).toHaveLength(0);
		expect(sandbox().ledger.orders).toHaveLength(40);
	});

	it('n8n Retry On Fail re-runs the node after a rejection: the placed orders come from the write ledger, none placed twice', async () => {
		const items = orderItems(25);
		items[3].json.quantity = '1000000';
		const run = await runTradingService(sandbox(), {
			parameters: fromItems({ failOnRejected: true }),
			inputItems: items,
			node: { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
		});
		expect(run.error?.message).toMatch(
			/^24 orders placed before the run stopped: 1 order\(s\) were rejected/,
		);
		expect((run.error?.context as { outcome?: string } | undefined)?.outcome).toBe('rejected');
		// Try 1: orders 0-19 (3 refused); tries 2 and 3: order 3 again, with 20-24 placed on try 2 only.
		const batches = requestsTo(sandbox(), BATCH).map(
			(request) => (JSON.parse(request.body) as unknown[]).length,
		);
		expect(batches).toEqual([20, 6, 1]);
		const ids = sandbox().ledger.orders.map((order) => order.clientOrderId);
		expect(ids).toHaveLength(24);
		expect(new Set(ids).size).toBe(24);
		// A new execution is a new set of orders.
		await runTradingService(sandbox(), { parameters: fromItems(), inputItems: orderItems(20) });
		expect(sandbox().ledger.orders).toHaveLength(44);
	});

	it('without client order IDs, a batch whose outcome is unknown is reported, never resent', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: BATCH }] });
		const run = await runTradingService(sandbox(), {
			parameters: fromItems({ generateClientOrderId: false }),
			inputItems: orderItems(5),
		});
		expect(run.error?.message).toMatch(
			/^Unknown outcome: the batch of 5 BTCUSDT orders may or may not have been executed/,
		);
		expect((run.error?.context as { outcome?: string } | undefined)?.outcome).toBe('unknown');
		expect(requestsTo(sandbox(), BATCH)).toHaveLength(1);
		expect(requestsTo(sandbox(), QUERY_ORDER)).toHaveLength(0);
	});

	it('JSON mode: orders of each item pooled, grouped and paired back', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'createMany',
				inputMode: 'json',
				ordersJson: '={{ JSON.stringify($json.orders) }}',
			},
			inputItems: [
				{
					json: {
						orders: [
							{ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '100', quantity: '0.01' },
							{ symbol: 'ETHUSDT', side: 'SELL', type: 'MARKET', quantity: 0.5 },
						],
					},
				},
				{
					json: {
						orders: [
							{
								symbol: 'BTCUSDT',
								side: 'BUY',
								type: 'MARKET',
								amount: '10',
								newClientOrderId: 'mine-1',
							},
						],
					},
				},
			],
			executionId: 'exec-json',
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => [item.json.symbol, item.pairedItem])).toEqual([
			['BTCUSDT', { item: 0 }],
			['ETHUSDT', { item: 0 }],
			['BTCUSDT', { item: 1 }],
		]);
		expect(run.items[1].json.clientOrderId).toMatch(generatedClientOrderId(0, 1));
		expect(run.items[2].json.clientOrderId).toBe('mine-1');
		expect(batchBodies().map((body) => body.length)).toEqual([2, 1]);
		expect(batchBodies()[1][0].quantity).toBe('0.5');
	});

	describe("auto-mapped input (Map Each Item's Fields Automatically)", () => {
		const autoMap = (options: Record<string, unknown> = {}) => ({
			resource: 'order',
			operation: 'createMany',
			inputMode: 'autoMap',
			options,
		});

		it('45 items of two symbols: the order fields read from each item as given, other fields ignored, 3 batch requests', async () => {
			const symbolOf = (index: number) => (index % 3 === 0 ? 'ETHUSDT' : 'BTCUSDT');
			const inputItems = Array.from({ length: 45 }, (_, index) => ({
				json: {
					row_number: index + 2,
					ref: `ladder-${index}`,
					note: { any: 'thing' },
					symbol: symbolOf(index),
					side: 'BUY',
					type: 'LIMIT',
					// Strings go character for character (trailing zeros kept); plain numbers as their own text.
					price: index % 2 === 0 ? `${100 + index}.50` : 100 + index + 0.25,
					quantity: '0.0010',
				},
			}));
			const run = await runTradingService(sandbox(), {
				parameters: autoMap(),
				inputItems,
				executionId: 'exec-auto-45',
			});
			expect(run.error).toBeUndefined();
			const bodies = batchBodies();
			expect(bodies.map((body) => [body[0].symbol, body.length])).toEqual([
				['ETHUSDT', 15],
				['BTCUSDT', 20],
				['BTCUSDT', 10],
			]);
			expect(requestsTo(sandbox(), BATCH)).toHaveLength(3);
			// three batches and one read of the symbol rules
			expect(sandbox().ledger.requests).toHaveLength(4);
			expect(run.items).toHaveLength(45);
			run.items.forEach((item, index) => {
				expect(item.pairedItem).toEqual({ item: index });
				expect(item.json).toMatchObject({
					success: true,
					outcome: 'placed',
					symbol: symbolOf(index),
					clientOrderId: expect.stringMatching(generatedClientOrderId(index)),
				});
			});
			// Exactly the order fields, nothing else from the item.
			expect(bodies[0][0]).toEqual({
				symbol: 'ETHUSDT',
				side: 'BUY',
				type: 'LIMIT',
				timeInForce: 'GTC',
				stpMode: 'EXPIRE_TAKER',
				quantity: '0.0010',
				price: '100.50',
				newClientOrderId: run.items[0].json.clientOrderId,
			});
			expect(bodies[1][0]).toEqual({
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'LIMIT',
				timeInForce: 'GTC',
				stpMode: 'EXPIRE_TAKER',
				quantity: '0.0010',
				price: '101.25',
				newClientOrderId: run.items[1].json.clientOrderId,
			});
			expect(sandbox().ledger.orders).toHaveLength(45);
		});

		it('every order field: MARKET by amount, timeInForce, stpMode, the client order ID as text or a plain number; empty and null fields are absent', async () => {
			const inputItems = [
				{
					json: {
						symbol: 'BTCUSDT',
						side: 'SELL',
						type: 'LIMIT_MAKER',
						price: '60000',
						quantity: 0.5,
						timeInForce: 'GTC',
						stpMode: 'EXPIRE_MAKER',
						newClientOrderId: 'row-7',
					},
				},
				{
					json: {
						symbol: 'BTCUSDT',
						side: 'BUY',
						type: 'MARKET',
						amount: 25,
						quantity: '',
						price: null,
						timeInForce: 'IOC',
						newClientOrderId: 12345,
					},
				},
			];
			const run = await runTradingService(sandbox(), { parameters: autoMap(), inputItems });
			expect(run.error).toBeUndefined();
			expect(batchBodies()).toEqual([
				[
					{
						symbol: 'BTCUSDT',
						side: 'SELL',
						type: 'LIMIT_MAKER',
						timeInForce: 'GTC',
						stpMode: 'EXPIRE_MAKER',
						quantity: '0.5',
						price: '60000',
						newClientOrderId: 'row-7',
					},
					{
						symbol: 'BTCUSDT',
						side: 'BUY',
						type: 'MARKET',
						timeInForce: 'IOC',
						stpMode: 'EXPIRE_TAKER',
						amount: '25',
						newClientOrderId: '12345',
					},
				],
			]);
			expect(run.items.map((item) => item.json.clientOrderId)).toEqual(['row-7', '12345']);
		});

		it.each([
			['price', 1e-8, 'Item 1, field price: the number 1e-8 is not a plain decimal'],
			['quantity', 1e21, 'Item 1, field quantity: the number 1e+21 is not a plain decimal'],
			['amount', Number.NaN, 'Item 1, field amount: the number NaN is not a plain decimal'],
			[
				'price',
				Number.POSITIVE_INFINITY,
				'Item 1, field price: the number Infinity is not a plain decimal',
			],
			[
				'newClientOrderId',
				2 ** 60,
				'Item 1, field newClientOrderId: the number 1152921504606847000 is too large to be exact',
			],
		])(
			'a number that does not print as a plain decimal (%s = %p) is refused, naming item and field, with 0 requests',
			async (field, value, message) => {
				const inputItems = [
					{ json: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '100', quantity: '1' } },
					{
						json: {
							symbol: 'BTCUSDT',
							side: 'BUY',
							type: field === 'amount' ? 'MARKET' : 'LIMIT',
							price: field === 'amount' ? undefined : '100',
							quantity: field === 'amount' ? undefined : '1',
							[field]: value,
						},
					},
				];
				const run = await runTradingService(sandbox(), { parameters: autoMap(), inputItems });
				expect(run.error?.message).toBe(message);
				expect(run.error?.description).toMatch(/^Give it as a string in the input item/);
				expect((run.error?.context as { itemIndex?: number })?.itemIndex).toBe(1);
				expect(sandbox().ledger.requests).toHaveLength(0);
			},
		);

		it.each([
			[{ price: { value: '100' } }, 'Item 0, field price: is an object, not text or a number'],
			[{ side: true }, 'Item 0, field side: is a boolean, not text or a number'],
			[{ quantity: ['1'] }, 'Item 0, field quantity: is a list, not text or a number'],
			[{ Price: '100' }, 'Item 0, field Price: is not an order field, but price is'],
			[{ price: '1e-8' }, 'Item 0, field price: "1e-8" is not a decimal number'],
			[{ price: ' 100' }, 'Item 0, field price: " 100" is not a decimal number'],
			[{ symbol: 'btcusdt' }, 'Item 0, field symbol: "btcusdt" is not a trading pair symbol'],
			[
				{ type: 'MARKET', amount: '5' },
				'Item 0, field amount: MARKET orders take Quantity or Amount, not both',
			],
		])('%p is refused before any request: %s', async (change, message) => {
			const json = {
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'LIMIT',
				quantity: '1',
				...(Object.keys(change).includes('type') ? {} : { price: '100' }),
				...change,
			};
			const run = await runTradingService(sandbox(), {
				parameters: autoMap(),
				inputItems: [{ json }],
			});
			expect(run.error?.message).toBe(message);
			expect(sandbox().ledger.requests).toHaveLength(0);
		});

		it('an item with none of the order fields is refused, naming it', async () => {
			const run = await runTradingService(sandbox(), {
				parameters: autoMap(),
				inputItems: [{ json: { row_number: 2, ticker: 'BTCUSDT', qty: '1' } }],
			});
			expect(run.error?.message).toBe('Item 0: has none of the order fields');
			expect(sandbox().ledger.requests).toHaveLength(0);
		});

		it('options and guardrails apply as in the other modes; with Continue On Fail a bad item is an error item and the rest are placed in one request', async () => {
			const inputItems = [
				{ json: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '100', quantity: '0.5' } },
				{ json: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '100', quantity: '2' } },
				{ json: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: 1e-8, quantity: '0.5' } },
				{ json: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '101', quantity: '0.5' } },
			];
			const run = await runTradingService(sandbox(), {
				parameters: autoMap({ maxOrderQuantity: '1', recvWindow: 7000 }),
				inputItems,
				continueOnFail: true,
			});
			expect(run.error).toBeUndefined();
			expect(
				run.items.map((item) => [
					item.pairedItem,
					item.json.outcome,
					item.json.error ?? item.json.success,
				]),
			).toEqual([
				[{ item: 0 }, 'placed', true],
				[{ item: 1 }, 'rejected', 'Item 1, field quantity: 2 is above Max Order Quantity (1)'],
				[{ item: 2 }, 'rejected', 'Item 2, field price: the number 1e-8 is not a plain decimal'],
				[{ item: 3 }, 'placed', true],
			]);
			const [request] = requestsTo(sandbox(), BATCH);
			expect(requestsTo(sandbox(), BATCH)).toHaveLength(1);
			expect(request.query).toMatch(/recvWindow=7000/);
			expect(JSON.parse(request.body)).toHaveLength(2);
		});

		it('a re-run (n8n Retry On Fail) answers placed orders from the write ledger: none placed twice', async () => {
			const inputItems = Array.from({ length: 25 }, (_, index) => ({
				json: {
					symbol: 'BTCUSDT',
					side: 'BUY',
					type: 'LIMIT',
					price: '100',
					quantity: index === 3 ? '1000000' : '0.001',
				},
			}));
			const run = await runTradingService(sandbox(), {
				parameters: autoMap({ failOnRejected: true }),
				inputItems,
				node: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
			});
			expect(run.error?.message).toMatch(
				/^24 orders placed before the run stopped: 1 order\(s\) were rejected/,
			);
			expect(
				requestsTo(sandbox(), BATCH).map(
					(request) => (JSON.parse(request.body) as unknown[]).length,
				),
			).toEqual([20, 6]);
			expect(new Set(sandbox().ledger.orders.map((order) => order.clientOrderId)).size).toBe(24);
			expect(sandbox().ledger.orders).toHaveLength(24);
		});
	});

	describe('validation, before any request', () => {
		const jsonRun = (ordersJson: string) =>
			runTradingService(sandbox(), {
				parameters: { resource: 'order', operation: 'createMany', inputMode: 'json', ordersJson },
			});

		it.each([
			['{"symbol": "BTCUSDT"}', 'Orders (JSON): is not an array'],
			['[{"symbol": "BTCUSDT"', 'Orders (JSON): is not valid JSON'],
			['[1]', 'Orders (JSON)[0]: is not an object'],
			[
				'[{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":"1"}]',
				'Orders (JSON)[0].price: is required for LIMIT orders',
			],
			[
				'[{"symbol":"BTCUSDT","side":"BUY","type":"MARKET","quantity":"1","amount":"2"}]',
				'Orders (JSON)[0].amount: MARKET orders take Quantity or Amount, not both',
			],
			[
				'[{"symbol":"BTCUSDT","side":"BUY","type":"MARKET","quantity":"1","qty":"2"}]',
				'Orders (JSON)[0].qty: is not an order field',
			],
			[
				'[{"symbol":"BTCUSDT","side":"BUY","type":"MARKET","quantity":"1","price":"2"}]',
				'Orders (JSON)[0].price: is not used by MARKET orders',
			],
		])('%s', async (ordersJson, message) => {
			const run = await jsonRun(ordersJson);
			expect(run.error?.message.startsWith(message)).toBe(true);
			expect(sandbox().ledger.requests).toHaveLength(0);
		});

		it('one bad item stops the run before anything is sent', async () => {
			const items = orderItems(30);
			items[29].json.price = '1,5';
			const run = await runTradingService(sandbox(), {
				parameters: fromItems(),
				inputItems: items,
			});
			expect(run.error?.message.startsWith('Price: ')).toBe(true);
			expect((run.error?.context as { itemIndex?: number })?.itemIndex).toBe(29);
			expect(sandbox().ledger.requests).toHaveLength(0);
		});

		it('the same client order ID twice in one run is refused', async () => {
			const items = orderItems(3);
			items[0].json.clientOrderId = 'dup';
			items[2].json.clientOrderId = 'dup';
			const run = await runTradingService(sandbox(), {
				parameters: fromItems(),
				inputItems: items,
			});
			expect(run.error?.message).toBe(
				'Client Order ID: "dup" is used by more than one order (items 0 and 2)',
			);
			expect(sandbox().ledger.requests).toHaveLength(0);
		});

		it('with continue on fail, bad items become error items and the good ones are placed', async () => {
			const items = orderItems(3);
			items[1].json.side = 'HODL';
			const run = await runTradingService(sandbox(), {
				parameters: fromItems(),
				inputItems: items,
				continueOnFail: true,
			});
			expect(run.error).toBeUndefined();
			expect(
				run.items.map((item) => [item.pairedItem, item.json.success ?? item.json.error]),
			).toEqual([
				[{ item: 0 }, true],
				[{ item: 1 }, 'Side: "HODL" is not allowed'],
				[{ item: 2 }, true],
			]);
			expect(sandbox().ledger.orders).toHaveLength(2);
		});
	});
});
