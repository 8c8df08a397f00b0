/**
 * The node at the exchange's documented request rates, through n8n-core's real executor against a
 * sandbox that enforces them (its default: 20 order and 5 query requests a second per API key, a
 * 429 and a minute's suspension over them, 418 for a request sent into it). The credential is left
 * at its defaults, as a new user leaves it, and the node at version 2's defaults (Parallel
 * Requests 50): every run stays within the rates by itself, 0 × 429.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../../../../sandbox';
import { DEMO_ACCOUNTS } from '../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { PATHS } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';
import { busiestSecond, createOrders } from './support';

jest.setTimeout(60_000);

// The documented request rates (the sandbox's default); no weight budget.
const sandbox = useSandbox({ rateLimit: false, symbolRules: 'lenient' });

const V2 = { typeVersion: 2 };

const create = createOrders;

function withinTheRates(sb: Sandbox): void {
	expect(sb.rateLimitStats()).toEqual({ rateLimited: 0, intoSuspension: 0 });
	expect(sb.ledger.requests.filter((request) => request.status >= 400)).toEqual([]);
}

describe('at the documented request rates, with the credential’s defaults', () => {
	it('Create for 200 items: all placed, never more than 20 order requests in a second, 0 × 429', async () => {
		const run = await runTradingService(sandbox(), create(200, '1'));
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(Array(200).fill('placed'));
		expect(sandbox().ledger.orders).toHaveLength(200);
		const orders = requestsTo(sandbox(), PATHS.unifiedOrder);
		expect(orders).toHaveLength(200);
		expect(busiestSecond(orders)).toBeLessThanOrEqual(20);
		// Paced, not serialised: the busiest second is full.
		expect(busiestSecond(orders)).toBe(20);
		withinTheRates(sandbox());
	});

	it('two workflows on the same key at once in one process share its rate: 0 × 429', async () => {
		const [first, second] = await Promise.all([
			runTradingService(sandbox(), { ...create(60, '2'), executionId: 'first' }),
			runTradingService(sandbox(), { ...create(60, '3'), executionId: 'second' }),
		]);
		expect(first.error).toBeUndefined();
		expect(second.error).toBeUndefined();
		expect(sandbox().ledger.orders).toHaveLength(120);
		expect(busiestSecond(requestsTo(sandbox(), PATHS.unifiedOrder))).toBeLessThanOrEqual(20);
		withinTheRates(sandbox());
	});

	it('queries go 5 a second and orders 20 at the same time: the classes are counted apart', async () => {
		const ids = await placeRestingOrders(sandbox(), 20);
		// Let the seeding's order requests leave the sandbox's window.
		await new Promise((resolve) => setTimeout(resolve, 1100));
		const since = sandbox().ledger.requests.length;
		const [lookups, orders] = await Promise.all([
			runTradingService(sandbox(), {
				parameters: {
					resource: 'order',
					operation: 'get',
					symbol: 'BTCUSDT',
					orderId: '={{ $json.id }}',
				},
				inputItems: ids.map((id) => ({ json: { id } })),
				node: V2,
				executionId: 'lookups',
			}),
			runTradingService(sandbox(), { ...create(40, '4'), executionId: 'orders' }),
		]);
		expect(lookups.error).toBeUndefined();
		expect(lookups.items).toHaveLength(20);
		expect(orders.error).toBeUndefined();
		const sent = sandbox().ledger.requests.slice(since);
		const queries = sent.filter((request) => request.rateClass === 'query');
		expect(queries.length).toBeGreaterThanOrEqual(20);
		expect(busiestSecond(queries)).toBe(5);
		expect(busiestSecond(sent.filter((request) => request.rateClass === 'order'))).toBe(20);
		withinTheRates(sandbox());
	});

	it('n8n Processes Sharing This Key 2: each process sends half the rates', async () => {
		const credentials: IDataObject = { processesSharingKey: 2 };
		const run = await runTradingService(sandbox(), { ...create(40, '5'), credentials });
		expect(run.error).toBeUndefined();
		expect(busiestSecond(requestsTo(sandbox(), PATHS.unifiedOrder))).toBe(10);
		withinTheRates(sandbox());
	});

	it('transfers stay one a second, one every two seconds for each of two processes', async () => {
		const transfer = {
			resource: 'account',
			operation: 'transferAsset',
			fromAccountId: DEMO_ACCOUNTS.mainTrading,
			toAccountId: DEMO_ACCOUNTS.custody,
			coin: 'USDT',
			quantity: '={{ $json.quantity }}',
		};
		const run = await runTradingService(sandbox(), {
			parameters: transfer,
			inputItems: ['1.1', '1.2', '1.3'].map((quantity) => ({ json: { quantity } })),
			credentials: { processesSharingKey: 2 },
			node: V2,
		});
		expect(run.error).toBeUndefined();
		const sent = requestsTo(sandbox(), PATHS.transfer);
		expect(sent).toHaveLength(3);
		for (let index = 1; index < sent.length; index++)
			expect(sent[index].at - sent[index - 1].at).toBeGreaterThanOrEqual(2000);
		withinTheRates(sandbox());
	});
});
