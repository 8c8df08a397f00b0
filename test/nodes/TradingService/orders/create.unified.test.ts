import { TradingService } from '../../../../nodes/TradingService/TradingService.node';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { useSandbox } from '../../../support/sandbox';

// Version 2's Create and Create Many send the unified endpoints (the family's "Create Order v1.1"
// and "Create Multiple Orders" pages); version 1 keeps /api/v1/spot/new/order and
// /api/v1/spot/batchOrders (its own tests). What the unified endpoint adds: a MARKET SELL by
// Amount, IOC and FOK for LIMIT orders; the answer read as the page shows it.

const sandbox = useSandbox({ rateLimit: false, requestRates: false });
const v2 = { typeVersion: 2 };
const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const UNIFIED = '/api/v1.1/spot/order';
const UNIFIED_BATCH = '/api/v1.1/spot/batchOrders';
const V1_PATHS = ['/api/v1/spot/new/order', '/api/v1/spot/batchOrders'];

const sentParams = (request: { query: string; body?: string }) =>
	Object.fromEntries(new URLSearchParams(`${request.query}&${request.body ?? ''}`));

describe('Order > Create, version 2: POST /api/v1.1/spot/order', () => {
	it('places a MARKET SELL by Amount; the item carries every field of the answer as the page shows it', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'create',
				symbol: byId('ETHUSDT'),
				side: 'SELL',
				type: 'MARKET',
				marketOrderBy: 'amount',
				amount: '1000',
				options: { newClientOrderId: 'sell-1000' },
			},
			node: v2,
		});
		expect(run.error).toBeUndefined();
		const [request] = requestsTo(sandbox(), UNIFIED);
		expect(request.method).toBe('POST');
		const { signature, timestamp, ...sent } = sentParams(request);
		expect([typeof signature, typeof timestamp]).toEqual(['string', 'string']);
		expect(sent).toEqual({
			symbol: 'ETHUSDT',
			side: 'SELL',
			type: 'MARKET',
			timeInForce: 'IOC',
			amount: '1000',
			newClientOrderId: 'sell-1000',
			stpMode: 'EXPIRE_TAKER',
			recvWindow: '5000',
		});
		const [placed] = sandbox().ledger.orders;
		// each field of the create answer: ids and decimals as strings, as sent by the exchange
		expect(run.items[0].json).toEqual({
			outcome: 'placed',
			accountId: '10001',
			symbol: 'ETHUSDT',
			symbolName: 'ETHUSDT',
			clientOrderId: 'sell-1000',
			orderId: placed.orderId,
			transactTime: placed.transactTime,
			price: '0',
			origQty: '0',
			executedQty: '0.33333333',
			status: 'FILLED',
			timeInForce: 'IOC',
			type: 'MARKET',
			side: 'SELL',
			reqAmount: '1000',
		});
		expect(typeof run.items[0].json.orderId).toBe('string');
		expect(sandbox().ledger.requests.filter((r) => V1_PATHS.includes(r.path))).toEqual([]);
	});

	it('places LIMIT orders with Time In Force IOC and FOK: one that trades is FILLED, one that cannot is CANCELED, both placed', async () => {
		const limit = (timeInForce: string, price: string) => ({
			resource: 'order',
			operation: 'create',
			symbol: byId('BTCUSDT'),
			side: 'BUY',
			type: 'LIMIT',
			price,
			quantity: '0.01',
			timeInForce,
		});
		const ioc = await runTradingService(sandbox(), { parameters: limit('IOC', '50000'), node: v2 });
		const fok = await runTradingService(sandbox(), { parameters: limit('FOK', '49999'), node: v2 });
		expect(ioc.items[0].json).toMatchObject({
			outcome: 'placed',
			timeInForce: 'IOC',
			status: 'FILLED',
		});
		expect(fok.items[0].json).toMatchObject({
			outcome: 'placed',
			timeInForce: 'FOK',
			status: 'CANCELED',
			executedQty: '0',
		});
		expect(requestsTo(sandbox(), UNIFIED).map((r) => sentParams(r).timeInForce)).toEqual([
			'IOC',
			'FOK',
		]);
	});

	it('refuses Test Only with FOK before sending: the order-test endpoint takes the v1 parameters', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'create',
				symbol: byId('BTCUSDT'),
				side: 'BUY',
				type: '={{ "LIMIT" }}',
				price: '40000',
				quantity: '0.01',
				timeInForce: 'FOK',
				options: { testOnly: true },
			},
			node: v2,
		});
		expect(run.error?.message).toMatch(/Time In Force/);
		expect(run.error?.description).toMatch(/GTC/);
		expect(sandbox().ledger.requests.filter((r) => r.path !== '/api/v1/exchangeInfo')).toEqual([]);
	});

	it('version 1 keeps POST /api/v1/spot/new/order', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'create',
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'LIMIT',
				price: '40000',
				quantity: '0.01',
			},
		});
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', timeInForce: 'GTC' });
		expect(requestsTo(sandbox(), '/api/v1/spot/new/order')).toHaveLength(1);
		expect(requestsTo(sandbox(), UNIFIED)).toEqual([]);
	});
});

