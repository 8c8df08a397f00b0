/**
 * futures/writeRoutes.ts, orderParams.ts and trading.ts: POST /api/v2/futures/order over HTTP.
 * The four types (MARKET fills at once at the mark, a crossing LIMIT fills as taker, the others
 * rest; STOP waits for the mark), base or quote quantity, leverage per order, every refusal with
 * its code and the field named and nothing written, the margin check, LONG only, reduce-only,
 * client order IDs unique only among open orders, TP/SL children, the sub key.
 */
import { useSandboxClients } from '../../support/sandbox';
import { T0 } from '../support';

let clock = T0 + 1000;
beforeEach(() => {
	clock = T0 + 1000;
});
const { sandbox, master, sub } = useSandboxClients({
	now: () => clock,
	rateLimit: false,
	requestRates: false,
});
const BTC = 'BTCUSDT-PERPETUAL';
const ETH = 'ETHUSDT-PERPETUAL';
type Q = Record<string, string | number>;
const post = async (query: Q, c = master()) => {
	const r = await c.call({ method: 'POST', path: '/api/v2/futures/order', query });
	return { status: r.status, json: r.json };
};
const get = async (path: string, query: Q = {}, c = master()) =>
	(await c.call({ method: 'GET', path: `/api/v2/futures/${path}`, query })).json;
/** A MARKET BUY of 0.1 BTC; `undefined` in `extra` leaves a parameter out. */
const market = (extra: Record<string, string | number | undefined> = {}): Q =>
	JSON.parse(
		JSON.stringify({ symbol: BTC, side: 'BUY', type: 'MARKET', baseQty: '0.1', ...extra }),
	);
const limit = (price: string, extra: Q = {}) => ({
	symbol: BTC,
	side: 'BUY',
	type: 'LIMIT',
	baseQty: '0.1',
	price,
	...extra,
});
const placed = async (q: Q) => {
	const r = await post(q);
	expect(r).toMatchObject({ status: 200 });
	return r.json;
};
const order = (orderId: string) => get('order', { orderId });
const open = async (type: 'LIMIT' | 'STOP') => get('openOrders', { type });

beforeEach(() => {
	sandbox().futures.setMarkPrice(BTC, '50000');
	sandbox().futures.setMarkPrice(ETH, '3000');
});

describe('MARKET and LIMIT', () => {
	it('a MARKET order answers PENDING_NEW and fills at once at the mark as taker', async () => {
		const a = await placed(market({ clientOrderId: 'm-1' }));
		expect(a).toMatchObject({
			symbol: BTC,
			clientOrderId: 'm-1',
			side: 'BUY',
			orderType: 'market',
			status: 'PENDING_NEW',
			price: '0',
			originalBaseQty: '0.1',
			executedBaseQty: '0',
			leverage: '5',
			timeInForce: 'IOC',
			reduceOnly: false,
		});
		expect(a.orderId).toMatch(/^\d{19}$/);
		expect(await order(a.orderId)).toMatchObject({
			status: 'FILLED',
			executedBaseQty: '0.1',
			avgPrice: '50000',
			executedQuoteQty: '5000',
		});
		const [fill] = await get('userTrades', { symbol: BTC });
		expect(fill).toMatchObject({
			orderId: a.orderId,
			price: '50000',
			quantity: '0.1',
			type: 'market',
			isMaker: false,
			commission: '3',
		});
		expect((await get('positions'))[0]).toMatchObject({
			symbol: BTC,
			baseQty: '0.1',
			avgPrice: '50000',
		});
	});

	it('quoteQty is valued at the mark price, down to the step', async () => {
		const a = await placed(market({ baseQty: undefined, quoteQty: '1234.5' }));
		// 1234.5 / 50000 = 0.02469 -> 0.024
		expect(a).toMatchObject({ originalBaseQty: '0.024', originalQuoteQty: '1234.5' });
		expect((await order(a.orderId)).executedBaseQty).toBe('0.024');
	});

	it('a LIMIT below the mark rests (NEW); one that crosses fills at once at the mark as taker', async () => {
		const rest = await placed(limit('49000'));
		expect(rest).toMatchObject({ status: 'PENDING_NEW', orderType: 'limit', timeInForce: 'GTC' });
		expect(await order(rest.orderId)).toMatchObject({ status: 'NEW', executedBaseQty: '0' });
		const cross = await placed(limit('51000'));
		expect(await order(cross.orderId)).toMatchObject({ status: 'FILLED', avgPrice: '50000' });
		expect((await open('LIMIT')).map((o: { orderId: string }) => o.orderId)).toEqual([
			rest.orderId,
		]);
	});

	it('IOC and FOK that cannot fill are cancelled; LIMIT_MAKER rests or is refused when it would match', async () => {
		const ioc = await placed(limit('49000', { timeInForce: 'IOC' }));
		expect((await order(ioc.orderId)).status).toBe('CANCELED');
		const fok = await placed(limit('49000', { timeInForce: 'FOK' }));
		expect((await order(fok.orderId)).status).toBe('CANCELED');
		const maker = await placed(limit('49000', { type: 'LIMIT_MAKER' }));
		expect(maker).toMatchObject({ orderType: 'limit_maker', timeInForce: 'LIMIT_MAKER' });
		const refused = await post(limit('50000', { type: 'LIMIT_MAKER' }));
		expect(refused.json).toMatchObject({
			code: '-1149',
			msg: expect.stringMatching(/would immediately match/),
		});
		const postOnly = await post(limit('50000.1', { timeInForce: 'LIMIT_MAKER' }));
		expect(postOnly.json.code).toBe('-1149');
	});

	it('leverage per order (default the contract’s) and stpMode are kept on the order', async () => {
		const a = await placed(limit('49000', { leverage: 2, stpMode: 'EXPIRE_MAKER' }));
		expect(a).toMatchObject({ leverage: '2', stpMode: 'EXPIRE_MAKER' });
		expect(
			(await placed(limit('49000', { symbol: ETH, baseQty: '1', price: '2900' }))).leverage,
		).toBe('10');
	});
});

