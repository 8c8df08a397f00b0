/**
 * The guards of Create and Create Many through the node, against the sandbox: guardrails a MARKET
 * order could slip past (defect 9), booleans that decide whether money moves (defect 10), near-miss
 * keys of auto-mapped items (defect 13), Test Only by Amount (a UAE rule) and the exact digits of
 * Create Many's JSON mode. Every refusal comes before any request. Values come as fixed
 * parameters, from items through n8n's expression engine (`={{ ... }}`), from auto-mapped item
 * fields and from JSON: the ways an agent, a webhook or a sheet fills them. The same rules as
 * fixed vectors: orders/orderOptions.test.ts, validation.test.ts, createManyInput.test.ts.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { requestsTo } from '../../../../tools/harness/node';
import { errorOf, PATHS, runCounting } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });
const TEST_ORDER = '/api/v1/spot/orderTest';

const create = (fields: IDataObject, options: IDataObject = {}) => ({
	resource: 'order',
	operation: 'create',
	symbol: 'BTCUSDT',
	side: 'BUY',
	...fields,
	options,
});
const createMany = (inputMode: string, fields: IDataObject, options: IDataObject = {}) => ({
	resource: 'order',
	operation: 'createMany',
	inputMode,
	...fields,
	options,
});
/** Item mode of Create Many: every order field mapped by expression. */
const mapped = {
	symbol: '={{ $json.symbol }}',
	side: '={{ $json.side }}',
	type: '={{ $json.type }}',
	price: '={{ $json.price ?? "" }}',
	quantity: '={{ $json.quantity ?? "" }}',
	amount: '={{ $json.amount ?? "" }}',
};
const items = (...jsons: IDataObject[]): INodeExecutionData[] => jsons.map((json) => ({ json }));

const marketBuyByAmount = { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', amount: '50000' };
const marketSellByAmount = { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', amount: '50000' };

describe('defect 9: a guardrail that cannot be checked before sending refuses the order', () => {
	const byAmount =
		'a MARKET order by Amount cannot be checked against Max Order Quantity: its quantity is known only once it trades';

	it('defect 9: Create, MARKET BUY by Amount 50,000 under Max Order Quantity 0.01: refused naming both, 0 requests', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create({ type: 'MARKET', amount: '50000' }, { maxOrderQuantity: '0.01' }),
		});
		expect(run.error?.message).toBe(`Amount: ${byAmount}`);
		expect(run.error?.description).toMatch(
			/^The node’s Max Order Quantity option refuses this order; nothing was sent\. Give the order a Quantity \(in the base coin\) instead of an Amount, or clear Max Order Quantity/,
		);
		expect(run.requests).toEqual([]);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('defect 9: Create, the order and the limit from expressions, BUY and SELL: refused, 0 requests', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create(
				{
					side: '={{ $json.side }}',
					type: '={{ $json.type }}',
					amount: '={{ $json.amount }}',
				},
				{ maxOrderQuantity: '={{ $json.cap }}' },
			),
			inputItems: items(
				{ ...marketBuyByAmount, cap: 0.01 },
				{ ...marketSellByAmount, cap: '0.01' },
			),
			continueOnFail: true,
		});
		expect(run.items.map((item) => [errorOf(item), item.json.outcome])).toEqual([
			[`Amount: ${byAmount}`, 'rejected'],
			[`Amount: ${byAmount}`, 'rejected'],
		]);
		expect(run.requests).toEqual([]);
	});

	it('defect 9: both limits set: MARKET orders by Amount and by Quantity are refused, a LIMIT order within both is placed', async () => {
		const both = { maxOrderQuantity: '0.01', maxOrderAmount: '1000' };
		const run = await runCounting(sandbox(), {
			parameters: createMany('autoMap', {}, both),
			inputItems: items(
				{ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', amount: '100' },
				{ symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: '0.001' },
				{ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT_MAKER', price: '100', quantity: '0.01' },
			),
			continueOnFail: true,
		});
		expect(run.items.map((item) => errorOf(item) ?? item.json.outcome)).toEqual([
			`Item 0, field amount: ${byAmount}`,
			'Item 1, field quantity: a MARKET order by Quantity cannot be checked against Max Order Amount: its price is known only once it trades',
			'placed',
		]);
		expect(run.items[0].json.description).toMatch(
			/With both Max Order Quantity and Max Order Amount set, only LIMIT and LIMIT_MAKER orders/,
		);
		expect(requestsTo(sandbox(), PATHS.batch)).toHaveLength(1);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it.each([
		['auto-map', createMany('autoMap', {}, { maxOrderQuantity: '0.01' }), 'Item 0, field amount'],
		[
			'JSON text',
			createMany(
				'json',
				{ ordersJson: JSON.stringify([marketBuyByAmount]) },
				{ maxOrderQuantity: '0.01' },
			),
			'Orders (JSON)[0].amount',
		],
		[
			'JSON from an expression',
			createMany('json', { ordersJson: '={{ [$json] }}' }, { maxOrderQuantity: '0.01' }),
			'Orders (JSON)[0].amount',
		],
		[
			'items mapped by expression',
			createMany('items', mapped, { maxOrderQuantity: '={{ "0.01" }}' }),
			'Amount',
		],
	])(
		'defect 9: Create Many (%s), MARKET BUY by Amount under Max Order Quantity: refused, 0 requests',
		async (_mode, parameters, field) => {
			const run = await runCounting(sandbox(), {
				parameters,
				inputItems: items(marketBuyByAmount),
			});
			expect(run.error?.message).toBe(`${field}: ${byAmount}`);
			expect(run.requests).toEqual([]);
		},
	);

	it('defect 9: a guardrail whose expression gives nothing is refused, not read as no limit', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create(
				{ type: 'LIMIT', price: '100', quantity: '5' },
				{ maxOrderQuantity: '={{ $json.cap }}' },
			),
			inputItems: items({ note: 'no cap field' }),
		});
		expect(run.error?.message).toBe('Max Order Quantity: its expression gave no value');
		expect(run.requests).toEqual([]);
	});
});

