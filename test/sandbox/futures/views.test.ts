/**
 * futures/views.ts: the position arithmetic (value, margin, unrealized PnL, profit rate; ISOLATED
 * liquidation price and margin rate; CROSS "0" and ""), the order and fill views, and the
 * `outboundContractPositionInfo` event built from a position.
 */
import * as D from '../../../sandbox/decimal';
import { findContract } from '../../../sandbox/futures/contracts';
import {
	orderView,
	positionEvent,
	positionView,
	tradeView,
	type HeldOrder,
	type HeldPosition,
} from '../../../sandbox/futures/views';

const BTC = findContract('BTCUSDT-PERPETUAL')!;
const ETH = findContract('ETHUSDT-PERPETUAL')!;
const held = (symbol: string, qty: string, avg: string, realized = '0'): HeldPosition => ({
	accountId: '10003',
	symbol,
	baseQty: D.parseDec(qty)!,
	avgPrice: D.parseDec(avg)!,
	realizedPnL: D.parseDec(realized)!,
});

describe('positionView', () => {
	it('ISOLATED (BTC, leverage 5, maintenance 0.025): liquidation price and margin rate computed', () => {
		const v = positionView(
			held('BTCUSDT-PERPETUAL', '0.195', '91453', '-236.7527'),
			BTC,
			'89908.1',
		);
		expect(v).toEqual({
			symbol: 'BTCUSDT-PERPETUAL',
			baseAsset: 'BTC',
			quoteAsset: 'USDT',
			avgPrice: '91453',
			leverage: '5',
			lastPrice: '89908.1',
			baseQty: '0.195',
			// 0.195 × 89908.1, as in the documentation's example
			quoteQty: '17532.0795',
			markPrice: '89908.1',
			// 91453 × (1 − 1/5 + 0.025) = 75448.725, down to the tick
			liquidationPrice: '75448.7',
			margin: '3506.4159',
			// (3506.4159 − 301.25505) / 17532.0795
			marginRate: '0.1828',
			// −301.25505 / (91453 × 0.195 / 5 = 3566.667)
			profitRate: '-0.0844',
			unrealizedPnL: '-301.2555',
			realizedPnL: '-236.7527',
			marginType: 'ISOLATED',
			positionMode: 'net',
			positionSide: 'LONG',
			takeProfit: '',
			stopLoss: '',
		});
	});

	it('CROSS (ETH): liquidationPrice "0" and marginRate "", the documentation’s own answer', () => {
		const v = positionView(held('ETHUSDT-PERPETUAL', '1.5', '3000'), ETH, '2900.5');
		expect(v).toMatchObject({
			liquidationPrice: '0',
			marginRate: '',
			quoteQty: '4350.75',
			margin: '435.075',
			unrealizedPnL: '-149.25',
			profitRate: '-0.3316',
			leverage: '10',
			marginType: 'CROSS',
		});
	});

	it('an average price is shown to 8 decimals, truncated', () => {
		const v = positionView(held('BTCUSDT-PERPETUAL', '0.3', '50000.123456789123'), BTC, '50000');
		expect(v.avgPrice).toBe('50000.12345678');
	});
});

describe('the position event', () => {
	it('carries the documented keys, all strings', () => {
		const v = positionView(held('ETHUSDT-PERPETUAL', '2', '2900', '-3.48'), ETH, '3000');
		expect(positionEvent(v, '10003', 1_800_000_000_123)).toEqual({
			e: 'outboundContractPositionInfo',
			E: '1800000000123',
			A: '10003',
			s: 'ETHUSDT-PERPETUAL',
			S: 'LONG',
			p: '2900',
			P: '2',
			f: '0',
			m: '600',
			r: '-3.48',
			up: '200',
			pr: '0.3448',
			pv: '6000',
			v: '10',
			mt: 'CROSS',
		});
	});
});

describe('order and fill views', () => {
	it('a half-filled order: quote quantities and its average price', () => {
		const o: HeldOrder = {
			accountId: '10003',
			time: 5,
			orderId: '2130000000000000041',
			clientOrderId: 'c',
			symbol: 'BTCUSDT-PERPETUAL',
			side: 'BUY',
			price: '50000.1',
			quantity: '0.3',
			leverage: '5',
			reduceOnly: false,
			timeInForce: 'GTC',
			status: 'PARTIALLY_FILLED',
			executedQty: D.parseDec('0.1')!,
			executedQuote: D.parseDec('5000.01')!,
		};
		expect(orderView(o, BTC)).toMatchObject({
			time: '5',
			originalQuoteQty: '15000.03',
			executedQuoteQty: '5000.01',
			executedBaseQty: '0.1',
			avgPrice: '50000.1',
			orderType: 'limit',
		});
	});

	it('a fill view drops the account', () => {
		const t = tradeView({
			accountId: '10003',
			time: '1',
			tradeId: '2',
			orderId: '3',
			symbol: 'BTCUSDT-PERPETUAL',
			price: '1',
			quantity: '1',
			commissionAsset: 'USDT',
			commission: '0',
			makerRebate: '0',
			type: 'limit',
			side: 'BUY',
			realizedPnl: '0',
			isMaker: false,
			ticketId: '4',
		});
		expect('accountId' in t).toBe(false);
	});
});
