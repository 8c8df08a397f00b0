import { generatedClientOrderId } from '../../../../tools/harness/node';
import { reportedOutcome, runCounting } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';
import { BATCH_PATH, ORDER_PATH, bookOrders, queries } from './futuresOrderSupport';
import { BTC, ETH, runFutures } from './support';

const sandbox = useSandbox();
const MARK = '60000';

beforeEach(() => sandbox().futures.setMarkPrice(BTC, MARK));

const order = (overrides: Record<string, unknown> = {}) => ({
	symbol: BTC,
	side: 'BUY',
	orderType: 'LIMIT',
	quantityIn: 'base',
	quantity: '0.002',
	price: '50000',
	...overrides,
});

const errorOutcome = (run: { error?: { context?: unknown } }) =>
	(run.error?.context as { outcome?: string } | undefined)?.outcome;

describe('Futures > Create Order: the four types', () => {
	it('places a LIMIT BUY by base quantity with a generated client order ID', async () => {
		const run = await runFutures(sandbox(), 'createOrder', order());
		expect(run.error).toBeUndefined();
		const item = run.items[0].json;
		expect(item).toMatchObject({
			outcome: 'placed',
			symbol: BTC,
			side: 'BUY',
			orderType: 'limit',
			price: '50000',
			originalBaseQty: '0.002',
		});
		expect(item.clientOrderId).toMatch(generatedClientOrderId(0));
		const [query] = queries(run.requests, ORDER_PATH, 'POST');
		expect(
			Object.fromEntries([...query].filter(([key]) => !['timestamp', 'signature'].includes(key))),
		).toEqual({
			symbol: BTC,
			side: 'BUY',
			type: 'LIMIT',
			baseQty: '0.002',
			price: '50000',
			clientOrderId: item.clientOrderId,
			recvWindow: '5000',
		});
		expect(bookOrders(sandbox())).toHaveLength(1);
	});

	it('places a MARKET BUY by quote quantity: quoteQty sent as given, filled', async () => {
		const run = await runFutures(
			sandbox(),
			'createOrder',
			order({ orderType: 'MARKET', quantityIn: 'quote', quantity: '120', price: undefined }),
		);
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', orderType: 'market' });
		const [query] = queries(run.requests, ORDER_PATH, 'POST');
		expect(query.get('quoteQty')).toBe('120');
		expect(query.has('baseQty')).toBe(false);
		expect(bookOrders(sandbox())[0]).toMatchObject({ status: 'FILLED', originalBaseQty: '0.002' });
	});

	it('places a LIMIT_MAKER and a stop-limit and a stop-market order', async () => {
		const maker = await runFutures(sandbox(), 'createOrder', order({ orderType: 'LIMIT_MAKER' }));
		expect(maker.items[0]?.json).toMatchObject({ outcome: 'placed', orderType: 'limit_maker' });
		const stopLimit = await runFutures(
			sandbox(),
			'createOrder',
			order({ orderType: 'STOP', stopPrice: '62000', price: '62500' }),
		);
		expect(stopLimit.error).toBeUndefined();
		expect(stopLimit.items[0].json).toMatchObject({
			outcome: 'placed',
			orderType: 'stop',
			status: 'ORDER_NEW',
			stopPrice: '62000',
		});
		const stopMarket = await runFutures(
			sandbox(),
			'createOrder',
			order({ orderType: 'STOP', stopPrice: '63000', price: '' }),
		);
		expect(stopMarket.error).toBeUndefined();
		expect(stopMarket.items[0].json).toMatchObject({ outcome: 'placed', status: 'ORDER_NEW' });
		expect(queries(stopMarket.requests, ORDER_PATH, 'POST')[0].has('price')).toBe(false);
		expect(bookOrders(sandbox())).toHaveLength(3);
	});
});