describe('defect 10: booleans that decide whether money moves take true or false only', () => {
	const limitOrder = { type: 'LIMIT', price: '100', quantity: '0.01' };

	it.each([
		['the text "true"', 'true', 'Test Only: the text "true" is not true or false'],
		['the text "TRUE"', 'TRUE', 'Test Only: the text "TRUE" is not true or false'],
		['the number 1', 1, 'Test Only: the number 1 is not true or false'],
		['the text "false"', 'false', 'Test Only: the text "false" is not true or false'],
		['the number 0', 0, 'Test Only: the number 0 is not true or false'],
		['null', null, 'Test Only: nothing (its expression gave no value) is not true or false'],
	])(
		'defect 10: Test Only from an expression giving %s: an error naming the field, 0 requests',
		async (_case, value, message) => {
			const run = await runCounting(sandbox(), {
				parameters: create(limitOrder, { testOnly: '={{ $json.test }}' }),
				inputItems: items({ test: value }),
			});
			expect(run.error?.message).toBe(message);
			expect(run.error?.description).toMatch(/{{ \$json\.test === 'true' }}/);
			expect(run.requests).toEqual([]);
			expect(sandbox().ledger.orders).toHaveLength(0);
		},
	);

	it('defect 10: Test Only from an expression giving nothing (a missing field): refused, 0 requests', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create(limitOrder, { testOnly: '={{ $json.test }}' }),
			inputItems: items({}),
		});
		expect(run.error?.message).toBe(
			'Test Only: nothing (its expression gave no value) is not true or false',
		);
		expect(run.requests).toEqual([]);
	});

	it('defect 10: Test Only stored as the text "true" (an edited workflow file): refused, 0 requests', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create(limitOrder, { testOnly: 'true' }),
		});
		expect(run.error?.message).toBe('Test Only: the text "true" is not true or false');
		expect(run.requests).toEqual([]);
	});

	it('defect 10: an expression giving a boolean works: true tests, false places', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create(limitOrder, { testOnly: "={{ $json.test === 'true' }}" }),
			inputItems: items({ test: 'true' }, { test: 'no' }),
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.testOnly ?? item.json.outcome)).toEqual([
			true,
			'placed',
		]);
		expect(run.requests.map((request) => request.path)).toEqual([
			PATHS.exchangeInfo,
			TEST_ORDER,
			PATHS.order,
		]);
	});

	it.each([
		['Create', 'Generate Client Order ID', create(limitOrder, { generateClientOrderId: 'false' })],
		[
			'Create Many, auto-map',
			'Fail on Any Rejected Order',
			createMany('autoMap', {}, { failOnRejected: '={{ $json.strict }}' }),
		],
		[
			'Create Many, JSON',
			'Generate Client Order ID',
			createMany(
				'json',
				{ ordersJson: '={{ JSON.stringify([$json]) }}' },
				{ generateClientOrderId: '={{ $json.strict }}' },
			),
		],
	])(
		'defect 10: %s refuses %s given as text, before any request',
		async (_mode, label, parameters) => {
			const run = await runCounting(sandbox(), {
				parameters,
				inputItems: items({ ...marketBuyByAmount, amount: '10', strict: 'true' }),
			});
			expect(run.error?.message).toMatch(new RegExp(`^${label}: the text "(?:true|false)"`));
			expect(run.requests).toEqual([]);
		},
	);
});

