import { DEFAULT_RETRY_POLICY } from '../../../../nodes/TradingService/transport';
import { DEMO_KEYS } from '../../../../sandbox';
import { weightOf } from '../../../../sandbox/routes/table';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { useSandbox } from '../../../support/sandbox';

const OPEN = '/api/v1/spot/openOrders';
const BY_IDS = '/api/v1/spot/cancelOrderByIds';
const sandbox = useSandbox({ rateLimit: false, requestRates: false });

const bySymbol = (overrides: Record<string, unknown> = {}) => ({
	resource: 'order',
	operation: 'cancelMany',
	cancelBy: 'symbol',
	symbol: 'BTCUSDT',
	...overrides,
});
const byIds = (orderIds: string, overrides: Record<string, unknown> = {}) => ({
	resource: 'order',
	operation: 'cancelMany',
	cancelBy: 'ids',
	orderIds,
	...overrides,
});
const openCount = (symbol?: string) =>
	sandbox().ledger.orders.filter(
		(order) =>
			(symbol === undefined || order.symbol === symbol) &&
			['NEW', 'PARTIALLY_FILLED'].includes(sandbox().getOrder(order.orderId)!.status),
	).length;

describe('Order > Cancel Many > by symbol', () => {
	const gets = (since: number) =>
		requestsTo(sandbox(), OPEN, since).filter((request) => request.method === 'GET');

	it('lists the open orders of the symbol, cancels exactly those by ID, lists again to confirm: one item per order, other symbols untouched', async () => {
		const btc = await placeRestingOrders(sandbox(), 3);
		await placeRestingOrders(sandbox(), 2, { symbol: 'ETHUSDT' });
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), { parameters: bySymbol() });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual(
			expect.arrayContaining(
				btc.map((orderId) =>
					expect.objectContaining({
						orderId,
						symbol: 'BTCUSDT',
						outcome: 'placed',
						cancelled: true,
					}),
				),
			),
		);
		expect(run.items).toHaveLength(3);
		expect(openCount('BTCUSDT')).toBe(0);
		expect(openCount('ETHUSDT')).toBe(2);
		expect(
			sandbox()
				.ledger.requests.slice(since)
				.map((request) => [request.method, request.path]),
		).toEqual([
			// The key's accounts, once: the list and the cancels name its own trading account.
			['GET', '/api/v1/account/type'],
			['GET', OPEN],
			['DELETE', BY_IDS],
			['GET', OPEN],
		]);
		for (const list of requestsTo(sandbox(), OPEN, since))
			expect(list.query).toMatch(/(^|&)accountId=10001(&|$)/);
		expect(requestsTo(sandbox(), OPEN, since).some((r) => r.method === 'DELETE')).toBe(false);
	});

	it('250 open orders (defects 3 and 4): 100 IDs per request, every order confirmed cancelled, none left open', async () => {
		await placeRestingOrders(sandbox(), 250, { quantity: '0.0001' });
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), { parameters: bySymbol() });
		expect(run.items).toHaveLength(250);
		expect(run.items.every((item) => item.json.outcome === 'placed')).toBe(true);
		expect(requestsTo(sandbox(), BY_IDS, since)).toHaveLength(3);
		expect(openCount()).toBe(0);
		expect(sandbox().ledger.cancels).toHaveLength(250);
	});

	it('250 open orders, the third request refused by the rate limit (defect 3): 200 cancelled, 50 reported not cancelled, never "nothing was executed"', async () => {
		const ids = await placeRestingOrders(sandbox(), 250, { quantity: '0.0001' });
		sandbox().setFaults({
			rules: [
				{ kind: 'numericIds', times: 2, path: BY_IDS },
				{ kind: 'rateLimit', times: 50, path: BY_IDS, retryAfterSeconds: 0 },
			],
		});
		const quickRetries = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'baseDelayMs', 1);
		const run = await runTradingService(sandbox(), { parameters: bySymbol() });
		quickRetries.restore();
		expect(run.error).toBeUndefined();
		const cancelled = run.items.filter((item) => item.json.outcome === 'placed');
		const refused = run.items.filter((item) => item.json.outcome === 'rejected');
		expect([cancelled.length, refused.length, run.items.length]).toEqual([200, 50, 250]);
		expect(openCount()).toBe(50);
		// Exactly the orders reported not cancelled are the ones still open.
		const stillOpen = ids.filter((orderId) =>
			['NEW', 'PARTIALLY_FILLED'].includes(sandbox().getOrder(orderId)!.status),
		);
		expect(refused.map((item) => item.json.orderId).sort()).toEqual(stillOpen.sort());
		expect(JSON.stringify(run.items)).not.toMatch(/nothing was executed/i);
	});

	it('cancels applied a moment after their answer (PENDING_CANCEL): waits for the confirming list, reports each cancelled', async () => {
		sandbox().setBehaviour({ cancelApplyDelayMs: 1500 });
		await placeRestingOrders(sandbox(), 3);
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), { parameters: bySymbol() });
		expect(run.items.map((item) => item.json.outcome)).toEqual(['placed', 'placed', 'placed']);
		expect(gets(since).length).toBeGreaterThanOrEqual(2);
		expect(requestsTo(sandbox(), BY_IDS, since)).toHaveLength(1);
		await new Promise((resolve) => setTimeout(resolve, 1600));
		expect(openCount()).toBe(0);
	});

	it('n8n Retry On Fail after a later item fails (defect 2): the orders the first try cancelled come from the write ledger, reported again, no DELETE sent again', async () => {
		const ids = await placeRestingOrders(sandbox(), 3);
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), {
			parameters: bySymbol({ symbol: '={{ $json.symbol }}' }),
			inputItems: [{ json: { symbol: 'BTCUSDT' } }, { json: { symbol: 'BTC/USDT' } }],
			node: { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
			continueOnFail: false,
		});
		expect(run.error?.message).toBe('Symbol: "BTC/USDT" is not a trading pair symbol');
		expect(requestsTo(sandbox(), BY_IDS, since)).toHaveLength(1);
		expect(
			sandbox()
				.ledger.cancels.map((entry) => entry.orderId)
				.sort(),
		).toEqual([...ids].sort());
	});

	it('Side: only the sell orders (none here): one item saying nothing was open, the buy orders stay open', async () => {
		await placeRestingOrders(sandbox(), 2);
		const run = await runTradingService(sandbox(), {
			parameters: bySymbol({ options: { side: 'SELL' } }),
		});
		expect(run.items.map((item) => item.json)).toEqual([
			{
				symbol: 'BTCUSDT',
				side: 'SELL',
				openOrders: 0,
				message: 'No open BTCUSDT orders: nothing to cancel',
			},
		]);
		expect(openCount()).toBe(2);
		expect(requestsTo(sandbox(), BY_IDS)).toHaveLength(0);
	});

	it('an unknown symbol gets the exchange’s error naming Symbol, nothing cancelled', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: bySymbol({ symbol: 'DOGEUSDT' }),
			continueOnFail: true,
		});
		expect(run.items[0].json.error).toBe('Symbol: the service does not know this symbol');
		expect(run.items[0].json.description).toContain('Check the Symbol field');
		expect(requestsTo(sandbox(), BY_IDS)).toHaveLength(0);
	});

	it('an answer lost after the cancel was applied: each order confirmed by lookup, cancelled once', async () => {
		await placeRestingOrders(sandbox(), 2);
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: BY_IDS }] });
		const run = await runTradingService(sandbox(), { parameters: bySymbol() });
		expect(run.items.map((item) => [item.json.outcome, item.json.confirmedByLookup])).toEqual([
			['placed', true],
			['placed', true],
		]);
		expect(requestsTo(sandbox(), BY_IDS)).toHaveLength(1);
		expect(sandbox().ledger.cancels).toHaveLength(2);
	});

	it('bad input (a malformed symbol): an error naming Symbol, 0 requests', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: bySymbol({ symbol: 'BTC/USDT' }),
		});
		expect(run.error?.message).toBe('Symbol: "BTC/USDT" is not a trading pair symbol');
		expect(sandbox().ledger.requests).toHaveLength(0);
	});
});