const jsonOrders = (orders: object[]) => ({
	resource: 'order',
	operation: 'createMany',
	inputMode: 'json',
	ordersJson: JSON.stringify(orders),
});

describe('Order > Create Many, version 2: POST /api/v1.1/spot/batchOrders', () => {
	it('sends the batch to the unified endpoint, a SELL by amount and a LIMIT FOK among its orders', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: jsonOrders([
				{ symbol: 'ETHUSDT', side: 'SELL', type: 'MARKET', amount: '300' },
				{
					symbol: 'ETHUSDT',
					side: 'BUY',
					type: 'LIMIT',
					price: '3000',
					quantity: '0.1',
					timeInForce: 'FOK',
				},
			]),
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(['placed', 'placed']);
		// each entry's order, as the batch page shows it
		expect(run.items[0].json).toMatchObject({ code: 0, msg: 'success' });
		expect(run.items[0].json.order).toMatchObject({
			side: 'SELL',
			type: 'MARKET',
			reqAmount: '300',
			status: 'FILLED',
		});
		expect(run.items[1].json.order).toMatchObject({ timeInForce: 'FOK', status: 'FILLED' });
		const batches = requestsTo(sandbox(), UNIFIED_BATCH);
		expect(batches).toHaveLength(1);
		expect(JSON.parse(batches[0].body ?? '')).toEqual([
			expect.objectContaining({ side: 'SELL', type: 'MARKET', amount: '300' }),
			expect.objectContaining({ type: 'LIMIT', timeInForce: 'FOK' }),
		]);
		expect(sandbox().ledger.requests.filter((r) => V1_PATHS.includes(r.path))).toEqual([]);
	});

	it('refuses before sending a time in force the type does not take: IOC for LIMIT_MAKER on version 2, IOC for LIMIT on version 1', async () => {
		const maker = { symbol: 'ETHUSDT', side: 'BUY', price: '3000', quantity: '0.1' };
		const v2Run = await runTradingService(sandbox(), {
			parameters: jsonOrders([{ ...maker, type: 'LIMIT_MAKER', timeInForce: 'IOC' }]),
			node: v2,
		});
		expect(v2Run.error?.message).toMatch(/timeInForce: "IOC" is not allowed for LIMIT_MAKER/);
		expect(v2Run.error?.description).toMatch(/GTC, IOC or FOK for LIMIT; GTC for LIMIT_MAKER/);
		const v1Run = await runTradingService(sandbox(), {
			parameters: jsonOrders([{ ...maker, type: 'LIMIT', timeInForce: 'IOC' }]),
		});
		expect(v1Run.error?.message).toMatch(/timeInForce: "IOC" is not allowed for LIMIT orders/);
		expect(v1Run.error?.description).toMatch(/LIMIT orders take time in force GTC only/);
		expect(sandbox().ledger.requests.filter((r) => r.path !== '/api/v1/exchangeInfo')).toEqual([]);
	});
});

describe('the version 2 form', () => {
	it('asks Time In Force of a LIMIT order only (GTC default, IOC, FOK), in Create and Create Many', () => {
		const { properties } = new TradingService().getNodeType(2).description;
		for (const operation of ['create', 'createMany']) {
			const timeInForce = properties.filter(
				(property) =>
					property.name === 'timeInForce' &&
					property.displayOptions?.show?.operation?.includes(operation),
			);
			expect(timeInForce).toHaveLength(1);
			expect(timeInForce[0].default).toBe('GTC');
			expect(timeInForce[0].displayOptions?.show?.type).toEqual(['LIMIT']);
			expect(
				(timeInForce[0].options as Array<{ value: string }>).map((option) => option.value).sort(),
			).toEqual(['FOK', 'GTC', 'IOC']);
		}
		// Order By stays for MARKET orders whatever the side
		const orderBy = properties.find((property) => property.name === 'marketOrderBy');
		expect(orderBy?.displayOptions?.show).toMatchObject({ type: ['MARKET'] });
		expect(orderBy?.displayOptions?.show).not.toHaveProperty('side');
	});
});
