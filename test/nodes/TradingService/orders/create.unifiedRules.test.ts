import type { IDataObject } from 'n8n-workflow';

import { PATHS, runCounting, type CountedRun } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

// A MARKET SELL by Amount (version 2, the unified endpoint) is held to the rules of an order by
// Amount, as a BUY is: the symbol's amount rules (realistic MENA rules: BTCUSDT amount step 0.01,
// market amounts 10 to 2,000,000) and the guardrails (valued at its Amount; a quantity limit
// cannot check it), each refused before any order request.

const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'realistic' });
const v2 = { typeVersion: 2 };

const sellByAmount = (amount: string, guardrails: IDataObject = {}) => ({
	parameters: {
		resource: 'order',
		operation: 'create',
		symbol: { __rl: true, mode: 'id', value: 'BTCUSDT' },
		side: 'SELL',
		type: 'MARKET',
		marketOrderBy: 'amount',
		amount,
		guardrails,
	},
	node: v2,
});
const ORDER_PATHS: string[] = [PATHS.order, PATHS.batch, PATHS.unifiedOrder, PATHS.unifiedBatch];
const orderRequests = (run: CountedRun) =>
	run.requests.filter((request) => ORDER_PATHS.includes(request.path));

describe('a MARKET SELL by Amount: symbol rules and guardrails as for a BUY by Amount', () => {
	it('refuses an amount below the market minimum and one off the amount step, 0 order requests; places one on the rules', async () => {
		const small = await runCounting(sandbox(), sellByAmount('9.99'));
		expect(small.error?.message).toMatch(/^Amount: /);
		expect(small.error?.message).toMatch(/10/);
		expect(orderRequests(small)).toEqual([]);
		const offStep = await runCounting(sandbox(), sellByAmount('100.001'));
		expect(offStep.error?.message).toMatch(/^Amount: /);
		expect(orderRequests(offStep)).toEqual([]);
		const placed = await runCounting(sandbox(), sellByAmount('100'));
		expect(placed.error).toBeUndefined();
		expect(placed.items[0].json).toMatchObject({
			outcome: 'placed',
			side: 'SELL',
			reqAmount: '100',
		});
		expect(orderRequests(placed).map((request) => request.path)).toEqual([PATHS.unifiedOrder]);
	});

	it('Max Order Amount checks its Amount; Max Order Quantity refuses it naming the fix; nothing sent', async () => {
		const over = await runCounting(sandbox(), sellByAmount('60', { maxOrderAmount: '50' }));
		expect(over.error?.message).toBe('Amount: 60 is above Max Order Amount (50)');
		const byQuantity = await runCounting(sandbox(), sellByAmount('60', { maxOrderQuantity: '1' }));
		expect(byQuantity.error?.message).toMatch(
			/a MARKET order by Amount cannot be checked against Max Order Quantity/,
		);
		expect(byQuantity.error?.description).toMatch(/Give the order a Quantity/);
		expect([...orderRequests(over), ...orderRequests(byQuantity)]).toEqual([]);
	});
});
