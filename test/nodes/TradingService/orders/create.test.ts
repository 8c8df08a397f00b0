import { ExecuteContext } from 'n8n-core';

import { DEFAULT_RETRY_POLICY } from '../../../../nodes/TradingService/transport';
import { DEMO_KEYS } from '../../../../sandbox';
import {
	generatedClientOrderId,
	requestsTo,
	runTradingService,
} from '../../../../tools/harness/node';
import { useSandbox } from '../../../support/sandbox';

const NEW_ORDER = '/api/v1/spot/new/order';
const QUERY_ORDER = '/api/v1/spot/order';
/** The outcome an error reports (every error about a write carries one). */
const errorOutcome = (run: { error?: { context?: unknown } }) =>
	(run.error?.context as { outcome?: string } | undefined)?.outcome;
const sandbox = useSandbox({ rateLimit: false, requestRates: false });

const limitOrder = (overrides: Record<string, unknown> = {}) => ({
	resource: 'order',
	operation: 'create',
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	price: '50000.10',
	quantity: '0.0100',
	...overrides,
});
const marketOrder = (overrides: Record<string, unknown> = {}) => ({
	resource: 'order',
	operation: 'create',
	symbol: 'ETHUSDT',
	side: 'BUY',
	type: 'MARKET',
	quantity: '0.5',
	...overrides,
});

