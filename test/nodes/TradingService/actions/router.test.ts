import type { IDataObject, INodePropertyOptions } from 'n8n-workflow';

import { TradingService } from '../../../../nodes/TradingService/TradingService.node';

import { DEMO_ACCOUNTS } from '../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { useSandbox } from '../../../support/sandbox';

// The router through n8n-core's real executor against the sandbox: which operation runs, how
// output items are paired with input items, and what Continue On Fail makes of an item's error.

const sandbox = useSandbox({ rateLimit: false, requestRates: false });
const ORDER = '/api/v1/spot/order';
const TRANSFER = '/api/v1/account/assetTransfer';
const pairedItems = (items: Array<{ pairedItem?: unknown }>) =>
	items.map((item) => (item.pairedItem as { item: number }).item);

describe('router: dispatch', () => {
	const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();
	const order = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '1', quantity: '0.001' };
	const operations: Array<[string, string, string, string, (orderId: string) => IDataObject]> = [
		['account', 'getBalances', 'GET', '/api/v1/account', () => ({})],
		[
			'account',
			'getHistory',
			'GET',
			'/api/v1/account/balanceFlow',
			() => ({ flowType: 32, startTime: hourAgo(), endTime: new Date().toISOString() }),
		],
		[
			'account',
			'transferAsset',
			'POST',
			TRANSFER,
			() => ({
				fromAccountId: DEMO_ACCOUNTS.mainTrading,
				toAccountId: DEMO_ACCOUNTS.subTrading,
				coin: 'USDT',
				quantity: '1',
			}),
		],
		['market', 'getPrice', 'GET', '/quote/v1/ticker/price', () => ({ symbol: 'BTCUSDT' })],
		['market', 'get24hTicker', 'GET', '/quote/v1/ticker/24hr', () => ({ symbol: 'BTCUSDT' })],
		['market', 'getOrderBook', 'GET', '/quote/v1/depth', () => ({ symbol: 'BTCUSDT' })],
		[
			'market',
			'getCandles',
			'GET',
			'/quote/v1/klines',
			() => ({ symbol: 'BTCUSDT', interval: '1h', limit: 2 }),
		],
		['market', 'getRecentTrades', 'GET', '/quote/v1/trades', () => ({ symbol: 'BTCUSDT' })],
		['market', 'getSymbolRules', 'GET', '/api/v1/exchangeInfo', () => ({ symbol: 'BTCUSDT' })],
		['order', 'create', 'POST', '/api/v1/spot/new/order', () => order],
		[
			'order',
			'createMany',
			'POST',
			'/api/v1/spot/batchOrders',
			() => ({ inputMode: 'items', ...order }),
		],
		['order', 'get', 'GET', ORDER, (orderId) => ({ orderId })],
		['order', 'getMany', 'GET', '/api/v1/spot/openOrders', () => ({ orderState: 'open' })],
		['order', 'cancel', 'DELETE', ORDER, (orderId) => ({ orderId })],
		[
			'order',
			'cancelMany',
			'GET',
			'/api/v1/spot/openOrders',
			() => ({ cancelBy: 'symbol', symbol: 'BTCUSDT' }),
		],
	];

	it('runs every operation version 1 offers: the names are read from its description', () => {
		const { properties } = new TradingService().nodeVersions[1].description;
		const offered = properties
			.filter((property) => property.name === 'operation')
			.flatMap((property) =>
				(property.options as INodePropertyOptions[]).map(
					(option) =>
						`${String(property.displayOptions?.show?.resource)} > ${String(option.value)}`,
				),
			);
		expect(offered.length).toBeGreaterThan(10);
		expect(operations.map(([resource, operation]) => `${resource} > ${operation}`).sort()).toEqual(
			offered.sort(),
		);
	});

	it.each(operations)(
		'%s > %s runs its own operation: its first request (after the symbol rules of an order) is %s %s',
		async (resource, operation, method, path, parameters) => {
			const [orderId] = await placeRestingOrders(sandbox(), 1);
			const since = sandbox().ledger.requests.length;
			const run = await runTradingService(sandbox(), {
				parameters: { resource, operation, ...parameters(orderId) },
			});
			expect(run.error).toBeUndefined();
			// Create and Create Many read the symbol rules before anything else, and an operation that
			// names the key's trading account reads the key's accounts first
			const [first] = sandbox()
				.ledger.requests.slice(since)
				.filter(
					(request) =>
						(operation === 'getSymbolRules' || request.path !== '/api/v1/exchangeInfo') &&
						request.path !== '/api/v1/account/type',
				);
			expect([first.method, first.path]).toEqual([method, path]);
		},
	);

	it('an operation the node does not have is an error naming it; under Continue On Fail, one error item per input', async () => {
		const parameters = { resource: 'order', operation: 'replace' };
		const run = await runTradingService(sandbox(), { parameters });
		expect(run.error?.message).toBe('The operation "replace" of "order" is not supported');
		const continued = await runTradingService(sandbox(), {
			parameters,
			inputItems: [{ json: {} }, { json: {} }],
			continueOnFail: true,
		});
		expect(continued.items.map((item) => item.json)).toEqual([
			{ error: 'The operation "replace" of "order" is not supported' },
			{ error: 'The operation "replace" of "order" is not supported' },
		]);
		expect(pairedItems(continued.items)).toEqual([0, 1]);
		expect(sandbox().ledger.requests).toHaveLength(0);
	});
});

