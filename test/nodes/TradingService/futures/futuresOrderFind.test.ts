import { useSandbox } from '../../../support/sandbox';
import {
	MARK,
	WRITE_PATHS,
	queryOf,
	restingLimit,
	sent,
	waitingStop,
} from './futuresWritesSupport';
import { BTC, jsonOf, runFutures } from './support';

// futures/futuresOrderFind.ts as the cancels use it: one order by ID or client order ID, and the
// open orders of both types, page by page.

const sandbox = useSandbox({ rateLimit: false, requestRates: false });
const { order: ORDER, openOrders: OPEN_ORDERS } = WRITE_PATHS;

beforeEach(() => sandbox().futures.setMarkPrice(BTC, MARK));

describe('finding futures orders', () => {
	it('the open orders of both types: LIMIT page by page (500 each, fromOrderId = the oldest ID read), then STOP; each order’s type from its lower-case orderType', async () => {
		const oldest = sandbox().futures.placeOpenOrder({
			symbol: BTC,
			side: 'BUY',
			quantity: '0.001',
			price: '40000',
		});
		for (let i = 0; i < 520; i++)
			sandbox().futures.placeOpenOrder({
				symbol: BTC,
				side: 'BUY',
				quantity: '0.001',
				price: '40000',
			});
		const stop = await waitingStop(sandbox());
		const newest = await restingLimit(sandbox());
		const unknown = '99999999999';
		const ids = [oldest.orderId, stop.orderId, newest.orderId, unknown];
		const run = await runFutures(sandbox(), 'cancelManyOrders', {
			cancelBy: 'ids',
			orderIds: ids.join(','),
		});
		expect(run.error).toBeUndefined();
		const lists = sent(run.requests, OPEN_ORDERS, 'GET').map(queryOf);
		expect(
			lists.map((query) => [query.get('type'), query.get('limit'), query.has('fromOrderId')]),
		).toEqual([
			['LIMIT', '500', false],
			['LIMIT', '500', true],
			['STOP', '500', false],
		]);
		// the second page starts below the oldest order ID of the first, above the oldest order
		expect(BigInt(lists[1].get('fromOrderId')!)).toBeGreaterThan(BigInt(oldest.orderId));
		expect(
			jsonOf(run).map((item) => [item.orderId, item.outcome, item.status ?? item.reason]),
		).toEqual([
			[oldest.orderId, 'placed', 'CANCELED'],
			[stop.orderId, 'placed', 'ORDER_CANCELED'],
			[newest.orderId, 'placed', 'CANCELED'],
			[unknown, 'rejected', 'notFound'],
		]);
		// only the ID no list showed was looked up on its own (0211: not found)
		expect(
			sent(run.requests, ORDER, 'GET').map((request) => queryOf(request).get('orderId')),
		).toEqual([unknown]);
		expect(
			sent(run.requests, ORDER, 'DELETE').map((request) => queryOf(request).get('type')),
		).toEqual(['LIMIT', 'STOP', 'LIMIT']);
	});

	it('a client order ID names the open order holding it, not an earlier one that used it: that one is cancelled, by its order ID', async () => {
		const first = await restingLimit(sandbox(), { clientOrderId: 'entry-7' });
		await runFutures(sandbox(), 'cancelOrder', { orderId: first.orderId });
		// cancelled, the ID is free: the exchange lets a new open order take it
		const second = await waitingStop(sandbox(), { clientOrderId: 'entry-7' });
		const run = await runFutures(sandbox(), 'cancelOrder', {
			cancelBy: 'clientOrderId',
			clientOrderId: 'entry-7',
		});
		expect(jsonOf(run)[0]).toMatchObject({
			outcome: 'placed',
			orderId: second.orderId,
			status: 'ORDER_CANCELED',
		});
		const cancel = queryOf(sent(run.requests, ORDER, 'DELETE')[0]);
		expect([cancel.get('orderId'), cancel.get('type')]).toEqual([second.orderId, 'STOP']);
	});

	it('a client order ID the service does not know (0211): an error naming Client Order ID, nothing sent to cancel', async () => {
		const run = await runFutures(
			sandbox(),
			'cancelOrder',
			{ cancelBy: 'clientOrderId', clientOrderId: 'never-used' },
			{ continueOnFail: true },
		);
		expect(jsonOf(run)[0]).toMatchObject({
			outcome: 'rejected',
			error:
				'Client Order ID: could not cancel futures order never-used: the service has no futures order with this ID',
		});
		expect(sent(run.requests, ORDER, 'DELETE')).toHaveLength(0);
	});
});