describe('Order > Create', () => {
	it('places a LIMIT order with GTC, the default STP mode and a generated client order ID', async () => {
		const run = await runTradingService(sandbox(), { parameters: limitOrder() });
		expect(run.error).toBeUndefined();
		const clientOrderId = run.items[0].json.clientOrderId as string;
		expect(clientOrderId).toMatch(generatedClientOrderId(0));
		expect(run.items[0].json).toMatchObject({
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'LIMIT',
			price: '50000.1',
			timeInForce: 'GTC',
			status: 'NEW',
		});
		const [request] = requestsTo(sandbox(), NEW_ORDER);
		expect(request.query).toMatch(
			new RegExp(
				`^symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&stpMode=EXPIRE_TAKER&quantity=0\\.0100&price=50000\\.10&newClientOrderId=${clientOrderId}&recvWindow=5000&timestamp=\\d+&signature=`,
			),
		);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('places MARKET orders by quantity or by amount, with IOC', async () => {
		const byQuantity = await runTradingService(sandbox(), { parameters: marketOrder() });
		expect(byQuantity.items[0].json).toMatchObject({
			type: 'MARKET',
			timeInForce: 'IOC',
			status: 'FILLED',
			origQty: '0.5',
		});
		const byAmount = await runTradingService(sandbox(), {
			parameters: marketOrder({ amount: '100', quantity: '' }),
		});
		expect(byAmount.error).toBeUndefined();
		expect(requestsTo(sandbox(), NEW_ORDER)[1].query).toMatch(/&amount=100&/);
		expect(requestsTo(sandbox(), NEW_ORDER)[1].query).not.toMatch(/quantity=/);
	});

	it('a MARKET order with both Quantity and Amount is refused', async () => {
		const run = await runTradingService(sandbox(), { parameters: marketOrder({ amount: '100' }) });
		expect(run.error?.message).toBe('Amount: MARKET orders take Quantity or Amount, not both');
		expect(sandbox().ledger.requests).toHaveLength(0);
	});

	it('Type mapped from each item (or set by an AI agent): each order gets its own fields and time in force', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder({
				type: '={{ $json.type }}',
				price: '={{ $json.price ?? "" }}',
				quantity: '={{ $json.quantity ?? "" }}',
				amount: '={{ $json.amount ?? "" }}',
			}),
			inputItems: [
				{ json: { type: 'LIMIT', price: '10', quantity: '0.1' } },
				{ json: { type: 'MARKET', amount: '20' } },
				{ json: { type: 'LIMIT_MAKER', price: '11', quantity: '0.1' } },
			],
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => [item.json.type, item.json.timeInForce])).toEqual([
			['LIMIT', 'GTC'],
			['MARKET', 'IOC'],
			['LIMIT_MAKER', 'GTC'],
		]);
		expect(sandbox().ledger.orders).toHaveLength(3);
	});

	it('uses the client order ID, STP mode and receive window given', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder({
				newClientOrderId: 'row-42',
				stpMode: 'EXPIRE_MAKER',
				type: 'LIMIT_MAKER',
				options: { recvWindow: 7000 },
			}),
		});
		expect(run.items[0].json).toMatchObject({ clientOrderId: 'row-42', type: 'LIMIT_MAKER' });
		expect(requestsTo(sandbox(), NEW_ORDER)[0].query).toMatch(
			/stpMode=EXPIRE_MAKER&.*newClientOrderId=row-42&recvWindow=7000&timestamp=/,
		);
	});

	it.each([
		['open', () => undefined],
		['filled', (orderId: string) => sandbox().fillOrder(orderId)],
		[
			'cancelled',
			(orderId: string) => {
				sandbox().setFaults({});
				return runTradingService(sandbox(), {
					parameters: { resource: 'order', operation: 'cancel', orderId },
				});
			},
		],
	] as const)(
		'business key (defect 1): a second execution with the same client order ID, the order %s in between, looks it up first: placed, already placed, nothing sent',
		async (_state, between) => {
			const first = await runTradingService(sandbox(), {
				parameters: limitOrder({ newClientOrderId: 'row-7' }),
			});
			const orderId = first.items[0].json.orderId as string;
			await between(orderId);
			const again = await runTradingService(sandbox(), {
				parameters: limitOrder({ newClientOrderId: 'row-7' }),
			});
			expect(again.error).toBeUndefined();
			expect(again.items[0].json).toMatchObject({
				outcome: 'placed',
				alreadyPlaced: true,
				clientOrderId: 'row-7',
				orderId,
			});
			// One lookup per execution (the first found nothing), one order sent.
			const lookups = requestsTo(sandbox(), QUERY_ORDER).filter(
				(request) => request.method === 'GET',
			);
			expect(lookups).toHaveLength(2);
			expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(1);
			expect(sandbox().ledger.orders).toHaveLength(1);
		},
	);

	it('business key (defect 1): a MARKET order run in two executions fills once', async () => {
		const market = limitOrder({
			newClientOrderId: 'sheet-row-42',
			type: 'MARKET',
			price: '',
			quantity: '0.01',
		});
		const first = await runTradingService(sandbox(), { parameters: market });
		const again = await runTradingService(sandbox(), { parameters: market });
		expect(first.items[0].json).toMatchObject({ outcome: 'placed', status: 'FILLED' });
		expect(again.items[0].json).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			orderId: first.items[0].json.orderId,
		});
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('business key found, then n8n Retry On Fail re-runs the node (Continue On Fail put item 0’s error first): the ledger answers item 1, still already placed, nothing sent', async () => {
		const first = await runTradingService(sandbox(), {
			parameters: limitOrder({ newClientOrderId: 'row-5' }),
		});
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder({
				newClientOrderId: '={{ $json.key }}',
				quantity: '={{ $json.quantity }}',
			}),
			inputItems: [
				{ json: { key: 'row-6', quantity: '1000000' } },
				{ json: { key: 'row-5', quantity: '0.01' } },
			],
			node: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
			continueOnFail: true,
		});
		expect(run.items[1].json).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			replayed: true,
			orderId: first.items[0].json.orderId,
		});
		// Item 1 was looked up once (first try) and answered from the ledger on the second.
		const row5 = sandbox()
			.ledger.requests.slice(since)
			.filter((request) => request.query.includes('row-5'));
		expect(row5.map((request) => request.method)).toEqual(['GET']);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('a client order ID that another order (other fields) holds: rejected before anything is sent', async () => {
		await runTradingService(sandbox(), { parameters: limitOrder({ newClientOrderId: 'row-8' }) });
		const other = await runTradingService(sandbox(), {
			parameters: limitOrder({ newClientOrderId: 'row-8', price: '40000' }),
		});
		expect(other.error?.message).toBe('Client order ID row-8 already belongs to another order');
		expect(other.error?.description).toContain('Nothing was sent');
		expect(errorOutcome(other)).toBe('rejected');
		expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(1);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('a business key that cannot be checked (lookups fail) refuses the order: nothing sent', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'http500', times: 20, path: QUERY_ORDER, method: 'GET' }],
		});
		const quickRetries = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'baseDelayMs', 1);
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder({ newClientOrderId: 'row-9' }),
		});
		quickRetries.restore();
		expect(run.error?.message).toBe(
			'Could not check whether client order ID row-9 was already used',
		);
		expect(errorOutcome(run)).toBe('rejected');
		expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(0);
	});

	it('committed but unanswered: looked up by its client order ID, reported placed, sent once', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: NEW_ORDER }] });
		const run = await runTradingService(sandbox(), { parameters: limitOrder() });
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			clientOrderId: expect.stringMatching(generatedClientOrderId(0)),
			orderId: sandbox().ledger.orders[0]?.orderId,
		});
		expect(run.items[0].json.alreadyPlaced).toBeUndefined();
		expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(1);
		expect(requestsTo(sandbox(), QUERY_ORDER)[0].query).toContain(
			`origClientOrderId=${run.items[0].json.clientOrderId as string}`,
		);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('unanswered and not found (defect 8): unknown, looked up again after the receive window, never sent again', async () => {
		sandbox().setFaults({ rules: [{ kind: 'http502', times: 1, path: NEW_ORDER }] });
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder(),
			credentials: { recvWindow: 1500 },
		});
		expect(run.error?.message).toMatch(/^Unknown outcome: the BUY LIMIT order for BTCUSDT/);
		expect(run.error?.message).toContain('does not prove it was not placed');
		expect(errorOutcome(run)).toBe('unknown');
		expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(1);
		expect(requestsTo(sandbox(), QUERY_ORDER)).toHaveLength(2);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('without a client order ID an unknown outcome is never retried', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: NEW_ORDER }] });
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder({ options: { generateClientOrderId: false } }),
		});
		expect(run.error?.message).toMatch(
			/^Unknown outcome: the BUY LIMIT order for BTCUSDT may or may not have been executed/,
		);
		expect(run.error?.description).toContain(
			'Check your open orders and trade history for BTCUSDT',
		);
		expect(errorOutcome(run)).toBe('unknown');
		expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(1);
		expect(requestsTo(sandbox(), QUERY_ORDER)).toHaveLength(0);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('n8n Retry On Fail re-runs the node after item 1 is refused: item 0 comes from the write ledger, placed once', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder({ quantity: '={{ $json.quantity }}' }),
			inputItems: [{ json: { quantity: '0.01' } }, { json: { quantity: '1000000' } }],
			node: { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
		});
		expect(run.error?.message).toBe('The account balance is too low for this request');
		expect(errorOutcome(run)).toBe('rejected');
		const sentIds = requestsTo(sandbox(), NEW_ORDER).map(
			(request) => /newClientOrderId=([^&]+)/.exec(request.query)?.[1],
		);
		// Item 0 once, item 1 (refused, so sent again on each try) three times.
		expect(sentIds.filter((id) => generatedClientOrderId(0).test(id ?? ''))).toHaveLength(1);
		expect(sentIds).toHaveLength(4);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('n8n Retry On Fail after an unknown outcome: the next try settles it by lookup, never sending it again', async () => {
		// The order is committed unanswered, and every lookup of the first try fails: unknown.
		sandbox().setFaults({
			rules: [
				{ kind: 'dropAfter', times: 1, path: NEW_ORDER },
				{ kind: 'http503', times: 6, path: QUERY_ORDER },
			],
		});
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder(),
			node: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			orderId: sandbox().ledger.orders[0]?.orderId,
		});
		expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(1);
		expect(requestsTo(sandbox(), QUERY_ORDER).length).toBeGreaterThan(6);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('insufficient balance is reported with advice', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder({ quantity: '1000000' }),
		});
		expect(run.error?.message).toBe('The account balance is too low for this request');
	});

	it('a read-only key cannot place orders', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder(),
			key: DEMO_KEYS.readOnly,
		});
		expect(run.error?.message).toBe('The API key is not allowed to do this');
		expect(errorOutcome(run)).toBe('rejected');
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	describe('validates everything before sending, naming the field', () => {
		it.each([
			['Symbol', limitOrder({ symbol: 'btcusdt' })],
			['Symbol', limitOrder({ symbol: 'BTC/USDT' })],
			['Side', limitOrder({ side: 'HOLD' })],
			['Type', limitOrder({ type: 'STOP' })],
			['Price', limitOrder({ price: '={{ "" }}' })],
			['Price', limitOrder({ price: 'abc' })],
			['Price', limitOrder({ price: '0.0' })],
			['Quantity', limitOrder({ quantity: '-0.1' })],
			['Quantity', limitOrder({ quantity: '1e3' })],
			['Time In Force', limitOrder({ timeInForceLimit: 'IOC' })],
			['Time In Force', marketOrder({ timeInForceMarket: 'GTC' })],
			['Quantity', marketOrder({ quantity: '={{ "" }}' })],
			['Amount', marketOrder({ quantity: '', amount: 'ten' })],
			['Self-Trade Prevention', limitOrder({ stpMode: 'NONE' })],
			['Client Order ID', limitOrder({ newClientOrderId: 'x'.repeat(256) })],
			['Client Order ID', limitOrder({ newClientOrderId: 'has space' })],
			['Receive Window', limitOrder({ options: { recvWindow: 60001 } })],
		])('%s (case %#)', async (field, parameters) => {
			const run = await runTradingService(sandbox(), { parameters });
			expect(run.error?.message.startsWith(`${field}: `)).toBe(true);
			expect(run.error?.description).toBeTruthy();
			expect(sandbox().ledger.requests).toHaveLength(0);
		});

		it('accepts a 255-character client order ID', async () => {
			const run = await runTradingService(sandbox(), {
				parameters: limitOrder({ newClientOrderId: 'y'.repeat(255) }),
			});
			expect(run.error).toBeUndefined();
		});
	});
});