describe('Order > Cancel Many > by order IDs', () => {
	it("one item per ID, from the answer’s per-ID results (cancelNotOpenCodes 'specific'): cancelled, already filled, already cancelled, not found (-1143, looked up); one DELETE", async () => {
		sandbox().setBehaviour({ cancelNotOpenCodes: 'specific' });
		const [open, filled, cancelled] = await placeRestingOrders(sandbox(), 3);
		sandbox().fillOrder(filled);
		await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'cancel', orderId: cancelled },
		});
		const unknown = '1234567890123456789';
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), {
			parameters: byIds(`${open}, ${filled},${cancelled}\n${unknown}`),
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual([
			{ orderId: open, outcome: 'placed', cancelled: true },
			{
				orderId: filled,
				outcome: 'rejected',
				cancelled: false,
				reason: 'alreadyFilled',
				message: 'Not cancelled: the order is already filled',
				code: '-1139',
			},
			{
				orderId: cancelled,
				outcome: 'rejected',
				cancelled: false,
				reason: 'alreadyCancelled',
				message: 'Not cancelled: the order is already cancelled',
				code: '-1142',
			},
			{
				orderId: unknown,
				outcome: 'rejected',
				cancelled: false,
				reason: 'notFound',
				message: 'Not cancelled: the service has no order with this ID',
				code: '-1143',
			},
		]);
		expect(
			run.items.every((item) => !('error' in item.json) && item.pairedItem !== undefined),
		).toBe(true);
		const requests = requestsTo(sandbox(), BY_IDS, since);
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({
			method: 'DELETE',
			weight: weightOf(BY_IDS, 'DELETE'),
		});
		expect(decodeURIComponent(requests[0].query)).toMatch(
			new RegExp(`^ids=${open},${filled},${cancelled},${unknown}&`),
		);
	});

	it('UAE rule: cancel code 0211 for each ID not cancelled: each looked up and reported as what it is (filled, cancelled, unknown), never "cancelled"', async () => {
		const [open, filled, cancelled] = await placeRestingOrders(sandbox(), 3);
		sandbox().fillOrder(filled);
		await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'cancel', orderId: cancelled },
		});
		const unknown = '1234567890123456789';
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), {
			parameters: byIds(`${open},${filled},${cancelled},${unknown}`),
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual([
			{ orderId: open, outcome: 'placed', cancelled: true },
			{
				orderId: filled,
				outcome: 'rejected',
				cancelled: false,
				confirmedByLookup: true,
				reason: 'alreadyFilled',
				message: 'Not cancelled: the order is already filled',
				status: 'FILLED',
			},
			{
				orderId: cancelled,
				outcome: 'rejected',
				cancelled: false,
				confirmedByLookup: true,
				reason: 'alreadyCancelled',
				message: 'Not cancelled: the order is already cancelled',
				status: 'CANCELED',
			},
			{
				orderId: unknown,
				outcome: 'rejected',
				cancelled: false,
				reason: 'notFound',
				message: 'Not cancelled: the service has no order with this ID',
				code: '0211',
			},
		]);
		expect(requestsTo(sandbox(), BY_IDS, since)).toHaveLength(1);
		expect(
			requestsTo(sandbox(), '/api/v1/spot/order', since).map((request) => request.method),
		).toEqual(['GET', 'GET', 'GET']);
		expect(sandbox().ledger.cancels.map((entry) => entry.orderId)).toEqual([cancelled, open]);
	});

	it('UAE rule: cancel code -2013 in a cancel-by-IDs answer (made up by the fault injector): the order is looked up; a filled one is "already filled"', async () => {
		const [filled] = await placeRestingOrders(sandbox(), 1);
		sandbox().fillOrder(filled);
		sandbox().setFaults({ rules: [{ kind: 'cancelByIdsEntryCode', times: 1, path: BY_IDS }] });
		const run = await runTradingService(sandbox(), { parameters: byIds(filled) });
		expect(run.items.map((item) => item.json)).toEqual([
			{
				orderId: filled,
				outcome: 'rejected',
				cancelled: false,
				confirmedByLookup: true,
				reason: 'alreadyFilled',
				message: 'Not cancelled: the order is already filled',
				status: 'FILLED',
			},
		]);
		expect(sandbox().ledger.requests.at(-2)?.fault).toBe('cancelByIdsEntryCode');
	});

	it('an all-cancelled answer of result: null reads as every ID cancelled', async () => {
		sandbox().setBehaviour({ cancelByIdsAllCancelled: 'null' });
		const ids = await placeRestingOrders(sandbox(), 2);
		const run = await runTradingService(sandbox(), {
			parameters: byIds('={{ $json.ids }}'),
			inputItems: [{ json: { ids } }],
		});
		expect(run.items.map((item) => item.json)).toEqual(
			ids.map((orderId) => ({ orderId, outcome: 'placed', cancelled: true })),
		);
	});

	it('more than 100 IDs are sent 100 per request (more would be refused with -2022)', async () => {
		const ids = await placeRestingOrders(sandbox(), 150, { quantity: '0.0001' });
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), { parameters: byIds(ids.join(',')) });
		expect(run.items).toHaveLength(150);
		expect(run.items.every((item) => item.json.outcome === 'placed')).toBe(true);
		expect(requestsTo(sandbox(), BY_IDS, since)).toHaveLength(2);
		expect(openCount()).toBe(0);
	});

	it('an unknown outcome is settled ID by ID with a lookup', async () => {
		const [first, second] = await placeRestingOrders(sandbox(), 2);
		sandbox().fillOrder(second);
		sandbox().setFaults({ rules: [{ kind: 'http502After', times: 1, path: BY_IDS }] });
		const run = await runTradingService(sandbox(), { parameters: byIds(`${first},${second}`) });
		expect(
			run.items.map((item) => [
				item.json.orderId,
				item.json.outcome,
				item.json.reason,
				item.json.confirmedByLookup,
			]),
		).toEqual([
			[first, 'placed', undefined, true],
			[second, 'rejected', 'alreadyFilled', true],
		]);
		expect(requestsTo(sandbox(), BY_IDS)).toHaveLength(1);
		expect(requestsTo(sandbox(), '/api/v1/spot/order')).toHaveLength(2);
	});

	it('an unknown outcome whose lookups fail stays unknown per ID and says what to check for that order', async () => {
		const quickRetries = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'baseDelayMs', 1);
		const [first] = await placeRestingOrders(sandbox(), 1);
		sandbox().setFaults({
			rules: [
				{ kind: 'http502After', times: 1, path: BY_IDS },
				{ kind: 'http500', times: 100, path: '/api/v1/spot/order', method: 'GET' },
			],
		});
		const run = await runTradingService(sandbox(), { parameters: byIds(first) });
		expect(run.items.map((item) => item.json)).toEqual([
			expect.objectContaining({
				orderId: first,
				outcome: 'unknown',
				cancelled: null,
				howToCheck: `Look up order ID ${first} (Trading Service > Order > Get) and check its status`,
			}),
		]);
		expect(requestsTo(sandbox(), BY_IDS)).toHaveLength(1);
		quickRetries.restore();
	});

	it('n8n Retry On Fail after a later item fails: the IDs the first try cancelled come from the write ledger, no DELETE sent again', async () => {
		const ids = await placeRestingOrders(sandbox(), 3);
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), {
			parameters: byIds('={{ $json.ids }}'),
			inputItems: [{ json: { ids } }, { json: { ids: 'not-an-id' } }],
			node: { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
		});
		// Item 1 is refused on every try; item 0's cancels were sent by the first try only.
		expect(run.error?.message).toBe('Order IDs: "not-an-id" is not an order ID');
		expect(requestsTo(sandbox(), BY_IDS, since)).toHaveLength(1);
		expect(
			sandbox()
				.ledger.cancels.map((entry) => entry.orderId)
				.sort(),
		).toEqual([...ids].sort());
		expect(openCount()).toBe(0);
	});

	it('n8n Retry On Fail after an unknown outcome: the re-run looks the ID up from the write ledger instead of cancelling again', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		sandbox().setFaults({
			rules: [
				{ kind: 'dropAfter', times: 1, path: BY_IDS },
				// The first lookup fails at once (a redirect is not followed); an IP ban would keep the
				// whole process from the service, the retry's lookup too (transport/pacing.ts).
				{ kind: 'redirectSameHost', times: 1, path: '/api/v1/spot/order', method: 'GET' },
			],
		});
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), {
			parameters: byIds('={{ $json.ids }}'),
			inputItems: [{ json: { ids: orderId } }, { json: { ids: 'not-an-id' } }],
			node: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		});
		expect(run.error?.message).toBe('Order IDs: "not-an-id" is not an order ID');
		// Try 1: the cancel was applied but unanswered, and its lookup failed; try 2 looked it up
		// (CANCELED) rather than sending it again.
		expect(requestsTo(sandbox(), BY_IDS, since)).toHaveLength(1);
		expect(
			requestsTo(sandbox(), '/api/v1/spot/order', since).filter(
				(request) => request.method === 'GET',
			),
		).toHaveLength(2);
		expect(sandbox().ledger.cancels).toEqual([expect.objectContaining({ orderId })]);
	});

	it('a sub key cannot see the master’s orders: each is not found', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		const run = await runTradingService(sandbox(), {
			parameters: byIds(orderId),
			key: DEMO_KEYS.sub,
		});
		expect(run.items[0].json).toMatchObject({ outcome: 'rejected', reason: 'notFound' });
		expect(openCount()).toBe(1);
	});

	it.each([
		['an empty list from an expression', '={{ [] }}', 'Order IDs: is empty'],
		['a malformed ID', '123, abc', 'Order IDs: "abc" is not an order ID'],
	])(
		'bad input (%s): an error naming Order IDs, outcome rejected, 0 requests',
		async (_case, orderIds, message) => {
			const run = await runTradingService(sandbox(), {
				parameters: byIds(orderIds),
				continueOnFail: true,
			});
			expect(run.items[0].json).toMatchObject({ error: message, outcome: 'rejected' });
			expect(sandbox().ledger.requests).toHaveLength(0);
		},
	);
});
