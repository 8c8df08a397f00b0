/**
 * Symbol rules in Create Many, through the node and n8n-core against the sandbox with its realistic
 * MENA rules: every order of every item is checked, with the guardrails, before the first batch;
 * a refused order is refused as a guardrail refuses it (the run fails, or an error item with
 * outcome rejected under Continue On Fail); Fit to Symbol Rules rounds and reports per order; a
 * failed read of the rules refuses every order or sends them unchecked. Create: create.symbolRules.test.ts.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { clearSymbolRulesCache } from '../../../../nodes/TradingService/orders/symbolRules';
import { DEFAULT_RETRY_POLICY } from '../../../../nodes/TradingService/transport';
import { errorOf, PATHS, runCounting, type CountedRun } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'realistic' });
const EXCHANGE_INFO = '/api/v1/exchangeInfo';

const fromJson = (orders: IDataObject[], options: IDataObject = {}) => ({
	resource: 'order',
	operation: 'createMany',
	inputMode: 'json',
	ordersJson: JSON.stringify(orders),
	options,
});
const fromItems = (options: IDataObject = {}) => ({
	resource: 'order',
	operation: 'createMany',
	inputMode: 'items',
	symbol: '={{ $json.symbol }}',
	side: '={{ $json.side }}',
	type: '={{ $json.type }}',
	price: '={{ $json.price }}',
	quantity: '={{ $json.quantity }}',
	options,
});
const items = (...jsons: IDataObject[]): INodeExecutionData[] => jsons.map((json) => ({ json }));
const buy = (price: string, quantity = '0.001', symbol = 'BTCUSDT'): IDataObject => ({
	symbol,
	side: 'BUY',
	type: 'LIMIT',
	price,
	quantity,
});

const batches = (run: CountedRun) => run.requests.filter((request) => request.path === PATHS.batch);

describe('symbol rules: Create Many checks every order before the first batch', () => {
	it('issue 23: one order off the tick refuses the run naming that order, 0 batch requests', async () => {
		const run = await runCounting(sandbox(), {
			parameters: fromJson([buy('50000'), buy('50000.005'), buy('3000', '0.01', 'ETHUSDT')]),
		});
		expect(run.error?.message).toBe(
			'Orders (JSON)[1].price: 50000.005 is not a multiple of the tick size of BTCUSDT, 0.01 (nearest valid prices: 50000 and 50000.01)',
		);
		expect((run.error?.context as IDataObject).outcome).toBe('rejected');
		expect(run.requests.map((request) => request.path)).toEqual([EXCHANGE_INFO]);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('issue 23: step and min notional breaks are refused as guardrails are: error items with outcome rejected under Continue On Fail', async () => {
		const run = await runCounting(sandbox(), {
			parameters: fromItems({ maxOrderAmount: '100000' }),
			inputItems: items(
				buy('50000', '0.001'),
				buy('50000', '0.0012345'),
				buy('50000', '0.0001'),
				buy('50000', '3'),
			),
			continueOnFail: true,
		});
		expect(run.items.map((item) => [item.json.outcome, errorOf(item)])).toEqual([
			['placed', undefined],
			[
				'rejected',
				'Quantity: 0.0012345 is not a multiple of the step size of BTCUSDT, 0.00001 (nearest valid quantities: 0.00123 and 0.00124)',
			],
			[
				'rejected',
				'Quantity: the order is worth 5 (Price × Quantity), which is below the minimum order value of BTCUSDT, 10',
			],
			[
				'rejected',
				'Quantity: the order is worth 150000 (Price × Quantity), above Max Order Amount (100000)',
			],
		]);
		// One batch, with the one good order only.
		expect(batches(run).map((request) => JSON.parse(request.body).length)).toEqual([1]);
	});

	it('issue 23: an item whose JSON holds one bad order is refused whole: none of its orders is sent', async () => {
		const run = await runCounting(sandbox(), {
			parameters: fromJson([buy('50000'), buy('50000.005')]),
			continueOnFail: true,
		});
		expect(run.items).toHaveLength(1);
		expect(errorOf(run.items[0])).toMatch(/^Orders \(JSON\)\[1\]\.price: 50000\.005/);
		expect(batches(run)).toEqual([]);
	});

	it('issue 23: Fit to Symbol Rules rounds each order the safe way, places them, and each item says what changed', async () => {
		const run = await runCounting(sandbox(), {
			parameters: fromJson(
				[
					buy('50000.129', '0.0012345'),
					{ ...buy('50000.121'), side: 'SELL' },
					buy('3000.5', '0.01', 'ETHUSDT'),
				],
				{ fitToSymbolRules: true },
			),
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => [item.json.outcome, item.json.fittedToSymbolRules])).toEqual([
			[
				'placed',
				[
					{ field: 'price', given: '50000.129', sent: '50000.12', rule: 'tickSize 0.01' },
					{ field: 'quantity', given: '0.0012345', sent: '0.00123', rule: 'stepSize 0.00001' },
				],
			],
			['placed', [{ field: 'price', given: '50000.121', sent: '50000.13', rule: 'tickSize 0.01' }]],
			['placed', undefined],
		]);
		expect(
			sandbox()
				.ledger.orders.map(({ side, price, origQty }) => [side, price, origQty])
				.sort(),
		).toEqual([
			['BUY', '3000.5', '0.01'],
			['BUY', '50000.12', '0.00123'],
			['SELL', '50000.13', '0.001'],
		]);
	});
});

describe('symbol rules: Create Many when they cannot be read', () => {
	let quickRetries: jest.ReplaceProperty<number> | undefined;
	beforeEach(() => {
		quickRetries = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'baseDelayMs', 1);
		sandbox().setFaults({ rules: [{ kind: 'http503', times: 100, path: EXCHANGE_INFO }] });
	});
	afterEach(() => quickRetries?.restore());

	it('issue 23: by default every order is refused, 0 batch requests', async () => {
		const run = await runCounting(sandbox(), { parameters: fromJson([buy('50000'), buy('3000')]) });
		expect(run.error?.message).toBe(
			'The symbol rules could not be read, so the order was not sent',
		);
		expect(batches(run)).toEqual([]);
	});

	it('issue 23: with Send Without Checking every order is sent and each item says it was not checked', async () => {
		const run = await runCounting(sandbox(), {
			parameters: fromJson([buy('50000'), buy('50001')], {
				ifSymbolRulesUnreadable: 'sendUnchecked',
			}),
		});
		expect(run.items.map((item) => [item.json.outcome, item.json.symbolRulesChecked])).toEqual([
			['placed', false],
			['placed', false],
		]);
		expect(run.items[0].json.symbolRulesProblem).toContain('HTTP 503');
		expect(batches(run)).toHaveLength(1);
	});
});

describe('symbol rules and the write ledger in Create Many', () => {
	let quickRetries: jest.ReplaceProperty<number> | undefined;
	beforeEach(() => {
		quickRetries = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'baseDelayMs', 1);
	});
	afterEach(() => quickRetries?.restore());

	it('issue 23: a retried execution that cannot read the rules answers the fitted order it placed from the ledger, sends nothing again, and refuses the one never placed', async () => {
		const parameters = fromItems({ fitToSymbolRules: true });
		const input = items(buy('50000.129'), buy('50000', '90'));
		const first = await runCounting(sandbox(), { parameters, inputItems: input });
		expect(first.items.map((item) => item.json.outcome)).toEqual(['placed', 'rejected']);
		expect(sandbox().ledger.orders.map((order) => order.price)).toEqual(['50000.12']);

		clearSymbolRulesCache();
		sandbox().setFaults({ rules: [{ kind: 'http503', times: 100, path: EXCHANGE_INFO }] });
		const retry = await runCounting(sandbox(), {
			parameters,
			inputItems: input,
			continueOnFail: true,
			retryOf: first,
		});
		expect(retry.items[0].json).toMatchObject({
			outcome: 'placed',
			order: expect.objectContaining({ price: '50000.12' }),
		});
		expect(errorOf(retry.items[1])).toBe(
			'The symbol rules could not be read, so the order was not sent',
		);
		expect(batches(retry)).toEqual([]);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('an item an earlier try sent part of: the order it placed is answered from the ledger, the one it never sent is refused on its own, and nothing is sent', async () => {
		// Item 0 has a BTCUSDT and an ETHUSDT order, so they go in two batches. The BTCUSDT batch also
		// carries item 1's order, which the balance cannot pay: with Fail on Any Rejected Order the
		// run stops there, before the ETHUSDT batch.
		const parameters = {
			...fromJson([], { failOnRejected: true }),
			ordersJson: '={{ $json.orders }}',
		};
		const input = items(
			{ orders: [buy('50000'), buy('3000', '0.01', 'ETHUSDT')] },
			{ orders: [buy('50000', '90')] },
		);
		const first = await runCounting(sandbox(), { parameters, inputItems: input });
		// The run placed one order before the refusal stopped it: its message says so first.
		expect(first.error?.message).toMatch(
			/^1 order placed before the run stopped: 1 order\(s\) were rejected/,
		);
		expect(batches(first)).toHaveLength(1);
		expect(sandbox().ledger.orders.map((order) => order.symbol)).toEqual(['BTCUSDT']);

		clearSymbolRulesCache();
		sandbox().setFaults({ rules: [{ kind: 'http503', times: 100, path: EXCHANGE_INFO }] });
		const retry = await runCounting(sandbox(), {
			parameters,
			inputItems: input,
			continueOnFail: true,
			retryOf: first,
		});
		expect(
			retry.items.map((item) => [item.pairedItem, item.json.symbol ?? null, item.json.outcome]),
		).toEqual([
			[{ item: 0 }, 'BTCUSDT', 'placed'],
			[{ item: 0 }, 'ETHUSDT', 'rejected'],
			[{ item: 1 }, null, 'rejected'],
		]);
		expect(retry.items[0].json).toMatchObject({
			replayed: true,
			order: expect.objectContaining({ orderId: sandbox().ledger.orders[0].orderId }),
		});
		expect(retry.items[1].json).toMatchObject({
			success: false,
			error: 'The symbol rules could not be read, so the order was not sent',
			request: expect.objectContaining({ symbol: 'ETHUSDT' }),
		});
		expect(errorOf(retry.items[2])).toBe(
			'The symbol rules could not be read, so the order was not sent',
		);
		expect(batches(retry)).toEqual([]);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});
});