describe('refusals: the code, the field named, nothing written', () => {
	const cases: [string, Record<string, string | number | undefined>, string, RegExp][] = [
		['no symbol', { symbol: '' }, '0001', /'symbol'/],
		['unknown contract', { symbol: 'BTCUSDT' }, '0201', /BTCUSDT/],
		['halted contract', { symbol: 'XRPUSDT-PERPETUAL', baseQty: '1' }, '-1151', /HALT/],
		['bad side', { side: 'buy' }, '0001', /'side'/],
		['bad type', { type: 'STOP_MARKET' }, '0001', /'type'/],
		['both quantities', { quoteQty: '100' }, '0001', /exactly one of baseQty and quoteQty/],
		['no quantity', { baseQty: '' }, '0001', /'baseQty'/],
		['negative quantity', { baseQty: '-1' }, '0001', /'baseQty'/],
		['off the step', { baseQty: '0.0101' }, '-1137', /baseQty.*step 0.001/],
		['below the step', { baseQty: '0.0001' }, '-1137', /step/],
		[
			'quote below one step',
			{ baseQty: undefined, quoteQty: '10' },
			'-1136',
			/quoteQty 10 buys less than one step/,
		],
		['above the market maximum', { baseQty: '6' }, '-1135', /maximum 5/],
		['price on a MARKET', { price: '50000' }, '0001', /'price'.*MARKET/],
		[
			'price off the tick',
			{ type: 'LIMIT', price: '50000.05' },
			'0209',
			/price 50000.05.*tick 0.1/,
		],
		['LIMIT without price', { type: 'LIMIT' }, '0001', /'price'/],
		['stopPrice on a MARKET', { stopPrice: '51000' }, '0001', /'stopPrice'/],
		['STOP without stopPrice', { type: 'STOP' }, '0001', /'stopPrice'/],
		['leverage 0', { leverage: 0 }, '0001', /'leverage'.*1 to 20/],
		['leverage 21', { leverage: 21 }, '0001', /'leverage'/],
		['leverage 2.5', { leverage: '2.5' }, '0001', /'leverage'/],
		['reduceOnly yes', { reduceOnly: 'yes' }, '0001', /'reduceOnly'/],
		['GTC on a MARKET', { timeInForce: 'GTC' }, '0001', /'timeInForce'/],
		['bad stpMode', { stpMode: 'NONE' }, '0001', /'stpMode'/],
		['bad clientOrderId', { clientOrderId: 'a b' }, '0001', /'clientOrderId'/],
		[
			'tp below the price',
			{ type: 'LIMIT', price: '49000', tpTriggerPrice: '48000' },
			'0001',
			/'tpTriggerPrice'.*above 49000/,
		],
		['sl above the mark', { slTriggerPrice: '51000' }, '0001', /'slTriggerPrice'.*below 50000/],
		[
			'tp on a SELL',
			{ side: 'SELL', tpTriggerPrice: '60000' },
			'0001',
			/'tpTriggerPrice'.*opening BUY/,
		],
		['bad triggerBy', { tpTriggerPrice: '60000', tpTriggerBy: 'LAST' }, '0001', /'tpTriggerBy'/],
		[
			'tp limit without trigger',
			{ tpLimitPrice: '60000' },
			'0001',
			/'tpLimitPrice'.*without tpTriggerPrice/,
		],
		[
			'same child IDs',
			{
				tpTriggerPrice: '60000',
				slTriggerPrice: '40000',
				tpClientOrderId: 'x',
				slClientOrderId: 'x',
			},
			'0001',
			/'slClientOrderId'/,
		],
		['SELL with no position', { side: 'SELL' }, '-1149', /only LONG positions are supported/],
		[
			'reduce-only BUY',
			{ reduceOnly: 'true' },
			'-1149',
			/ReduceOnly order would increase the position/,
		],
		['BUY stop at the mark', { type: 'STOP', stopPrice: '50000' }, '-1149', /trigger at once/],
	];
	it.each(cases)('%s', async (_name, extra, code, msg) => {
		const r = await post(market(extra));
		expect(r.status).toBe(400);
		expect(r.json).toEqual({ code, msg: expect.stringMatching(msg) });
		expect(await open('LIMIT')).toEqual([]);
		expect(await open('STOP')).toEqual([]);
		expect(await get('historyOrders', { symbol: BTC, type: 'LIMIT' })).toEqual([]);
	});

	it('margin: initial margin (notional / leverage + taker fee) above what is available → 0401', async () => {
		sandbox().setBalance('10003', 'USDT', '1000');
		// 0.1 × 50000 / 5 = 1000, + 3 fee
		const r = await post(market());
		expect(r.json).toEqual({
			code: '0401',
			msg: expect.stringMatching(/insufficient balance.*1003 USDT/),
		});
		// at leverage 10 it fits; a resting BUY holds its margin back from the next
		await placed(limit('40000', { leverage: 10 }));
		const second = await post(limit('40000', { leverage: 10, baseQty: '0.2' }));
		expect(second.json.code).toBe('0401');
		expect(await get('positions')).toEqual([]);
	});

	it('the sub key has no futures account: 0104, nothing written', async () => {
		const r = await post(market(), sub());
		expect(r.json).toEqual({ code: '0104', msg: expect.stringMatching(/no futures account/) });
		expect(await open('LIMIT')).toEqual([]);
	});
});