describe('Futures > Create Order: leverage, reduce-only, TP/SL', () => {
	it('sends the leverage and reduce-only: a reduce-only MARKET SELL reduces the LONG', async () => {
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01', price: MARK });
		const run = await runFutures(
			sandbox(),
			'createOrder',
			order({
				side: 'SELL',
				orderType: 'MARKET',
				quantity: '0.004',
				price: undefined,
				options: { leverage: 5, reduceOnly: true },
			}),
		);
		expect(run.error).toBeUndefined();
		const [query] = queries(run.requests, ORDER_PATH, 'POST');
		expect(query.get('reduceOnly')).toBe('true');
		expect(query.get('leverage')).toBe('5');
		expect(sandbox().futures.positions()[0].baseQty).toBe('0.006');
	});

	it('names the take-profit and stop-loss orders after the order’s client order ID, so they can be found again', async () => {
		const run = await runFutures(
			sandbox(),
			'createOrder',
			order({
				orderType: 'MARKET',
				price: undefined,
				options: {
					clientOrderId: 'signal-9',
					takeProfitPrice: '66000',
					stopLossPrice: '57000',
					stopLossTriggerBy: 'MARK_PRICE',
				},
			}),
		);
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			clientOrderId: 'signal-9',
			tpClientOrderId: 'signal-9-tp',
			slClientOrderId: 'signal-9-sl',
		});
		const [query] = queries(run.requests, ORDER_PATH, 'POST');
		expect(query.get('tpClientOrderId')).toBe('signal-9-tp');
		expect(query.get('slClientOrderId')).toBe('signal-9-sl');
		expect(query.get('slTriggerBy')).toBe('MARK_PRICE');
		const children = bookOrders(sandbox()).filter((one) => one.clientOrderId !== 'signal-9');
		expect(children.map((one) => one.clientOrderId).sort()).toEqual(['signal-9-sl', 'signal-9-tp']);
		const found = await runFutures(sandbox(), 'getOrder', {
			findBy: 'clientOrderId',
			clientOrderId: 'signal-9-tp',
		});
		expect(found.items[0].json).toMatchObject({
			clientOrderId: 'signal-9-tp',
			side: 'SELL',
			reduceOnly: true,
		});
	});

	it('derives the children’s IDs from a generated client order ID too', async () => {
		const run = await runFutures(
			sandbox(),
			'createOrder',
			order({ options: { takeProfitPrice: '66000' } }),
		);
		expect(run.error).toBeUndefined();
		const id = run.items[0].json.clientOrderId as string;
		expect(run.items[0].json.tpClientOrderId).toBe(`${id}-tp`);
		expect(queries(run.requests, ORDER_PATH, 'POST')[0].get('tpClientOrderId')).toBe(`${id}-tp`);
	});
});

describe('Futures > Create Order: bad input is refused before any request, naming the field and the fix', () => {
	it.each([
		[
			'a trigger-by without its take profit price',
			order({ options: { takeProfitTriggerBy: 'MARK_PRICE' } }),
			/^Take Profit Trigger By: is given without Take Profit Price/,
		],
		[
			'a STOP without stop price',
			order({ orderType: 'STOP', stopPrice: '' }),
			/^Stop Price: is required for STOP orders/,
		],
		[
			'a take profit on a SELL',
			order({ side: 'SELL', options: { takeProfitPrice: '66000' } }),
			/^Take Profit Price: is for an opening BUY only/,
		],
		[
			'a take profit below the price',
			order({ options: { takeProfitPrice: '49000' } }),
			/^Take Profit Price: 49000 is not above/,
		],
		[
			'a stop loss above the price',
			order({ options: { stopLossPrice: '51000' } }),
			/^Stop Loss Price: 51000 is not below/,
		],
		['a leverage of 0', order({ options: { leverage: 0 } }), /^Leverage: 0 is not a leverage/],
		[
			'a client order ID with a space',
			order({ options: { clientOrderId: 'a b' } }),
			/^Client Order ID: "a b" is not a futures client order ID/,
		],
		[
			'a client order ID too long for its children',
			order({ options: { clientOrderId: 'x'.repeat(98), takeProfitPrice: '66000' } }),
			/^Client Order ID: is 98 characters long/,
		],
		['a spot pair', order({ symbol: 'BTCUSDT' }), /^Symbol: "BTCUSDT" is not a futures contract/],
		['a zero quantity', order({ quantity: '0' }), /^Quantity: must be greater than zero/],
		[
			'a time in force on MARKET',
			order({ orderType: 'MARKET', price: undefined, options: { timeInForce: 'GTC' } }),
			/^Time In Force: GTC is not allowed for MARKET orders/,
		],
		[
			'a reduce-only BUY (a BUY never reduces a LONG position)',
			order({ orderType: 'MARKET', price: undefined, options: { reduceOnly: true } }),
			/^Reduce Only: is on for a BUY, which never reduces a position \(positions are LONG only\)/,
		],
	])('%s', async (_what, parameters, message) => {
		const before = sandbox().ledger.requests.length;
		const run = await runFutures(sandbox(), 'createOrder', parameters);
		expect(run.error?.message).toMatch(message);
		expect(run.error?.description).toBeTruthy();
		expect(errorOutcome(run)).toBe('rejected');
		expect(sandbox().ledger.requests.length).toBe(before);
	});

	it('a reduce-only BUY with a LONG open: refused before any request, saying to use Side Sell', async () => {
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01', price: MARK });
		const before = sandbox().ledger.requests.length;
		const run = await runFutures(
			sandbox(),
			'createOrder',
			order({ options: { reduceOnly: true } }),
		);
		expect(run.error?.message).toMatch(/^Reduce Only: is on for a BUY/);
		expect(run.error?.description).toContain(
			'A BUY never reduces a LONG position: use Side Sell to reduce it',
		);
		expect(errorOutcome(run)).toBe('rejected');
		expect(sandbox().ledger.requests.length).toBe(before);
		expect(sandbox().futures.positions()[0].baseQty).toBe('0.01');
	});

	it('refuses the whole run before sending when one item is bad', async () => {
		const run = await runFutures(sandbox(), 'createOrder', order({ price: '={{ $json.price }}' }), {
			inputItems: [{ json: { price: '50000' } }, { json: { price: 'abc' } }],
		});
		expect(run.error?.message).toMatch(/^Price:/);
		expect(queries(run.requests, ORDER_PATH, 'POST')).toHaveLength(0);
		expect(queries(run.requests, BATCH_PATH, 'POST')).toHaveLength(0);
	});
});

