import type { IDataObject } from 'n8n-workflow';

import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { useSandbox } from '../../../support/sandbox';

// Cancel Many by symbol confirms its cancels with a second list of the open orders
// (docs/safety.md): what it says when that list contradicts the cancel's answer, and when it
// cannot be read.

const OPEN = '/api/v1/spot/openOrders';
const BY_IDS = '/api/v1/spot/cancelOrderByIds';
const sandbox = useSandbox({ rateLimit: false, requestRates: false });

const bySymbol = {
	resource: 'order',
	operation: 'cancelMany',
	cancelBy: 'symbol',
	symbol: 'BTCUSDT',
};

/** Each order's item, in order ID order (the list gives the newest first). */
const itemsByOrderId = (items: Array<{ json: IDataObject }>) =>
	items.map((item) => item.json).sort((a, b) => String(a.orderId).localeCompare(String(b.orderId)));

describe('Order > Cancel Many > by symbol: the confirming list', () => {
	it('the cancel answered done but nothing was applied (made up by the fault injector): each order still listed open 3 s later is unknown, saying so', async () => {
		const ids = await placeRestingOrders(sandbox(), 2);
		// HTTP 200 with code 0000 and no failed ID, the request not processed.
		sandbox().setFaults({
			rules: [{ kind: 'answer200Code', times: 1, path: BY_IDS, code: '0000' }],
		});
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), { parameters: bySymbol });
		expect(run.error).toBeUndefined();
		expect(itemsByOrderId(run.items)).toEqual(
			[...ids].sort().map((orderId) => ({
				orderId,
				symbol: 'BTCUSDT',
				outcome: 'unknown',
				cancelled: null,
				status: 'NEW',
				message: `Unknown outcome: the exchange answered that order ${orderId} was cancelled, but it was still listed as open 3 s later`,
				howToCheck: `Look up order ID ${orderId} (Trading Service > Order > Get) and check its status`,
			})),
		);
		// Listed, cancelled once, listed again until the wait ran out; never sent a second time.
		expect(requestsTo(sandbox(), BY_IDS, since)).toHaveLength(1);
		expect(requestsTo(sandbox(), OPEN, since).length).toBeGreaterThanOrEqual(3);
		expect(sandbox().ledger.cancels).toHaveLength(0);
	});

	it('the confirming list cannot be read: each order is reported as its cancel was answered, with notConfirmed saying why', async () => {
		const ids = await placeRestingOrders(sandbox(), 2);
		sandbox().setFaults({
			rules: [
				// The first list answers (IDs as bare numbers: harmless) ...
				{ kind: 'numericIds', times: 1, path: OPEN, method: 'GET' },
				// ... the confirming one is redirected, which the node does not follow.
				{ kind: 'redirectSameHost', times: 1, path: OPEN, method: 'GET' },
			],
		});
		const run = await runTradingService(sandbox(), { parameters: bySymbol });
		expect(run.error).toBeUndefined();
		expect(itemsByOrderId(run.items)).toEqual(
			[...ids].sort().map((orderId) => ({
				orderId,
				symbol: 'BTCUSDT',
				outcome: 'placed',
				cancelled: true,
				notConfirmed: expect.stringMatching(
					/^listing the open BTCUSDT orders to confirm failed: .+/,
				),
			})),
		);
		expect(requestsTo(sandbox(), BY_IDS)).toHaveLength(1);
		expect(requestsTo(sandbox(), OPEN)).toHaveLength(2);
		expect(
			sandbox()
				.ledger.cancels.map((cancel) => cancel.orderId)
				.sort(),
		).toEqual([...ids].sort());
	});
});
