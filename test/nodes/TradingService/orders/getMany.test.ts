import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IDataObject } from 'n8n-workflow';

import { DEMO_KEYS } from '../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { useSandbox } from '../../../support/sandbox';

const OPEN = '/api/v1/spot/openOrders';
const PAST = '/api/v1/spot/tradeOrders';
const ACCOUNT_TYPE = '/api/v1/account/type';
const sandbox = useSandbox({ rateLimit: false, requestRates: false });

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

	it('Return All pages through more open orders than one page (1000): 1001 orders, none twice', async () => {
		const ids = await placeRestingOrders(sandbox(), 1001, { quantity: '0.0001' });
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), { parameters: getMany({ returnAll: true }) });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.orderId)).toEqual([...ids].reverse());
		// The first page was full: the main account is read on by itself from its oldest order so
		// far, and the sub account the page could not reach is read too.
		const requests = requestsTo(sandbox(), OPEN, since);
		expect(
			requests.map((request) => request.query.replace(/&(recvWindow|timestamp)=.*$/, '')),
		).toEqual([
			'limit=1000',
			`accountId=10001&fromOrderId=${ids[1]}&limit=1000`,
			'accountId=20001&limit=1000',
		]);
		expect(requestsTo(sandbox(), ACCOUNT_TYPE, since)).toEqual([
			expect.objectContaining({ method: 'GET', weight: 5 }),
		]);
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

	it('defect 11: Return All with a master key, 250 main-account then 800 sub-account open orders: 1050 items, each once, main account first (paging by a mixed page’s last ID listed the main account’s 250 twice)', async () => {
		const main = await placeRestingOrders(sandbox(), 250);
		const sub = await placeRestingOrders(sandbox(), 800, { key: DEMO_KEYS.sub });
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), { parameters: getMany({ returnAll: true }) });
		expect(run.error).toBeUndefined();
		const ids = run.items.map((item) => item.json.orderId);
		expect(ids).toHaveLength(1050);
		expect(new Set(ids).size).toBe(1050);
		expect(ids).toEqual([...main].reverse().concat([...sub].reverse()));
		const requests = requestsTo(sandbox(), OPEN, since);
		expect(
			requests.map((request) => request.query.replace(/&(recvWindow|timestamp)=.*$/, '')),
		).toEqual(['limit=1000', `accountId=20001&fromOrderId=${sub[50]}&limit=1000`]);
	});

	it('defect 11: Return All with a master key, 700 main-account orders and 5 newer sub-account orders: all 705 (the sub account’s 5 were dropped)', async () => {
		const main = await placeRestingOrders(sandbox(), 700);
		const sub = await placeRestingOrders(sandbox(), 5, { key: DEMO_KEYS.sub });
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), { parameters: getMany({ returnAll: true }) });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.orderId)).toEqual(
			[...main].reverse().concat([...sub].reverse()),
		);
		// 700 orders of one account: the sub accounts were not listed; they are learned and read.
		expect(requestsTo(sandbox(), ACCOUNT_TYPE, since)).toHaveLength(1);
		expect(
			requestsTo(sandbox(), OPEN, since).map((request) =>
				request.query.replace(/&(recvWindow|timestamp)=.*$/, ''),
			),
		).toEqual(['limit=1000', 'accountId=20001&limit=1000']);
	});

	it.each(['uae', 'specific'] as const)(
		'defect 11: Get Many (Return All) chained into Cancel as examples/cancel-stale-orders.json does: every order cancelled once, no false "already cancelled" item (cancel codes %s)',
		async (cancelNotOpenCodes) => {
			sandbox().setBehaviour({ cancelNotOpenCodes });
			const example = JSON.parse(
				readFileSync(join(__dirname, '../../../../examples/cancel-stale-orders.json'), 'utf8'),
			) as { nodes: Array<{ name: string; parameters: IDataObject }> };
			const parametersOf = (name: string) =>
				example.nodes.find((node) => node.name === name)!.parameters;
			const main = await placeRestingOrders(sandbox(), 250);
			const sub = await placeRestingOrders(sandbox(), 800, { key: DEMO_KEYS.sub });
			const listed = await runTradingService(sandbox(), {
				parameters: parametersOf('Get Open Orders'),
			});
			expect(listed.error).toBeUndefined();
			const cancelled = await runTradingService(sandbox(), {
				parameters: parametersOf('Cancel Order'),
				inputItems: listed.items.map((item) => ({ json: item.json })),
			});
			expect(cancelled.error).toBeUndefined();
			expect(cancelled.items).toHaveLength(1050);
			expect(cancelled.items.filter((item) => item.json.outcome !== 'placed')).toEqual([]);
			expect(cancelled.items.some((item) => item.json.reason === 'alreadyCancelled')).toBe(false);
			expect(
				sandbox()
					.ledger.cancels.map((entry) => entry.orderId)
					.sort(),
			).toEqual([...main, ...sub].sort());
		},
		60_000,
	);

	it('defect 11 (past orders): Return All with a master key, 250 main-account then 800 sub-account past orders: 1050 items, each once, paged by fromOrderId', async () => {
		const main = await placeRestingOrders(sandbox(), 250);
		const sub = await placeRestingOrders(sandbox(), 800, { key: DEMO_KEYS.sub });
		for (const orderId of [...main, ...sub]) sandbox().fillOrder(orderId);
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), {
			parameters: getMany({ orderState: 'past', returnAll: true }),
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.orderId)).toEqual(
			[...main].reverse().concat([...sub].reverse()),
		);
		expect(
			requestsTo(sandbox(), PAST, since).map((request) =>
				request.query.replace(/&(recvWindow|timestamp)=.*$/, ''),
			),
		).toEqual(['limit=1000', `accountId=20001&fromOrderId=${sub[50]}&limit=1000`]);
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