describe('LONG only and reduce-only', () => {
	it('a SELL within the position reduces it (reduce-only or not); beyond it is refused', async () => {
		await placed(market({ baseQty: '0.3' }));
		await placed(market({ side: 'SELL', baseQty: '0.1' }));
		await placed(market({ side: 'SELL', baseQty: '0.1', reduceOnly: 'true' }));
		const over = await post(market({ side: 'SELL', baseQty: '0.2', reduceOnly: 'true' }));
		expect(over.json).toMatchObject({
			code: '-1149',
			msg: expect.stringMatching(/exceeds the LONG position of 0.1/),
		});
		const overPlain = await post(market({ side: 'SELL', baseQty: '0.2' }));
		expect(overPlain.json.msg).toMatch(/only LONG positions are supported/);
		expect((await get('positions'))[0].baseQty).toBe('0.1');
	});

	it('closing the position cancels its open reduce-only orders', async () => {
		await placed(market({ baseQty: '0.2' }));
		const tp = await placed(limit('55000', { side: 'SELL', reduceOnly: 'true' }));
		await placed(market({ side: 'SELL', baseQty: '0.2' }));
		expect(await order(tp.orderId)).toMatchObject({
			status: 'CANCELED',
			ordCxlReason: 'the position is closed',
		});
	});
});

describe('client order IDs: unique among OPEN orders only', () => {
	it('an open order holds its ID (-1141); a filled or cancelled one frees it', async () => {
		const first = await placed(market({ clientOrderId: 'signal-7' }));
		expect((await order(first.orderId)).status).toBe('FILLED');
		// the exchange does not refuse the reused ID: a blind resend places a second order
		const second = await placed(market({ clientOrderId: 'signal-7' }));
		expect(second.orderId).not.toBe(first.orderId);
		expect((await get('positions'))[0].baseQty).toBe('0.2');
		const resting = await placed(limit('40000', { clientOrderId: 'rest-1' }));
		const dup = await post(limit('41000', { clientOrderId: 'rest-1' }));
		expect(dup.json).toEqual({
			code: '-1141',
			msg: expect.stringMatching(/clientOrderId 'rest-1' is held by an open order/),
		});
		const stopDup = await post(
			market({ type: 'STOP', stopPrice: '52000', clientOrderId: 'rest-1' }),
		);
		expect(stopDup.json.code).toBe('-1141');
		expect(await order(resting.orderId)).toMatchObject({ clientOrderId: 'rest-1', status: 'NEW' });
		const tpDup = await post(market({ tpTriggerPrice: '60000', tpClientOrderId: 'rest-1' }));
		expect(tpDup.json).toMatchObject({
			code: '-1141',
			msg: expect.stringMatching(/tpClientOrderId/),
		});
	});
});

