import { DEMO_KEYS } from '../../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../../tools/harness/node';
import { placeRestingOrders } from '../../../../support/orders';
import { useSandbox } from '../../../../support/sandbox';

const OPEN = '/api/v1/spot/openOrders';
const PAST = '/api/v1/spot/tradeOrders';
const sandbox = useSandbox({ rateLimit: false });

const getMany = (overrides: Record<string, unknown> = {}) => ({
	resource: 'order',
	operation: 'getMany',
	...overrides,
});

describe('Order > Get Many', () => {
	it('lists open orders newest first, up to Limit, in one request of weight 1', async () => {
		const ids = await placeRestingOrders(sandbox(), 5);
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), { parameters: getMany({ limit: 3 }) });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.orderId)).toEqual(ids.slice(2).reverse());
		expect(
			run.items.every(
				(item) => item.json.status === 'NEW' && typeof item.json.orderId === 'string',
			),
		).toBe(true);
		const requests = requestsTo(sandbox(), OPEN, since);
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({ method: 'GET', weight: 1 });
		expect(requests[0].query).toMatch(/^limit=3&/);
	});

	it('filters by Symbol and Side', async () => {
		await placeRestingOrders(sandbox(), 2, { symbol: 'BTCUSDT' });
		const eth = await placeRestingOrders(sandbox(), 1, { symbol: 'ETHUSDT' });
		const run = await runTradingService(sandbox(), {
			parameters: getMany({ symbol: 'ETHUSDT', options: { side: 'BUY' } }),
		});
		expect(run.items.map((item) => item.json.orderId)).toEqual(eth);
		expect(requestsTo(sandbox(), OPEN)[0].query).toMatch(/^symbol=ETHUSDT&side=BUY&limit=50&/);
	});

	it('Return All pages through more open orders than one page (1000): 1001 orders in 2 requests, none twice', async () => {
		const ids = await placeRestingOrders(sandbox(), 1001, { quantity: '0.0001' });
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), { parameters: getMany({ returnAll: true }) });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.orderId)).toEqual([...ids].reverse());
		const requests = requestsTo(sandbox(), OPEN, since);
		expect(requests).toHaveLength(2);
		expect(requests[0].query).toMatch(/^limit=1000&/);
		expect(requests[1].query).toMatch(new RegExp(`^fromOrderId=${ids[1]}&limit=1000&`));
	});

	it('Return All with a master key: the sub account’s open orders after the main account’s', async () => {
		const main = await placeRestingOrders(sandbox(), 2);
		const sub = await placeRestingOrders(sandbox(), 2, { key: DEMO_KEYS.sub });
		const run = await runTradingService(sandbox(), { parameters: getMany({ returnAll: true }) });
		expect(run.items.map((item) => item.json.orderId)).toEqual(
			[...main].reverse().concat([...sub].reverse()),
		);
		expect(requestsTo(sandbox(), OPEN)).toHaveLength(1);
	});

	it('past orders: filled and cancelled orders from tradeOrders (weight 5), not the open ones', async () => {
		const [filled, cancelled, open] = await placeRestingOrders(sandbox(), 3);
		sandbox().fillOrder(filled);
		await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'cancel', orderId: cancelled },
		});
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), {
			parameters: getMany({ orderState: 'past', symbol: 'BTCUSDT' }),
		});
		expect(run.items.map((item) => [item.json.orderId, item.json.status])).toEqual([
			[cancelled, 'CANCELED'],
			[filled, 'FILLED'],
		]);
		expect(run.items.map((item) => item.json.orderId)).not.toContain(open);
		const requests = requestsTo(sandbox(), PAST, since);
		expect(requests).toHaveLength(1);
		expect(requests[0].weight).toBe(5);
	});

	it('an unknown symbol gets the exchange’s error, mapped to a message that names Symbol', async () => {
		const run = await runTradingService(sandbox(), { parameters: getMany({ symbol: 'DOGEUSDT' }) });
		expect(run.error?.message).toBe('Symbol: the service does not know this symbol');
		expect(run.error?.description).toContain('Check the Symbol field');
		expect(run.error?.description).toContain('code 0201');
		expect(requestsTo(sandbox(), OPEN)).toHaveLength(1);
	});

	it.each([
		[
			'a malformed symbol',
			{ symbol: 'btc-usdt' },
			'Symbol: "btc-usdt" is not a trading pair symbol',
		],
		['a Limit out of range', { limit: 1001 }, 'Limit: "1001" is out of range'],
		[
			'Start on open orders',
			{ options: { startTime: '2026-01-01T00:00:00Z' } },
			'Start: applies to past orders only',
		],
		[
			'Start after End',
			{
				orderState: 'past',
				options: {
					startTime: '={{ $now.minus({ hours: 1 }).toISO() }}',
					endTime: '={{ $now.minus({ hours: 2 }).toISO() }}',
				},
			},
			'Start: is after End',
		],
		[
			'Start older than 90 days',
			{ orderState: 'past', options: { startTime: '={{ $now.minus({ days: 91 }).toISO() }}' } },
			'Start: is more than 90 days ago',
		],
	])(
		'bad input (%s): an error naming the field, 0 requests',
		async (_case, parameters, message) => {
			const run = await runTradingService(sandbox(), { parameters: getMany(parameters) });
			expect(run.error?.message).toBe(message);
			expect(sandbox().ledger.requests).toHaveLength(0);
		},
	);
});
