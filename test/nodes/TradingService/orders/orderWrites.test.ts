import type { IDataObject } from 'n8n-workflow';

import {
	clientOrderIdPrefix,
	writeSessionOf,
	type WriteSession,
} from '../../../../nodes/TradingService/writes/writeSession';
import { RunContext } from '../../../../nodes/TradingService/run/runContext';
import type { OrderParams } from '../../../../nodes/TradingService/orders/orderRules';
import { rejectionError } from '../../../../nodes/TradingService/transport/errors';
import { WriteLedger, fingerprint } from '../../../../nodes/TradingService/writes/ledger';
import {
	matchesSentOrder,
	replayedOrder,
} from '../../../../nodes/TradingService/orders/orderLookups';
import {
	orderKind,
	pendingOrder,
	type PendingOrder,
} from '../../../../nodes/TradingService/orders/orderWrites';
import { requestsTo } from '../../../../tools/harness/node';
import { withExecuteFunctions } from '../../../support/probe';
import { useSandbox } from '../../../support/sandbox';
import { node, offline } from '../../../support/fixedNode';

// The order kind of the write engine: client order IDs, batching, requests, reading answers (fixed
// vectors), and looking an order up by its client order ID against the sandbox.

const ORDER = '/api/v1/spot/order';

const limitOrder = (overrides: Partial<OrderParams> = {}): OrderParams => ({
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	timeInForce: 'GTC',
	price: '100',
	quantity: '0.01',
	stpMode: 'EXPIRE_TAKER',
	...overrides,
});

function pendingOrders(orders: OrderParams[], idPrefix?: string): PendingOrder[] {
	const ledger = new WriteLedger({}, 0);
	return orders.map((order, index) =>
		pendingOrder(ledger, String(index), order, index, 0, idPrefix),
	);
}

describe('client order IDs', () => {
	it('a run prefix is n8n-, the execution seed and the run index', () => {
		expect(clientOrderIdPrefix('0123456789abcdef01234567', 0)).toBe(
			'n8n-0123456789abcdef01234567-0',
		);
		// A later run of the node in a loop: the same seed, its own run index.
		expect(clientOrderIdPrefix('0123456789abcdef01234567', 3)).toBe(
			'n8n-0123456789abcdef01234567-3',
		);
	});

	it('an order gets <prefix>-<item>-<order index>; one the user named keeps its ID; none without a prefix', () => {
		const ledger = new WriteLedger({}, 0);
		expect(
			pendingOrder(ledger, '4.1', limitOrder(), 4, 1, 'n8n-abc-0').write.order.newClientOrderId,
		).toBe('n8n-abc-0-4-1');
		expect(
			pendingOrder(ledger, '5', limitOrder({ newClientOrderId: 'mine' }), 5, 0, 'n8n-abc-0').write
				.order.newClientOrderId,
		).toBe('mine');
		expect(
			pendingOrder(ledger, '6', limitOrder(), 6, 0, undefined).write.order.newClientOrderId,
		).toBeUndefined();
	});

	it('an order changed between tries of one run gets a new ID (-v1): it is never taken for the order it replaces', () => {
		const context: IDataObject = {};
		const first = pendingOrder(new WriteLedger(context, 0), '0', limitOrder(), 0, 0, 'p');
		first.slot.record({ outcome: 'unknown', firstSentAt: 1, acceptableUntil: 2 });
		const same = pendingOrder(new WriteLedger(context, 0), '0', limitOrder(), 0, 0, 'p');
		expect(same.write.order.newClientOrderId).toBe('p-0-0');
		expect(same.maybeExecuted).toBe(true);
		const changed = pendingOrder(
			new WriteLedger(context, 0),
			'0',
			limitOrder({ price: '101' }),
			0,
			0,
			'p',
		);
		expect(changed.write.order.newClientOrderId).toBe('p-0-0-v1');
		expect(changed.maybeExecuted).toBe(false);
	});

	it('the ledger slot is keyed by the order as the user gave it, not by the generated ID', () => {
		const context: IDataObject = {};
		const pending = pendingOrder(new WriteLedger(context, 0), '0', limitOrder(), 0, 0, 'p');
		pending.slot.record({ outcome: 'placed' });
		const ledger = context.writeLedger as Record<string, Record<string, IDataObject>>;
		expect(Object.keys(ledger['0']['0'])).toEqual([fingerprint('newOrder', limitOrder())]);
		expect(fingerprint('newOrder', pending.write.order)).not.toBe(
			fingerprint('newOrder', limitOrder()),
		);
	});
});

