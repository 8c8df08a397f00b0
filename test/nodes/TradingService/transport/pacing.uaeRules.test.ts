/**
 * The exchange's rate-limit rules where the spec is silent (the UAE documentation), through n8n's
 * real executor against the sandbox over loopback: one weight budget per service however its Base
 * URL is spelt (defect 14), a transfer refused with a 429 without Retry-After, one transfer per
 * second, and the endpoint weights. (The minute without requests of the key's class after a 429
 * without Retry-After, and no 418, is in test/fault/rateLimits.test.ts, whose minutes of waiting
 * run at once.)
 */
import type { IDataObject } from 'n8n-workflow';

import { DAY_MS } from '../../../../nodes/TradingService/constants';
import { FUTURES_ENDPOINTS } from '../../../../nodes/TradingService/futures/endpoints';
import { limiterFor } from '../../../../nodes/TradingService/transport/throttles';
import { DEMO_ACCOUNTS, DEMO_KEYS } from '../../../../sandbox';
import { ROUTES } from '../../../../sandbox/routes/table';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { PATHS } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';
import { useDocumentedSuspension } from '../../../support/suspension';
import { DECLARED_ENDPOINTS } from './support';

// The sandbox suspends a key for the real minute here: the node must wait it out as the exchange says.
useDocumentedSuspension();

const transfer = (quantity: string) => ({
	resource: 'account',
	operation: 'transferAsset',
	fromAccountId: DEMO_ACCOUNTS.mainTrading,
	toAccountId: DEMO_ACCOUNTS.custody,
	coin: 'USDT',
	quantity,
});

const historyOf = (flowType: number) => ({
	resource: 'account',
	operation: 'getHistory',
	flowType,
	returnAll: true,
	startTime: new Date(Date.now() - DAY_MS).toISOString(),
	endTime: new Date().toISOString(),
});

const balances = { resource: 'account', operation: 'getBalances' };

describe('defect 14: credentials differing only in the Base URL’s spelling share one weight budget', () => {
	const sandbox = useSandbox({ rateLimit: { windowMs: 1000, maxWeight: 10 } });

	it('two nodes, `http://h:p` and `http://h:p/`, reading at once with a budget of 10 per second: 0 × 429', async () => {
		const now = Date.now();
		sandbox().seedRecords({
			flowType: 32,
			count: 1200,
			startTime: now - DAY_MS / 2,
			endTime: now - 1000,
			seed: 14,
		});
		const budget = { weightBudget: 10, weightWindowSeconds: 1 };
		const started = Date.now();
		const [typed, slashed] = await Promise.all([
			runTradingService(sandbox(), { parameters: historyOf(32), credentials: budget }),
			runTradingService(sandbox(), {
				parameters: historyOf(32),
				credentials: { ...budget, baseUrl: `${sandbox().baseUrl}/` },
			}),
		]);
		expect(typed.error).toBeUndefined();
		expect(slashed.error).toBeUndefined();
		expect(typed.items).toHaveLength(1200);
		expect(slashed.items).toHaveLength(1200);
		const statuses = requestsTo(sandbox(), PATHS.history).map((request) => request.status);
		// 3 pages each, weight 5: 30 in all through one budget of 10 per second.
		expect(statuses).toEqual(Array(6).fill(200));
		expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
	});
});

describe('UAE rule: a write answered 429 without Retry-After, Wait After a Rate Limit off', () => {
	// A sandbox of its own: the minute of silence this test starts stays with its address.
	const sandbox = useSandbox({
		rateLimit: false,
		requestRates: false,
		behaviour: { rateLimitRule: 'uae' },
	});

	it('UAE rule: a transfer answered 429 without Retry-After is rejected at once, saying when to run again; nothing is sent again', async () => {
		sandbox().setFaults({ rules: [{ kind: 'rateLimit', times: 1, path: PATHS.transfer }] });
		const started = Date.now();
		const run = await runTradingService(sandbox(), {
			parameters: { ...transfer('1'), options: { waitAfterRateLimit: false } },
			node: { typeVersion: 2 },
		});
		expect(Date.now() - started).toBeLessThan(10_000);
		expect(sandbox().ledger.requests.map((request) => request.status)).toEqual([429]);
		expect(sandbox().ledger.transfers).toHaveLength(0);
		expect(run.error?.message).toBe('The service’s rate limit was exceeded');
		expect(run.error?.description).toMatch(
			/suspends this key's requests.*for a minute.*until \d{4}-\d\d-\d\dT.*Wait After a Rate Limit.*This request was not executed\./,
		);
		expect((run.error?.context as IDataObject | undefined)?.outcome).toBe('rejected');
	});
});

