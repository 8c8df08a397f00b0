/**
 * orders/validate.ts, realistic symbol rules: every order (single, each batch entry, order test)
 * is checked against its symbol's exchange-information filters with the UAE documentation's codes;
 * lenient rules (the test fixture's default) accept what the older suites send.
 */
import { DEMO_KEYS, startSandbox } from '../../../sandbox';
import * as D from '../../../sandbox/decimal';
import { TestClient } from '../../../sandbox/testClient';
import { useSandboxClients } from '../../support/sandbox';
import { T0 } from '../support';

const { sandbox, master } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
	symbolRules: 'realistic',
	market: { moving: false },
});

const limitBuy = {
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	price: '40000',
	quantity: '0.001',
};
const mkt = { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET' };

/** Each case: the order, the code, a piece of the message. */
const REFUSED: Array<[string, Record<string, string>, string, string]> = [
	[
		'UAE rule: price off the tick is 0209',
		{ ...limitBuy, price: '40000.001' },
		'0209',
		'nearest 40000 or 40000.01',
	],
	[
		'UAE rule: quantity off the step is -1137',
		{ ...limitBuy, quantity: '0.000011' },
		'-1137',
		'step size 0.00001',
	],
	[
		'UAE rule: quantity below minQty is -1136',
		{ ...limitBuy, symbol: 'USDTAED', price: '3.673', quantity: '0.29' },
		'-1136',
		'minimum 0.3',
	],
	[
		'UAE rule: quantity above maxQty is -1135',
		{ ...limitBuy, quantity: '100.00001' },
		'-1135',
		'maximum 100',
	],
	[
		'UAE rule: price × quantity below minNotional is -1140',
		{ ...limitBuy, price: '1', quantity: '0.01' },
		'-1140',
		'minimum notional 10',
	],
	[
		'UAE rule: price × quantity above maxAmount is -1206',
		{ ...limitBuy, price: '60000', quantity: '90' },
		'-1206',
		'maximum amount 5000000',
	],
	[
		'UAE rule: MARKET quantity off the step is -1137',
		{ ...mkt, quantity: '0.000001' },
		'-1137',
		'step size',
	],
	[
		'UAE rule: MARKET quantity above marketOrderMaxQty is -1135',
		{ ...mkt, side: 'SELL', quantity: '50.00001' },
		'-1135',
		'market order maximum 50',
	],
	[
		'UAE rule: MARKET amount finer than quotePrecision is -1148',
		{ ...mkt, amount: '100.001' },
		'-1148',
		'multiple of 0.01',
	],
	[
		'UAE rule: MARKET amount below marketOrderMinAmount is -1140',
		{ ...mkt, amount: '9.99' },
		'-1140',
		'market order minimum 10',
	],
	[
		'UAE rule: MARKET amount above marketOrderMaxAmount is -1206',
		{ ...mkt, amount: '2000000.01' },
		'-1206',
		'market order maximum 2000000',
	],
	[
		'UAE rule: a HALT symbol is -1155',
		{ ...limitBuy, symbol: 'XRPUSDT', price: '0.5', quantity: '20' },
		'-1155',
		'HALT',
	],
	[
		'UAE rule: an IN_PREVIEW symbol is -1151',
		{ ...limitBuy, symbol: 'ADAUSDT', price: '0.4', quantity: '20' },
		'-1151',
		'IN_PREVIEW',
	],
];

describe('realistic symbol rules', () => {
	it.each(REFUSED)('%s (single order, nothing placed)', async (_name, order, code, detail) => {
		const r = await master().order(order);
		expect(r.status).toBe(400);
		expect(r.json.code).toBe(code);
		expect(r.json.msg).toContain(detail);
		expect(sandbox().ledger.orders).toEqual([]);
	});

	it.each(REFUSED.filter(([, o]) => o.amount === undefined))(
		'%s (order test)',
		async (_name, order, code) => {
			expect((await master().orderTest(order)).json.code).toBe(code);
		},
	);

	it.each(REFUSED.filter(([, o]) => o.amount !== undefined))(
		'%s: for a MARKET SELL by amount on the unified endpoint too',
		async (_name, order, code, detail) => {
			const form = { ...order, side: 'SELL' };
			const r = await master().call({ method: 'POST', path: '/api/v1.1/spot/order', form });
			expect([r.status, r.json.code]).toEqual([400, code]);
			expect(r.json.msg).toContain(detail);
			expect(sandbox().ledger.orders).toEqual([]);
		},
	);

	it('UAE rule: batch entries get the codes as integers, the valid entry is placed', async () => {
		const r = await master().batch([
			{ ...limitBuy, price: '40000.001' },
			limitBuy,
			{ ...limitBuy, quantity: '0.000011' },
			{ ...limitBuy, price: '1', quantity: '0.01' },
		]);
		expect(r.status).toBe(200);
		expect(r.json.result.map((e: { code: number }) => e.code)).toEqual([209, 0, -1137, -1140]);
		expect(r.json.result[2].msg).toMatch(
			/^Create order failed: Order quantity precision too large/,
		);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('accepts orders on the rules: ticks, steps, edges included; 18-decimal PEPEETH prices', async () => {
		expect((await master().order(limitBuy)).status).toBe(200);
		// minNotional 10 exactly
		expect((await master().order({ ...limitBuy, price: '10000', quantity: '0.001' })).status).toBe(
			200,
		);
		expect((await master().order({ ...mkt, amount: '10' })).status).toBe(200);
		expect((await master().order({ ...mkt, quantity: '0.00001' })).status).toBe(200);
		const pepe = await master().orderTest({
			symbol: 'PEPEETH',
			side: 'BUY',
			type: 'LIMIT',
			price: '0.000000004000000001',
			quantity: '30000',
		});
		expect(pepe.json).toEqual({});
	});

	it('the symbol rules come before the balance check (0401 only for orders on the rules)', async () => {
		const r = await master().order({
			...limitBuy,
			symbol: 'USDTAED',
			price: '3.673',
			quantity: '10',
		});
		expect(r.json.code).toBe('0401');
	});

	it('MARKET orders fill at the walk price when the market moves', async () => {
		const moving = await startSandbox({
			now: () => T0,
			rateLimit: false,
			requestRates: false,
			symbolRules: 'realistic',
			market: { seed: 3 },
		});
		try {
			const c = new TestClient(moving.baseUrl, DEMO_KEYS.master, () => T0);
			const ticker = await c.marketData('/quote/v1/ticker/price', {
				site: 'MENA',
				symbol: 'BTCUSDT',
			});
			const price: string = ticker.json[0].p;
			expect(price).not.toBe('50000');
			const r = await c.order({ ...mkt, quantity: '0.001' });
			expect(r.status).toBe(200);
			expect(moving.getOrder(r.json.orderId)!.cummulativeQuoteQty).toBe(
				D.fmt(D.mul(D.parseDec(price)!, D.parseDec('0.001')!)),
			);
		} finally {
			await moving.stop();
		}
	});
});

describe('lenient symbol rules (the fixture default)', () => {
	const lenient = useSandboxClients({ now: () => T0, rateLimit: false, requestRates: false });
	it('accepts price 1 × 0.01 and 18-decimal quantities, and MARKET fills at last', async () => {
		expect(
			(await lenient.master().order({ ...limitBuy, price: '1', quantity: '0.01' })).status,
		).toBe(200);
		expect(
			(
				await lenient
					.master()
					.order({ ...limitBuy, price: '1.000000000000000001', quantity: '0.000000000000000001' })
			).status,
		).toBe(200);
		const r = await lenient.master().order({ ...mkt, quantity: '0.001' });
		expect(lenient.sandbox().getOrder(r.json.orderId)!.cummulativeQuoteQty).toBe('50');
	});
});
