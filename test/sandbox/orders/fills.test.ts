/**
 * orders/fills.ts: a resting order fills on the test's schedule (fillOrder, advanceOrders) at its
 * limit price: balances, locks, fees and TRADE/FEE records follow; what cannot fill is refused.
 */
import { type HistoryRecord } from '../../../sandbox';
import { useSandboxClients } from '../../support/sandbox';
import { T0, DAY, buy, sell, placeWith } from '../support';

let clock = T0;
beforeEach(() => {
	clock = T0;
});
const { sandbox, master } = useSandboxClients({
	now: () => clock,
	rateLimit: false,
	requestRates: false,
});
const place = placeWith(master);
const hist = async (flowType: number) =>
	(await master().history({ flowType, startTime: T0 - DAY, endTime: clock, limit: 500 }))
		.json as HistoryRecord[];

describe('resting orders lock funds; the test fills them', () => {
	it('fillOrder: NEW -> PARTIALLY_FILLED -> FILLED at the limit price; a BUY pays its fee in the base coin', async () => {
		const o = await place(buy('f'));
		clock = T0 + 1000;
		const half = sandbox().fillOrder(o.orderId, '0.2');
		expect(half).toMatchObject({
			status: 'PARTIALLY_FILLED',
			executedQty: '0.2',
			cumulativeQuoteQty: '8000',
			avgPrice: '40000',
			updateTime: String(T0 + 1000),
		});
		expect(sandbox().getBalanceDetail('10001', 'USDT')).toEqual({
			free: '80000',
			locked: '12000',
			total: '92000',
		});
		expect(sandbox().getBalance('10001', 'BTC')).toBe('10.1998'); // +0.2, fee 0.0002 BTC
		expect((await master().queryOrder({ orderId: o.orderId })).json.status).toBe(
			'PARTIALLY_FILLED',
		);
		const full = sandbox().fillOrder(o.orderId);
		expect(full).toMatchObject({
			status: 'FILLED',
			executedQty: '0.5',
			cumulativeQuoteQty: '20000',
			sumFeeAmount: '0.0005',
		});
		expect(sandbox().getBalanceDetail('10001', 'USDT')).toEqual({
			free: '80000',
			locked: '0',
			total: '80000',
		});
		expect(sandbox().getBalance('10001', 'BTC')).toBe('10.4995');
		expect((await hist(1)).map((r) => [r.coin, r.change])).toEqual([
			['USDT', '-12000'],
			['BTC', '0.3'],
			['USDT', '-8000'],
			['BTC', '0.2'],
		]);
		expect((await hist(2)).map((r) => [r.coin, r.change, r.symbol])).toEqual([
			['BTC', '-0.0003', 'BTCUSDT'],
			['BTC', '-0.0002', 'BTCUSDT'],
		]);
		// a filled order no longer holds its client order id
		expect((await master().order(buy('f'))).status).toBe(200);
	});

	it('a SELL locks the base coin and receives the quote coin minus the fee', async () => {
		const o = await place(sell('s'));
		expect(sandbox().getBalanceDetail('10001', 'BTC')).toEqual({
			free: '8',
			locked: '2',
			total: '10',
		});
		sandbox().fillOrder(o.orderId);
		expect(sandbox().getBalanceDetail('10001', 'BTC')).toEqual({
			free: '8',
			locked: '0',
			total: '8',
		});
		expect(sandbox().getBalance('10001', 'USDT')).toBe('219880'); // +120000 - 120
	});

	it('advanceOrders: every open order takes one step, optionally for one symbol', async () => {
		const a = await place(buy('a'));
		const e = await place({
			symbol: 'ETHUSDT',
			side: 'BUY',
			type: 'LIMIT',
			quantity: '1',
			price: '2000',
		});
		const step1 = sandbox().advanceOrders('BTCUSDT');
		expect(step1.map((x) => [x.orderId, x.status, x.executedQty])).toEqual([
			[a.orderId, 'PARTIALLY_FILLED', '0.25'],
		]);
		expect(sandbox().getOrder(e.orderId)!.status).toBe('NEW');
		const step2 = sandbox().advanceOrders();
		expect(step2.map((x) => [x.orderId, x.status])).toEqual([
			[a.orderId, 'FILLED'],
			[e.orderId, 'PARTIALLY_FILLED'],
		]);
		expect(
			sandbox()
				.advanceOrders()
				.map((x) => x.status),
		).toEqual(['FILLED']);
		expect(sandbox().advanceOrders()).toEqual([]);
	});

	it('fillOrder refuses an unknown, final or overfilled order', async () => {
		const o = await place(buy());
		expect(() => sandbox().fillOrder('1')).toThrow(/no order/);
		expect(() => sandbox().fillOrder(o.orderId, '0.6')).toThrow(/exceeds/);
		expect(() => sandbox().fillOrder(o.orderId, '-1')).toThrow(/positive/);
		sandbox().fillOrder(o.orderId);
		expect(() => sandbox().fillOrder(o.orderId)).toThrow(/FILLED/);
	});
});
