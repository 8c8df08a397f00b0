import type { IDataObject } from 'n8n-workflow';

import { useSandbox } from '../../../support/sandbox';
import { ORDER_PATH, bookOrders, queries } from './futuresOrderSupport';
import { BTC, jsonOf, picked, runFutures } from './support';

// A business key (a Client Order ID the user gives) proves "this order" only when the order that
// holds it is the one asked for: a market order by quote keeps its quote, and an attached
// take-profit is part of the order. A filled order frees its ID on the exchange, so the node's
// check is all that stands between a reused key and a second order.

const sandbox = useSandbox({ symbolRules: 'lenient' });

beforeEach(() => sandbox().futures.setMarkPrice(BTC, '60000'));

const marketBuy = (quote: string, options: IDataObject = {}) => ({
	symbol: picked(BTC),
	side: 'BUY',
	orderType: 'MARKET',
	quantityIn: 'quote',
	quantity: quote,
	options: { clientOrderId: 'signal-7', ...options },
});

describe('Futures > Create Order: a business key held by a filled order', () => {
	it('the same order again is reported placed from the filled one; nothing is sent', async () => {
		const first = await runFutures(sandbox(), 'createOrder', marketBuy('120'));
		expect(jsonOf(first)[0]).toMatchObject({ outcome: 'placed' });
		const again = await runFutures(sandbox(), 'createOrder', marketBuy('120'));
		expect(jsonOf(again)[0]).toMatchObject({ outcome: 'placed', alreadyPlaced: true });
		expect(queries(again.requests, ORDER_PATH, 'POST')).toHaveLength(0);
		expect(bookOrders(sandbox())).toHaveLength(1);
	});

	it('another quote under the same key is not taken for the filled order, and is not sent', async () => {
		await runFutures(sandbox(), 'createOrder', marketBuy('120'));
		const other = await runFutures(sandbox(), 'createOrder', marketBuy('600'), {
			continueOnFail: true,
		});
		const [item] = jsonOf(other);
		expect(item.outcome).toBe('rejected');
		expect(item.alreadyPlaced).toBeUndefined();
		expect(queries(other.requests, ORDER_PATH, 'POST')).toHaveLength(0);
		expect(bookOrders(sandbox())).toHaveLength(1);
	});

	it('an attached take-profit makes it another order', async () => {
		await runFutures(sandbox(), 'createOrder', marketBuy('120'));
		const other = await runFutures(
			sandbox(),
			'createOrder',
			marketBuy('120', { takeProfitPrice: '66000' }),
			{ continueOnFail: true },
		);
		expect(jsonOf(other)[0].outcome).toBe('rejected');
		expect(queries(other.requests, ORDER_PATH, 'POST')).toHaveLength(0);
	});
});