describe('STOP orders', () => {
	it('ORDER_NEW, listed under type=STOP; the mark crossing triggers it: ORDER_FILLED and a MARKET order with its client ID fills', async () => {
		const s = await placed(market({ type: 'STOP', stopPrice: '52000', clientOrderId: 'brk-1' }));
		expect(s).toMatchObject({
			status: 'ORDER_NEW',
			orderType: 'stop',
			stopPrice: '52000',
			price: '0',
		});
		expect((await open('STOP')).map((o: { orderId: string }) => o.orderId)).toEqual([s.orderId]);
		expect(await open('LIMIT')).toEqual([]);
		sandbox().futures.setMarkPrice(BTC, '51999.9');
		expect((await order(s.orderId)).status).toBe('ORDER_NEW');
		sandbox().futures.setMarkPrice(BTC, '52000');
		expect((await order(s.orderId)).status).toBe('ORDER_FILLED');
		const child = await get('order', { clientOrderId: 'brk-1' });
		expect(child).toMatchObject({ orderType: 'market', status: 'FILLED', avgPrice: '52000' });
		expect(child.orderId).not.toBe(s.orderId);
		expect(await open('STOP')).toEqual([]);
	});

	it('a stop-limit places a LIMIT at its price when triggered; a SELL stop triggers when the mark falls', async () => {
		await placed(market({ baseQty: '0.2' }));
		const s = await placed(
			market({
				side: 'SELL',
				type: 'STOP',
				stopPrice: '49000',
				price: '48000',
				baseQty: '0.2',
				timeInForce: 'GTC',
			}),
		);
		sandbox().futures.setMarkPrice(BTC, '48500');
		const child = (await get('historyOrders', { symbol: BTC, type: 'LIMIT' }))[0];
		expect((await order(s.orderId)).status).toBe('ORDER_FILLED');
		expect(child).toMatchObject({
			orderType: 'limit',
			price: '48000',
			status: 'FILLED',
			avgPrice: '48500',
		});
		expect(await get('positions')).toEqual([]);
	});
});

describe('TP/SL on an order', () => {
	it('a wholly filled BUY places reduce-only SELL STOP children with the client IDs sent; one triggering cancels the other', async () => {
		const a = await placed(
			market({
				baseQty: '0.2',
				tpTriggerPrice: '55000',
				tpTriggerBy: 'MARK_PRICE',
				tpClientOrderId: 'tp-1',
				slTriggerPrice: '45000',
				slLimitPrice: '44900',
				slClientOrderId: 'sl-1',
			}),
		);
		expect(a).toMatchObject({
			tpTriggerPrice: '55000',
			tpTriggerBy: 'MARK_PRICE',
			slTriggerPrice: '45000',
			slTriggerBy: 'CONTRACT_PRICE',
		});
		const stops = await open('STOP');
		expect(stops).toHaveLength(2);
		const tp = await get('order', { clientOrderId: 'tp-1' });
		const sl = await get('order', { clientOrderId: 'sl-1' });
		expect(tp).toMatchObject({
			side: 'SELL',
			reduceOnly: true,
			status: 'ORDER_NEW',
			stopPrice: '55000',
			price: '0',
			originalBaseQty: '0.2',
		});
		expect(sl).toMatchObject({
			side: 'SELL',
			reduceOnly: true,
			stopPrice: '45000',
			price: '44900',
		});
		sandbox().futures.setMarkPrice(BTC, '55000');
		expect((await order(tp.orderId)).status).toBe('ORDER_FILLED');
		expect(await order(sl.orderId)).toMatchObject({ status: 'ORDER_CANCELED' });
		expect(await get('positions')).toEqual([]);
		expect(await get('order', { clientOrderId: 'tp-1' })).toMatchObject({
			orderType: 'market',
			status: 'FILLED',
			avgPrice: '55000',
		});
	});

	it('a resting parent places its children only once wholly filled (sb.futures.fill)', async () => {
		const a = await placed(limit('49000', { baseQty: '0.2', slTriggerPrice: '45000' }));
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', orderId: a.orderId, quantity: '0.1' });
		expect(await open('STOP')).toEqual([]);
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', orderId: a.orderId });
		const [sl] = await open('STOP');
		expect(sl).toMatchObject({ stopPrice: '45000', originalBaseQty: '0.2', reduceOnly: true });
		expect(sl.clientOrderId).toBe(sl.orderId);
	});
});
