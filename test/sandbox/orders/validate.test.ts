/**
 * orders/validate.ts: the field checks of one order (0001 naming the field, 0201 for an unknown
 * symbol) and the free-balance check (0401 at the exact edge); decimals come back canonical.
 */
import { useSandboxClients } from '../../support/sandbox';
import { T0, limitBuy } from '../support';

const { sandbox, master, sub } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});

describe('POST /api/v1/spot/new/order', () => {
	it('normalizes decimals ("0.0100" -> "0.01")', async () => {
		const r = await master().order({ ...limitBuy, quantity: '0.0100', price: '040000.00' });
		expect([r.json.origQty, r.json.price]).toEqual(['0.01', '40000']);
	});

	it.each([
		[{ ...limitBuy, symbol: undefined }, 'symbol'],
		[{ ...limitBuy, side: 'HOLD' }, 'side'],
		[{ ...limitBuy, type: 'STOP' }, 'type'],
		[{ ...limitBuy, price: undefined }, 'price'],
		[{ ...limitBuy, quantity: undefined }, 'quantity'],
		[{ ...limitBuy, type: 'LIMIT_MAKER', price: undefined }, 'price'],
		[{ ...limitBuy, amount: '100' }, 'amount'],
		[{ ...limitBuy, timeInForce: 'IOC' }, 'timeInForce'],
		[{ ...limitBuy, timeInForce: 'FOK' }, 'timeInForce'],
		[
			{ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.01', timeInForce: 'GTC' },
			'timeInForce',
		],
		[{ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.01', price: '50000' }, 'price'],
		[{ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET' }, 'quantity'],
		[{ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.01', amount: '100' }, 'amount'],
		[{ symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', amount: '100' }, 'amount'],
		[{ ...limitBuy, quantity: '1e-2' }, 'quantity'],
		[{ ...limitBuy, quantity: '-0.01' }, 'quantity'],
		[{ ...limitBuy, quantity: '0' }, 'quantity'],
		[{ ...limitBuy, quantity: '.5' }, 'quantity'],
		[{ ...limitBuy, price: 'abc' }, 'price'],
		[{ ...limitBuy, stpMode: 'CANCEL_BOTH' }, 'stpMode'],
		[{ ...limitBuy, newClientOrderId: 'x'.repeat(256) }, 'newClientOrderId'],
		[{ ...limitBuy, newClientOrderId: '' }, 'newClientOrderId'],
	])('rejects %j with 0001 naming %s', async (params, field) => {
		const r = await master().order(params);
		expect(r.status).toBe(400);
		expect(r.json.code).toBe('0001');
		expect(r.json.msg).toContain(`'${field}'`);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('accepts a 255-character client order id and both stpModes', async () => {
		expect((await master().order({ ...limitBuy, newClientOrderId: 'y'.repeat(255) })).status).toBe(
			200,
		);
		expect((await master().order({ ...limitBuy, stpMode: 'EXPIRE_MAKER' })).status).toBe(200);
		expect((await master().order({ ...limitBuy, stpMode: 'EXPIRE_TAKER' })).status).toBe(200);
	});

	it('rejects an unknown symbol with 0201 (Instrument not found)', async () => {
		const r = await master().order({ ...limitBuy, symbol: 'DOGEUSDT' });
		expect(r.status).toBe(400);
		expect(r.json).toEqual({ code: '0201', msg: "Instrument not found: 'DOGEUSDT'" });
		expect((await master().order({ ...limitBuy, symbol: 'btcusdt' })).json.code).toBe('0201');
	});

	it('rejects insufficient balance with 0401 (BUY checks quote, SELL checks base)', async () => {
		const buy = await master().order({ ...limitBuy, quantity: '2.00000001', price: '50000' }); // 100000.0005 USDT
		expect(buy.json).toEqual({ code: '0401', msg: 'Insufficient asset' });
		expect((await master().order({ ...limitBuy, quantity: '2', price: '50000' })).status).toBe(200);
		const sell = await master().order({ ...limitBuy, side: 'SELL', quantity: '10.1' });
		expect(sell.json.code).toBe('0401');
		// the sub key trades on the sub trading account (1 BTC)
		expect((await sub().order({ ...limitBuy, side: 'SELL', quantity: '1.5' })).json.code).toBe(
			'0401',
		);
		const ok = await sub().order({ ...limitBuy, side: 'SELL', quantity: '1' });
		expect(ok.json.accountId).toBe('20001');
	});
});
