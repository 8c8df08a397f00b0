import { DEMO_ACCOUNTS } from '../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { useSandbox } from '../../../support/sandbox';

// Version 2's pickers in the operations that take an order, a symbol, a coin or an account: a
// value picked From List, typed By ID, or given by an expression in either mode is what is sent.

const sandbox = useSandbox({ rateLimit: false, requestRates: false });
const v2 = { typeVersion: 2 };
const picked = (value: string) => ({ __rl: true, mode: 'list', value });
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

describe('Order > Get and Cancel: the Order ID picker', () => {
	it('gets the order picked from the list, and one given by an expression', async () => {
		const [first, second] = await placeRestingOrders(sandbox(), 2, { price: '100', quantity: '1' });
		const run = await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'get', orderId: picked(first) },
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json.orderId).toBe(first);

		const mapped = await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'get', orderId: byId('={{ $json.id }}') },
			inputItems: [{ json: { id: second } }, { json: { id: first } }],
			node: v2,
		});
		expect(mapped.error).toBeUndefined();
		expect(mapped.items.map((item) => item.json.orderId)).toEqual([second, first]);
	});

	it('cancels the order picked, and refuses an empty picker naming Order ID before sending', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1, { price: '100', quantity: '1' });
		const run = await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'cancel', orderId: picked(orderId) },
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', orderId });
		expect(requestsTo(sandbox(), '/api/v1/spot/order').map((request) => request.method)).toEqual([
			'DELETE',
		]);

		const since = sandbox().ledger.requests.length;
		// Order ID is required under Find Order By's default: n8n refuses to run the node empty.
		await expect(
			runTradingService(sandbox(), {
				parameters: { resource: 'order', operation: 'cancel', orderId: picked('') },
				node: v2,
			}),
		).rejects.toThrow(/Parameter "Order ID" is required/);
		expect(sandbox().ledger.requests.length).toBe(since);
	});
});

describe('Order > Create (version 2 form)', () => {
	it('places a LIMIT order with the picked Symbol, and Client Order ID and Self-Trade Prevention from Options', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'create',
				symbol: picked('ETHUSDT'),
				side: 'BUY',
				type: 'LIMIT',
				price: '100.5',
				quantity: '0.25',
				options: { newClientOrderId: 'row-7', stpMode: 'EXPIRE_MAKER' },
			},
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', clientOrderId: 'row-7' });
		const [request] = requestsTo(sandbox(), '/api/v1.1/spot/order');
		const sent = new URLSearchParams(request.query + '&' + request.body);
		expect(
			Object.fromEntries(
				[
					'symbol',
					'side',
					'type',
					'price',
					'quantity',
					'timeInForce',
					'newClientOrderId',
					'stpMode',
				].map((name) => [name, sent.get(name)]),
			),
		).toEqual({
			symbol: 'ETHUSDT',
			side: 'BUY',
			type: 'LIMIT',
			price: '100.5',
			quantity: '0.25',
			timeInForce: 'GTC',
			newClientOrderId: 'row-7',
			stpMode: 'EXPIRE_MAKER',
		});
	});

	it('a MARKET order by Amount sends the amount alone, immediate or cancel', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'create',
				symbol: byId('={{ $json.pair }}'),
				side: 'BUY',
				type: 'MARKET',
				marketOrderBy: 'amount',
				amount: '={{ $json.spend }}',
			},
			inputItems: [{ json: { pair: 'BTCUSDT', spend: '25.5' } }],
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json.outcome).toBe('placed');
		const [request] = requestsTo(sandbox(), '/api/v1.1/spot/order');
		const sent = new URLSearchParams(request.query + '&' + request.body);
		expect(sent.get('symbol')).toBe('BTCUSDT');
		expect(sent.get('amount')).toBe('25.5');
		expect(sent.get('quantity')).toBeNull();
		expect(sent.get('timeInForce')).toBe('IOC');
	});
});

describe('Order > Create Many (version 2 form)', () => {
	it('reads Client Order ID from Options per item in the item mode', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'createMany',
				inputMode: 'items',
				symbol: byId('BTCUSDT'),
				side: 'BUY',
				type: 'LIMIT',
				price: '100',
				quantity: '0.01',
				options: { newClientOrderId: '={{ "row-" + $json.row }}' },
			},
			inputItems: [{ json: { row: 1 } }, { json: { row: 2 } }, { json: { row: 3 } }],
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.clientOrderId)).toEqual(['row-1', 'row-2', 'row-3']);
		expect(run.items.map((item) => item.json.outcome)).toEqual(['placed', 'placed', 'placed']);
	});
});

describe('Account > Transfer Asset: the Account and Coin pickers', () => {
	it('moves the coin between the accounts picked, and takes expressions in By ID mode', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'account',
				operation: 'transferAsset',
				fromAccountId: picked(DEMO_ACCOUNTS.mainTrading),
				toAccountId: byId('={{ $json.to }}'),
				coin: picked('USDT'),
				quantity: '1.5',
			},
			inputItems: [{ json: { to: DEMO_ACCOUNTS.subTrading } }],
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json.outcome).toBe('placed');
		expect(sandbox().ledger.transfers).toEqual([
			expect.objectContaining({
				fromAccountId: DEMO_ACCOUNTS.mainTrading,
				toAccountId: DEMO_ACCOUNTS.subTrading,
				coin: 'USDT',
				quantity: '1.5',
			}),
		]);
	});

	it('names the pickers as the editor shows them: the same account twice is refused as To Account', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'account',
				operation: 'transferAsset',
				fromAccountId: picked(DEMO_ACCOUNTS.mainTrading),
				toAccountId: picked(DEMO_ACCOUNTS.mainTrading),
				coin: picked('USDT'),
				quantity: '1',
			},
			node: v2,
		});
		expect(run.error?.message).toMatch(/^To Account: is the same as From Account/);
		expect(sandbox().ledger.transfers).toHaveLength(0);
	});
});