describe('router: Wait After a Rate Limit given as neither true nor false', () => {
	it.each([
		[
			'Create',
			{
				resource: 'order',
				operation: 'create',
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'LIMIT',
				price: '1',
				quantity: '0.001',
			},
		],
		['Get Balances', { resource: 'account', operation: 'getBalances' }],
	])(
		'%s under Continue On Fail: one error item per input item, nothing sent (not the input passed on)',
		async (_, operation) => {
			const continued = await runTradingService(sandbox(), {
				parameters: { ...operation, options: { waitAfterRateLimit: 'maybe' } },
				inputItems: [{ json: { symbol: 'BTCUSDT' } }, { json: { symbol: 'ETHUSDT' } }],
				node: { typeVersion: 2 },
				continueOnFail: true,
			});
			expect(continued.items).toHaveLength(2);
			for (const item of continued.items) {
				expect(String(item.json.error)).toMatch(/Wait After a Rate Limit/);
				// A write says nothing was executed; a read has no outcome.
				expect(item.json.outcome).toBe(operation.operation === 'create' ? 'rejected' : undefined);
			}
			expect(pairedItems(continued.items)).toEqual([0, 1]);
			expect(sandbox().ledger.requests).toHaveLength(0);
		},
	);
});

describe('router: pairing and Continue On Fail', () => {
	it('pairs every record of an item with that input item, in input order', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: { resource: 'account', operation: 'getBalances' },
			inputItems: [{ json: {} }, { json: {} }],
		});
		expect(run.error).toBeUndefined();
		const coins = run.items.length / 2;
		expect(coins).toBeGreaterThan(1);
		expect(pairedItems(run.items)).toEqual([...Array(coins).fill(0), ...Array(coins).fill(1)]);
		// One read serves both items (Get Balances takes nothing from the item).
		expect(requestsTo(sandbox(), '/api/v1/account')).toHaveLength(1);
	});

	it('Continue On Fail, a read: the failing item becomes an error item in its place, without an outcome; the others run', async () => {
		const [first, second] = await placeRestingOrders(sandbox(), 2);
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'get', orderId: '={{ $json.id }}' },
			inputItems: [{ json: { id: first } }, { json: { id: '-5' } }, { json: { id: second } }],
			continueOnFail: true,
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.orderId)).toEqual([first, undefined, second]);
		expect(run.items[1].json).toEqual({
			error: 'Order ID: "-5" is not an order ID',
			description: expect.stringContaining('the numeric ID the service gave the order'),
		});
		expect(pairedItems(run.items)).toEqual([0, 1, 2]);
		expect(requestsTo(sandbox(), ORDER, since)).toHaveLength(2);
	});

	it('Continue On Fail, a write: the error item of input refused before sending says outcome rejected', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'account',
				operation: 'transferAsset',
				fromAccountId: DEMO_ACCOUNTS.mainTrading,
				toAccountId: DEMO_ACCOUNTS.subTrading,
				coin: 'USDT',
				quantity: '={{ $json.quantity }}',
			},
			inputItems: [{ json: { quantity: '1' } }, { json: { quantity: 'abc' } }],
			continueOnFail: true,
		});
		expect(run.items[0].json.outcome).toBe('placed');
		expect(run.items[1].json).toMatchObject({
			error: 'Quantity: "abc" is not a decimal number',
			outcome: 'rejected',
			description: expect.stringMatching(/Outcome: rejected \(nothing was executed\)\.$/),
		});
		expect(pairedItems(run.items)).toEqual([0, 1]);
		expect(requestsTo(sandbox(), TRANSFER)).toHaveLength(1);
	});

	it('without Continue On Fail, the first failing item stops the run: later items are not run', async () => {
		const [first, third] = await placeRestingOrders(sandbox(), 2);
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'cancel', orderId: '={{ $json.id }}' },
			inputItems: [{ json: { id: first } }, { json: { id: '-5' } }, { json: { id: third } }],
		});
		expect(run.error?.message).toBe('Order ID: "-5" is not an order ID');
		expect(run.error?.context?.outcome).toBe('rejected');
		expect(requestsTo(sandbox(), ORDER, since)).toHaveLength(1);
		expect(sandbox().ledger.cancels.map((cancel) => cancel.orderId)).toEqual([first]);
	});

	it('checks across items run before the first item: without Continue On Fail nothing is sent, with it only the failing item is an error', async () => {
		const parameters = {
			resource: 'order',
			operation: 'create',
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'LIMIT',
			price: '1',
			quantity: '0.001',
			newClientOrderId: '={{ $json.id }}',
		};
		const inputItems = [{ json: { id: 'a' } }, { json: { id: 'b' } }, { json: { id: 'a' } }];
		const stopped = await runTradingService(sandbox(), { parameters, inputItems });
		expect(stopped.error?.message).toBe(
			'Client Order ID: "a" is used by more than one order (items 0 and 2)',
		);
		expect(stopped.error?.context?.outcome).toBe('rejected');
		expect(sandbox().ledger.requests).toHaveLength(0);

		const continued = await runTradingService(sandbox(), {
			parameters,
			inputItems,
			continueOnFail: true,
		});
		expect(continued.items.map((item) => item.json.outcome)).toEqual([
			'placed',
			'placed',
			'rejected',
		]);
		expect(continued.items[2].json.error).toBe(
			'Client Order ID: "a" is used by more than one order (items 0 and 2)',
		);
		expect(sandbox().ledger.orders.map((placed) => placed.clientOrderId)).toEqual(['a', 'b']);
	});
});
