import { DEMO_KEYS } from '../../../../sandbox';
import { fieldError } from '../../../../sandbox/errors';
import type { FuturesBook } from '../../../../sandbox/futures/book';
import { runCounting } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';
import {
	MARK,
	WRITE_PATHS,
	openLong,
	placeFutures,
	queryOf,
	restingLimit,
	sent,
	waitingStop,
} from './futuresWritesSupport';
import { BTC, ETH, jsonOf, runFutures } from './support';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });
const { cancelOrders: CANCEL_ORDERS, openOrders: OPEN_ORDERS, order: ORDER } = WRITE_PATHS;

beforeEach(() => {
	sandbox().futures.setMarkPrice(BTC, MARK);
	sandbox().futures.setMarkPrice(ETH, '3000');
});

/** BTC: 3 BUY LIMIT, 2 BUY STOP, 1 SELL LIMIT, 1 SELL STOP (reduce-only, on a LONG); ETH: 1 BUY LIMIT. */
async function book() {
	openLong(sandbox());
	for (let i = 0; i < 3; i++) await restingLimit(sandbox());
	for (let i = 0; i < 2; i++) await waitingStop(sandbox());
	const sell = { symbol: BTC, side: 'SELL', baseQty: '0.001', reduceOnly: 'true' };
	await placeFutures(sandbox(), { ...sell, type: 'LIMIT', price: '65000' });
	await placeFutures(sandbox(), { ...sell, type: 'STOP', stopPrice: '55000' });
	return await placeFutures(sandbox(), {
		symbol: ETH,
		side: 'BUY',
		type: 'LIMIT',
		price: '2000',
		baseQty: '0.01',
	});
}

const summary = (items: Array<Record<string, unknown>>) =>
	items.map(({ symbol, side, orderType, outcome, closedDuringRun, stillOpen }) => ({
		symbol,
		side,
		orderType,
		outcome,
		closedDuringRun,
		stillOpen,
	}));

