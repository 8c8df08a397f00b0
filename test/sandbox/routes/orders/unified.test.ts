/**
 * routes/orders/create.ts and batch.ts, the unified endpoints (the family's "Create Order v1.1"
 * and "Create Multiple Orders" pages): POST /api/v1.1/spot/order and /api/v1.1/spot/batchOrders
 * take a MARKET order by amount on either side and IOC or FOK for LIMIT orders; the v1 endpoints
 * keep refusing both. Same answers, same records.
 */
import { DEMO_KEYS } from '../../../../sandbox';
import type { TestClient } from '../../../../sandbox/testClient';
import { useSandboxClients } from '../../../support/sandbox';
import { T0, limitBuy } from '../../support';

const { sandbox, master } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});

const UNIFIED = '/api/v1.1/spot/order';
const UNIFIED_BATCH = '/api/v1.1/spot/batchOrders';
const unified = (client: TestClient, params: Record<string, string>) =>
	client.call({ method: 'POST', path: UNIFIED, form: params });
const unifiedBatch = (client: TestClient, orders: unknown) =>
	client.call({ method: 'POST', path: UNIFIED_BATCH, json: JSON.stringify(orders) });
const sellByAmount = { symbol: 'ETHUSDT', side: 'SELL', type: 'MARKET', amount: '1000' };

