import { DEMO_KEYS } from '../../../../sandbox';
import type { FuturesOrder } from '../../../../sandbox/types';
import { useSandbox } from '../../../support/sandbox';
import { BTC, ETH, FUTURES, jsonOf, picked, queriesTo, runFutures } from './support';

const sandbox = useSandbox();

/** `count` resting BUY orders, alternating BTC and ETH when `both`; newest first, as listed. */
function restingOrders(count: number, both = false): FuturesOrder[] {
	const placed: FuturesOrder[] = [];
	for (let index = 0; index < count; index++) {
		const symbol = both && index % 2 === 1 ? ETH : BTC;
		placed.push(
			sandbox().futures.placeOpenOrder({
				symbol,
				side: 'BUY',
				quantity: symbol === BTC ? '0.001' : '0.01',
				price: symbol === BTC ? `${50000 + index}.5` : `${2000 + index}.25`,
			}),
		);
	}
	return placed.reverse();
}

describe('Futures > Get Orders', () => {
	it('Return All pages open orders of every contract by fromOrderId: each once, newest first, exact', async () => {
		const placed = restingOrders(1100, true);
		const run = await runFutures(sandbox(), 'getOrders', { returnAll: true });
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)).toEqual(placed);
		const sent = queriesTo(run.requests, FUTURES.openOrders);
		expect(sent.map((query) => query.get('limit'))).toEqual(['500', '500', '500']);
		expect(sent.map((query) => query.get('fromOrderId'))).toEqual([
			null,
			placed[499].orderId,
			placed[999].orderId,
		]);
		for (const query of sent) {
			expect(query.get('type')).toBe('LIMIT');
			expect(query.has('symbol')).toBe(false);
		}
	});

	it('Limit stops once it has enough, and reads one contract', async () => {
		const placed = restingOrders(700, true).filter((order) => order.symbol === ETH);
		const run = await runFutures(sandbox(), 'getOrders', { symbol: picked(ETH), limit: 20 });
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)).toEqual(placed.slice(0, 20));
		expect(run.requests).toHaveLength(1);
		expect(queriesTo(run.requests, FUTURES.openOrders)[0].get('symbol')).toBe(ETH);
		const more = await runFutures(sandbox(), 'getOrders', { symbol: picked(ETH), limit: 340 });
		expect(jsonOf(more)).toEqual(placed.slice(0, 340));
		expect(queriesTo(more.requests, FUTURES.openOrders).map((q) => q.get('limit'))).toEqual([
			'340',
		]);
	});

	it('lists past orders of one contract: the fills, with their exact quantities and prices', async () => {
		const first = sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.123' });
		const second = sandbox().futures.fill({ symbol: BTC, side: 'SELL', quantity: '0.023' });
		const run = await runFutures(sandbox(), 'getOrders', {
			orderStatus: 'past',
			symbol: picked(BTC),
			returnAll: true,
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)).toEqual([second.order, first.order]);
		expect(jsonOf(run)[1]).toMatchObject({ status: 'FILLED', executedBaseQty: '0.123' });
		expect(run.requests.map((request) => request.path)).toEqual([FUTURES.historyOrders]);
	});

	it('gives no items when there are none: no stop orders, or no past orders', async () => {
		restingOrders(3);
		const stops = await runFutures(sandbox(), 'getOrders', { orderType: 'STOP', returnAll: true });
		expect(stops.error).toBeUndefined();
		expect(stops.items).toEqual([]);
		expect(queriesTo(stops.requests, FUTURES.openOrders)[0].get('type')).toBe('STOP');
		const past = await runFutures(sandbox(), 'getOrders', {
			orderStatus: 'past',
			symbol: picked(ETH),
		});
		expect(past.items).toEqual([]);
	});

	it('refuses past orders without a contract before sending anything', async () => {
		const run = await runFutures(sandbox(), 'getOrders', {
			orderStatus: 'past',
			symbol: { __rl: true, mode: 'id', value: '={{ $json.contract }}' },
		});
		expect(run.error?.message).toBe('Symbol: an empty value is not a futures contract');
		expect(run.requests).toHaveLength(0);
	});

	it('shows a sub key, which has no futures account, none of the master account’s orders', async () => {
		restingOrders(5);
		const run = await runFutures(
			sandbox(),
			'getOrders',
			{ returnAll: true },
			{
				key: DEMO_KEYS.sub,
			},
		);
		expect(run.error).toBeUndefined();
		expect(run.items).toEqual([]);
	});
});
