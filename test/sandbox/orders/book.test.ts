/**
 * orders/book.ts: MARKET orders fill at once at the last price (balances and TRADE/FEE records
 * follow); a client order ID is unique among the account's open orders only.
 */
import { useSandboxClients } from '../../support/sandbox';
import { T0, limitBuy, histWith } from '../support';

const { sandbox, master, sub } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});
const hist = histWith(master);

describe('POST /api/v1/spot/new/order', () => {
	it('MARKET BUY by quantity fills at the last price, moves balances, writes TRADE and FEE records', async () => {
		const r = await master().order({
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'MARKET',
			quantity: '0.1',
		});
		expect(r.status).toBe(200);
		expect(r.json).toMatchObject({
			status: 'FILLED',
			timeInForce: 'IOC',
			type: 'MARKET',
			price: '0',
			origQty: '0.1',
			executedQty: '0.1',
			reqAmount: '0',
		});
		// cost 5000, fee 0.1% = 5 USDT
		expect(sandbox().getBalance('10001', 'BTC')).toBe('10.1');
		expect(sandbox().getBalance('10001', 'USDT')).toBe('94995');
		const trades = await hist(1);
		expect(trades.map((x) => [x.coin, x.change, x.total, x.flowType, x.symbol])).toEqual([
			['USDT', '-5000', '95000', 'TRADE', 'BTCUSDT'],
			['BTC', '0.1', '10.1', 'TRADE', 'BTCUSDT'],
		]);
		const fees = await hist(2);
		expect(
			fees.map((x) => [x.accountId, x.coin, x.change, x.total, x.flowType, x.symbol, x.created]),
		).toEqual([['10001', 'USDT', '-5', '94995', 'FEE', 'BTCUSDT', String(T0)]]);
	});

	it('MARKET BUY by amount (quote cash) buys what the amount pays for, truncated to 8 decimals', async () => {
		const r = await master().order({
			symbol: 'ETHUSDT',
			side: 'BUY',
			type: 'MARKET',
			amount: '1000',
		});
		expect(r.json).toMatchObject({
			status: 'FILLED',
			origQty: '0',
			reqAmount: '1000',
			executedQty: '0.33333333',
		});
		// cost 0.33333333 * 3000 = 999.99999, fee 0.99999999
		expect(sandbox().getBalance('10001', 'ETH')).toBe('100.33333333');
		expect(sandbox().getBalance('10001', 'USDT')).toBe('98999.00001001');
	});

	it('MARKET SELL receives quote minus fee; insufficient market orders change nothing', async () => {
		const r = await master().order({
			symbol: 'SOLUSDT',
			side: 'SELL',
			type: 'MARKET',
			quantity: '10',
		});
		expect(r.json.executedQty).toBe('10');
		expect(sandbox().getBalance('10001', 'SOL')).toBe('990');
		expect(sandbox().getBalance('10001', 'USDT')).toBe('101498.5'); // +1500 - 1.5
		sandbox().setBalance('10001', 'USDT', '5004.99');
		const poor = await master().order({
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'MARKET',
			quantity: '0.1',
		}); // needs 5005
		expect(poor.json.code).toBe('0401');
		expect(sandbox().getBalance('10001', 'USDT')).toBe('5004.99');
		expect(sandbox().getBalance('10001', 'BTC')).toBe('10');
	});

	it('a sub key market order writes records the sub key (and the master) can read', async () => {
		await sub().order({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.01' });
		expect(sandbox().getBalance('20001', 'USDT')).toBe('9499.5');
		expect((await hist(1, sub())).map((x) => x.accountId)).toEqual(['20001', '20001']);
		expect((await hist(2, sub())).map((x) => x.change)).toEqual(['-0.5']);
		expect((await hist(2, master())).map((x) => x.accountId)).toEqual(['20001']);
	});
});

describe("duplicate client order id (unique among the account's OPEN orders, across both endpoints)", () => {
	it('single then single', async () => {
		expect((await master().order({ ...limitBuy, newClientOrderId: 'dup' })).status).toBe(200);
		const again = await master().order({ ...limitBuy, newClientOrderId: 'dup' });
		expect(again.status).toBe(400);
		expect(again.json).toEqual({
			code: '-1141',
			msg: "Duplicate order: clientOrderId 'dup' is already in use",
		});
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('single then batch, batch then single, and twice within one batch', async () => {
		await master().order({ ...limitBuy, newClientOrderId: 'a' });
		const b = await master().batch([
			{ ...limitBuy, newClientOrderId: 'a' },
			{ ...limitBuy, newClientOrderId: 'b' },
			{ ...limitBuy, newClientOrderId: 'b' },
		]);
		expect(b.json.result.map((x: { code: number }) => x.code)).toEqual([-1141, 0, -1141]);
		expect(b.json.result[0].msg).toMatch(/^Create order failed: Duplicate order/);
		expect(b.json.result[0].msg).toContain('newClientOrderId');
		expect((await master().order({ ...limitBuy, newClientOrderId: 'b' })).json.code).toBe('-1141');
	});

	it('a filled MARKET order does not hold its id: a blind re-send with the same id fills twice', async () => {
		const m = {
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'MARKET',
			quantity: '0.1',
			newClientOrderId: 'm',
		};
		const first = await master().order(m);
		const second = await master().order(m);
		expect([first.status, first.json.status, second.status, second.json.status]).toEqual([
			200,
			'FILLED',
			200,
			'FILLED',
		]);
		expect(second.json.orderId).not.toBe(first.json.orderId);
		expect(sandbox().getBalance('10001', 'BTC')).toBe('10.2');
		expect(sandbox().ledger.orders.map((o) => o.clientOrderId)).toEqual(['m', 'm']);
		// within one batch too
		const b = await master().batch([m, m]);
		expect(b.json.result.map((x: { code: number }) => x.code)).toEqual([0, 0]);
		expect(sandbox().getBalance('10001', 'BTC')).toBe('10.4');
	});

	it('is per account: the sub key may reuse the master key id; rejected orders do not take the id', async () => {
		await master().order({ ...limitBuy, newClientOrderId: 'shared' });
		expect((await sub().order({ ...limitBuy, newClientOrderId: 'shared' })).status).toBe(200);
		expect(
			(await master().order({ ...limitBuy, price: '-1', newClientOrderId: 'later' })).status,
		).toBe(400);
		expect((await master().order({ ...limitBuy, newClientOrderId: 'later' })).status).toBe(200);
	});
});
