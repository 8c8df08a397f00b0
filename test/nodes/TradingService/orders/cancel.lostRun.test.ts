import type { IDataObject } from 'n8n-workflow';

import { checkAfterLostRun } from '../../../../nodes/TradingService/orders/cancelLookups';
import { pendingCancel } from '../../../../nodes/TradingService/orders/cancelWrites';
import { lookUpCancelsInLists } from '../../../../nodes/TradingService/orders/listLookups';
import { WriteLedger } from '../../../../nodes/TradingService/writes/ledger';
import type { EngineSession } from '../../../../nodes/TradingService/writes/engine';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { useSandbox } from '../../../support/sandbox';
import { node } from '../../../support/fixedNode';

// A run that may follow a lost one checks each order before its cancel is sent (docs/safety.md,
// "n8n's re-runs"): many order IDs of one account from its lists, the rest 10 lookups at a time;
// the orders Cancel Many by symbol has just listed open are not checked.

const ORDER = '/api/v1/spot/order';
const OPEN = '/api/v1/spot/openOrders';
const PAST = '/api/v1/spot/tradeOrders';
const BY_IDS = '/api/v1/spot/cancelOrderByIds';
const sandbox = useSandbox({ rateLimit: false, requestRates: false });

/** The execution context of an execution n8n established 30 s ago: its run may follow a lost one. */
const runtimeData = (): IDataObject => ({
	version: 1,
	establishedAt: Date.now() - 30_000,
	source: 'webhook',
});

describe('cancels after a lost run', () => {
	it('Cancel Many by 200 order IDs, 50 of them already cancelled: two list reads, no lookup one by one; those 50 reported alreadyPlaced, the other 150 cancelled', async () => {
		const ids = await placeRestingOrders(sandbox(), 200, { quantity: '0.0001' });
		const cancelledBefore = ids.filter((_, index) => index % 4 === 0);
		await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'cancelMany',
				cancelBy: 'ids',
				orderIds: cancelledBefore.join(','),
			},
		});
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'cancelMany',
				cancelBy: 'ids',
				orderIds: ids.join(','),
			},
			runtimeData: runtimeData(),
		});
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(200);
		for (const item of run.items)
			expect(item.json).toMatchObject({
				outcome: 'placed',
				cancelled: true,
				...(cancelledBefore.includes(String(item.json.orderId))
					? { alreadyPlaced: true, confirmedByLookup: true }
					: {}),
			});
		expect(run.items.filter((item) => item.json.alreadyPlaced === true)).toHaveLength(50);
		// The account's open orders, then its past ones for the 50 not open; never 200 lookups.
		expect(requestsTo(sandbox(), ORDER, since)).toHaveLength(0);
		expect(
			requestsTo(sandbox(), OPEN, since).length + requestsTo(sandbox(), PAST, since).length,
		).toBe(2);
		const sent = requestsTo(sandbox(), BY_IDS, since).flatMap(
			(request) => new URLSearchParams(request.query).get('ids')?.split(',') ?? [],
		);
		expect(sent.sort()).toEqual(ids.filter((id) => !cancelledBefore.includes(id)).sort());
	});

	it('Cancel Many by symbol: the orders it has just listed open are not looked up again', async () => {
		const ids = await placeRestingOrders(sandbox(), 5);
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'cancelMany',
				cancelBy: 'symbol',
				symbol: 'BTCUSDT',
			},
			runtimeData: runtimeData(),
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(Array(5).fill('placed'));
		expect(requestsTo(sandbox(), ORDER, since)).toHaveLength(0);
		expect(requestsTo(sandbox(), PAST, since)).toHaveLength(0);
		expect(requestsTo(sandbox(), OPEN, since)).toHaveLength(2);
		expect(
			sandbox()
				.ledger.cancels.map((cancel) => cancel.orderId)
				.sort(),
		).toEqual([...ids].sort());
	});

	it('what the lists cannot show (client order IDs) is looked up one by one, 10 at a time: 25 lookups, at most and at least 10 in flight', async () => {
		let inFlight = 0;
		let most = 0;
		const queries: IDataObject[] = [];
		const session = {
			node,
			lostRun: { since: 0, settledFrom: 0, why: 'late' as const },
			account: () => Promise.resolve({ accountId: '10001', shared: false }),
			client: {
				request: async (_endpoint: unknown, { qs }: { qs: IDataObject }) => {
					queries.push(qs);
					most = Math.max(most, ++inFlight);
					// Answered a turn of the event loop later: every lane that can start has by then.
					await new Promise((resolve) => setImmediate(resolve));
					inFlight--;
					const cancelled = qs.origClientOrderId === 'row-3';
					return { orderId: '1', status: cancelled ? 'CANCELED' : 'NEW', accountId: '10001' };
				},
			},
		} as unknown as EngineSession;
		const ledger = new WriteLedger({}, 0);
		const pending = Array.from({ length: 25 }, (_, index) =>
			pendingCancel(ledger, String(index), { clientOrderId: `row-${index}` }, index),
		);
		const verdicts = await checkAfterLostRun(session, pending, lookUpCancelsInLists);
		expect(queries).toHaveLength(25);
		expect(most).toBe(10);
		expect(verdicts.map((verdict) => verdict?.kind)).toEqual(
			pending.map((_, index) => (index === 3 ? 'placed' : undefined)),
		);
		expect(verdicts[3]).toMatchObject({ kind: 'placed', alreadyPlaced: true });
	});
});
