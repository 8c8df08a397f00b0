import { DEMO_KEYS } from '../../../../sandbox';
import { useSandbox } from '../../../support/sandbox';
import { BTC, FUTURES, jsonOf, queriesTo, runFutures } from './support';

const sandbox = useSandbox();

describe('Futures > Get Order', () => {
	it('finds an order by its order ID: the service’s fields, decimals and IDs as text', async () => {
		const placed = sandbox().futures.placeOpenOrder({
			symbol: BTC,
			side: 'BUY',
			quantity: '0.015',
			price: '61234.5',
		});
		const run = await runFutures(sandbox(), 'getOrder', { orderId: placed.orderId });
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)).toEqual([placed]);
		expect(jsonOf(run)[0]).toMatchObject({ originalQuoteQty: '918.5175', status: 'NEW' });
		const [query] = queriesTo(run.requests, FUTURES.order);
		expect(query.get('orderId')).toBe(placed.orderId);
		expect(query.has('clientOrderId')).toBe(false);
	});

	it('finds an order by its client order ID', async () => {
		const filled = sandbox().futures.fill({
			symbol: BTC,
			side: 'BUY',
			quantity: '0.002',
			clientOrderId: 'hedge-42',
		});
		const run = await runFutures(sandbox(), 'getOrder', {
			findBy: 'clientOrderId',
			clientOrderId: 'hedge-42',
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)).toEqual([filled.order]);
		expect(queriesTo(run.requests, FUTURES.order)[0].get('clientOrderId')).toBe('hedge-42');
	});

	it.each([
		['orderId', { orderId: '12ab' }, 'Order ID: "12ab" is not an order ID'],
		['orderId', { orderId: '123456789012345678901' }, 'is not an order ID'],
		['clientOrderId', { clientOrderId: 'has space' }, 'Client Order ID: "has space" is not'],
	])('refuses a malformed %s before sending anything', async (findBy, fields, message) => {
		const run = await runFutures(sandbox(), 'getOrder', { findBy, ...fields });
		expect(run.error?.message).toContain(message);
		expect(run.requests).toHaveLength(0);
	});

	it('passes on the service’s not found, for an order of another account too', async () => {
		const placed = sandbox().futures.placeOpenOrder({
			symbol: BTC,
			side: 'BUY',
			quantity: '0.001',
			price: '50000',
		});
		const run = await runFutures(
			sandbox(),
			'getOrder',
			{ orderId: placed.orderId },
			{
				key: DEMO_KEYS.sub,
			},
		);
		expect(run.error).toBeDefined();
		expect(run.items).toEqual([]);
		expect(run.requests).toHaveLength(1);
	});
});
