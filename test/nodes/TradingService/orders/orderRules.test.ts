import { decimalAbove, decimalProduct } from '../../../../nodes/TradingService/helpers/decimals';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { useSandbox } from '../../../support/sandbox';

describe('guardrail decimals (fixed vectors)', () => {
	it.each([
		['1', '1', false],
		['1.0000000000000000001', '1', true],
		['0.3', '0.30', false],
		['10', '9.99999999', true],
		['123456789012345678.5', '123456789012345678.4', true],
	])('%s above %s: %s', (a, b, above) => {
		expect(decimalAbove(a, b)).toBe(above);
	});

	it.each([
		['0.1', '0.2', '0.02'],
		['50000.10', '0.0100', '500.001'],
		['3', '7', '21'],
		['0.00000001', '0.00000001', '0.0000000000000001'],
	])('%s × %s = %s', (a, b, product) => {
		expect(decimalProduct(a, b)).toBe(product);
	});
});

describe('guardrails on Create and Create Many', () => {
	const sandbox = useSandbox({ rateLimit: false, requestRates: false });

	const guarded = {
		allowedSymbols: 'BTCUSDT, ETHUSDT',
		maxOrderQuantity: '1',
		maxOrderAmount: '1000',
	};
	const create = (overrides: Record<string, unknown>) => ({
		resource: 'order',
		operation: 'create',
		symbol: 'BTCUSDT',
		side: 'BUY',
		type: 'LIMIT',
		price: '100',
		quantity: '1',
		options: guarded,
		...overrides,
	});

	it('an order inside the limits is placed', async () => {
		const run = await runTradingService(sandbox(), { parameters: create({}) });
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', status: 'NEW' });
	});

	it.each([
		[
			'a symbol not allowed',
			{ symbol: 'SOLUSDT' },
			'Symbol: SOLUSDT is not in Allowed Symbols (BTCUSDT, ETHUSDT)',
		],
		[
			'a quantity above the maximum',
			{ quantity: '1.00000001', price: '1' },
			'Quantity: 1.00000001 is above Max Order Quantity (1)',
		],
		[
			'a LIMIT order worth more than the maximum',
			{ price: '1000.01', quantity: '1' },
			'Quantity: the order is worth 1000.01 (Price × Quantity), above Max Order Amount (1000)',
		],
		[
			'a MARKET amount above the maximum',
			{ type: 'MARKET', price: '', quantity: '', amount: '1000.5' },
			'Amount: 1000.5 is above Max Order Amount (1000)',
		],
		[
			'a MARKET order by quantity with a maximum amount',
			{ type: 'MARKET', price: '', quantity: '0.1' },
			'Quantity: a MARKET order by Quantity cannot be checked against Max Order Amount: its price is known only once it trades',
		],
	])(
		'%s is refused with an error that names the limit, 0 requests',
		async (_case, overrides, message) => {
			const run = await runTradingService(sandbox(), {
				parameters: create(overrides),
				continueOnFail: true,
			});
			expect(run.items[0].json).toMatchObject({ error: message, outcome: 'rejected' });
			expect(run.items[0].json.description).toContain('nothing was sent');
			expect(sandbox().ledger.requests).toHaveLength(0);
		},
	);

	it('a malformed limit is an error naming the option, 0 requests', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: create({ options: { maxOrderQuantity: '1,5' } }),
		});
		expect(run.error?.message).toBe('Max Order Quantity: "1,5" is not a decimal number');
		expect(sandbox().ledger.requests).toHaveLength(0);
	});

	it('Create Many: an order outside the limits is refused before any batch is sent', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'createMany',
				inputMode: 'json',
				ordersJson: JSON.stringify([
					{ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '100', quantity: '1' },
					{ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '100', quantity: '2' },
				]),
				options: guarded,
			},
		});
		expect(run.error?.message).toMatch(/quantity: 2 is above Max Order Quantity \(1\)$/);
		expect(requestsTo(sandbox(), '/api/v1/spot/batchOrders')).toHaveLength(0);
		expect(sandbox().ledger.requests).toHaveLength(0);
	});
});
