/**
 * routes/orders/create.ts: POST /api/v1/spot/new/order answers a resting order in the create shape
 * (ids and decimals as strings) and records it; POST /api/v1/spot/orderTest checks without placing.
 */
import { DEMO_KEYS } from '../../../../sandbox';
import { useSandboxClients } from '../../../support/sandbox';
import { T0, limitBuy, buy, placeWith, histWith } from '../../support';

const { sandbox, master } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});
const hist = histWith(master);
const place = placeWith(master);

describe('POST /api/v1/spot/new/order', () => {
	it('places a LIMIT order that rests NEW (its cost locked, no records), ids and decimals as strings', async () => {
		const r = await master().order({ ...limitBuy, newClientOrderId: 'my-1' });
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			accountId: '10001',
			symbol: 'BTCUSDT',
			symbolName: 'BTCUSDT',
			clientOrderId: 'my-1',
			orderId: expect.stringMatching(/^\d{1,20}$/),
			transactTime: String(T0),
			price: '40000',
			origQty: '0.01',
			executedQty: '0',
			status: 'NEW',
			timeInForce: 'GTC',
			type: 'LIMIT',
			side: 'BUY',
			reqAmount: '0',
		});
		expect(Number(r.json.orderId)).toBeGreaterThan(Number.MAX_SAFE_INTEGER); // hence strings
		expect(sandbox().getBalance('10001', 'USDT')).toBe('100000');
		expect(sandbox().getBalanceDetail('10001', 'USDT')).toEqual({
			free: '99600',
			locked: '400',
			total: '100000',
		});
		expect(await hist(1)).toEqual([]);
		expect(sandbox().ledger.orders).toEqual([
			{ ...r.json, via: 'single', apiKey: DEMO_KEYS.master.apiKey },
		]);
	});

	it('generates a client order id when absent; LIMIT_MAKER rests too', async () => {
		const r = await master().order({ ...limitBuy, type: 'LIMIT_MAKER', timeInForce: 'GTC' });
		expect(r.status).toBe(200);
		expect(r.json.clientOrderId).toMatch(/.+/);
		expect(r.json.type).toBe('LIMIT_MAKER');
		expect(r.json.status).toBe('NEW');
	});
});

describe('POST /api/v1/spot/orderTest', () => {
	it('validates an order like a real one and answers {}; nothing is placed, locked or recorded', async () => {
		const r = await master().orderTest(buy('t'));
		expect([r.status, r.json]).toEqual([200, {}]);
		expect(sandbox().ledger.orders).toHaveLength(0);
		expect(sandbox().getBalanceDetail('10001', 'USDT')).toEqual({
			free: '100000',
			locked: '0',
			total: '100000',
		});
		expect((await master().openOrders()).json).toEqual([]);
		expect(
			(
				await master().orderTest({
					symbol: 'BTCUSDT',
					side: 'BUY',
					type: 'MARKET',
					quantity: '0.1',
				})
			).status,
		).toBe(200);
		expect(sandbox().getBalance('10001', 'BTC')).toBe('10');
		expect(sandbox().ledger.requests.every((x) => x.weight === 1)).toBe(true);
	});

	it('UAE rule: takes quantity (required) and no amount: an order by amount, or without quantity, gets 0001 and nothing is checked further', async () => {
		const byAmount = await master().orderTest({
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'MARKET',
			amount: '100',
		});
		expect([byAmount.status, byAmount.json.code]).toEqual([400, '0001']);
		expect(byAmount.json.msg).toMatch(/amount/);
		const noQuantity = await master().orderTest({
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'LIMIT',
			price: '100',
		});
		expect([noQuantity.status, noQuantity.json.code]).toEqual([400, '0001']);
		expect(noQuantity.json.msg).toMatch(/quantity/);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('answers the codes a real order would get', async () => {
		expect((await master().orderTest(buy(undefined, { price: '-1' }))).json.code).toBe('0001');
		expect((await master().orderTest(buy(undefined, { symbol: 'DOGEUSDT' }))).json.code).toBe(
			'0201',
		);
		expect((await master().orderTest(buy(undefined, { quantity: '3' }))).json.code).toBe('0401');
		await place(buy('dup'));
		expect((await master().orderTest(buy('dup'))).json.code).toBe('-1141');
		expect((await master().withCredentials(DEMO_KEYS.readOnly).orderTest(buy())).json.code).toBe(
			'-1005',
		);
	});
});
