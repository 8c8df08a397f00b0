/**
 * orders/views.ts: the answer styles. createAnswerStatus 'PENDING_NEW' shows a resting order as
 * PENDING_NEW in the create answers only (single and batch); marketOrderType 'byBase' names a MARKET
 * order MARKET_OF_BASE (sent with quantity) or MARKET_OF_QUOTE (sent with amount) in every answer.
 * The book, the ledger and Sandbox.getOrder keep their own terms.
 */
import * as D from '../../../sandbox/decimal';
import type { OrderState } from '../../../sandbox/orders/state';
import {
	cancelAnswer,
	createAnswer,
	orderView,
	type AnswerStyle,
} from '../../../sandbox/orders/views';
import { useSandboxClients } from '../../support/sandbox';
import { T0, buy, limit } from '../support';

const { sandbox, master } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});

const marketByQuantity = { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: '0.1' };
const marketByAmount = { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', amount: '1000' };

/** An order as the book holds it: 0.5 BTC bought at 40000, resting. */
const restingBuy: OrderState = {
	accountId: '10001',
	apiKey: 'k',
	symbol: 'BTCUSDT',
	clientOrderId: 'c',
	orderId: '1950000000000000017',
	price: '40000',
	origQty: '0.5',
	reqAmount: '0',
	executedQty: D.ZERO,
	cumQuote: D.ZERO,
	fee: D.ZERO,
	feeCoin: '',
	status: 'NEW',
	timeInForce: 'GTC',
	type: 'LIMIT',
	side: 'BUY',
	stpMode: 'EXPIRE_TAKER',
	time: T0,
	updateTime: T0,
	lockCoin: 'USDT',
	locked: D.ZERO,
};

describe('createAnswerStatus', () => {
	it("'NEW' (default): a resting order answers NEW", async () => {
		expect((await master().order(buy())).json.status).toBe('NEW');
	});

	it("'PENDING_NEW': single and batch create answers show a resting order PENDING_NEW; the book holds it NEW", async () => {
		sandbox().setBehaviour({ createAnswerStatus: 'PENDING_NEW' });
		const single = await master().order(buy('p1'));
		expect([single.status, single.json.status]).toEqual([200, 'PENDING_NEW']);
		const batch = await master().batch([limit('p2'), limit('p3')]);
		expect(batch.json.result.map((e: { order: { status: string } }) => e.order.status)).toEqual([
			'PENDING_NEW',
			'PENDING_NEW',
		]);
		expect(sandbox().getOrder(single.json.orderId)!.status).toBe('NEW');
		expect((await master().queryOrder({ orderId: single.json.orderId })).json.status).toBe('NEW');
		expect(sandbox().ledger.orders.map((o) => o.status)).toEqual(['NEW', 'NEW', 'NEW']);
	});

	it("'PENDING_NEW': a MARKET order that filled at once still answers FILLED", async () => {
		sandbox().setBehaviour({ createAnswerStatus: 'PENDING_NEW' });
		expect((await master().order(marketByQuantity)).json.status).toBe('FILLED');
		const batch = await master().batch([marketByAmount]);
		expect(batch.json.result[0].order.status).toBe('FILLED');
	});
});

describe('marketOrderType', () => {
	it("'MARKET' (default): MARKET orders answer type MARKET", async () => {
		const o = (await master().order(marketByAmount)).json;
		expect(o.type).toBe('MARKET');
		expect((await master().queryOrder({ orderId: o.orderId })).json.type).toBe('MARKET');
	});

	it("'byBase': MARKET_OF_BASE for quantity, MARKET_OF_QUOTE for amount, in create, query and past-order answers", async () => {
		sandbox().setBehaviour({ marketOrderType: 'byBase' });
		const base = await master().order(marketByQuantity);
		const quote = await master().order(marketByAmount);
		expect([base.json.type, quote.json.type]).toEqual(['MARKET_OF_BASE', 'MARKET_OF_QUOTE']);
		const batch = await master().batch([marketByAmount, limit('l1')]);
		expect(batch.json.result.map((e: { order: { type: string } }) => e.order.type)).toEqual([
			'MARKET_OF_QUOTE',
			'LIMIT',
		]);
		expect((await master().queryOrder({ orderId: base.json.orderId })).json.type).toBe(
			'MARKET_OF_BASE',
		);
		const past = (await master().tradeOrders()).json as Array<{ orderId: string; type: string }>;
		expect(past.map((o) => [o.orderId, o.type])).toEqual([
			[batch.json.result[0].order.orderId, 'MARKET_OF_QUOTE'],
			[quote.json.orderId, 'MARKET_OF_QUOTE'],
			[base.json.orderId, 'MARKET_OF_BASE'],
		]);
		// the open LIMIT order keeps its type; the book and the ledger keep MARKET
		expect((await master().openOrders()).json.map((o: { type: string }) => o.type)).toEqual([
			'LIMIT',
		]);
		expect(sandbox().getOrder(base.json.orderId)!.type).toBe('MARKET');
		expect(sandbox().ledger.orders.map((o) => o.type)).toEqual([
			'MARKET',
			'MARKET',
			'MARKET',
			'LIMIT',
		]);
	});

	it("'byBase' in every shape, the cancel answer too (over HTTP a MARKET order is filled before anyone can cancel it)", () => {
		const byBase: AnswerStyle = { createAnswerStatus: 'NEW', marketOrderType: 'byBase' };
		const market = {
			...restingBuy,
			type: 'MARKET' as const,
			price: '0',
			status: 'FILLED' as const,
		};
		const byAmount = { ...market, origQty: '0', reqAmount: '1000' };
		expect(cancelAnswer(market, T0, byBase).type).toBe('MARKET_OF_BASE');
		expect(cancelAnswer(byAmount, T0, byBase).type).toBe('MARKET_OF_QUOTE');
		expect([createAnswer(market, byBase).type, orderView(byAmount, byBase).type]).toEqual([
			'MARKET_OF_BASE',
			'MARKET_OF_QUOTE',
		]);
		expect(cancelAnswer(market, T0).type).toBe('MARKET');
		expect(cancelAnswer(restingBuy, T0, byBase).type).toBe('LIMIT');
	});

	it("'PENDING_NEW' shows only in the create answer, and only for a NEW order", () => {
		const pending: AnswerStyle = { createAnswerStatus: 'PENDING_NEW', marketOrderType: 'MARKET' };
		expect(createAnswer(restingBuy, pending).status).toBe('PENDING_NEW');
		expect(orderView(restingBuy, pending).status).toBe('NEW');
		expect(cancelAnswer(restingBuy, T0, pending).status).toBe('NEW');
		const partly = { ...restingBuy, status: 'PARTIALLY_FILLED' as const };
		expect(createAnswer(partly, pending).status).toBe('PARTIALLY_FILLED');
	});
});