describe('UAE rule: transfers no more than once per second', () => {
	const sandbox = useSandbox({
		rateLimit: { windowMs: 60_000, maxWeight: 6000 },
		behaviour: { rateLimitRule: 'uae' },
	});

	it('UAE rule: 5 transfers in two executions at once: all placed, one second apart, 0 refusals', async () => {
		const items = (quantities: string[]) => quantities.map((quantity) => ({ json: { quantity } }));
		const parameters = transfer('={{ $json.quantity }}');
		const started = Date.now();
		const [first, second] = await Promise.all([
			runTradingService(sandbox(), {
				parameters,
				inputItems: items(['1.1', '1.2', '1.3']),
				executionId: 'transfers-1',
			}),
			runTradingService(sandbox(), {
				parameters,
				inputItems: items(['2.1', '2.2']),
				executionId: 'transfers-2',
			}),
		]);
		expect(Date.now() - started).toBeGreaterThanOrEqual(4000);
		expect([...first.items, ...second.items].map((item) => item.json.outcome)).toEqual(
			Array(5).fill('placed'),
		);
		const sent = requestsTo(sandbox(), PATHS.transfer);
		expect(sent.map((request) => request.status)).toEqual(Array(5).fill(200));
		for (let index = 1; index < sent.length; index++)
			expect(sent[index].at - sent[index - 1].at).toBeGreaterThanOrEqual(1000);
		expect(sandbox().ledger.transfers).toHaveLength(5);
	});
});

/**
 * The documented weight of every endpoint the node or the sandbox knows: spec §8 where it gives
 * one (history 5 although the UAE documentation says 3; batch orders 1), else the UAE
 * documentation's. A fixed vector: the node's table and the sandbox's must both equal it.
 */
const DOCUMENTED_WEIGHTS: Record<string, number> = {
	'GET /api/v1/account/balanceFlow': 5,
	'POST /api/v1/spot/batchOrders': 1,
	'POST /api/v1/account/assetTransfer': 1,
	'GET /api/v1/account/checkApiKey': 1,
	'GET /api/v1/account': 5,
	'GET /api/v1/account/type': 5,
	'GET /api/v1/account/trades': 5,
	// the wallet reads: the family's deposit and withdrawal records 5, the deposit address 1
	'GET /api/v1/account/depositOrders': 5,
	'GET /api/v1/account/withdrawOrders': 5,
	'GET /api/v1/account/deposit/address': 1,
	'POST /api/v1/spot/new/order': 1,
	// the unified endpoints (node version 2): the family's "Create Order v1.1" and batch pages
	'POST /api/v1.1/spot/order': 1,
	'POST /api/v1.1/spot/batchOrders': 5,
	'POST /api/v1/spot/orderTest': 1,
	'GET /api/v1/spot/order': 1,
	'DELETE /api/v1/spot/order': 1,
	'GET /api/v1/spot/openOrders': 1,
	'DELETE /api/v1/spot/openOrders': 1,
	'DELETE /api/v1/spot/cancelAllOpenOrders': 1,
	'DELETE /api/v1/spot/cancelOrderByIds': 1,
	'GET /api/v1/spot/tradeOrders': 5,
	'GET /api/v1/time': 1,
	// Listen keys of the user data stream: no weight documented; counted 1 (docs/api.md §4.22).
	'POST /api/v1/userDataStream': 1,
	'PUT /api/v1/userDataStream': 1,
	'DELETE /api/v1/userDataStream': 1,
	// Market data and exchange info: no weight documented; counted 1 (docs/api.md §4.15).
	'GET /api/v1/exchangeInfo': 1,
	'GET /quote/v1/ticker/price': 1,
	'GET /quote/v1/ticker/24hr': 1,
	'GET /quote/v1/depth': 1,
	'GET /quote/v1/trades': 1,
	'GET /quote/v1/klines': 1,
	// Futures reads (UAE documentation, "Futures Trading"): weight 1 each.
	'GET /api/v2/futures/positions': 1,
	'GET /api/v2/futures/balance': 1,
	'GET /api/v2/futures/fundingRate': 1,
	'GET /api/v2/futures/historyFundingRate': 1,
	'GET /api/v2/futures/historyFundingFees': 1,
	'GET /api/v2/futures/openOrders': 1,
	'GET /api/v2/futures/historyOrders': 1,
	'GET /api/v2/futures/order': 1,
	'GET /api/v2/futures/userTrades': 1,
	'GET /api/v2/futures/leverage': 1,
	'GET /api/v2/futures/commissionRate': 1,
	'POST /api/v2/futures/order': 1,
	'POST /api/v2/futures/batchOrders': 1,
	'DELETE /api/v2/futures/order': 1,
	'DELETE /api/v2/futures/cancelOrders': 1,
	'POST /api/v2/futures/position/trading-stop': 3,
	'POST /api/v2/futures/leverage': 1,
};