describe('Futures > Cancel Many Orders', () => {
	it('Contract: both sides and both types of one contract, one summary item each; another contract untouched', async () => {
		const eth = await book();
		const run = await runFutures(sandbox(), 'cancelManyOrders', { symbol: BTC });
		expect(run.error).toBeUndefined();
		expect(summary(jsonOf(run))).toEqual([
			{
				symbol: BTC,
				side: 'BUY',
				orderType: 'LIMIT',
				outcome: 'placed',
				closedDuringRun: 3,
				stillOpen: 0,
			},
			{
				symbol: BTC,
				side: 'SELL',
				orderType: 'LIMIT',
				outcome: 'placed',
				closedDuringRun: 1,
				stillOpen: 0,
			},
			{
				symbol: BTC,
				side: 'BUY',
				orderType: 'STOP',
				outcome: 'placed',
				closedDuringRun: 2,
				stillOpen: 0,
			},
			{
				symbol: BTC,
				side: 'SELL',
				orderType: 'STOP',
				outcome: 'placed',
				closedDuringRun: 1,
				stillOpen: 0,
			},
		]);
		const deletes = sent(run.requests, CANCEL_ORDERS, 'DELETE').map(queryOf);
		expect(
			deletes.every((query) => query.get('symbol') === BTC && query.get('limit') === '200'),
		).toBe(true);
		expect(
			new Set(deletes.map((query) => `${query.get('side')} ${query.get('orderType')}`)),
		).toEqual(new Set(['BUY LIMIT', 'SELL LIMIT', 'BUY STOP', 'SELL STOP']));
		const ethNow = await runFutures(sandbox(), 'getOrder', { orderId: eth.orderId });
		expect(jsonOf(ethNow)[0].status).toBe('NEW');
	});

	it('All Contracts: every contract’s open orders', async () => {
		await book();
		const run = await runFutures(sandbox(), 'cancelManyOrders', { cancelBy: 'all' });
		expect(run.error).toBeUndefined();
		expect(summary(jsonOf(run))[0]).toEqual({
			symbol: 'all',
			side: 'BUY',
			orderType: 'LIMIT',
			outcome: 'placed',
			closedDuringRun: 4,
			stillOpen: 0,
		});
		expect(
			sent(run.requests, CANCEL_ORDERS, 'DELETE').every((r) => !queryOf(r).has('symbol')),
		).toBe(true);
		const open = await runFutures(sandbox(), 'getOrders', { returnAll: true });
		expect(jsonOf(open)).toEqual([]);
	});

	it('450 open orders of one side and type: pages of 200 chained by lastOrderId until "0", a cost in pages, not orders', async () => {
		for (let i = 0; i < 450; i++)
			sandbox().futures.placeOpenOrder({
				symbol: BTC,
				side: 'BUY',
				quantity: '0.001',
				price: '40000',
			});
		const run = await runFutures(sandbox(), 'cancelManyOrders', { symbol: BTC });
		expect(jsonOf(run)[0]).toMatchObject({
			outcome: 'placed',
			closedDuringRun: 450,
			stillOpen: 0,
			requests: 4,
		});
		const buyLimit = sent(run.requests, CANCEL_ORDERS, 'DELETE')
			.map(queryOf)
			.filter((query) => query.get('side') === 'BUY' && query.get('orderType') === 'LIMIT');
		expect(buyLimit.map((query) => query.has('fromOrderId'))).toEqual([false, true, true, true]);
		// the key's accounts, 2 lists before, 4 + 3 cancels, 2 lists after
		expect(run.requests).toHaveLength(12);
	});

	it('a page whose answer is lost: settled by listing what is left (nothing), never assumed', async () => {
		await book();
		sandbox().setFaults({
			rules: [{ kind: 'dropAfter', times: 1, path: CANCEL_ORDERS, method: 'DELETE' }],
		});
		const run = await runFutures(sandbox(), 'cancelManyOrders', { symbol: BTC });
		expect(run.error).toBeUndefined();
		const items = jsonOf(run);
		expect(items.every((item) => item.outcome === 'placed' && item.stillOpen === 0)).toBe(true);
		expect(items.filter((item) => item.confirmedByList === true)).toHaveLength(1);
		// four sequences of two pages (the second answers "0"); the lost page ended its sequence
		expect(sent(run.requests, CANCEL_ORDERS, 'DELETE')).toHaveLength(7);
	});

	it('a page lost before it was applied: what is left is still there once no attempt can be applied, so it is sent once more', async () => {
		await book();
		sandbox().setFaults({
			rules: [{ kind: 'unknownBefore', times: 1, path: CANCEL_ORDERS, method: 'DELETE' }],
		});
		const run = await runCounting(sandbox(), {
			parameters: { resource: 'futures', operation: 'cancelManyOrders', symbol: BTC },
			node: { typeVersion: 2 },
			credentials: { recvWindow: 1500 },
		});
		expect(run.error).toBeUndefined();
		expect(summary(jsonOf(run)).map((item) => [item.outcome, item.stillOpen])).toEqual([
			['placed', 0],
			['placed', 0],
			['placed', 0],
			['placed', 0],
		]);
		// four sequences of two pages, and the lost one sent once more
		expect(sent(run.requests, CANCEL_ORDERS, 'DELETE')).toHaveLength(9);
	});

	it('Order IDs: one item per ID, each order’s type found (one list of both types), each outcome its own', async () => {
		openLong(sandbox(), '0.002');
		const limits = [await restingLimit(sandbox()), await restingLimit(sandbox())];
		const stop = await waitingStop(sandbox());
		const filled = await restingLimit(sandbox(), { price: '61000' });
		const cancelled = await restingLimit(sandbox());
		await runFutures(sandbox(), 'cancelOrder', { orderId: cancelled.orderId });
		const ids = [...limits, stop, filled, cancelled].map((order) => order.orderId);
		const run = await runFutures(sandbox(), 'cancelManyOrders', {
			cancelBy: 'ids',
			orderIds: `${ids.join(', ')}, 99999999999`,
		});
		expect(run.error).toBeUndefined();
		expect(
			jsonOf(run).map((item) => [item.orderId, item.outcome, item.status ?? item.reason]),
		).toEqual([
			[ids[0], 'placed', 'CANCELED'],
			[ids[1], 'placed', 'CANCELED'],
			[ids[2], 'placed', 'ORDER_CANCELED'],
			[ids[3], 'rejected', 'FILLED'],
			[ids[4], 'rejected', 'CANCELED'],
			['99999999999', 'rejected', 'notFound'],
		]);
		// the open orders listed once per type; the three not open looked up one by one
		expect(sent(run.requests, OPEN_ORDERS, 'GET')).toHaveLength(2);
		expect(sent(run.requests, ORDER, 'GET')).toHaveLength(3);
		expect(
			sent(run.requests, ORDER, 'DELETE').map((request) => queryOf(request).get('type')),
		).toEqual(['LIMIT', 'LIMIT', 'STOP']);
	});

	it('Allowed Contracts: All Contracts cancels each allowed contract’s orders only; a contract outside is refused; an ID of another contract is not cancelled', async () => {
		const eth = await book();
		const run = await runFutures(sandbox(), 'cancelManyOrders', {
			cancelBy: 'all',
			guardrails: { allowedContracts: BTC },
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run).map((item) => [item.symbol, item.closedDuringRun])).toEqual([
			[BTC, 3],
			[BTC, 1],
			[BTC, 2],
			[BTC, 1],
		]);
		expect(
			sent(run.requests, CANCEL_ORDERS, 'DELETE').every((r) => queryOf(r).get('symbol') === BTC),
		).toBe(true);
		const refused = await runFutures(
			sandbox(),
			'cancelManyOrders',
			{ symbol: ETH, guardrails: { allowedContracts: BTC } },
			{ continueOnFail: true },
		);
		expect(jsonOf(refused)[0].error).toBe(`Symbol: ${ETH} is not in Allowed Contracts (${BTC})`);
		expect(refused.requests).toHaveLength(0);
		const byId = await runFutures(sandbox(), 'cancelManyOrders', {
			cancelBy: 'ids',
			orderIds: eth.orderId,
			guardrails: { allowedContracts: BTC },
		});
		expect(jsonOf(byId)[0]).toMatchObject({
			orderId: eth.orderId,
			outcome: 'rejected',
			cancelled: false,
		});
		expect(sent(byId.requests, ORDER, 'DELETE')).toHaveLength(0);
	});

	it('an unknown contract: refused before any cancel, naming Symbol', async () => {
		const run = await runFutures(
			sandbox(),
			'cancelManyOrders',
			{ symbol: 'DOGEUSDT-PERPETUAL' },
			{ continueOnFail: true },
		);
		expect(String(jsonOf(run)[0].error)).toMatch(/^Symbol: /);
		expect(sent(run.requests, CANCEL_ORDERS, 'DELETE')).toHaveLength(0);
	});

	it('a key without a futures account of its own (a sub account’s key): refused naming the credential, no futures request', async () => {
		await book();
		for (const parameters of [
			{ symbol: BTC },
			{ cancelBy: 'all' },
			{ cancelBy: 'ids', orderIds: '1' },
		]) {
			const run = await runFutures(sandbox(), 'cancelManyOrders', parameters, {
				key: DEMO_KEYS.sub,
				continueOnFail: true,
			});
			expect(jsonOf(run)).toEqual([
				expect.objectContaining({
					error: 'This API key has no futures account of its own',
					outcome: 'rejected',
				}),
			]);
			expect(String(jsonOf(run)[0].description)).toContain('the credential "Sandbox"');
			expect(run.requests.map((request) => request.path)).toEqual(['/api/v1/account/type']);
		}
	});

	it('All Contracts, Allowed Contracts naming a contract the exchange does not list: refused naming Allowed Contracts before any cancel', async () => {
		await book();
		const run = await runFutures(
			sandbox(),
			'cancelManyOrders',
			{ cancelBy: 'all', guardrails: { allowedContracts: `${BTC}, DOGEUSDT-PERPETUAL` } },
			{ continueOnFail: true },
		);
		expect(String(jsonOf(run)[0].error)).toBe(
			'Allowed Contracts: the exchange does not list DOGEUSDT-PERPETUAL',
		);
		expect(jsonOf(run)[0].outcome).toBe('rejected');
		expect(sent(run.requests, CANCEL_ORDERS, 'DELETE')).toHaveLength(0);
		expect(
			sandbox()
				.futures.orders()
				.filter((o) => o.status === 'NEW'),
		).toHaveLength(5);
	});

	it('All Contracts: a contract failing after another contract’s cancels went out keeps their items, and says what failed', async () => {
		await book();
		// The service refuses to list ETH's open orders (after BTC's cancels were sent).
		const held = (sandbox().futures as unknown as { book: FuturesBook }).book;
		const listOrders = held.listOrders.bind(held);
		jest.spyOn(held, 'listOrders').mockImplementation((query) => {
			if (query.symbol === ETH && query.open) throw fieldError('symbol', 'refused in this test');
			return listOrders(query);
		});
		const run = await runFutures(sandbox(), 'cancelManyOrders', {
			cancelBy: 'all',
			guardrails: { allowedContracts: `${BTC}, ${ETH}` },
		});
		jest.restoreAllMocks();
		expect(run.error).toBeUndefined();
		const items = jsonOf(run);
		expect(items.map((item) => [item.symbol, item.outcome, item.closedDuringRun])).toEqual([
			[BTC, 'placed', 3],
			[BTC, 'placed', 1],
			[BTC, 'placed', 2],
			[BTC, 'placed', 1],
			[ETH, 'rejected', undefined],
		]);
		expect(String(items[4].message)).toMatch(/symbol/);
	});

	it('a page lost before it was applied, 500 open orders of the other side listed first: what is left is paged for to the end, found, and the page sent once more', async () => {
		openLong(sandbox(), '1');
		const buy = sandbox().futures.placeOpenOrder({
			symbol: BTC,
			side: 'BUY',
			quantity: '0.001',
			price: '40000',
		});
		for (let i = 0; i < 500; i++)
			sandbox().futures.placeOpenOrder({
				symbol: BTC,
				side: 'SELL',
				quantity: '0.001',
				price: '70000',
			});
		sandbox().setFaults({
			rules: [
				// the BUY LIMIT page (sent first) lost before it was applied
				{ kind: 'unknownBefore', times: 1, path: CANCEL_ORDERS, method: 'DELETE' },
				// the SELL LIMIT page refused, so the 500 SELL orders stay while the BUY page is settled
				{ kind: 'unknownBefore', times: 1, path: CANCEL_ORDERS, method: 'DELETE', code: '0001' },
			],
		});
		const run = await runCounting(sandbox(), {
			parameters: { resource: 'futures', operation: 'cancelManyOrders', symbol: BTC },
			node: { typeVersion: 2 },
			credentials: { recvWindow: 1500 },
		});
		expect(run.error).toBeUndefined();
		expect(summary(jsonOf(run)).slice(0, 2)).toEqual([
			{
				symbol: BTC,
				side: 'BUY',
				orderType: 'LIMIT',
				outcome: 'placed',
				closedDuringRun: 1,
				stillOpen: 0,
			},
			{
				symbol: BTC,
				side: 'SELL',
				orderType: 'LIMIT',
				outcome: 'rejected',
				closedDuringRun: 0,
				stillOpen: 500,
			},
		]);
		expect(
			sandbox()
				.futures.orders()
				.find((o) => o.orderId === buy.orderId)?.status,
		).toBe('CANCELED');
	});

	it('a cancel whose answer was lost, its order found open before sending, then "no such order" (0211): unknown, never rejected', async () => {
		const orders = [];
		for (let i = 0; i < 4; i++) orders.push(await restingLimit(sandbox()));
		sandbox().setFaults({
			rules: [
				{ kind: 'dropAfter', times: 1, path: ORDER, method: 'DELETE' },
				{ kind: 'unknownBefore', times: 1, path: ORDER, method: 'GET', code: '0211' },
			],
		});
		const run = await runFutures(sandbox(), 'cancelManyOrders', {
			cancelBy: 'ids',
			orderIds: orders.map((order) => order.orderId).join(','),
		});
		expect(run.error).toBeUndefined();
		const outcomes = jsonOf(run).map((item) => item.outcome);
		expect(outcomes.filter((outcome) => outcome === 'placed')).toHaveLength(3);
		expect(outcomes.filter((outcome) => outcome === 'unknown')).toHaveLength(1);
		// found open by the list of open orders (no lookup of one order before sending)
		expect(sent(run.requests, ORDER, 'GET')).toHaveLength(1);
	});

	it.each([
		['a spot pair as Symbol', { symbol: 'BTCUSDT' }, 'Symbol: "BTCUSDT" is not a futures contract'],
		[
			'a malformed order ID',
			{ cancelBy: 'ids', orderIds: '12, x1' },
			'Order IDs: "x1" is not an order ID',
		],
	])('bad input (%s): refused before any request', async (_case, parameters, message) => {
		const run = await runFutures(sandbox(), 'cancelManyOrders', parameters, {
			continueOnFail: true,
		});
		expect(String(jsonOf(run)[0].error)).toContain(message);
		expect(run.requests).toHaveLength(0);
	});
});
