import { DEMO_ACCOUNTS, DEMO_KEYS, type DemoKey } from '../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { useSandbox } from '../../../support/sandbox';

// Cancel by Client Order ID with a master key (docs/safety.md "One account"): a client order ID is
// unique per account only and the cancel endpoint takes no account, so every cancel request names
// the order ID found in the run's account, also when a later try of the node run sends it again.

const ORDER = '/api/v1/spot/order';
const sandbox = useSandbox({ rateLimit: false, requestRates: false });

/** An open BTCUSDT order of `key`'s trading account under client order ID row-7. */
const seedRow7 = (key: DemoKey) =>
	sandbox().seedOpenOrder({
		key,
		symbol: 'BTCUSDT',
		side: 'BUY',
		price: '100',
		quantity: '0.001',
		clientOrderId: 'row-7',
		time: sandbox().now(),
	});

describe('Order > Cancel by Client Order ID, sent again by a later try', () => {
	it.each([
		['a sub account', DEMO_ACCOUNTS.subTrading, DEMO_KEYS.sub, DEMO_KEYS.master],
		['its own account', DEMO_ACCOUNTS.mainTrading, DEMO_KEYS.master, DEMO_KEYS.sub],
	])(
		'a master key acting on %s, the first answer lost and its lookup failed: Retry On Fail cancels by the order ID found in that account; the other account’s order under the same ID stays open',
		async (_case, account, ownerKey, otherKey) => {
			const other = seedRow7(otherKey);
			const target = seedRow7(ownerKey);
			sandbox().setFaults({
				rules: [
					// The lookup that finds the ID in the account answers (IDs as bare numbers: harmless).
					{ kind: 'numericIds', times: 1, path: ORDER, method: 'GET' },
					// The cancel is not applied and its answer is unusable; the lookup that would
					// settle it fails at once (a redirect is not followed): the first try ends unknown.
					{ kind: 'unknownBefore', times: 1, path: ORDER, method: 'DELETE' },
					{ kind: 'redirectSameHost', times: 1, path: ORDER, method: 'GET' },
				],
			});
			const run = await runTradingService(sandbox(), {
				parameters: {
					resource: 'order',
					operation: 'cancel',
					findBy: 'clientOrderId',
					clientOrderId: 'row-7',
					options: { account: { __rl: true, mode: 'id', value: account } },
				},
				node: { typeVersion: 2, retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
				// A short receive window keeps the wait for "no attempt can still be accepted" short.
				credentials: { recvWindow: 1500 },
			});
			expect(run.error).toBeUndefined();
			expect(run.items[0].json).toMatchObject({
				outcome: 'placed',
				cancelled: true,
				orderId: target.orderId,
				status: 'CANCELED',
			});
			const deletes = requestsTo(sandbox(), ORDER).filter((request) => request.method === 'DELETE');
			// The first try's cancel, then the second try's, sent once its lookup found the order open.
			expect(deletes).toHaveLength(2);
			for (const request of deletes) {
				expect(request.query).toMatch(new RegExp(`^orderId=${target.orderId}&`));
				expect(request.query).not.toMatch(/(^|&)clientOrderId=/);
			}
			expect(sandbox().getOrder(target.orderId)!.status).toBe('CANCELED');
			expect(sandbox().getOrder(other.orderId)!.status).toBe('NEW');
			expect(sandbox().ledger.cancels).toEqual([
				expect.objectContaining({ orderId: target.orderId }),
			]);
		},
	);
});