describe('UAE rule: weights', () => {
	const sandbox = useSandbox({ rateLimit: false, requestRates: false });

	it('UAE rule: weights: the node’s endpoint table equals the documented weights', () => {
		const node = Object.fromEntries(
			[...Object.values(DECLARED_ENDPOINTS), ...Object.values(FUTURES_ENDPOINTS)].map(
				(endpoint) => [`${endpoint.method} ${endpoint.path}`, endpoint.weight],
			),
		);
		for (const [endpoint, weight] of Object.entries(node))
			expect([endpoint, weight]).toEqual([endpoint, DOCUMENTED_WEIGHTS[endpoint]]);
		expect(node['GET /api/v1/account']).toBe(5);
		expect(node['DELETE /api/v1/spot/cancelOrderByIds']).toBe(1);
	});

	it('UAE rule: weights: the sandbox’s route table equals the documented weights', () => {
		const routes: Record<string, number> = {};
		for (const [path, methods] of Object.entries(ROUTES))
			for (const [method, route] of Object.entries(methods))
				routes[`${method} ${path}`] = route!.weight;
		expect(routes).toEqual(DOCUMENTED_WEIGHTS);
	});

	it('UAE rule: weights: a run’s weight as the sandbox counts it equals the node’s count', async () => {
		const key = DEMO_KEYS.master;
		// A budget no other test uses: a limiter of its own, counting only these runs.
		const budget = { weightBudget: 987_654, weightWindowSeconds: 3600 };
		const ids = await placeRestingOrders(sandbox(), 3);
		const since = sandbox().ledger.requests.length;
		const runs = [
			{ parameters: balances },
			{ parameters: historyOf(51) },
			{
				parameters: {
					resource: 'order',
					operation: 'create',
					symbol: 'BTCUSDT',
					side: 'BUY',
					type: 'LIMIT',
					price: '1',
					quantity: '0.001',
				},
			},
			{
				parameters: {
					resource: 'order',
					operation: 'cancelMany',
					cancelBy: 'ids',
					orderIds: ids.join(','),
				},
			},
		];
		for (const run of runs) {
			const done = await runTradingService(sandbox(), { ...run, credentials: budget });
			expect(done.error).toBeUndefined();
		}
		const counted = sandbox()
			.ledger.requests.slice(since)
			.reduce((sum, request) => sum + request.weight, 0);
		const limiter = limiterFor(
			sandbox().baseUrl,
			key.apiKey,
			budget.weightBudget,
			budget.weightWindowSeconds,
		)!;
		expect(limiter.usedWeight()).toBe(counted);
		// Balances 5, history 5, an order 1, cancels 1 each: the documented figures, not 1 and 5.
		expect(counted).toBeGreaterThanOrEqual(12);
	});
});