describe('generated client order IDs', () => {
	it('differ between executions (and so between n8n instances, whose execution ids both start at 1)', async () => {
		const first = await runTradingService(sandbox(), {
			parameters: limitOrder(),
			executionId: '1',
		});
		const second = await runTradingService(sandbox(), {
			parameters: limitOrder(),
			executionId: '1',
		});
		expect(first.items[0].json.clientOrderId).not.toBe(second.items[0].json.clientOrderId);
		expect(second.items[0].json.alreadyPlaced).toBeUndefined();
		expect(sandbox().ledger.orders).toHaveLength(2);
	});
});

describe('Order > Create > Test Only', () => {
	it('sends the order to the order-test endpoint (weight 1) and places nothing', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder({ newClientOrderId: 'try-1', options: { testOnly: true } }),
		});
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(1);
		expect(run.items[0].json).toMatchObject({
			testOnly: true,
			valid: true,
			placed: false,
			symbol: 'BTCUSDT',
			price: '50000.10',
			quantity: '0.0100',
			clientOrderId: 'try-1',
		});
		expect(run.items[0].json).not.toHaveProperty('outcome');
		const tests = requestsTo(sandbox(), '/api/v1/spot/orderTest');
		expect(tests).toHaveLength(1);
		expect(tests[0]).toMatchObject({ method: 'POST', weight: 1 });
		expect(tests[0].query).toMatch(
			/^symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&stpMode=EXPIRE_TAKER&quantity=0\.0100&price=50000\.10&newClientOrderId=try-1&/,
		);
		expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(0);
		expect(sandbox().ledger.orders).toHaveLength(0);
		// and one read of the symbol rules before them
		expect(sandbox().ledger.requests).toHaveLength(2);
	});

	it('without a Client Order ID none is generated, and nothing is placed', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: marketOrder({ options: { testOnly: true } }),
		});
		expect(run.items[0].json).toMatchObject({ testOnly: true, placed: false, type: 'MARKET' });
		expect(run.items[0].json).not.toHaveProperty('clientOrderId');
		expect(requestsTo(sandbox(), '/api/v1/spot/orderTest')[0].query).not.toMatch(
			/newClientOrderId=/,
		);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('an order the exchange would refuse gets its error (insufficient balance), outcome rejected', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder({ quantity: '1000', options: { testOnly: true } }),
			continueOnFail: true,
		});
		expect(run.items[0].json).toMatchObject({
			outcome: 'rejected',
			error: 'The account balance is too low for this request',
		});
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('bad input is refused before the test request', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder({ price: '', options: { testOnly: true } }),
		});
		expect(run.error?.message).toMatch(/^Price: /);
		expect(sandbox().ledger.requests).toHaveLength(0);
	});
});

