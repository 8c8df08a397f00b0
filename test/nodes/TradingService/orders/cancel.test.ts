import { DEMO_ACCOUNTS } from '../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { useSandbox } from '../../../support/sandbox';

const ORDER = '/api/v1/spot/order';
const sandbox = useSandbox({ rateLimit: false, requestRates: false });

const cancel = (overrides: Record<string, unknown> = {}) => ({
	resource: 'order',
	operation: 'cancel',
	...overrides,
});
const deletes = (since = 0) =>
	requestsTo(sandbox(), ORDER, since).filter((request) => request.method === 'DELETE');
const lookups = (since = 0) =>
	requestsTo(sandbox(), ORDER, since).filter((request) => request.method === 'GET');

describe('Order > Cancel', () => {
	it('cancels an open order by Order ID: outcome placed, status CANCELED, its funds released; one DELETE of weight 1', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1, { price: '100', quantity: '2' });
		expect(sandbox().getBalanceDetail(DEMO_ACCOUNTS.mainTrading, 'USDT').locked).toBe('200');
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), { parameters: cancel({ orderId }) });
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(1);
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			cancelled: true,
			orderId,
			status: 'CANCELED',
			symbol: 'BTCUSDT',
		});
		expect(sandbox().getBalanceDetail(DEMO_ACCOUNTS.mainTrading, 'USDT').locked).toBe('0');
		expect(sandbox().ledger.requests.slice(since)).toHaveLength(1);
		expect(deletes(since)[0]).toMatchObject({ weight: 1 });
		expect(deletes(since)[0].query).toMatch(new RegExp(`^orderId=${orderId}&`));
		expect(sandbox().ledger.cancels).toEqual([
			expect.objectContaining({ orderId, via: 'single', status: 'CANCELED' }),
		]);
	});

	it('cancels by Client Order ID', async () => {
		await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'create',
				symbol: 'ETHUSDT',
				side: 'SELL',
				type: 'LIMIT',
				price: '5000',
				quantity: '1',
				newClientOrderId: 'sell-1',
			},
		});
		const run = await runTradingService(sandbox(), {
			parameters: cancel({ clientOrderId: 'sell-1' }),
		});
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			clientOrderId: 'sell-1',
			status: 'CANCELED',
		});
		// The master key sees a sub account too, and a client order ID is unique per account only:
		// the ID is looked up in the key's own account, and that order cancelled by its order ID.
		expect(lookups()[0].query).toMatch(/^origClientOrderId=sell-1&accountId=10001&/);
		expect(deletes()[0].query).toMatch(
			new RegExp(`^orderId=${String(run.items[0].json.orderId)}&`),
		);
	});

	it("an order already filled (-1139, cancelNotOpenCodes 'specific'): an item with outcome rejected and the reason, no json.error, no workflow error", async () => {
		sandbox().setBehaviour({ cancelNotOpenCodes: 'specific' });
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		sandbox().fillOrder(orderId);
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), { parameters: cancel({ orderId }) });
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(1);
		expect(run.items[0].json).toEqual({
			outcome: 'rejected',
			cancelled: false,
			reason: 'alreadyFilled',
			message: 'Not cancelled: the order is already filled',
			code: '-1139',
			serviceMessage: expect.stringContaining('Order has been filled'),
			orderId,
		});
		expect(run.items[0].json).not.toHaveProperty('error');
		expect(sandbox().ledger.requests.slice(since)).toHaveLength(1);
		expect(sandbox().ledger.cancels).toHaveLength(0);
	});

	it("an order already cancelled says so (-1142); a partly filled one cancelled earlier says that (-1138) (cancelNotOpenCodes 'specific')", async () => {
		sandbox().setBehaviour({ cancelNotOpenCodes: 'specific' });
		const [first, second] = await placeRestingOrders(sandbox(), 2, { quantity: '0.002' });
		await runTradingService(sandbox(), { parameters: cancel({ orderId: first }) });
		sandbox().fillOrder(second, '0.001');
		await runTradingService(sandbox(), { parameters: cancel({ orderId: second }) });
		const again = await runTradingService(sandbox(), {
			parameters: cancel({ orderId: '={{ $json.id }}' }),
			inputItems: [{ json: { id: first } }, { json: { id: second } }],
		});
		expect(
			again.items.map((item) => [item.json.outcome, item.json.reason, item.json.code]),
		).toEqual([
			['rejected', 'alreadyCancelled', '-1142'],
			['rejected', 'alreadyPartiallyCancelled', '-1138'],
		]);
	});

	it('Fail If Order Not Open: an already filled order is an error with outcome rejected', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		sandbox().fillOrder(orderId);
		const run = await runTradingService(sandbox(), {
			parameters: cancel({ orderId, options: { failIfNotOpen: true } }),
		});
		expect(run.error?.message).toBe(
			`Order ID: could not cancel order ${orderId}: the order is already filled`,
		);
		expect(run.error?.description).toMatch(/Outcome: rejected/);
		const continued = await runTradingService(sandbox(), {
			parameters: cancel({ orderId, options: { failIfNotOpen: true } }),
			continueOnFail: true,
		});
		expect(continued.items[0].json).toMatchObject({
			outcome: 'rejected',
			error: expect.stringContaining('already filled'),
		});
	});

	it('an order the service does not know (0212, then 0211 on the lookup): an error naming Order ID with outcome rejected, one DELETE and one GET', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: cancel({ orderId: '1234567890123456789' }),
			continueOnFail: true,
		});
		expect(run.items[0].json).toMatchObject({
			outcome: 'rejected',
			error:
				'Order ID: could not cancel order 1234567890123456789: the service has no order with this ID',
		});
		expect(run.items[0].json.description).toContain('(code 0212)');
		expect(deletes()).toHaveLength(1);
		expect(lookups()).toHaveLength(1);
		expect(sandbox().ledger.requests).toHaveLength(2);
	});

	it('UAE rule: cancel code 0212 for a filled order: looked up, reported "already filled", never "cancelled"; the service’s code and words kept', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		sandbox().fillOrder(orderId);
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), { parameters: cancel({ orderId }) });
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(1);
		expect(run.items[0].json).toMatchObject({
			outcome: 'rejected',
			cancelled: false,
			reason: 'alreadyFilled',
			message: 'Not cancelled: the order is already filled',
			code: '0212',
			serviceMessage: expect.stringContaining('Order has already been completed'),
			orderId,
			status: 'FILLED',
		});
		expect(run.items[0].json).not.toHaveProperty('error');
		expect(deletes(since)).toHaveLength(1);
		expect(lookups(since)).toHaveLength(1);
		expect(lookups(since)[0].query).toMatch(new RegExp(`^orderId=${orderId}&`));
		expect(sandbox().ledger.cancels).toHaveLength(0);
	});

	it('UAE rule: cancel code 0212 for a cancelled and a partly cancelled order: each looked up and reported as what it is', async () => {
		const [first, second] = await placeRestingOrders(sandbox(), 2, { quantity: '0.002' });
		await runTradingService(sandbox(), { parameters: cancel({ orderId: first }) });
		sandbox().fillOrder(second, '0.001');
		await runTradingService(sandbox(), { parameters: cancel({ orderId: second }) });
		const again = await runTradingService(sandbox(), {
			parameters: cancel({ orderId: '={{ $json.id }}' }),
			inputItems: [{ json: { id: first } }, { json: { id: second } }],
		});
		expect(
			again.items.map((item) => [
				item.json.outcome,
				item.json.cancelled,
				item.json.reason,
				item.json.code,
				item.json.status,
			]),
		).toEqual([
			['rejected', false, 'alreadyCancelled', '0212', 'CANCELED'],
			['rejected', false, 'alreadyPartiallyCancelled', '0212', 'PARTIALLY_CANCELED'],
		]);
		expect(sandbox().ledger.cancels).toHaveLength(2);
	});

	it('UAE rule: cancel code 0212 while the order is still open (answer made up by the fault injector): not cancelled, status given, never "cancelled"', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		sandbox().setFaults({
			rules: [{ kind: 'unknownBefore', times: 1, path: ORDER, method: 'DELETE', code: '0212' }],
		});
		const run = await runTradingService(sandbox(), { parameters: cancel({ orderId }) });
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({
			outcome: 'rejected',
			cancelled: false,
			reason: 'stillOpen',
			code: '0212',
			status: 'NEW',
		});
		expect(run.items[0].json.message).toContain('still open (status NEW)');
		expect(deletes()).toHaveLength(1);
		expect(sandbox().getOrder(orderId)!.status).toBe('NEW');
	});

	it('UAE rule: cancel code -2013 (answer made up by the fault injector): a filled order is looked up and reported "already filled"; an unknown one is an error naming Order ID', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		sandbox().fillOrder(orderId);
		const missing = '1234567890123456789';
		sandbox().setFaults({
			rules: [{ kind: 'unknownBefore', times: 2, path: ORDER, method: 'DELETE', code: '-2013' }],
		});
		const run = await runTradingService(sandbox(), {
			parameters: cancel({ orderId: '={{ $json.id }}' }),
			inputItems: [{ json: { id: orderId } }, { json: { id: missing } }],
			continueOnFail: true,
		});
		expect(run.items[0].json).toMatchObject({
			outcome: 'rejected',
			cancelled: false,
			reason: 'alreadyFilled',
			code: '-2013',
			serviceMessage: 'Order does not exist',
			status: 'FILLED',
		});
		expect(run.items[1].json).toMatchObject({
			outcome: 'rejected',
			error: `Order ID: could not cancel order ${missing}: the service has no order with this ID`,
		});
		expect(deletes()).toHaveLength(2);
		expect(lookups()).toHaveLength(2);
	});

	it('UAE rule: cancel code 0212 and the lookup fails: rejected (nothing was cancelled), saying why it cannot tell more', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		sandbox().fillOrder(orderId);
		sandbox().setFaults({ rules: [{ kind: 'ipBan', times: 1, path: ORDER, method: 'GET' }] });
		const run = await runTradingService(sandbox(), { parameters: cancel({ orderId }) });
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({
			outcome: 'rejected',
			cancelled: false,
			reason: 'nothingToCancel',
			code: '0212',
		});
		expect(run.items[0].json.message).toContain('looking the order up to tell why failed');
		expect(deletes()).toHaveLength(1);
	});

	it('an unknown outcome (-1147 after the cancel was applied) is confirmed with a Get: placed, not sent again', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		sandbox().setFaults({
			rules: [{ kind: 'unknownAfter', times: 1, path: ORDER, method: 'DELETE' }],
		});
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), { parameters: cancel({ orderId }) });
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			cancelled: true,
			confirmedByLookup: true,
			orderId,
			status: 'CANCELED',
		});
		expect(deletes(since)).toHaveLength(1);
		expect(lookups(since)).toHaveLength(1);
		expect(sandbox().ledger.cancels).toHaveLength(1);
	});

	it('an unknown outcome where the cancel was not applied: looked up until no attempt can be accepted, then sent once more', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		sandbox().setFaults({
			rules: [{ kind: 'unknownBefore', times: 1, path: ORDER, method: 'DELETE' }],
		});
		const since = sandbox().ledger.requests.length;
		// A short receive window keeps the wait for "no attempt can still be accepted" short.
		const run = await runTradingService(sandbox(), {
			parameters: cancel({ orderId }),
			credentials: { recvWindow: 1500 },
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', orderId, status: 'CANCELED' });
		expect(deletes(since)).toHaveLength(2);
		expect(lookups(since)).toHaveLength(2);
		expect(sandbox().ledger.cancels).toHaveLength(1);
	});

	it('an unknown outcome the lookup cannot settle is reported unknown, saying to look the order up', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		sandbox().setFaults({
			rules: [
				{ kind: 'dropAfter', times: 1, path: ORDER, method: 'DELETE' },
				{ kind: 'ipBan', times: 1, path: ORDER, method: 'GET' },
			],
		});
		const run = await runTradingService(sandbox(), {
			parameters: cancel({ orderId }),
			continueOnFail: true,
		});
		expect(run.items[0].json.outcome).toBe('unknown');
		expect(run.items[0].json.error).toMatch(
			new RegExp(
				`^Unknown outcome: the cancel of order ID ${orderId} may or may not have been executed \\((?:[^;]+; then )?looking the order up failed`,
			),
		);
		expect(run.items[0].json.description).toContain(
			`Look up order ID ${orderId} (Trading Service > Order > Get) and check its status`,
		);
		expect(deletes()).toHaveLength(1);
	});

	it('n8n Retry On Fail after an unknown outcome: the re-run looks the order up from the write ledger instead of cancelling blindly', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		sandbox().setFaults({
			rules: [
				{ kind: 'dropAfter', times: 1, path: ORDER, method: 'DELETE' },
				// The first lookup fails at once (a redirect is not followed); an IP ban would keep the
				// whole process from the service, the retry's lookup too (transport/pacing.ts).
				{ kind: 'redirectSameHost', times: 1, path: ORDER, method: 'GET' },
			],
		});
		const run = await runTradingService(sandbox(), {
			parameters: cancel({ orderId }),
			node: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			cancelled: true,
			confirmedByLookup: true,
			orderId,
			status: 'CANCELED',
		});
		expect(deletes()).toHaveLength(1);
		expect(lookups()).toHaveLength(2);
	});

	it('n8n Retry On Fail after a later item fails: the cancel the first try made comes from the write ledger, not sent again', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		const missing = '1234567890123456789';
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), {
			parameters: cancel({ orderId: '={{ $json.id }}' }),
			inputItems: [{ json: { id: orderId } }, { json: { id: missing } }],
			node: { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
		});
		// Item 1 names an order the service does not know: every try fails on it.
		expect(run.error?.message).toBe(
			`Order ID: could not cancel order ${missing}: the service has no order with this ID`,
		);
		// Item 0 was cancelled by the first try only; tries 2 and 3 answered it from the ledger.
		expect(
			deletes(since).filter((request) => request.query.startsWith(`orderId=${orderId}&`)),
		).toHaveLength(1);
		expect(
			deletes(since).filter((request) => request.query.startsWith(`orderId=${missing}&`)),
		).toHaveLength(3);
		expect(sandbox().ledger.cancels).toEqual([
			expect.objectContaining({ orderId, status: 'CANCELED' }),
		]);
	});

	it.each([
		['no ID', {}, 'Order ID: is empty, and so is Client Order ID'],
		[
			'both IDs',
			{ orderId: '123', clientOrderId: 'row-1' },
			'Order ID: and Client Order ID are both set',
		],
		['a malformed Order ID', { orderId: '-5' }, 'Order ID: "-5" is not an order ID'],
	])(
		'bad input (%s): an error naming the field, outcome rejected, 0 requests',
		async (_case, parameters, message) => {
			const run = await runTradingService(sandbox(), {
				parameters: cancel(parameters),
				continueOnFail: true,
			});
			expect(run.items[0].json).toMatchObject({ error: message, outcome: 'rejected' });
			expect(sandbox().ledger.requests).toHaveLength(0);
		},
	);
});
