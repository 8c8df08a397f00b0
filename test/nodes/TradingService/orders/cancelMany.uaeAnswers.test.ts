/**
 * Cancel Many by IDs against answers the exchange (its UAE variant) gives where the spec is
 * silent: HTTP 200 with an error code, failure entries naming their order under another key.
 */
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { useSandbox } from '../../../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

const BY_IDS = '/api/v1/spot/cancelOrderByIds';
const ORDER = '/api/v1/spot/order';

const byIds = (orderIds: string) => ({
	resource: 'order',
	operation: 'cancelMany',
	cancelBy: 'ids',
	orderIds,
});
const isOpen = (orderId: string) =>
	['NEW', 'PARTIALLY_FILLED', 'PENDING_CANCEL'].includes(sandbox().getOrder(orderId)!.status);
const lookups = () => requestsTo(sandbox(), ORDER).filter((request) => request.method === 'GET');

describe('Cancel Many by IDs reads the answer’s own code and every failure entry', () => {
	it('defect 5: HTTP 200 {"code":"-1147","result":[]} with both orders still open is not "cancelled": each is looked up, then cancelled once', async () => {
		const ids = await placeRestingOrders(sandbox(), 2);
		sandbox().setFaults({ rules: [{ kind: 'answer200Code', times: 1, path: BY_IDS }] });
		const run = await runTradingService(sandbox(), {
			parameters: byIds(ids.join(',')),
			credentials: { recvWindow: 1500 },
		});
		// The first request applied nothing; the lookups saw both open, so the cancel was sent again.
		expect(run.items.map((item) => [item.json.orderId, item.json.outcome])).toEqual(
			ids.map((orderId) => [orderId, 'placed']),
		);
		expect(run.items.every((item) => item.json.confirmedByLookup === undefined)).toBe(true);
		expect(lookups().length).toBeGreaterThanOrEqual(2);
		expect(requestsTo(sandbox(), BY_IDS)).toHaveLength(2);
		expect(sandbox().ledger.cancels).toHaveLength(2);
	});

	it('defect 5: a failure entry naming its order under another key is not dropped: the IDs it may be are looked up, the filled one reported not cancelled', async () => {
		const [filled, open] = await placeRestingOrders(sandbox(), 2);
		sandbox().fillOrder(filled);
		sandbox().setFaults({ rules: [{ kind: 'cancelByIdsOtherKey', times: 1, path: BY_IDS }] });
		const run = await runTradingService(sandbox(), { parameters: byIds(`${filled},${open}`) });
		expect(run.items.map((item) => item.json)).toEqual([
			expect.objectContaining({ orderId: filled, outcome: 'rejected', reason: 'alreadyFilled' }),
			expect.objectContaining({ orderId: open, outcome: 'placed', confirmedByLookup: true }),
		]);
		expect(isOpen(open)).toBe(false);
		expect(requestsTo(sandbox(), BY_IDS)).toHaveLength(1);
	});
});
