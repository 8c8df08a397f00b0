import { DEMO_KEYS } from '../../../../sandbox';
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
const { order: ORDER } = WRITE_PATHS;
/** The key's accounts: read once per run, to refuse a key without a futures account of its own. */
const ACCOUNT_TYPE = '/api/v1/account/type';
const methods = (requests: Array<{ method: string; path: string }>) =>
	requests.filter((request) => request.path !== ACCOUNT_TYPE).map((request) => request.method);

beforeEach(() => sandbox().futures.setMarkPrice(BTC, MARK));

describe('Futures > Cancel Order', () => {
	it('Find Automatically, by Order ID: the order is looked up for its type (lower case "limit"), then cancelled as LIMIT by its ID', async () => {
		const order = await restingLimit(sandbox());
		const run = await runFutures(sandbox(), 'cancelOrder', { orderId: order.orderId });
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)).toEqual([
			expect.objectContaining({
				outcome: 'placed',
				cancelled: true,
				orderId: order.orderId,
				status: 'CANCELED',
				symbol: BTC,
			}),
		]);
		expect(sent(run.requests, ORDER, 'GET')).toHaveLength(1);
		const [cancel] = sent(run.requests, ORDER, 'DELETE');
		expect(queryOf(cancel).get('orderId')).toBe(order.orderId);
		expect(queryOf(cancel).get('type')).toBe('LIMIT');
		expect(run.requests.map((request) => request.path)).toEqual([ACCOUNT_TYPE, ORDER, ORDER]);
	});

	it('Find Automatically, by Client Order ID: a STOP order found and cancelled as STOP by the order ID found (ORDER_CANCELED)', async () => {
		const order = await waitingStop(sandbox(), { clientOrderId: 'breakout-1' });
		const run = await runFutures(sandbox(), 'cancelOrder', {
			cancelBy: 'clientOrderId',
			clientOrderId: 'breakout-1',
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)[0]).toMatchObject({
			outcome: 'placed',
			clientOrderId: 'breakout-1',
			orderId: order.orderId,
			status: 'ORDER_CANCELED',
		});
		expect(queryOf(sent(run.requests, ORDER, 'GET')[0]).get('clientOrderId')).toBe('breakout-1');
		const cancel = queryOf(sent(run.requests, ORDER, 'DELETE')[0]);
		expect([cancel.get('orderId'), cancel.get('type'), cancel.has('clientOrderId')]).toEqual([
			order.orderId,
			'STOP',
			false,
		]);
	});

	it('Order Type given: one DELETE, no lookup', async () => {
		const order = await waitingStop(sandbox());
		const run = await runFutures(sandbox(), 'cancelOrder', {
			orderId: order.orderId,
			orderType: 'STOP',
		});
		expect(jsonOf(run)[0]).toMatchObject({ outcome: 'placed', status: 'ORDER_CANCELED' });
		expect(methods(run.requests)).toEqual(['DELETE']);
	});

	it('the wrong Order Type: the service refuses (0212), the lookup says which type it is; outcome rejected, order still open', async () => {
		const order = await restingLimit(sandbox());
		const run = await runFutures(sandbox(), 'cancelOrder', {
			orderId: order.orderId,
			orderType: 'STOP',
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)[0]).toMatchObject({
			outcome: 'rejected',
			cancelled: false,
			reason: 'wrongType',
			code: '0212',
			status: 'NEW',
		});
		expect(String(jsonOf(run)[0].message)).toContain(
			'set Order Type to Limit or Find Automatically',
		);
	});

	it('an order already filled: outcome rejected with the reason, nothing sent to cancel; Fail If Order Not Open makes it an error', async () => {
		openLong(sandbox(), '0.002');
		const filled = await restingLimit(sandbox(), { price: '61000' }); // crosses the mark: fills
		const run = await runFutures(sandbox(), 'cancelOrder', { orderId: filled.orderId });
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)[0]).toMatchObject({
			outcome: 'rejected',
			cancelled: false,
			reason: 'alreadyFilled',
			message: 'Not cancelled: the order is already filled',
			status: 'FILLED',
		});
		expect(jsonOf(run)[0]).not.toHaveProperty('error');
		expect(sent(run.requests, ORDER, 'DELETE')).toHaveLength(0);
		const failing = await runFutures(
			sandbox(),
			'cancelOrder',
			{ orderId: filled.orderId, options: { failIfNotOpen: true } },
			{ continueOnFail: true },
		);
		expect(jsonOf(failing)[0]).toMatchObject({
			outcome: 'rejected',
			error: `Order ID: could not cancel futures order ${filled.orderId}: the order is already filled`,
		});
	});

	it('an order already cancelled, Order Type given: the 0212 refusal explained by a lookup (alreadyCancelled)', async () => {
		const order = await restingLimit(sandbox());
		await runFutures(sandbox(), 'cancelOrder', { orderId: order.orderId });
		const again = await runFutures(sandbox(), 'cancelOrder', {
			orderId: order.orderId,
			orderType: 'LIMIT',
		});
		expect(jsonOf(again)[0]).toMatchObject({
			outcome: 'rejected',
			reason: 'alreadyCancelled',
			code: '0212',
			status: 'CANCELED',
		});
	});

	it('an order the service does not know: an error naming Order ID, outcome rejected', async () => {
		const run = await runFutures(
			sandbox(),
			'cancelOrder',
			{ orderId: '1234567890123' },
			{ continueOnFail: true },
		);
		expect(jsonOf(run)[0]).toMatchObject({
			outcome: 'rejected',
			error:
				'Order ID: could not cancel futures order 1234567890123: the service has no futures order with this ID',
		});
		expect(sent(run.requests, ORDER, 'DELETE')).toHaveLength(0);
	});

	it('a lost cancel answer: the order looked up, CANCELED, so placed (confirmedByLookup); one DELETE', async () => {
		const order = await restingLimit(sandbox());
		sandbox().setFaults({
			rules: [{ kind: 'dropAfter', times: 1, path: ORDER, method: 'DELETE' }],
		});
		const run = await runFutures(sandbox(), 'cancelOrder', {
			orderId: order.orderId,
			orderType: 'LIMIT',
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)[0]).toMatchObject({
			outcome: 'placed',
			confirmedByLookup: true,
			status: 'CANCELED',
		});
		expect(sent(run.requests, ORDER, 'DELETE')).toHaveLength(1);
	});

	it('a cancel lost before it was applied: still open once no attempt can be applied, so sent once more', async () => {
		const order = await waitingStop(sandbox());
		sandbox().setFaults({
			rules: [{ kind: 'unknownBefore', times: 1, path: ORDER, method: 'DELETE' }],
		});
		// A short receive window keeps the wait for "no attempt can still be applied" short.
		const run = await runCounting(sandbox(), {
			parameters: { resource: 'futures', operation: 'cancelOrder', orderId: order.orderId },
			node: { typeVersion: 2 },
			credentials: { recvWindow: 1500 },
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)[0]).toMatchObject({ outcome: 'placed', status: 'ORDER_CANCELED' });
		expect(sent(run.requests, ORDER, 'DELETE')).toHaveLength(2);
	});

	it('a lost answer the lookup cannot settle: unknown, saying how to check; never sent again', async () => {
		const order = await restingLimit(sandbox());
		sandbox().setFaults({
			rules: [
				{ kind: 'dropAfter', times: 1, path: ORDER, method: 'DELETE' },
				{ kind: 'ipBan', times: 1, path: ORDER, method: 'GET' },
			],
		});
		const run = await runFutures(
			sandbox(),
			'cancelOrder',
			{ orderId: order.orderId, orderType: 'LIMIT' },
			{ continueOnFail: true },
		);
		expect(jsonOf(run)[0].outcome).toBe('unknown');
		expect(String(jsonOf(run)[0].error)).toMatch(
			new RegExp(
				`^Unknown outcome: the cancel of futures order ID ${order.orderId} may or may not`,
			),
		);
		expect(String(jsonOf(run)[0].description)).toContain('Futures > Get Order');
		expect(sent(run.requests, ORDER, 'DELETE')).toHaveLength(1);
	});

	it('an order partly filled, then cancelled: PARTIALLY_CANCELED is a cancel (placed)', async () => {
		const order = await restingLimit(sandbox(), { baseQty: '0.002' });
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', orderId: order.orderId, quantity: '0.001' });
		const run = await runFutures(sandbox(), 'cancelOrder', { orderId: order.orderId });
		expect(jsonOf(run)[0]).toMatchObject({ outcome: 'placed', status: 'PARTIALLY_CANCELED' });
	});

	it('Allowed Contracts: the order is looked up (Order Type given too), and one of another contract is not cancelled', async () => {
		const eth = await placeFutures(sandbox(), {
			symbol: ETH,
			side: 'BUY',
			type: 'LIMIT',
			price: '2000',
			baseQty: '0.01',
		});
		const run = await runFutures(
			sandbox(),
			'cancelOrder',
			{ orderId: eth.orderId, orderType: 'LIMIT', guardrails: { allowedContracts: BTC } },
			{ continueOnFail: true },
		);
		expect(jsonOf(run)[0]).toMatchObject({
			outcome: 'rejected',
			error: `Order ID: order ${eth.orderId} is an order of ${ETH}, which is not in Allowed Contracts (${BTC})`,
		});
		expect(methods(run.requests)).toEqual(['GET']);
		const btc = await restingLimit(sandbox());
		const allowed = await runFutures(sandbox(), 'cancelOrder', {
			orderId: btc.orderId,
			guardrails: { allowedContracts: `${BTC}, ${ETH}` },
		});
		expect(jsonOf(allowed)[0]).toMatchObject({ outcome: 'placed', status: 'CANCELED' });
	});

	it('n8n Retry On Fail after an unknown outcome: the re-run looks the order up from the write ledger instead of cancelling again', async () => {
		const order = await restingLimit(sandbox());
		sandbox().setFaults({
			rules: [
				{ kind: 'dropAfter', times: 1, path: ORDER, method: 'DELETE' },
				{ kind: 'redirectSameHost', times: 1, path: ORDER, method: 'GET' },
			],
		});
		const run = await runCounting(sandbox(), {
			parameters: {
				resource: 'futures',
				operation: 'cancelOrder',
				orderId: order.orderId,
				orderType: 'LIMIT',
			},
			node: { typeVersion: 2, retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)[0]).toMatchObject({
			outcome: 'placed',
			confirmedByLookup: true,
			status: 'CANCELED',
		});
		expect(sent(run.requests, ORDER, 'DELETE')).toHaveLength(1);
		expect(sent(run.requests, ORDER, 'GET')).toHaveLength(2);
	});

	it('after a lost run (n8n re-ran an execution whose run may have been cut short): an order found already cancelled is that run’s cancel, placed (alreadyPlaced), nothing sent', async () => {
		const order = await restingLimit(sandbox());
		await runFutures(sandbox(), 'cancelOrder', { orderId: order.orderId });
		const run = await runCounting(sandbox(), {
			parameters: {
				resource: 'futures',
				operation: 'cancelOrder',
				orderId: order.orderId,
				orderType: 'LIMIT',
			},
			node: { typeVersion: 2 },
			runtimeData: { version: 1, establishedAt: Date.now() - 30_000, source: 'webhook' },
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)[0]).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			confirmedByLookup: true,
			status: 'CANCELED',
		});
		expect(methods(run.requests)).toEqual(['GET']);
	});

	it('a key without a futures account of its own (a sub account’s key): refused naming the credential, nothing but the key’s accounts read', async () => {
		const order = await restingLimit(sandbox());
		const run = await runFutures(
			sandbox(),
			'cancelOrder',
			{ orderId: order.orderId },
			{ key: DEMO_KEYS.sub, continueOnFail: true },
		);
		expect(jsonOf(run)[0]).toMatchObject({
			error: 'This API key has no futures account of its own',
			outcome: 'rejected',
		});
		expect(String(jsonOf(run)[0].description)).toContain('the credential "Sandbox"');
		expect(run.requests.map((request) => request.path)).toEqual([ACCOUNT_TYPE]);
		expect(
			sandbox()
				.futures.orders()
				.find((o) => o.orderId === order.orderId)?.status,
		).toBe('NEW');
	});

	describe('a triggered stop (ORDER_FILLED: the exchange placed a LIMIT under its client order ID)', () => {
		/** A BUY stop-limit (stop 61000, limit 59000) triggered by the mark: its LIMIT rests. */
		async function triggeredStop() {
			const stop = await waitingStop(sandbox(), {
				stopPrice: '61000',
				price: '59000',
				clientOrderId: 'breakout-7',
			});
			sandbox().futures.setMarkPrice(BTC, '61500');
			const placed = sandbox()
				.futures.orders()
				.find((o) => o.clientOrderId === 'breakout-7' && o.status === 'NEW');
			expect(placed).toMatchObject({ orderType: 'limit' });
			return { stop, placed: placed! };
		}

		it('by the stop’s Order ID: rejected, reason triggered, naming the order it placed; nothing cancelled', async () => {
			const { stop, placed } = await triggeredStop();
			const run = await runFutures(sandbox(), 'cancelOrder', { orderId: stop.orderId });
			expect(run.error).toBeUndefined();
			expect(jsonOf(run)[0]).toMatchObject({
				outcome: 'rejected',
				reason: 'triggered',
				status: 'ORDER_FILLED',
				triggeredOrderId: placed.orderId,
			});
			expect(sent(run.requests, ORDER, 'DELETE')).toHaveLength(0);
		});

		it('by Client Order ID with Order Type Stop: the 0212 explained as triggered, naming the order it placed', async () => {
			const { placed } = await triggeredStop();
			const run = await runFutures(sandbox(), 'cancelOrder', {
				cancelBy: 'clientOrderId',
				clientOrderId: 'breakout-7',
				orderType: 'STOP',
			});
			expect(jsonOf(run)[0]).toMatchObject({
				outcome: 'rejected',
				reason: 'triggered',
				code: '0212',
				triggeredOrderId: placed.orderId,
			});
			expect(String(jsonOf(run)[0].message)).toMatch(/stop order has triggered/);
		});

		it('by Client Order ID, Find Automatically: the open order holding the ID (the one the stop placed) is cancelled', async () => {
			const { placed } = await triggeredStop();
			const run = await runFutures(sandbox(), 'cancelOrder', {
				cancelBy: 'clientOrderId',
				clientOrderId: 'breakout-7',
			});
			expect(jsonOf(run)[0]).toMatchObject({
				outcome: 'placed',
				orderId: placed.orderId,
				status: 'CANCELED',
			});
		});
	});

	it.each([
		['no Order ID', { orderId: '={{ "" }}' }, 'Order ID: "" is not an order ID'],
		['a malformed Order ID', { orderId: '12ab' }, 'Order ID: "12ab" is not an order ID'],
		[
			'a malformed Client Order ID',
			{ cancelBy: 'clientOrderId', clientOrderId: 'has space' },
			'Client Order ID: "has space" is not a client order ID',
		],
		['an unknown Order Type', { orderId: '123', orderType: 'MARKET' }, 'Order Type'],
	])(
		'bad input (%s): refused before any request, naming the field',
		async (_case, parameters, message) => {
			const run = await runFutures(sandbox(), 'cancelOrder', parameters, { continueOnFail: true });
			expect(String(jsonOf(run)[0].error)).toContain(message);
			expect(jsonOf(run)[0].outcome).toBe('rejected');
			expect(run.requests).toHaveLength(0);
		},
	);
});