describe('replayedOrder', () => {
	it('answers a re-run with what was sent and what the service assigned then, marked replayed', () => {
		expect(
			replayedOrder(limitOrder({ newClientOrderId: 'p-0-0' }), {
				orderId: '1950000000000000017',
				status: 'NEW',
				transactTime: '1700000000000',
			}),
		).toEqual({
			outcome: 'placed',
			replayed: true,
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'LIMIT',
			timeInForce: 'GTC',
			price: '100',
			quantity: '0.01',
			stpMode: 'EXPIRE_TAKER',
			clientOrderId: 'p-0-0',
			orderId: '1950000000000000017',
			status: 'NEW',
			transactTime: '1700000000000',
		});
		expect(replayedOrder(limitOrder(), {}).clientOrderId).toBeNull();
	});
});

describe('orderKind', () => {
	it('Create Many: batches of at most 20 orders of one symbol, symbols in order of first appearance', () => {
		const symbols = [
			...Array(25).fill('BTCUSDT'),
			'ETHUSDT',
			'BTCUSDT',
			'ETHUSDT',
			'SOLUSDT',
		] as string[];
		const pending = pendingOrders(symbols.map((symbol) => limitOrder({ symbol })));
		const groups = orderKind(offline, { endpoint: 'batch' }).groups(pending);
		expect(groups.map((group) => [group[0].write.order.symbol, group.length])).toEqual([
			['BTCUSDT', 20],
			['BTCUSDT', 6],
			['ETHUSDT', 2],
			['SOLUSDT', 1],
		]);
		expect(groups[1].map((one) => one.itemIndex)).toEqual([20, 21, 22, 23, 24, 26]);
		expect(orderKind(offline, { endpoint: 'single' }).groups(pending)).toHaveLength(29);
	});

	it('Create sends one order in the query to new/order; Create Many the orders as a JSON body to batchOrders', () => {
		const [pending] = pendingOrders([limitOrder({ newClientOrderId: 'a' })]);
		const single = orderKind(offline, { endpoint: 'single', recvWindow: 3000 }).request([pending]);
		expect(single.endpoint.path).toBe('/api/v1/spot/new/order');
		expect(single.request).toEqual({
			qs: { ...limitOrder({ newClientOrderId: 'a' }), recvWindow: 3000 },
			itemIndex: 0,
		});
		const batch = orderKind(offline, { endpoint: 'batch' }).request([pending]);
		expect(batch.endpoint.path).toBe('/api/v1/spot/batchOrders');
		expect(batch.request).toEqual({
			qs: {},
			body: [limitOrder({ newClientOrderId: 'a' })],
			itemIndex: 0,
		});
	});

	it('reads a batch answer entry by entry: placed, refused with its code, duplicate, unknown', () => {
		const orders = ['a', 'b', 'c', 'd'].map((id) => limitOrder({ newClientOrderId: id }));
		const pending = pendingOrders(orders);
		const placedOrder = {
			orderId: '1',
			clientOrderId: 'a',
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'LIMIT',
			price: '100',
			origQty: '0.01',
		};
		const verdicts = orderKind(offline, { endpoint: 'batch' }).read(
			{
				code: 0,
				result: [
					{ code: 0, order: placedOrder },
					{ code: 401, msg: 'Insufficient asset' },
					{ code: -1141, msg: 'Duplicate order' },
					{ code: -1146, msg: 'Order creation timeout' },
				],
			},
			pending,
		);
		expect(verdicts.map((verdict) => verdict.kind)).toEqual([
			'placed',
			'rejected',
			'duplicate',
			'unknown',
		]);
		expect(verdicts[0]).toMatchObject({ result: placedOrder });
		expect(verdicts[1]).toMatchObject({
			refusal: { code: '401', msg: 'Insufficient asset', detail: { entry: { code: 401 } } },
		});
		expect(verdicts[3]).toMatchObject({ reason: expect.stringContaining('code -1146') });
	});

	it('a refusal of the whole request: a duplicate client order ID is looked up, anything else rejects', () => {
		const kind = orderKind(offline, { endpoint: 'single' });
		const refused = (code: string) =>
			kind.refused!(rejectionError(node, { code, msg: 'refused', httpStatus: 400 }, 0));
		expect(refused('-1141').kind).toBe('duplicate');
		expect(refused('0401').kind).toBe('rejected');
	});

	it('names the order and what to check; a batch as a whole by its symbol and size', () => {
		const kind = orderKind(offline, { endpoint: 'batch' });
		const [withId, withoutId] = pendingOrders([
			limitOrder({ newClientOrderId: 'row-1' }),
			limitOrder({ side: 'SELL', type: 'LIMIT_MAKER' }),
		]);
		expect(kind.wording(withId.write)).toEqual({
			what: 'BUY LIMIT order for BTCUSDT',
			howToCheck: 'Check your open orders and trade history for BTCUSDT (client order ID row-1)',
		});
		expect(kind.wording(withoutId.write).what).toBe('SELL LIMIT_MAKER order for BTCUSDT');
		expect(kind.requestWording!([withId, withoutId])).toEqual({
			what: 'batch of 2 BTCUSDT orders',
			howToCheck: 'Check your open orders and trade history for BTCUSDT',
		});
		expect(orderKind(offline, { endpoint: 'single' }).requestWording!([withId])).toBeUndefined();
		expect(kind.whyNoLookup(withId.write)).toBeUndefined();
		expect(kind.whyNoLookup(withoutId.write)).toBe('it has no client order ID to look it up by');
	});

	const answer = {
		orderId: 1950000017,
		clientOrderId: 'a',
		status: 'NEW',
		time: 1700000000000,
		price: '100',
		symbol: 'BTCUSDT',
		fills: [{ qty: '1' }],
	};
	const assigned = {
		orderId: '1950000017',
		clientOrderId: 'a',
		status: 'NEW',
		transactTime: '1700000000000',
	};
	const baseOrder = {
		symbol: 'BTCUSDT',
		side: 'BUY',
		type: 'LIMIT',
		timeInForce: 'GTC',
		stpMode: 'EXPIRE_TAKER',
	};

	it('the ledger keeps only what the service assigned: order ID, client order ID, status, time', () => {
		const kind = orderKind(offline, { endpoint: 'single' });
		const write = {
			order: { ...baseOrder, price: '100', quantity: '1' },
			orderIndex: 0,
			businessKey: false,
		};
		expect(kind.stored(answer, write)).toEqual(assigned);
	});

	it('and, for an order Fit to Symbol Rules changed, the price, quantity and amount sent: a re-run may not fit it again', () => {
		const kind = orderKind(offline, { endpoint: 'single' });
		const write = {
			order: { ...baseOrder, price: '100.12', quantity: '1' },
			orderIndex: 0,
			businessKey: false,
			given: { ...baseOrder, price: '100.129', quantity: '1' },
		};
		expect(kind.stored(answer, write)).toEqual({
			...assigned,
			sent: { price: '100.12', quantity: '1' },
		});
	});

	it('an order without a client order ID cannot be looked up: unknown, nothing sent', async () => {
		const [pending] = pendingOrders([limitOrder()]);
		await expect(orderKind(offline, { endpoint: 'single' }).lookup(pending)).resolves.toEqual({
			kind: 'unknown',
			reason: 'the order has no client order ID to look it up by',
		});
	});
});

