/**
 * Cancel against a cancel the exchange (its UAE variant) applies a moment after answering: the
 * order shows PENDING_CANCEL meanwhile.
 */
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { useSandbox } from '../../../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

const ORDER = '/api/v1/spot/order';

describe('a cancel the exchange applies a moment after its answer (defect 6)', () => {
	it('a cancel applied a moment after its -1147 answer, looked up as PENDING_CANCEL: placed, not sent again', async () => {
		sandbox().setBehaviour({ cancelApplyDelayMs: 1500 });
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		sandbox().setFaults({
			rules: [{ kind: 'unknownAfter', times: 1, path: ORDER, method: 'DELETE' }],
		});
		const run = await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'cancel', orderId },
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', status: 'PENDING_CANCEL' });
		expect(requestsTo(sandbox(), ORDER).filter((r) => r.method === 'DELETE')).toHaveLength(1);
		await new Promise((resolve) => setTimeout(resolve, 1600));
		expect(sandbox().getOrder(orderId)?.status).toBe('CANCELED');
		expect(sandbox().ledger.cancels).toHaveLength(1);
	});
});
