/**
 * futures/futures.ts and futures/book.ts: the sb.futures controls. fill opens, adds to and
 * reduces the LONG position (average price, realized PnL net of commission), refuses selling more
 * than is held with nothing written, fills resting orders (placeOpenOrder) in parts; the checks
 * (contract, status, step, tick, client order ID, times, the sub key's missing account);
 * positions(key); reset().
 */
import { DEMO_KEYS } from '../../../sandbox';
import { useSandboxClients } from '../../support/sandbox';
import { T0 } from '../support';

let clock = T0 + 1000;
beforeEach(() => {
	clock = T0 + 1000;
});
const { sandbox, master } = useSandboxClients({
	now: () => clock,
	rateLimit: false,
	requestRates: false,
});
const BTC = 'BTCUSDT-PERPETUAL';
const SOL = 'SOLUSDT-PERPETUAL';
const f = () => sandbox().futures;

describe('fill', () => {
	it('a BUY opens and adds (average price), a SELL reduces and realizes PnL net of commission', () => {
		const first = f().fill({ symbol: BTC, side: 'BUY', quantity: '0.1', price: '48000' });
		expect(first.order).toMatchObject({
			status: 'FILLED',
			executedBaseQty: '0.1',
			avgPrice: '48000',
		});
		expect(first.trade).toMatchObject({ commission: '2.88', realizedPnl: '-2.88', isMaker: false });
		expect(first.position).toMatchObject({
			baseQty: '0.1',
			avgPrice: '48000',
			realizedPnL: '-2.88',
		});
		clock += 1;
		const second = f().fill({ symbol: BTC, side: 'BUY', quantity: '0.3', price: '52000' });
		// (0.1 × 48000 + 0.3 × 52000) / 0.4
		expect(second.position).toMatchObject({ baseQty: '0.4', avgPrice: '51000' });
		clock += 1;
		const third = f().fill({
			symbol: BTC,
			side: 'SELL',
			quantity: '0.1',
			price: '50000',
			isMaker: true,
		});
		// (50000 − 51000) × 0.1 − 50000 × 0.1 × 0.00025
		expect(third.trade).toMatchObject({
			realizedPnl: '-101.25',
			commission: '1.25',
			isMaker: true,
		});
		expect(third.position).toMatchObject({
			baseQty: '0.3',
			avgPrice: '51000',
			realizedPnL: D('-2.88', '-9.36', '-101.25'),
		});
		const last = f().fill({ symbol: BTC, side: 'SELL', quantity: '0.3', price: '51000' });
		expect(last.position).toBeNull();
		expect(f().positions()).toEqual([]);
		expect(last.order.orderId > third.order.orderId).toBe(true);
		expect(last.trade.tradeId > third.trade.tradeId).toBe(true);
	});

	it('selling more than the LONG position is refused and writes nothing', async () => {
		expect(() =>
			f().fill({ symbol: BTC, side: 'SELL', quantity: '0.001', price: '50000' }),
		).toThrow('exceeds the LONG position of 0');
		f().fill({ symbol: BTC, side: 'BUY', quantity: '0.1', price: '50000' });
		expect(() => f().fill({ symbol: BTC, side: 'SELL', quantity: '0.2', price: '50000' })).toThrow(
			'exceeds the LONG position of 0.1',
		);
		const r = await master().call({
			method: 'GET',
			path: '/api/v2/futures/historyOrders',
			query: { symbol: BTC, type: 'LIMIT' },
		});
		expect(r.json).toHaveLength(1);
	});

	it('default price: the mark price down to the tick; default key: the master key', () => {
		const r = f().fill({ symbol: SOL, side: 'BUY', quantity: '10' });
		expect(r.trade.price).toBe('150');
		expect(f().positions(DEMO_KEYS.readOnly)).toEqual([r.position]);
		expect(f().positions(DEMO_KEYS.sub)).toEqual([]);
	});

	it('refuses an unknown or halted contract, off-grid values, the sub key, a duplicate open client order ID', () => {
		const bad = [
			[{ symbol: 'BTCUSDT', side: 'BUY', quantity: '1' }, 'unknown contract'],
			[{ symbol: 'XRPUSDT-PERPETUAL', side: 'BUY', quantity: '1' }, 'HALT'],
			[{ symbol: BTC, side: 'BUY', quantity: '0.0015' }, 'not a multiple of 0.001'],
			[{ symbol: BTC, side: 'BUY', quantity: '0' }, 'above 0'],
			[{ symbol: BTC, side: 'BUY', quantity: '1e-3' }, 'plain decimal'],
			[{ symbol: BTC, side: 'BUY', quantity: '0.1', price: '50000.05' }, 'not a multiple of 0.1'],
			[{ symbol: BTC, side: 'BUY', quantity: '0.1', key: DEMO_KEYS.sub }, 'no futures account'],
			[{ symbol: BTC, side: 'BUY', quantity: '0.1', clientOrderId: 'a b' }, 'clientOrderId'],
		] as const;
		for (const [input, message] of bad) expect(() => f().fill({ ...input })).toThrow(message);
		f().placeOpenOrder({
			symbol: BTC,
			side: 'BUY',
			quantity: '0.1',
			price: '40000',
			clientOrderId: 'x',
		});
		expect(() =>
			f().fill({ symbol: BTC, side: 'BUY', quantity: '0.1', clientOrderId: 'x' }),
		).toThrow('held by an open order');
	});
});