describe('orderKind lookups against the sandbox', () => {
	const sandbox = useSandbox({ rateLimit: false, requestRates: false });

	/** Runs `use` inside a node run of n8n's real executor, with the run's context. */
	const inNodeRun = <T>(
		use: (run: WriteSession) => Promise<T>,
		credentials: Record<string, string> = {},
	): Promise<T> =>
		withExecuteFunctions(
			sandbox(),
			(context) => use(writeSessionOf(new RunContext(context))),
			credentials,
		);

	it('found by its client order ID and the same order: placed, with the order as the service holds it', async () => {
		const [pending] = pendingOrders([limitOrder({ newClientOrderId: 'row-1' })]);
		pending.window.firstSentAt = sandbox().now();
		const seeded = sandbox().seedOpenOrder({
			symbol: 'BTCUSDT',
			side: 'BUY',
			price: '100',
			quantity: '0.01',
			clientOrderId: 'row-1',
			time: sandbox().now(),
		});
		const verdict = await inNodeRun((run) =>
			orderKind(run, { endpoint: 'single' }).lookup(pending),
		);
		expect(verdict).toMatchObject({
			kind: 'placed',
			result: { orderId: seeded.orderId, clientOrderId: 'row-1', status: 'NEW' },
		});
		const lookups = requestsTo(sandbox(), ORDER);
		expect(lookups).toHaveLength(1);
		expect(lookups[0]).toMatchObject({ method: 'GET' });
		expect(lookups[0].query).toMatch(/^origClientOrderId=row-1&/);
	});

	it('another order holds the client order ID: unknown, saying to give every order its own ID', async () => {
		const [pending] = pendingOrders([limitOrder({ newClientOrderId: 'row-1' })]);
		pending.window.firstSentAt = sandbox().now();
		sandbox().seedOpenOrder({
			symbol: 'BTCUSDT',
			side: 'BUY',
			price: '99',
			quantity: '0.01',
			clientOrderId: 'row-1',
			time: sandbox().now(),
		});
		const verdict = await inNodeRun((run) =>
			orderKind(run, { endpoint: 'single' }).lookup(pending),
		);
		expect(verdict).toMatchObject({
			kind: 'unknown',
			reason: expect.stringMatching(
				/^the lookup found another order with client order ID row-1 .*give every order its own client order ID$/,
			),
		});
	});

	it('not found once no attempt can be accepted any more (defect 8): unknown, never "not done", after one lookup', async () => {
		const [pending] = pendingOrders([limitOrder({ newClientOrderId: 'row-1' })]);
		pending.window.firstSentAt = Date.now() - 10_000;
		pending.window.acceptableUntil = Date.now() - 1;
		const verdict = await inNodeRun((run) =>
			orderKind(run, { endpoint: 'single' }).lookup(pending),
		);
		expect(verdict).toMatchObject({
			kind: 'unknown',
			reason: expect.stringContaining('does not prove it was not placed'),
		});
		expect(requestsTo(sandbox(), ORDER)).toHaveLength(1);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('not found before the receive window ends: looked up once more after it, then unknown', async () => {
		const [pending] = pendingOrders([limitOrder({ newClientOrderId: 'row-1' })]);
		pending.window.firstSentAt = Date.now();
		// Long enough that the first lookup answers inside the window on a loaded CI machine.
		pending.window.acceptableUntil = Date.now() + 1_500;
		const verdict = await inNodeRun((run) =>
			orderKind(run, { endpoint: 'single' }).lookup(pending),
		);
		expect(verdict).toMatchObject({ kind: 'unknown' });
		expect(requestsTo(sandbox(), ORDER)).toHaveLength(2);
	});

	it('a lookup that answers an order of another client order ID (defect 7): unknown, never that order', async () => {
		const [pending] = pendingOrders([limitOrder({ newClientOrderId: 'row-1' })]);
		pending.window.firstSentAt = sandbox().now() - 1000;
		const other = sandbox().seedOpenOrder({
			symbol: 'BTCUSDT',
			side: 'BUY',
			price: '100',
			quantity: '0.01',
			clientOrderId: 'row-2',
			time: sandbox().now(),
		});
		sandbox().otherHost.setReply({
			status: 200,
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify(other),
		});
		const verdict = await inNodeRun(
			(run) =>
				// The other host answers every request with that order, the key's account list too:
				// the run is told its account instead.
				orderKind(
					Object.assign(run, {
						account: () => Promise.resolve({ accountId: other.accountId, shared: true }),
					}),
					{ endpoint: 'single' },
				).lookup(pending),
			{ baseUrl: sandbox().otherHost.url },
		);
		expect(verdict).toMatchObject({
			kind: 'unknown',
			reason: expect.stringContaining('which holds client order ID row-2'),
		});
	});

	it('refused as a duplicate on its only attempt, and not found: the refusal stands, nothing placed', async () => {
		const [pending] = pendingOrders([limitOrder({ newClientOrderId: 'row-1' })]);
		const verdict = await inNodeRun((run) =>
			orderKind(run, { endpoint: 'batch' }).lookup(pending, {
				code: '-1141',
				msg: 'Duplicate order',
			}),
		);
		expect(verdict).toMatchObject({ kind: 'rejected', refusal: { code: '-1141' } });
		const error = (verdict as { refusal: { error: Error & { description?: string } } }).refusal
			.error;
		expect(error.message).toBe('An open order already uses this client order ID');
		expect(error.description).toMatch(
			/^The service refused order row-1 as a duplicate, and .*This request placed nothing\. Outcome: rejected/,
		);
	});
});

describe('matchesSentOrder: a LIMIT order’s time in force is part of the order (IOC and FOK on version 2)', () => {
	const sent: OrderParams = {
		symbol: 'BTCUSDT',
		side: 'BUY',
		type: 'LIMIT',
		timeInForce: 'IOC',
		price: '50000',
		quantity: '0.01',
		newClientOrderId: 'row-1',
		stpMode: 'EXPIRE_TAKER',
	};
	const found: IDataObject = {
		clientOrderId: 'row-1',
		symbol: 'BTCUSDT',
		side: 'BUY',
		type: 'LIMIT',
		price: '50000',
		origQty: '0.01',
	};

	it('matches the same time in force, or an answer that shows none; not another one', () => {
		expect(matchesSentOrder(sent, { ...found, timeInForce: 'IOC' })).toBe(true);
		expect(matchesSentOrder(sent, found)).toBe(true);
		expect(matchesSentOrder(sent, { ...found, timeInForce: 'GTC' })).toBe(false);
		expect(
			matchesSentOrder({ ...sent, timeInForce: 'FOK' }, { ...found, timeInForce: 'IOC' }),
		).toBe(false);
	});

	it('leaves MARKET and LIMIT_MAKER orders as before: each has one time in force', () => {
		const market = { ...sent, type: 'MARKET', price: undefined, timeInForce: 'IOC' };
		expect(
			matchesSentOrder(market, { ...found, type: 'MARKET', price: '0', timeInForce: 'GTC' }),
		).toBe(true);
	});
});
