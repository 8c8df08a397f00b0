/**
 * Issue 39 defect 4: a stopped Create Many (version 2, batches in flight) reports what the write
 * ledger holds once every batch in flight has answered, order by order: placed, unknown, refused,
 * not sent. It never says "nothing was executed" while orders were placed, and n8n's Retry On Fail
 * places none of them again.
 */
import type { IDataObject } from 'n8n-workflow';

import { requestsTo, runTradingService, type NodeRun } from '../../tools/harness/node';
import { PATHS } from '../support/runs';
import { useSandbox } from '../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'lenient' });

/** Orders of BTCUSDT, each of its own price; the one at `refused` is beyond the balance. */
function orders(count: number, refused: number): IDataObject[] {
	return Array.from({ length: count }, (_, index) => ({
		symbol: 'BTCUSDT',
		side: 'BUY',
		type: 'LIMIT',
		price: `${100 + index}.5`,
		quantity: index === refused ? '1000000' : '0.001',
	}));
}

const options = { failOnRejected: true, parallelRequests: 3 };

interface Report {
	placed: string;
	unknown: string;
	nothingExecuted: string;
	orders?: Record<string, number>;
}

const reportOf = (run: NodeRun) =>
	(run.error?.context as { runReport?: Report } | undefined)?.runReport;

const textOf = (run: NodeRun) => `${run.error?.message ?? ''} ${run.error?.description ?? ''}`;

describe('Create Many stopped with batches in flight: the error reports the ledger (issue 39, defect 4)', () => {
	it('one item of 60 orders, three batches in flight, one order refused in the first: 59 placed reported, never "nothing was executed"', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'createMany',
				inputMode: 'json',
				ordersJson: '={{ JSON.stringify($json.orders) }}',
				options,
			},
			inputItems: [{ json: { orders: orders(60, 3) } }],
			node: { typeVersion: 2 },
		});
		expect(requestsTo(sandbox(), PATHS.unifiedBatch)).toHaveLength(3);
		expect(sandbox().ledger.orders).toHaveLength(59);
		// The run's counts lead (issue 49), then the refusal that stopped it.
		expect(run.error?.message).toMatch(
			/^59 orders placed before the run stopped: 1 order\(s\) were rejected/,
		);
		expect(textOf(run)).not.toMatch(/nothing was executed/i);
		expect(reportOf(run)).toEqual({
			placed: '0',
			unknown: '',
			nothingExecuted: '',
			orders: { placed: 59, unknown: 0, rejected: 1, notSent: 0 },
		});
		expect(run.error?.description).toContain('59 placed');
		expect(run.error?.description).toContain('1 refused');
	});

	it('60 items, one order each: the same counts, and every item listed where the ledger has it', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'createMany',
				inputMode: 'autoMap',
				options,
			},
			inputItems: orders(60, 3).map((json) => ({ json })),
			node: { typeVersion: 2 },
		});
		expect(sandbox().ledger.orders).toHaveLength(59);
		expect(textOf(run)).not.toMatch(/nothing was executed/i);
		expect(textOf(run)).not.toMatch(/19 order\(s\) were placed/);
		expect(reportOf(run)).toEqual({
			placed: '0–2, 4–59',
			unknown: '',
			nothingExecuted: '3',
			orders: { placed: 59, unknown: 0, rejected: 1, notSent: 0 },
		});
	});

	it('n8n Retry On Fail: the second try sends only the refused order, places nothing twice, and reports the first try’s 59', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'createMany',
				inputMode: 'json',
				ordersJson: '={{ JSON.stringify($json.orders) }}',
				options,
			},
			inputItems: [{ json: { orders: orders(60, 3) } }],
			node: { typeVersion: 2, retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		});
		const batches = requestsTo(sandbox(), PATHS.unifiedBatch).map(
			(request) => (JSON.parse(request.body) as unknown[]).length,
		);
		expect(batches).toHaveLength(4);
		expect(batches[3]).toBe(1);
		const ids = sandbox().ledger.orders.map((order) => order.clientOrderId);
		expect(ids).toHaveLength(59);
		expect(new Set(ids).size).toBe(59);
		expect(textOf(run)).not.toMatch(/nothing was executed/i);
		expect(reportOf(run)?.orders).toEqual({ placed: 59, unknown: 0, rejected: 1, notSent: 0 });

		// A retry of the failed execution (its saved context) places nothing again either.
		const retry = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'createMany',
				inputMode: 'json',
				ordersJson: '={{ JSON.stringify($json.orders) }}',
				options,
			},
			inputItems: [{ json: { orders: orders(60, 3) } }],
			node: { typeVersion: 2 },
			retryOf: run,
			mode: 'retry',
		});
		expect(sandbox().ledger.orders).toHaveLength(59);
		expect(requestsTo(sandbox(), PATHS.unifiedBatch)).toHaveLength(5);
		expect(reportOf(retry)?.orders).toEqual({ placed: 59, unknown: 0, rejected: 1, notSent: 0 });
	});

	it('a batch in flight left unknown (answer lost, lookups failing): reported unknown, the others placed, none "nothing was executed"', async () => {
		sandbox().setFaults({
			rules: [
				{ kind: 'dropAfter', times: 1, path: PATHS.unifiedBatch },
				// Every lookup fails, at once (a redirect is not followed): the lists the lost batch is
				// settled from, and the order query each order then falls back to.
				{ kind: 'redirectSameHost', times: 1000, path: PATHS.queryOrder },
				{ kind: 'redirectSameHost', times: 1000, path: PATHS.openOrders, method: 'GET' },
				{ kind: 'redirectSameHost', times: 1000, path: PATHS.pastOrders, method: 'GET' },
			],
		});
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'createMany',
				inputMode: 'json',
				ordersJson: '={{ JSON.stringify($json.orders) }}',
				options: { parallelRequests: 3 },
			},
			inputItems: [{ json: { orders: orders(60, -1) } }],
			credentials: { recvWindow: 300 },
			node: { typeVersion: 2 },
		});
		expect(sandbox().ledger.orders).toHaveLength(60);
		// The lists fail, then the first order's query: the service cannot be asked now, so the lost
		// batch's other orders are not queried one by one in turn (issue 49).
		expect(requestsTo(sandbox(), PATHS.queryOrder)).toHaveLength(1);
		expect((run.error?.context as IDataObject | undefined)?.outcome).toBe('unknown');
		expect(textOf(run)).not.toMatch(/nothing was executed/i);
		const counts = reportOf(run)?.orders;
		expect(counts?.unknown).toBeGreaterThanOrEqual(1);
		expect(counts).toEqual({
			placed: 60 - (counts?.unknown ?? 0),
			unknown: counts?.unknown,
			rejected: 0,
			notSent: 0,
		});
	});
});