describe('Futures > Create Order: a lost answer is looked up, never sent again', () => {
	it('an answer dropped after the order was placed: looked up by client order ID, reported placed, placed once', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'dropAfter', times: 1, path: ORDER_PATH, method: 'POST' }],
		});
		const run = await runFutures(
			sandbox(),
			'createOrder',
			order({ options: { clientOrderId: 'row-1' } }),
		);
		expect(run.error?.message).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', clientOrderId: 'row-1' });
		expect(bookOrders(sandbox())).toHaveLength(1);
		expect(queries(run.requests, ORDER_PATH, 'GET')[0].get('clientOrderId')).toBe('row-1');
	});

	it('a MARKET order filled at once, answer lost: found FILLED by its ID, not sent again', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'dropAfter', times: 1, path: ORDER_PATH, method: 'POST' }],
		});
		const run = await runFutures(
			sandbox(),
			'createOrder',
			order({ orderType: 'MARKET', price: undefined }),
		);
		expect(reportedOutcome(run)).toBe('placed');
		expect(bookOrders(sandbox())).toHaveLength(1);
		expect(queries(run.requests, ORDER_PATH, 'POST')).toHaveLength(1);
	});
});

describe('Futures > Create Order: business keys across executions', () => {
	it('a Client Order ID of a FILLED order counts as placed: nothing sent again', async () => {
		const market = order({
			orderType: 'MARKET',
			price: undefined,
			options: { clientOrderId: 'alert-7' },
		});
		const first = await runFutures(sandbox(), 'createOrder', market);
		expect(first.items[0].json).toMatchObject({ outcome: 'placed' });
		expect(bookOrders(sandbox())[0].status).toBe('FILLED');
		const again = await runFutures(sandbox(), 'createOrder', market);
		expect(again.error).toBeUndefined();
		expect(again.items[0].json).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			clientOrderId: 'alert-7',
		});
		expect(queries(again.requests, ORDER_PATH, 'POST')).toHaveLength(0);
		expect(bookOrders(sandbox())).toHaveLength(1);
	});

	it('a Client Order ID another order used is refused, nothing sent', async () => {
		await runFutures(sandbox(), 'createOrder', order({ options: { clientOrderId: 'alert-8' } }));
		const other = await runFutures(
			sandbox(),
			'createOrder',
			order({ symbol: ETH, price: '3000', quantity: '0.1', options: { clientOrderId: 'alert-8' } }),
		);
		expect(other.error?.message).toMatch(
			/^Client Order ID: alert-8 already belongs to another order/,
		);
		expect(errorOutcome(other)).toBe('rejected');
		expect(queries(other.requests, ORDER_PATH, 'POST')).toHaveLength(0);
	});
});

describe('Futures > Create Order: the exchange’s refusals', () => {
	it('a SELL that would open a SHORT is rejected, with the service’s reason', async () => {
		const run = await runFutures(sandbox(), 'createOrder', order({ side: 'SELL', price: '70000' }));
		expect(errorOutcome(run)).toBe('rejected');
		expect(`${run.error?.message} ${run.error?.description}`).toMatch(/LONG/);
		expect(bookOrders(sandbox())).toHaveLength(0);
	});
});

