/**
 * Order > Cancel's options through the node, against the sandbox: Fail If Order Not Open decides
 * whether an order already closed stops the workflow, so it takes true or false only (defect 10),
 * like every boolean of a write. Beside cancel.test.ts.
 */
import { placeRestingOrders } from '../../../support/orders';
import { runCounting } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

describe('defect 10: Fail If Order Not Open takes true or false only', () => {
	it.each([
		['the text "true"', 'true', 'the text "true"'],
		['the number 1', 1, 'the number 1'],
		['nothing', undefined, 'nothing (its expression gave no value)'],
	])(
		'defect 10: from an expression giving %s: an error naming the field, 0 requests',
		async (_case, value, what) => {
			const [orderId] = await placeRestingOrders(sandbox(), 1, { price: '100', quantity: '1' });
			const since = sandbox().ledger.requests.length;
			const run = await runCounting(sandbox(), {
				parameters: {
					resource: 'order',
					operation: 'cancel',
					orderId,
					options: { failIfNotOpen: '={{ $json.strict }}' },
				},
				inputItems: [{ json: value === undefined ? {} : { strict: value } }],
			});
			expect(run.error?.message).toBe(`Fail If Order Not Open: ${what} is not true or false`);
			expect(sandbox().ledger.requests.slice(since)).toEqual([]);
		},
	);

	it('defect 10: a boolean from an expression is taken', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1, { price: '100', quantity: '1' });
		const run = await runCounting(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'cancel',
				orderId,
				options: { failIfNotOpen: "={{ $json.strict === 'yes' }}" },
			},
			inputItems: [{ json: { strict: 'yes' } }],
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', cancelled: true });
	});
});
