/** The shapes an order is answered in: the create answer, the query view, the cancel answer. */
import * as D from '../decimal';
import type { CancelAnswer, OrderData, OrderView } from '../types';
import { EXCHANGE_ID, type OrderState } from './state';

/** The create answer (spec 2.4). */
export function createAnswer(o: OrderState): OrderData {
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
		status: o.status,
		timeInForce: o.timeInForce,
		type: o.type,
		side: o.side,
		reqAmount: o.reqAmount,
	};
}

/** The query answer (the family's order query shape). */
export function orderView(o: OrderState): OrderView {
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
		type: o.type,
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
export function cancelAnswer(o: OrderState, cancelledAt: number): CancelAnswer {
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
		type: o.type,
		side: o.side,
	};
}
