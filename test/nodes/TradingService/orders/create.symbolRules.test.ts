/**
 * Symbol rules in Create, through the node and n8n-core against the sandbox with its realistic
 * MENA rules (BTCUSDT: tick 0.01, step 0.00001, min notional 10; XRPUSDT halted). An order that
 * breaks a rule is refused before any order request; with Fit to Symbol Rules it is rounded the
 * safe way and placed; a failed read of the rules refuses the order, or sends it unchecked when the
 * user chose so; the rules are read once per run and kept for their lifetime. The rules as fixed
 * vectors: orders/symbolRules.test.ts.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { clearSymbolRulesCache } from '../../../../nodes/TradingService/orders/symbolRules';
import { DEFAULT_RETRY_POLICY } from '../../../../nodes/TradingService/transport';
import { errorOf, PATHS, runCounting, type CountedRun } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'realistic' });
const EXCHANGE_INFO = '/api/v1/exchangeInfo';
const TEST_ORDER = '/api/v1/spot/orderTest';

const create = (fields: IDataObject, options: IDataObject = {}) => ({
	resource: 'order',
	operation: 'create',
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	...fields,
	options,
});
const items = (...jsons: IDataObject[]): INodeExecutionData[] => jsons.map((json) => ({ json }));

const paths = (run: CountedRun) => run.requests.map((request) => request.path);
const orderRequests = (run: CountedRun) =>
	run.requests.filter((request) => [PATHS.order, PATHS.batch, TEST_ORDER].includes(request.path));

describe('symbol rules: Create refuses an order that breaks them, before any order request', () => {
	it('issue 23: a price off the tick is refused naming the tick and the nearest valid prices, 0 order requests', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create({ price: '50000.125', quantity: '0.001' }),
		});
		expect(run.error?.message).toBe(
			'Price: 50000.125 is not a multiple of the tick size of BTCUSDT, 0.01 (nearest valid prices: 50000.12 and 50000.13)',
		);
		expect(run.error?.description).toMatch(
			/^Nothing was sent\. Use a price that is a multiple of 0\.01, or turn on Fit to Symbol Rules to have the node round it \(down for a BUY\)\. Outcome: rejected/,
		);
		expect((run.error?.context as IDataObject).outcome).toBe('rejected');
		expect(paths(run)).toEqual([EXCHANGE_INFO]);
		// The node asks for the MENA site's rules, with its key and no signature.
		expect(run.requests[0].query).toBe('site=MENA');
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('issue 23: a quantity off the step is refused, 0 order requests', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create({ price: '50000', quantity: '0.000255' }),
		});
		expect(run.error?.message).toBe(
			'Quantity: 0.000255 is not a multiple of the step size of BTCUSDT, 0.00001 (nearest valid quantities: 0.00025 and 0.00026)',
		);
		expect(orderRequests(run)).toEqual([]);
	});

	it('issue 23: an order under the minimum notional is refused, and Fit to Symbol Rules cannot fix it', async () => {
		for (const options of [{}, { fitToSymbolRules: true }]) {
			const run = await runCounting(sandbox(), {
				parameters: create({ price: '50000', quantity: '0.0001' }, options),
			});
			expect(run.error?.message).toBe(
				'Quantity: the order is worth 5 (Price × Quantity), which is below the minimum order value of BTCUSDT, 10',
			);
			expect(run.error?.description).not.toContain('Fit to Symbol Rules');
			expect(orderRequests(run)).toEqual([]);
		}
	});

	it('issue 23: a halted symbol and a symbol the exchange does not list are refused, 0 order requests', async () => {
		const halted = await runCounting(sandbox(), {
			parameters: create({ symbol: 'XRPUSDT', price: '0.5', quantity: '100' }),
		});
		expect(halted.error?.message).toMatch(/^Symbol: XRPUSDT is halted \(status HALT\)/);
		const unknown = await runCounting(sandbox(), {
			parameters: create({ symbol: 'DOGEUSDT', price: '0.1', quantity: '100' }),
		});
		expect(unknown.error?.message).toBe('Symbol: DOGEUSDT is not a trading pair of the exchange');
		expect([...orderRequests(halted), ...orderRequests(unknown)]).toEqual([]);
	});

	it('issue 23: Test Only orders are checked too: refused before the order-test request', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create({ price: '50000.001', quantity: '0.001' }, { testOnly: true }),
		});
		expect(run.error?.message).toMatch(/^Price: 50000\.001 is not a multiple of the tick size/);
		expect(orderRequests(run)).toEqual([]);
	});

	it('issue 23: all items are checked before the first order is sent: one bad item, nothing sent', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create({ price: '={{ $json.price }}', quantity: '0.001' }),
			inputItems: items({ price: '50000' }, { price: '50000' }, { price: '50000.005' }),
		});
		expect(run.error?.message).toMatch(/^Price: 50000\.005 is not a multiple of the tick size/);
		expect(orderRequests(run)).toEqual([]);
		// The rules are read once for all items.
		expect(paths(run)).toEqual([EXCHANGE_INFO]);
	});

	it('issue 23: with Continue On Fail the good items are placed and the bad one is an error item with outcome rejected', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create({ price: '={{ $json.price }}', quantity: '0.001' }),
			inputItems: items({ price: '50000' }, { price: '50000.005' }),
			continueOnFail: true,
		});
		expect(run.items.map((item) => [item.json.outcome, errorOf(item)?.slice(0, 20)])).toEqual([
			['placed', undefined],
			['rejected', 'Price: 50000.005 is '],
		]);
		expect(orderRequests(run)).toHaveLength(1);
	});
});

describe('symbol rules: Fit to Symbol Rules in Create', () => {
	it('issue 23: a BUY is rounded the safe way (price down, quantity down), placed, and the item says what changed', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create({ price: '50000.129', quantity: '0.0012345' }, { fitToSymbolRules: true }),
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			price: '50000.12',
			origQty: '0.00123',
			fittedToSymbolRules: [
				{ field: 'price', given: '50000.129', sent: '50000.12', rule: 'tickSize 0.01' },
				{ field: 'quantity', given: '0.0012345', sent: '0.00123', rule: 'stepSize 0.00001' },
			],
		});
		expect(sandbox().ledger.orders.map(({ price, origQty }) => [price, origQty])).toEqual([
			['50000.12', '0.00123'],
		]);
	});

	it('issue 23: a SELL price is rounded up to the tick and placed', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create(
				{ side: 'SELL', price: '50000.121', quantity: '0.001' },
				{ fitToSymbolRules: true },
			),
		});
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			fittedToSymbolRules: [
				{ field: 'price', given: '50000.121', sent: '50000.13', rule: 'tickSize 0.01' },
			],
		});
		expect(sandbox().ledger.orders[0].price).toBe('50000.13');
	});

	it('issue 23: an order already within the rules is sent as given, with no fittedToSymbolRules', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create({ price: '50000.10', quantity: '0.001' }, { fitToSymbolRules: true }),
		});
		expect(run.items[0].json.outcome).toBe('placed');
		expect(run.items[0].json).not.toHaveProperty('fittedToSymbolRules');
		expect(new URLSearchParams(orderRequests(run)[0].query).get('price')).toBe('50000.10');
	});

	it('issue 23: a quantity that rounds to zero is refused, 0 order requests', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create({ price: '50000', quantity: '0.000001' }, { fitToSymbolRules: true }),
		});
		expect(run.error?.message).toBe(
			'Quantity: 0.000001 rounds down to 0 on the step size of BTCUSDT, 0.00001',
		);
		expect(orderRequests(run)).toEqual([]);
	});

	it('issue 23: a Test Only order is fitted and the fitted order is tested', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create(
				{ price: '50000.129', quantity: '0.001' },
				{ testOnly: true, fitToSymbolRules: true },
			),
		});
		expect(run.items[0].json).toMatchObject({
			testOnly: true,
			valid: true,
			price: '50000.12',
			fittedToSymbolRules: [expect.objectContaining({ field: 'price', sent: '50000.12' })],
		});
		expect(paths(run)).toEqual([EXCHANGE_INFO, TEST_ORDER]);
	});
});

describe('symbol rules: when they cannot be read', () => {
	let quickRetries: jest.ReplaceProperty<number> | undefined;
	beforeEach(() => {
		quickRetries = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'baseDelayMs', 1);
		sandbox().setFaults({ rules: [{ kind: 'http503', times: 100, path: EXCHANGE_INFO }] });
	});
	afterEach(() => quickRetries?.restore());

	it('issue 23: by default the order is refused with a clear error naming the two fixes, 0 order requests', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create({ price: '50000', quantity: '0.001' }),
		});
		expect(run.error?.message).toBe(
			'The symbol rules could not be read, so the order was not sent',
		);
		expect(run.error?.description).toMatch(
			/^Reading the exchange’s symbol rules \(tick size, step size, minimums\) failed: .+\. Nothing was sent\. Run it again later, or set the option If Symbol Rules Can't Be Read to Send Without Checking/,
		);
		expect((run.error?.context as IDataObject).outcome).toBe('rejected');
		expect(paths(run).every((path) => path === EXCHANGE_INFO)).toBe(true);
		expect(orderRequests(run)).toEqual([]);
	});

	it('issue 23: with Send Without Checking the order is sent and the item says it was not checked, and why', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create(
				{ price: '50000', quantity: '0.001' },
				{ ifSymbolRulesUnreadable: 'sendUnchecked' },
			),
		});
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			symbolRulesChecked: false,
			symbolRulesProblem: expect.stringContaining('HTTP 503'),
		});
		expect(orderRequests(run)).toHaveLength(1);
	});

	it('issue 23: a failed read is not kept: the next run reads the rules again and checks', async () => {
		await runCounting(sandbox(), { parameters: create({ price: '50000', quantity: '0.001' }) });
		sandbox().setFaults({ rules: [] });
		const run = await runCounting(sandbox(), {
			parameters: create({ price: '50000.001', quantity: '0.001' }),
		});
		expect(paths(run)).toEqual([EXCHANGE_INFO]);
		expect(run.error?.message).toMatch(/^Price: 50000\.001 is not a multiple/);
	});
});

describe('symbol rules: the cache', () => {
	it('issue 23: a second run within the rules’ lifetime reads no exchange info', async () => {
		const first = await runCounting(sandbox(), {
			parameters: create({ price: '50000', quantity: '0.001' }),
		});
		const second = await runCounting(sandbox(), {
			parameters: create({ price: '50000.01', quantity: '0.001' }),
		});
		expect(paths(first)).toEqual([EXCHANGE_INFO, PATHS.order]);
		expect(paths(second)).toEqual([PATHS.order]);
		// Cleared (as a new lifetime would), the rules are read again.
		clearSymbolRulesCache();
		const third = await runCounting(sandbox(), {
			parameters: create({ price: '50000.02', quantity: '0.001' }),
		});
		expect(paths(third)).toEqual([EXCHANGE_INFO, PATHS.order]);
	});

	it('issue 23: Get Symbol Rules reads afresh and refreshes what Create checks against', async () => {
		await runCounting(sandbox(), {
			parameters: create({ price: '50000', quantity: '0.001' }),
		});
		const rules = await runCounting(sandbox(), {
			parameters: { resource: 'market', operation: 'getSymbolRules', symbol: 'BTCUSDT' },
		});
		expect(paths(rules)).toEqual([EXCHANGE_INFO]);
		const after = await runCounting(sandbox(), {
			parameters: create({ price: '50000', quantity: '0.001' }),
		});
		expect(paths(after)).toEqual([PATHS.order]);
	});
});

describe('symbol rules and the write ledger: a retried execution never reports a placed order as refused', () => {
	let quickRetries: jest.ReplaceProperty<number> | undefined;
	beforeEach(() => {
		quickRetries = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'baseDelayMs', 1);
	});
	afterEach(() => quickRetries?.restore());

	// Item 0 is fitted (50000.129 → 50000.12) and placed; item 1 is refused by the exchange (the
	// balance pays 2 BTC at most), so the execution fails and the user retries it.
	const twoOrders = create(
		{ price: '={{ $json.price }}', quantity: '={{ $json.quantity }}' },
		{ fitToSymbolRules: true },
	);
	const twoItems = items(
		{ price: '50000.129', quantity: '0.001' },
		{ price: '50000', quantity: '90' },
	);

	it('issue 23: the retry cannot read the rules: item 0 comes from the ledger, placed, nothing sent again; item 1 is refused', async () => {
		const first = await runCounting(sandbox(), { parameters: twoOrders, inputItems: twoItems });
		expect(first.error?.message).toBe('The account balance is too low for this request');
		expect(sandbox().ledger.orders).toHaveLength(1);
		expect(sandbox().ledger.orders[0].price).toBe('50000.12');

		clearSymbolRulesCache();
		sandbox().setFaults({ rules: [{ kind: 'http503', times: 100, path: EXCHANGE_INFO }] });
		const retry = await runCounting(sandbox(), {
			parameters: twoOrders,
			inputItems: twoItems,
			continueOnFail: true,
			retryOf: first,
		});
		expect(retry.items[0].json).toMatchObject({
			outcome: 'placed',
			orderId: sandbox().ledger.orders[0].orderId,
			price: '50000.12',
		});
		expect(retry.items[1].json.error).toBe(
			'The symbol rules could not be read, so the order was not sent',
		);
		expect(orderRequests(retry)).toEqual([]);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('issue 23: the retry runs with Fit to Symbol Rules turned off, so item 0 as given breaks the tick: still placed from the ledger, nothing sent again', async () => {
		const first = await runCounting(sandbox(), { parameters: twoOrders, inputItems: twoItems });
		expect(first.error?.message).toBe('The account balance is too low for this request');
		const retry = await runCounting(sandbox(), {
			parameters: { ...twoOrders, options: {} },
			inputItems: twoItems,
			continueOnFail: true,
			retryOf: first,
		});
		expect(retry.items[0].json).toMatchObject({ outcome: 'placed', price: '50000.12' });
		// Item 1 was refused, so nothing of it was kept: it is checked (and sent) like a new order.
		expect(retry.items[1].json.error).toBe('The account balance is too low for this request');
		expect(orderRequests(retry).map((request) => request.path)).toEqual([PATHS.order]);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});
});