describe('placeOpenOrder and filling it', () => {
	it('a resting order fills in parts at its price: PARTIALLY_FILLED then FILLED, its client order ID then free', () => {
		const o = f().placeOpenOrder({
			symbol: BTC,
			side: 'BUY',
			quantity: '0.3',
			price: '49000',
			clientOrderId: 'rest-1',
		});
		expect(o).toMatchObject({ status: 'NEW', clientOrderId: 'rest-1', time: String(clock) });
		const part = f().fill({
			symbol: BTC,
			side: 'BUY',
			orderId: o.orderId,
			quantity: '0.1',
			isMaker: true,
		});
		expect(part.order).toMatchObject({ status: 'PARTIALLY_FILLED', executedBaseQty: '0.1' });
		expect(part.trade).toMatchObject({ price: '49000', orderId: o.orderId, commission: '1.225' });
		const rest = f().fill({ symbol: BTC, side: 'BUY', orderId: o.orderId });
		expect(rest.order).toMatchObject({
			status: 'FILLED',
			executedBaseQty: '0.3',
			executedQuoteQty: '14700',
		});
		expect(rest.position).toMatchObject({ baseQty: '0.3', avgPrice: '49000' });
		expect(() => f().fill({ symbol: BTC, side: 'BUY', orderId: o.orderId })).toThrow('is FILLED');
		f().placeOpenOrder({
			symbol: BTC,
			side: 'BUY',
			quantity: '0.1',
			price: '40000',
			clientOrderId: 'rest-1',
		});
	});

	it('refuses an over-fill, another price, a wrong side or symbol, an unknown order', () => {
		const o = f().placeOpenOrder({ symbol: BTC, side: 'BUY', quantity: '0.1', price: '49000' });
		const fill = (x: object) => () =>
			f().fill({ symbol: BTC, side: 'BUY', orderId: o.orderId, ...x });
		expect(fill({ quantity: '0.2' })).toThrow('exceeds what remains');
		expect(fill({ price: '49000.1' })).toThrow('fills at its price 49000');
		expect(fill({ side: 'SELL' })).toThrow('no SELL order');
		expect(fill({ symbol: SOL })).toThrow('no BUY order');
		expect(fill({ orderId: '1' })).toThrow('no BUY order 1');
	});

	it('times: now by default, a past time allowed, never after now nor before the newest order', () => {
		f().placeOpenOrder({
			symbol: BTC,
			side: 'BUY',
			quantity: '0.1',
			price: '49000',
			time: T0 - 50,
		});
		const place = (time: number) => () =>
			f().placeOpenOrder({ symbol: BTC, side: 'BUY', quantity: '0.1', price: '49000', time });
		expect(place(clock + 1)).toThrow('not a past millisecond time');
		expect(place(T0 - 51)).toThrow('seed the oldest first');
		expect(place(T0 - 50)()).toMatchObject({ time: String(T0 - 50) });
		expect(() =>
			f().placeOpenOrder({
				symbol: BTC,
				side: 'BUY',
				quantity: '0.1',
				price: '49000',
				key: DEMO_KEYS.sub,
			}),
		).toThrow('no futures account');
	});
});

/** A sum of decimal strings, for readable expectations. */
function D(...parts: string[]): string {
	const scale = 1e8;
	return String(parts.reduce((s, p) => s + Math.round(Number(p) * scale), 0) / scale);
}
