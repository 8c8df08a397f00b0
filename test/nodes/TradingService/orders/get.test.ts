import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { useSandbox } from '../../../support/sandbox';

const QUERY = '/api/v1/spot/order';
const sandbox = useSandbox({ rateLimit: false, requestRates: false });

const getOrder = (overrides: Record<string, unknown> = {}) => ({
	resource: 'order',
	operation: 'get',
	...overrides,
});

describe('Order > Get', () => {
	it('gets an order by Order ID: one item, 64-bit IDs and decimals as strings, one request of weight 1', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1, {
			price: '50000.10',
			quantity: '0.0100',
		});
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), { parameters: getOrder({ orderId }) });
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(1);
		expect(run.items[0].json).toMatchObject({
			orderId,
			symbol: 'BTCUSDT',
			status: 'NEW',
			price: '50000.1',
			origQty: '0.01',
			executedQty: '0',
		});
		expect(typeof run.items[0].json.orderId).toBe('string');
		expect(BigInt(orderId) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
		const requests = requestsTo(sandbox(), QUERY, since);
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({ method: 'GET', weight: 1 });
		expect(requests[0].query).toMatch(new RegExp(`^orderId=${orderId}&`));
	});

	it('gets an order by Client Order ID, and follows its status as it fills', async () => {
		const placed = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'create',
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'LIMIT',
				price: '100',
				quantity: '0.2',
				newClientOrderId: 'row-9',
			},
		});
		const orderId = placed.items[0].json.orderId as string;
		sandbox().fillOrder(orderId, '0.1');
		const run = await runTradingService(sandbox(), {
			parameters: getOrder({ clientOrderId: 'row-9' }),
		});
		expect(run.items[0].json).toMatchObject({
			orderId,
			clientOrderId: 'row-9',
			status: 'PARTIALLY_FILLED',
			executedQty: '0.1',
		});
		expect(requestsTo(sandbox(), QUERY).at(-1)?.query).toMatch(/^origClientOrderId=row-9&/);
	});

	it('an order the service does not know: an error naming Order ID, after one request', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: getOrder({ orderId: '1234567890123456789' }),
		});
		expect(run.error?.message).toBe('Order ID: the service has no order 1234567890123456789');
		expect(run.error?.description).toContain('code 0211');
		expect(requestsTo(sandbox(), QUERY)).toHaveLength(1);
	});

	it('an unknown client order ID names Client Order ID', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: getOrder({ clientOrderId: 'nope' }),
		});
		expect(run.error?.message).toBe(
			'Client Order ID: the service has no order with client order ID nope',
		);
	});

	it.each([
		['no ID', {}, 'Order ID: is empty, and so is Client Order ID'],
		[
			'both IDs',
			{ orderId: '123', clientOrderId: 'row-1' },
			'Order ID: and Client Order ID are both set',
		],
		['a malformed Order ID', { orderId: '12a' }, 'Order ID: "12a" is not an order ID'],
		[
			'an Order ID that lost digits as a JS number',
			{ orderId: '={{ 1470000000000000123 }}' },
			'Order ID: 1470000000000000000 is a number too large to be exact',
		],
		[
			'a Client Order ID with a space',
			{ clientOrderId: 'row 1' },
			'Client Order ID: "row 1" is not a client order ID',
		],
	])(
		'bad input (%s): an error naming the field, 0 requests',
		async (_case, parameters, message) => {
			const run = await runTradingService(sandbox(), { parameters: getOrder(parameters) });
			expect(run.error?.message).toBe(message);
			expect(sandbox().ledger.requests).toHaveLength(0);
		},
	);

	it('with Continue On Fail, a missing order is an error item and the other items still run', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		const run = await runTradingService(sandbox(), {
			parameters: getOrder({ orderId: '={{ $json.id }}' }),
			inputItems: [{ json: { id: '1234567890123456789' } }, { json: { id: orderId } }],
			continueOnFail: true,
		});
		expect(
			run.items.map((item) => [item.json.error ?? item.json.orderId, item.pairedItem]),
		).toEqual([
			['Order ID: the service has no order 1234567890123456789', { item: 0 }],
			[orderId, { item: 1 }],
		]);
		expect(run.items[0].json.outcome).toBeUndefined();
	});
});