describe('UAE rule: Test Only by Amount', () => {
	it('UAE rule: Test Only refuses a MARKET order by Amount before any request, naming Test Only and Amount', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create({ type: 'MARKET', amount: '100' }, { testOnly: true }),
		});
		expect(run.error?.message).toBe('Amount: Test Only cannot test a MARKET order by Amount');
		expect(run.error?.description).toMatch(
			/order-test endpoint takes a Quantity and no Amount, so nothing was sent\. To test the order, give it a Quantity/,
		);
		expect(run.requests).toEqual([]);
	});

	it('UAE rule: a MARKET order by Quantity is still tested', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create({ type: 'MARKET', quantity: '0.01' }, { testOnly: true }),
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ testOnly: true, placed: false });
		expect(run.requests.map((request) => request.path)).toEqual([PATHS.exchangeInfo, TEST_ORDER]);
	});
});

describe('defect 13: auto-map refuses keys that nearly name an order field', () => {
	const order = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '100', quantity: '0.01' };

	it.each([
		[
			'newClientOrderId ',
			'row-7',
			'Item 0, field "newClientOrderId ": is not an order field, but newClientOrderId is',
		],
		[
			'clientOrderId',
			'row-7',
			'Item 0, field clientOrderId: is not an order field, but newClientOrderId is',
		],
		[' price', '100', 'Item 0, field " price": is not an order field, but price is'],
		[
			'time_in_force',
			'GTC',
			'Item 0, field time_in_force: is not an order field, but timeInForce is',
		],
	])(
		'defect 13: the key %p is refused, naming the item, the key and the field, 0 requests',
		async (key, value, message) => {
			const run = await runCounting(sandbox(), {
				parameters: createMany('autoMap', {}),
				inputItems: items({ ...order, [key]: value }),
			});
			expect(run.error?.message).toBe(message);
			expect(run.error?.description).toMatch(/^Rename it to /);
			expect(run.requests).toEqual([]);
		},
	);

	it('defect 13: a second run of sheet rows with a "newClientOrderId " header places nothing twice: every row is refused', async () => {
		const rows = items(
			{ ...order, 'newClientOrderId ': 'row-1' },
			{ ...order, 'newClientOrderId ': 'row-2' },
		);
		for (let run = 0; run < 2; run++) {
			await runCounting(sandbox(), {
				parameters: createMany('autoMap', {}),
				inputItems: rows,
				continueOnFail: true,
			});
		}
		expect(sandbox().ledger.orders).toHaveLength(0);
	});
});

describe('Create Many JSON mode keeps exact digits', () => {
	it('defect 12 (JSON mode): quantity 0.123456789012345678 as a JSON number is sent digit for digit', async () => {
		const run = await runCounting(sandbox(), {
			parameters: createMany('json', {
				ordersJson:
					'[{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","price":"10","quantity":0.123456789012345678}]',
			}),
		});
		expect(run.error).toBeUndefined();
		const [batch] = requestsTo(sandbox(), PATHS.batch);
		expect(batch.body).toContain('"quantity":"0.123456789012345678"');
		expect(run.items[0].json.outcome).toBe('placed');
	});

	it('defect 12 (JSON mode): a number that reaches the node already rounded (an expression, 0.1 + 0.2) is refused, naming the field', async () => {
		const run = await runCounting(sandbox(), {
			parameters: createMany('json', { ordersJson: '={{ [$json] }}' }),
			inputItems: items({
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'LIMIT',
				price: '10',
				quantity: 0.1 + 0.2,
			}),
		});
		expect(run.error?.message).toBe(
			'Orders (JSON)[0].quantity: the number 0.30000000000000004 may have lost digits',
		);
		expect(run.requests).toEqual([]);
	});

	it('defect 12 (auto-map): a number of 17 significant digits is refused, naming the item and field', async () => {
		const run = await runCounting(sandbox(), {
			parameters: createMany('autoMap', {}),
			inputItems: items({
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'LIMIT',
				price: '10',
				quantity: 0.123456789012345678,
			}),
		});
		expect(run.error?.message).toBe(
			'Item 0, field quantity: the number 0.12345678901234568 may have lost digits',
		);
		expect(run.requests).toEqual([]);
	});
});