describe('Futures > Create Order: the leverage range is the exchange’s', () => {
	it('a leverage above the contract’s limit is sent, and the exchange’s refusal (0001) reported rejected', async () => {
		const run = await runFutures(sandbox(), 'createOrder', order({ options: { leverage: 50 } }));
		expect(run.error?.message).toMatch(/leverage/);
		expect(JSON.stringify(run.error)).toMatch(/0001/);
		expect(errorOutcome(run)).toBe('rejected');
		const [query] = queries(run.requests, ORDER_PATH, 'POST');
		expect(query.get('leverage')).toBe('50');
		expect(bookOrders(sandbox())).toHaveLength(0);
	});
});

describe('Futures > Create Order: re-runs of the node', () => {
	const run = (parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
		runCounting(sandbox(), {
			parameters: { resource: 'futures', operation: 'createOrder', ...parameters },
			node: { typeVersion: 2 },
			...extra,
		});

	it('a retry of the execution answers a placed order from the ledger: nothing sent, nothing read', async () => {
		const first = await run(order({ orderType: 'MARKET', price: undefined }));
		expect(first.items[0].json.outcome).toBe('placed');
		const retry = await run(order({ orderType: 'MARKET', price: undefined }), {
			retryOf: first,
			lostRunOf: first,
			mode: 'retry',
		});
		expect(retry.items[0].json).toMatchObject({ outcome: 'placed', replayed: true });
		expect(retry.items[0].json.clientOrderId).toBe(first.items[0].json.clientOrderId);
		expect(retry.requests).toEqual([]);
		expect(bookOrders(sandbox())).toHaveLength(1);
	});

	it('after a crash lost the ledger, the retry finds the filled order by its regenerated ID and sends nothing', async () => {
		const lost = await run(order({ orderType: 'MARKET', price: undefined }));
		const retry = await run(order({ orderType: 'MARKET', price: undefined }), {
			lostRunOf: lost,
			mode: 'retry',
		});
		expect(retry.error).toBeUndefined();
		expect(retry.items[0].json).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			status: 'FILLED',
		});
		expect(retry.items[0].json.clientOrderId).toBe(lost.items[0].json.clientOrderId);
		expect(queries(retry.requests, ORDER_PATH, 'POST')).toHaveLength(0);
		expect(bookOrders(sandbox())).toHaveLength(1);
	}, 30_000);
});

describe('Futures > Create Order: Retry On Fail after a fitted order’s answer was lost', () => {
	it('the retry fits the order again and finds it placed: placed once, reported placed', async () => {
		// The order is placed unanswered and every lookup of the first try fails: unknown, so n8n retries.
		sandbox().setFaults({
			rules: [
				{ kind: 'dropAfter', times: 1, path: ORDER_PATH, method: 'POST' },
				{ kind: 'http503', times: 6, path: ORDER_PATH, method: 'GET' },
			],
		});
		const run = await runCounting(sandbox(), {
			parameters: {
				resource: 'futures',
				operation: 'createOrder',
				...order({ price: '50000.05', quantity: '0.0025' }),
				guardrails: { fitToContractRules: true },
			},
			node: { typeVersion: 2, retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			price: '50000',
			originalBaseQty: '0.002',
		});
		expect(queries(run.requests, ORDER_PATH, 'POST')).toHaveLength(1);
		expect(bookOrders(sandbox())).toHaveLength(1);
	}, 30_000);
});

describe('Futures > Create Order: two items with one Client Order ID', () => {
	it('the second is refused before anything is sent', async () => {
		const run = await runFutures(
			sandbox(),
			'createOrder',
			order({ options: { clientOrderId: 'same-1' } }),
			{
				inputItems: [{ json: {} }, { json: {} }],
			},
		);
		expect(run.error?.message).toMatch(
			/^Client Order ID: "same-1" is used by more than one order \(items 0 and 1\)/,
		);
		expect(queries(run.requests, ORDER_PATH, 'POST')).toHaveLength(0);
	});
});

describe('Futures > Create Order: a take-profit or stop-loss order’s ID is taken too', () => {
	it('an order whose Client Order ID is another order’s take-profit ID is refused before anything is sent', async () => {
		const run = await runFutures(
			sandbox(),
			'createOrder',
			order({ options: { clientOrderId: '={{ $json.id }}', takeProfitPrice: '={{ $json.tp }}' } }),
			{ inputItems: [{ json: { id: 'sig-tp', tp: '' } }, { json: { id: 'sig', tp: '66000' } }] },
		);
		expect(run.error?.message).toMatch(
			/^Client Order ID: "sig-tp" is used by more than one order \(items 0 and 1\): item 0’s client order ID, and item 1’s take-profit order’s ID/,
		);
		expect(errorOutcome(run)).toBe('rejected');
		expect(queries(run.requests, ORDER_PATH, 'POST')).toHaveLength(0);
	});
});