describe('POST /api/v1.1/spot/order', () => {
	it('places a MARKET SELL by amount: sells what the amount is worth at the last price, answered in the create shape', async () => {
		const r = await unified(master(), { ...sellByAmount, newClientOrderId: 'sell-amt' });
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			accountId: '10001',
			symbol: 'ETHUSDT',
			symbolName: 'ETHUSDT',
			clientOrderId: 'sell-amt',
			orderId: expect.stringMatching(/^\d{1,20}$/),
			transactTime: String(T0),
			price: '0',
			origQty: '0',
			executedQty: '0.33333333',
			status: 'FILLED',
			timeInForce: 'IOC',
			type: 'MARKET',
			side: 'SELL',
			reqAmount: '1000',
		});
		// 0.33333333 ETH at 3000 = 999.99999 USDT, fee 0.1% of it
		expect(sandbox().getBalance('10001', 'ETH')).toBe('99.66666667');
		expect(sandbox().getBalance('10001', 'USDT')).toBe('100998.99999001');
		expect(sandbox().ledger.orders).toEqual([
			{ ...r.json, via: 'single', apiKey: DEMO_KEYS.master.apiKey },
		]);
		expect(sandbox().ledger.requests.map((x) => [x.path, x.weight])).toEqual([[UNIFIED, 1]]);
	});

	it('the v1 endpoint still refuses a MARKET SELL by amount (0001), placing nothing', async () => {
		const r = await master().order(sellByAmount);
		expect([r.status, r.json.code]).toEqual([400, '0001']);
		expect(r.json.msg).toMatch(/amount/);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('a marketable LIMIT IOC or FOK fills at once at the last price; one that is not is CANCELED unfilled and locks nothing', async () => {
		const ioc = await unified(master(), { ...limitBuy, price: '50000', timeInForce: 'IOC' });
		expect(ioc.json).toMatchObject({
			status: 'FILLED',
			timeInForce: 'IOC',
			type: 'LIMIT',
			price: '50000',
			origQty: '0.01',
			executedQty: '0.01',
		});
		// 0.01 BTC at 50000 = 500 USDT, fee 0.5 USDT
		expect(sandbox().getBalance('10001', 'BTC')).toBe('10.01');
		expect(sandbox().getBalance('10001', 'USDT')).toBe('99499.5');
		const fok = await unified(master(), {
			...limitBuy,
			side: 'SELL',
			price: '50001',
			timeInForce: 'FOK',
		});
		expect(fok.json).toMatchObject({ status: 'CANCELED', timeInForce: 'FOK', executedQty: '0' });
		expect(sandbox().getBalanceDetail('10001', 'BTC')).toEqual({
			free: '10.01',
			locked: '0',
			total: '10.01',
		});
		expect((await master().openOrders()).json).toEqual([]);
		// the order exists: a lookup by its client order ID finds it
		const found = await master().queryOrder({ origClientOrderId: fok.json.clientOrderId });
		expect(found.json).toMatchObject({ status: 'CANCELED', timeInForce: 'FOK' });
	});

	it('refuses what the page refuses: FOK for MARKET, IOC for LIMIT_MAKER; the v1 endpoint IOC for LIMIT (0001 each)', async () => {
		const marketFok = await unified(master(), {
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'MARKET',
			quantity: '0.1',
			timeInForce: 'FOK',
		});
		expect([marketFok.status, marketFok.json.code]).toEqual([400, '0001']);
		const makerIoc = await unified(master(), {
			...limitBuy,
			type: 'LIMIT_MAKER',
			timeInForce: 'IOC',
		});
		expect([makerIoc.status, makerIoc.json.code]).toEqual([400, '0001']);
		const v1Ioc = await master().order({ ...limitBuy, timeInForce: 'IOC' });
		expect([v1Ioc.status, v1Ioc.json.code]).toEqual([400, '0001']);
		// A MARKET order takes quantity or amount, not both; an amount is for MARKET orders only.
		const both = await unified(master(), {
			symbol: 'BTCUSDT',
			side: 'SELL',
			type: 'MARKET',
			quantity: '0.1',
			amount: '100',
		});
		expect([both.status, both.json.code]).toEqual([400, '0001']);
		const limitAmount = await unified(master(), { ...limitBuy, amount: '5' });
		expect([limitAmount.status, limitAmount.json.code]).toEqual([400, '0001']);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('takes a client order ID of 255 characters, not 256', async () => {
		const long = await unified(master(), { ...limitBuy, newClientOrderId: 'k'.repeat(255) });
		expect(long.json.clientOrderId).toBe('k'.repeat(255));
		const tooLong = await unified(master(), { ...limitBuy, newClientOrderId: 'k'.repeat(256) });
		expect([tooLong.status, tooLong.json.code]).toEqual([400, '0001']);
	});
});

describe('POST /api/v1.1/spot/batchOrders', () => {
	it('places each entry by the v1.1 rules (a SELL by amount, a LIMIT IOC), weight 5, in the batch answer shape', async () => {
		const r = await unifiedBatch(master(), [
			{ ...sellByAmount, newClientOrderId: 'b-1' },
			{
				...limitBuy,
				symbol: 'ETHUSDT',
				price: '3000',
				timeInForce: 'IOC',
				newClientOrderId: 'b-2',
			},
		]);
		expect(r.status).toBe(200);
		expect(r.json).toMatchObject({ code: 0, concentration: '', stpMode: 'EXPIRE_TAKER' });
		expect(r.json.result.map((e: { code: number; msg: string }) => [e.code, e.msg])).toEqual([
			[0, 'success'],
			[0, 'success'],
		]);
		expect(r.json.result[0].order).toMatchObject({
			clientOrderId: 'b-1',
			side: 'SELL',
			type: 'MARKET',
			reqAmount: '1000',
			status: 'FILLED',
		});
		expect(r.json.result[1].order).toMatchObject({
			clientOrderId: 'b-2',
			timeInForce: 'IOC',
			status: 'FILLED',
		});
		expect(sandbox().ledger.orders.map((o) => o.via)).toEqual(['batch', 'batch']);
		expect(sandbox().ledger.requests.map((x) => [x.path, x.weight])).toEqual([[UNIFIED_BATCH, 5]]);
	});

	it('the v1 batch refuses the same entries, each with its own code', async () => {
		const r = await master().batch([
			sellByAmount,
			{ ...limitBuy, symbol: 'ETHUSDT', price: '3000', timeInForce: 'FOK' },
		]);
		expect(r.json.result.map((e: { code: number }) => e.code)).toEqual([1, 1]);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});
});
