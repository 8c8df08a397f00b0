import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { useSandbox } from '../../../support/sandbox';

// Cancel Many by symbol keeps its cancels in the write ledger under the symbol, side and account
// (items naming the same share them), not under an item: the run's report still gives each item
// what its cancels did.

const BY_IDS = '/api/v1/spot/cancelOrderByIds';
const sandbox = useSandbox({ rateLimit: false, requestRates: false });

describe('Order > Cancel Many > by symbol: the run report', () => {
	it('item 0 cancels its orders, item 1 fails on bad input: the error lists item 0 as placed, never as "nothing executed"', async () => {
		const ids = await placeRestingOrders(sandbox(), 3);
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'cancelMany',
				cancelBy: 'symbol',
				symbol: '={{ $json.symbol }}',
			},
			inputItems: [{ json: { symbol: 'BTCUSDT' } }, { json: { symbol: 'BTC/USDT' } }],
		});
		expect(run.error?.message).toBe('Symbol: "BTC/USDT" is not a trading pair symbol');
		expect(requestsTo(sandbox(), BY_IDS)).toHaveLength(1);
		expect(
			sandbox()
				.ledger.cancels.map((cancel) => cancel.orderId)
				.sort(),
		).toEqual([...ids].sort());
		expect(run.error?.context?.runReport).toEqual({
			placed: '0',
			unknown: '',
			nothingExecuted: '',
		});
		expect(run.error?.description).toContain(
			'The other items of this run: placed, wholly or in part: 1 item (item 0).',
		);
		expect(run.error?.description).not.toMatch(/nothing executed/);
	});
});