describe('per node run, not per item (Create and Create Many)', () => {
	// n8n-core's execution context classes: the node's calls into n8n are counted on their prototypes.
	const baseContext = Object.getPrototypeOf(ExecuteContext.prototype) as {
		getWorkflowDataProxy: (...args: unknown[]) => unknown;
		getCredentials: (...args: unknown[]) => unknown;
	};
	const calls = () => {
		const proxy = jest.spyOn(baseContext, 'getWorkflowDataProxy');
		const credentials = jest.spyOn(baseContext, 'getCredentials');
		// ExecuteContext's getNodeParameter is an instance arrow function over this method.
		const parameter = jest.spyOn(
			Object.getPrototypeOf(baseContext) as { _getNodeParameter: (...args: unknown[]) => unknown },
			'_getNodeParameter',
		);
		return {
			proxy: () => proxy.mock.calls.length,
			credentials: () => credentials.mock.calls.length,
			parameter: (name: string) =>
				parameter.mock.calls.filter(([parameterName]) => parameterName === name).length,
			restore: () => jest.restoreAllMocks(),
		};
	};
	const items = (count: number) =>
		Array.from({ length: count }, (_, index) => ({
			json: { price: `${100 + index}`, rw: 6000 + index },
		}));
	afterEach(() => jest.restoreAllMocks());

	it('Create, 30 items: one request each (and one symbol rules read); the data proxy, the credential, fixed fields and options read once per run', async () => {
		const counted = calls();
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder({ price: '={{ $json.price }}', options: { maxOrderQuantity: '1' } }),
			inputItems: items(30),
		});
		expect(run.error).toBeUndefined();
		expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(30);
		// and one read of the symbol rules before them
		expect(sandbox().ledger.requests).toHaveLength(31);
		// The run context reads the run index once, for the ID prefix and the ledger alike.
		expect(counted.proxy()).toBe(1);
		// The node reads the credential once per run and hands it to n8n's request helper, which then does not read it again.
		expect(counted.credentials()).toBe(1);
		expect(counted.parameter('symbol')).toBe(1);
		expect(counted.parameter('options')).toBe(1);
		// The one expression is a plain reference to the item: read from it, n8n evaluates nothing.
		expect(counted.parameter('price')).toBe(0);
		const ids = run.items.map((item) => item.json.clientOrderId as string);
		ids.forEach((id, index) => expect(id).toMatch(generatedClientOrderId(index)));
		expect(new Set(ids.map((id) => id.replace(/-\d+-0$/, ''))).size).toBe(1);
		expect(run.items.map((item) => item.json.price)).toEqual(
			items(30).map((item) => item.json.price),
		);
	});

	it('Create: an option given as an expression still applies per item (Receive Window of each request)', async () => {
		const counted = calls();
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder({ options: { recvWindow: '={{ $json.rw + 0 }}' } }),
			inputItems: items(5),
		});
		expect(run.error).toBeUndefined();
		// Not a plain reference: n8n evaluates it for every item.
		expect(counted.parameter('options')).toBe(5);
		expect(
			requestsTo(sandbox(), NEW_ORDER).map(
				(request) => /recvWindow=(\d+)/.exec(request.query)?.[1],
			),
		).toEqual(['6000', '6001', '6002', '6003', '6004']);
	});

	it('Create: a fixed Client Order ID on two items is refused before any request', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: limitOrder({ newClientOrderId: 'same' }),
			inputItems: items(2),
		});
		expect(run.error?.message).toBe(
			'Client Order ID: "same" is used by more than one order (items 0 and 1)',
		);
		expect(sandbox().ledger.requests).toHaveLength(0);
	});

	it('Create Many, 45 items, auto-mapped: 4 requests (and one symbol rules read); the data proxy and the credential read once per run, no parameter per item', async () => {
		const counted = calls();
		const inputItems = Array.from({ length: 45 }, (_, index) => ({
			json: {
				symbol: index % 2 ? 'ETHUSDT' : 'BTCUSDT',
				side: 'BUY',
				type: 'LIMIT',
				price: `${100 + index}`,
				quantity: '0.001',
			},
		}));
		const run = await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'createMany', inputMode: 'autoMap' },
			inputItems,
		});
		expect(run.error).toBeUndefined();
		// 23 BTCUSDT (20 + 3) and 22 ETHUSDT (20 + 2).
		expect(requestsTo(sandbox(), '/api/v1/spot/batchOrders')).toHaveLength(4);
		// and one read of the symbol rules before them
		expect(sandbox().ledger.requests).toHaveLength(5);
		expect(counted.proxy()).toBe(1);
		expect(counted.credentials()).toBe(1);
		expect(counted.parameter('inputMode')).toBe(1);
		expect(counted.parameter('options')).toBe(1);
		expect(counted.parameter('symbol') + counted.parameter('price')).toBe(0);
	});

	it("a second run of the node (a loop) computes its own ID prefix: new IDs, nothing taken for the first run's orders", async () => {
		const first = await runTradingService(sandbox(), {
			parameters: limitOrder(),
			inputItems: items(2),
			executionId: 'loop',
		});
		const second = await runTradingService(sandbox(), {
			parameters: limitOrder(),
			inputItems: items(2),
			executionId: 'loop',
		});
		const ids = [...first.items, ...second.items].map((item) => item.json.clientOrderId);
		expect(new Set(ids).size).toBe(4);
		expect(sandbox().ledger.orders).toHaveLength(4);
	});
});
