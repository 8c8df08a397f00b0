/**
 * Issue 39 defect 6: the guardrails check what is sent. Fit to Symbol Rules rounds a SELL's price
 * up (50000.001 → 50000.01 on BTCUSDT's tick of 0.01), so 0.02 of it, worth 1000.00002 as given,
 * is worth 1000.0002 as fitted: over a Max Order Amount of 1000.0001. Such an order is refused
 * before anything is sent, in Create and in every input mode of Create Many, naming the option,
 * the fitted values and the fix; an order still within the limits once fitted is placed.
 */
import type { IDataObject } from 'n8n-workflow';

import { PATHS, errorOf, runCounting, type CountedRun } from '../support/runs';
import { useSandbox } from '../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'realistic' });

const SELL = {
	symbol: 'BTCUSDT',
	side: 'SELL',
	type: 'LIMIT',
	price: '50000.001',
	quantity: '0.02',
};
const options = { fitToSymbolRules: true, maxOrderAmount: '1000.0001' };
/** Version 2 keeps the limits and Fit to Symbol Rules in Guardrails, version 1 in Options. */
const inVersion = (typeVersion: number, parameters: IDataObject): IDataObject => {
	if (typeVersion === 1) return parameters;
	const { options: guardrails, ...rest } = parameters;
	return { ...rest, guardrails };
};

/** Every order create of a run: version 1's endpoints and version 2's unified ones. */
const ORDER_PATHS: string[] = [PATHS.order, PATHS.batch, PATHS.unifiedOrder, PATHS.unifiedBatch];
const orderRequests = (run: CountedRun) =>
	run.requests.filter((request) => ORDER_PATHS.includes(request.path));

/** The refusal of the fitted SELL: the option, the values as fitted, the fix. */
function expectRefusal(message: string | undefined, description?: string | null) {
	expect(message).toMatch(/Max Order Amount \(1000\.0001\)/);
	expect(message).toContain('1000.0002');
	expect(message).toContain('50000.01');
	const text = `${message ?? ''} ${description ?? ''}`;
	expect(text).toContain('Fit to Symbol Rules');
	expect(text).toContain('50000.001');
	expect(text).toMatch(/nothing was sent/i);
}

const createMany = (mode: string, fields: IDataObject = {}) => ({
	resource: 'order',
	operation: 'createMany',
	inputMode: mode,
	...fields,
	options,
});

describe('guardrails check the order as fitted (issue 39, defect 6)', () => {
	it('Create: a SELL whose price Fit rounds up over Max Order Amount is refused, nothing sent', async () => {
		const run = await runCounting(sandbox(), {
			parameters: { resource: 'order', operation: 'create', ...SELL, options },
		});
		expectRefusal(run.error?.message, run.error?.description);
		expect(run.error?.message).toBe(
			'Quantity: the order as fitted to the symbol rules is worth 1000.0002 (Price 50000.01 × Quantity 0.02), above Max Order Amount (1000.0001)',
		);
		expect(run.error?.description).toBe(
			'The node’s Max Order Amount option refuses the order as Fit to Symbol Rules made it (price 50000.001 → 50000.01 for tickSize 0.01), which is what would be sent; nothing was sent. Give values that stay within the limit once rounded (a price already on the tick is sent as given; a SELL’s price is rounded up, a BUY’s down), or change the limit in the node’s Options if the order is intended. Outcome: rejected (nothing was executed).',
		);
		expect((run.error?.context as IDataObject | undefined)?.outcome).toBe('rejected');
		expect(orderRequests(run)).toEqual([]);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('Create, version 2 with Continue On Fail: the item is refused, another item within the limit once fitted is placed', async () => {
		const run = await runCounting(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'create',
				symbol: '={{ $json.symbol }}',
				side: '={{ $json.side }}',
				type: 'LIMIT',
				price: '={{ $json.price }}',
				quantity: '={{ $json.quantity }}',
				guardrails: options,
			},
			inputItems: [{ json: SELL }, { json: { ...SELL, side: 'BUY' } }],
			node: { typeVersion: 2 },
			continueOnFail: true,
		});
		expectRefusal(errorOf(run.items[0]), String(run.items[0].json.description ?? ''));
		expect(run.items[0].json.outcome).toBe('rejected');
		// A BUY's price is rounded down: 50000.00 × 0.02 = 1000, within the limit.
		expect(run.items[1].json).toMatchObject({ outcome: 'placed', price: '50000' });
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it.each([
		[
			'items',
			createMany('items', {
				symbol: '={{ $json.symbol }}',
				side: '={{ $json.side }}',
				type: 'LIMIT',
				price: '={{ $json.price }}',
				quantity: '={{ $json.quantity }}',
			}),
			[{ json: SELL }],
		],
		['autoMap', createMany('autoMap'), [{ json: SELL }]],
		[
			'json',
			createMany('json', { ordersJson: '={{ JSON.stringify($json.orders) }}' }),
			[{ json: { orders: [{ ...SELL, side: 'BUY' }, SELL] } }],
		],
	])(
		'Create Many (%s): the fitted order over Max Order Amount is refused before any batch',
		async (_mode, parameters, inputItems) => {
			for (const typeVersion of [1, 2]) {
				const run = await runCounting(sandbox(), {
					parameters: inVersion(typeVersion, parameters),
					inputItems,
					node: { typeVersion },
				});
				expectRefusal(run.error?.message, run.error?.description);
				expect((run.error?.context as IDataObject | undefined)?.outcome).toBe('rejected');
				expect(orderRequests(run)).toEqual([]);
			}
			expect(sandbox().ledger.orders).toHaveLength(0);
		},
	);

	it('Create Many: the limit read as given still holds (Max Order Quantity on a quantity Fit would round down)', async () => {
		const run = await runCounting(sandbox(), {
			parameters: {
				...createMany('autoMap'),
				options: { fitToSymbolRules: true, maxOrderQuantity: '0.02' },
			},
			inputItems: [{ json: { ...SELL, quantity: '0.020001' } }],
		});
		expect(run.error?.message).toBe(
			'Item 0, field quantity: 0.020001 is above Max Order Quantity (0.02)',
		);
		expect(orderRequests(run)).toEqual([]);
	});
});
