/**
 * The shapes an order is answered in: the create answer, the query view, the cancel answer, each in
 * the answer style the behaviours ask for (what status a fresh order shows, how MARKET is named).
 */
import * as D from '../decimal';
import type {
	AnsweredOrderType,
	CancelAnswer,
	OrderData,
	OrderView,
	SandboxBehaviour,
} from '../types';
import { EXCHANGE_ID, type OrderState } from './state';

/** How answers show an order: the behaviours createAnswerStatus and marketOrderType. */
export type AnswerStyle = Required<
	Pick<SandboxBehaviour, 'createAnswerStatus' | 'marketOrderType'>
>;

/** The book's own state, unchanged: what the ledger and Sandbox.getOrder show. */
export const PLAIN_STYLE: AnswerStyle = { createAnswerStatus: 'NEW', marketOrderType: 'MARKET' };

export function styleOf(behaviour: Required<SandboxBehaviour>): AnswerStyle {
	return {
		createAnswerStatus: behaviour.createAnswerStatus,
		marketOrderType: behaviour.marketOrderType,
	};
}

/** A MARKET order sent with `amount` has no base quantity of its own: its origQty is '0'. */
function shownType(o: OrderState, style: AnswerStyle): AnsweredOrderType {
	if (o.type !== 'MARKET' || style.marketOrderType === 'MARKET') return o.type;
	return o.reqAmount !== '0' ? 'MARKET_OF_QUOTE' : 'MARKET_OF_BASE';
}

/** The create answer (spec 2.4); a resting order may show PENDING_NEW, as the family's example does. */
export function createAnswer(o: OrderState, style: AnswerStyle = PLAIN_STYLE): OrderData {
	const status =
		o.status === 'NEW' && style.createAnswerStatus === 'PENDING_NEW' ? 'PENDING_NEW' : o.status;
	return {
		accountId: o.accountId,
		symbol: o.symbol,
		symbolName: o.symbol,
		clientOrderId: o.clientOrderId,
		orderId: o.orderId,
		transactTime: String(o.time),
		price: o.price,
		origQty: o.origQty,
		executedQty: D.fmt(o.executedQty),
		status,
		timeInForce: o.timeInForce,
		type: shownType(o, style),
		side: o.side,
		reqAmount: o.reqAmount,
	};
}

/** The query answer (the family's order query shape). */
export function orderView(o: OrderState, style: AnswerStyle = PLAIN_STYLE): OrderView {
	const avg = D.isPositive(o.executedQty) ? D.divTrunc(o.cumQuote, o.executedQty, 8) : D.ZERO;
	return {
		accountId: o.accountId,
		exchangeId: EXCHANGE_ID,
		symbol: o.symbol,
		symbolName: o.symbol,
		clientOrderId: o.clientOrderId,
		orderId: o.orderId,
		price: o.price,
		origQty: o.origQty,
		executedQty: D.fmt(o.executedQty),
		cumulativeQuoteQty: D.fmt(o.cumQuote),
		cummulativeQuoteQty: D.fmt(o.cumQuote),
		avgPrice: D.fmt(avg),
		status: o.status,
		timeInForce: o.timeInForce,
		type: shownType(o, style),
		side: o.side,
		stopPrice: '0.0',
		icebergQty: '0.0',
		time: String(o.time),
		updateTime: String(o.updateTime),
		isWorking: true,
		reqAmount: o.reqAmount,
		stpMode: o.stpMode,
		feeCoin: '',
		feeAmount: '0',
		sumFeeAmount: D.fmt(o.fee),
	};
}

/** The cancel answer (the family's cancel shape); `transactTime` is the cancel time. */
export function cancelAnswer(
	o: OrderState,
	cancelledAt: number,
	style: AnswerStyle = PLAIN_STYLE,
): CancelAnswer {
	return {
		accountId: o.accountId,
		symbol: o.symbol,
		clientOrderId: o.clientOrderId,
		orderId: o.orderId,
		transactTime: String(cancelledAt),
		price: o.price,
		origQty: o.origQty,
		executedQty: D.fmt(o.executedQty),
		status: o.status,
		timeInForce: o.timeInForce,
		type: shownType(o, style),
		side: o.side,
	};
}
