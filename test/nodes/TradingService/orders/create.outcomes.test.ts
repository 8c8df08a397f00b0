/**
 * Order > Create: the outcome reported for an order whose answer was lost, ambiguous or followed
 * by n8n's Retry On Fail. Beside create.test.ts; the sandbox's ledger says what really happened.
 */
import { runTradingService } from '../../../../tools/harness/node';
import { PATHS, reportedOutcome } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

const limitOrder = (overrides: Record<string, unknown> = {}) => ({
	resource: 'order',
	operation: 'create',
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	price: '10',
	quantity: '0.01',
	...overrides,
});

describe('n8n Retry On Fail never places an order twice', () => {
	// Retry On Fail re-runs the whole node, every item, after an error in any item. An order placed
	// for an earlier item must not be sent again on the next try, even without a client order ID to
	// look it up by: the write ledger answers it.
	it('orders without a client order ID, item 1 refused: item 0 is placed once', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder({
				quantity: '={{ $json.quantity }}',
				options: { generateClientOrderId: false },
			}),
			inputItems: [{ json: { quantity: '0.01' } }, { json: { quantity: '99999999' } }],
			node: { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
		});
		expect(sandbox().ledger.orders).toHaveLength(1);
		expect(run.error?.message).toBe('The account balance is too low for this request');
		expect(reportedOutcome(run)).toBe('rejected');
	});
});

describe('an order placed but unanswered is reported placed', () => {
	// A connection dropped after the order was sent leaves its outcome open. The node looks the
	// order up by its client order ID; found, it is reported placed, with the order, as if answered.
	it('committed, connection dropped: reported placed with the order, placed once', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: PATHS.order }] });
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder({ newClientOrderId: 'row-1' }),
		});
		expect(run.error?.message).toBeUndefined();
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			clientOrderId: 'row-1',
			orderId: sandbox().ledger.orders[0]?.orderId,
		});
		expect(sandbox().ledger.orders).toHaveLength(1);
	});
});

describe('an unknown outcome is looked up, never reported as a refusal', () => {
	// -1146 ("order creation status unknown") or a lost answer may come after the order was placed.
	// The node looks the order up before it says anything; a 429 on a later attempt proves only that
	// this attempt did nothing, so it never turns a placed order into "Nothing was executed".
	it('an order answered -1146 (creation timeout) but placed: looked up, reported placed', async () => {
		sandbox().setFaults({ rules: [{ kind: 'unknownAfter', times: 1, path: PATHS.order }] });
		const run = await runTradingService(sandbox(), { parameters: limitOrder() });
		expect(run.error?.message).toBeUndefined();
		expect(reportedOutcome(run)).toBe('placed');
		expect(sandbox().ledger.orders).toHaveLength(1);
		expect(
			sandbox().ledger.requests.some(
				(request) => request.path === PATHS.queryOrder && request.method === 'GET',
			),
		).toBe(true);
	});

	it('unknown, then a 429 on a later attempt: never "Nothing was executed" for a placed order', async () => {
		sandbox().setFaults({
			rules: [
				{ kind: 'dropAfter', times: 1, path: PATHS.order },
				{ kind: 'rateLimit', times: 20, path: PATHS.order, retryAfterSeconds: 0 },
			],
		});
		const run = await runTradingService(sandbox(), { parameters: limitOrder() });
		expect(run.error?.description ?? '').not.toContain('Nothing was executed');
		expect(reportedOutcome(run)).toBe('placed');
		expect(sandbox().ledger.orders).toHaveLength(1);
	});
});
