/**
 * Create against answers the exchange (its UAE variant) gives where the spec is silent: a MARKET
 * order answered as MARKET_OF_BASE / MARKET_OF_QUOTE, and an order its engine creates after the
 * -1146 answer. The sandbox's ledger says what really happened.
 */
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { PATHS, reportedOutcome } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

describe('order types the exchange answers for a MARKET order (defect 6)', () => {
	it.each([
		['quantity', 'MARKET_OF_BASE', { quantity: '0.01' }],
		['amount', 'MARKET_OF_QUOTE', { amount: '100' }],
	])(
		'a MARKET order by %s whose answer was lost, found as %s: placed, not unknown',
		async (_size, foundType, size) => {
			sandbox().setBehaviour({ marketOrderType: 'byBase' });
			sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: PATHS.order }] });
			const run = await runTradingService(sandbox(), {
				parameters: {
					resource: 'order',
					operation: 'create',
					symbol: 'BTCUSDT',
					side: 'BUY',
					type: 'MARKET',
					...size,
				},
			});
			expect(run.error).toBeUndefined();
			expect(run.items[0].json).toMatchObject({
				outcome: 'placed',
				type: foundType,
				orderId: sandbox().ledger.orders[0].orderId,
			});
			expect(sandbox().ledger.orders).toHaveLength(1);
		},
	);
});

describe('an order the exchange creates after its -1146 answer (defect 8)', () => {
	it('not found within the receive window is not proof: unknown, never sent again, so it fills once', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'createLate', times: 1, path: PATHS.order, delayMs: 4000 }],
		});
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'create',
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'MARKET',
				quantity: '0.01',
			},
			credentials: { recvWindow: 1500 },
		});
		expect(reportedOutcome(run)).toBe('unknown');
		expect(run.error?.message).toContain('may still create it');
		expect(requestsTo(sandbox(), PATHS.order)).toHaveLength(1);
		await new Promise((resolve) => setTimeout(resolve, 3500));
		expect(sandbox().ledger.orders).toHaveLength(1);
	});
});
