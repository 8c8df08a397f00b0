/**
 * Order > Create with its fields set per item by expression: Type, which decides which fields an
 * order takes, and Client Order ID, which must name one order only. Beside create.test.ts.
 */
import { errorOf, runCounting } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

describe('Type set by expression places LIMIT and MARKET orders', () => {
	// Time In Force is GTC for LIMIT and LIMIT_MAKER, IOC for MARKET: two parameters of their own
	// names (timeInForceLimit, timeInForceMarket), the one read chosen by each item's Type. Two
	// parameters of one name told apart by displayOptions on Type would, with Type an expression,
	// resolve to the MARKET variant's default, IOC, and every LIMIT order would fail with
	// 'Time In Force: "IOC" is not allowed for LIMIT orders'.
	it('Type from the item: a LIMIT and a MARKET order are placed', async () => {
		const run = await runCounting(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'create',
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: '={{ $json.type }}',
				price: '={{ $json.price }}',
				quantity: '={{ $json.quantity }}',
				amount: '={{ $json.amount }}',
			},
			inputItems: [
				{ json: { type: 'LIMIT', price: '10', quantity: '0.1' } },
				{ json: { type: 'MARKET', quantity: '0.01' } },
			],
			continueOnFail: true,
		});
		expect(run.items.map((item) => errorOf(item))).toEqual([undefined, undefined]);
		expect(sandbox().ledger.orders).toHaveLength(2);
	});
});

describe('Create refuses two items with the same client order ID', () => {
	// A client order ID is how an order whose answer was lost is looked up: two orders sharing one
	// could not be told apart, so the node refuses the run before any request, naming the field.
	it('before any request, naming the field', async () => {
		const run = await runCounting(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'create',
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'LIMIT',
				price: '10',
				quantity: '0.01',
				newClientOrderId: '={{ $json.id }}',
			},
			inputItems: [{ json: { id: 'same' } }, { json: { id: 'other' } }, { json: { id: 'same' } }],
		});
		expect(run.error?.message).toBe(
			'Client Order ID: "same" is used by more than one order (items 0 and 2)',
		);
		expect(run.requests).toEqual([]);
	});
});
