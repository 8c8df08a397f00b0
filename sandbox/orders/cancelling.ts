/**
 * Cancelling one order, at once or, with behaviour cancelApplyDelayMs, accepted now and applied
 * later: the family says a cancel answer means "accepted", not "done", so a client must not take
 * the order for gone until it reads a final status. No HTTP here.
 */
import { CODES } from '../codes';
import type { DeferredWork } from '../deferred';
import * as D from '../decimal';
import { apiError, type ApiError } from '../errors';
import type { StreamEvents } from '../stream/events';
import type { CancelAnswer, Ledger, LedgerCancel } from '../types';
import type { OrderState, Wallet } from './state';
import { cancelAnswer, PLAIN_STYLE, type AnswerStyle } from './views';

/** What a cancel needs from the book. */
export interface CancelContext {
	clock: () => number;
	wallet: Wallet;
	ledger: Ledger;
	/** Free the client order ID a now cancelled order held. */
	release(o: OrderState): void;
	deferred: DeferredWork;
	/** The user data stream's events of each cancel (PENDING_CANCEL, then the final status). */
	events: StreamEvents;
}

/** Who cancels, through which endpoint, how late it takes effect and how the answer shows the order. */
export interface CancelRequest {
	via: LedgerCancel['via'];
	apiKey: string;
	/** Real milliseconds until the cancel is applied; 0 applies it at once. */
	delayMs?: number;
	style?: AnswerStyle;
}

/**
 * The error a cancel of this order gets when it is final, or null when it is open. An order whose
 * cancel is pending is open: cancelling it again is accepted again.
 */
export function finalError(o: OrderState): ApiError | null {
	switch (o.status) {
		case 'FILLED':
			return apiError(CODES.orderFilled);
		case 'CANCELED':
			return apiError(CODES.orderCancelled);
		case 'PARTIALLY_CANCELED':
			return apiError(CODES.orderPartiallyCancelled);
		case 'REJECTED':
			// never on the book (the sandbox answers a refused order with an error, placing nothing)
			return apiError(CODES.orderNotOnBook);
		default:
			return null;
	}
}

/**
 * Cancel an open order (throws the family's code for a final one). With a delay the order turns
 * PENDING_CANCEL now and is cancelled when the delay has passed; a second cancel meanwhile is
 * answered as accepted and changes nothing (the first one's ledger entry is the only one).
 */
export function cancelOrder(o: OrderState, req: CancelRequest, ctx: CancelContext): CancelAnswer {
	const err = finalError(o);
	if (err) throw err;
	const now = ctx.clock();
	const style = req.style ?? PLAIN_STYLE;
	if (o.status === 'PENDING_CANCEL') return cancelAnswer(o, now, style);
	const delayMs = req.delayMs ?? 0;
	if (delayMs > 0) {
		o.status = 'PENDING_CANCEL';
		o.updateTime = now;
		ctx.events.order(o);
		ctx.events.commit();
		// nothing but this task takes an order out of PENDING_CANCEL; the check only guards that rule
		ctx.deferred.defer(delayMs, () => {
			if (o.status === 'PENDING_CANCEL') applyCancel(o, req, ctx);
		});
		return cancelAnswer(o, now, style);
	}
	applyCancel(o, req, ctx);
	return cancelAnswer(o, now, style);
}

/** The cancel taking effect: final status, funds unlocked, client order ID free, ledger entry. */
function applyCancel(o: OrderState, req: CancelRequest, ctx: CancelContext): void {
	const now = ctx.clock();
	if (D.isPositive(o.locked)) ctx.wallet.unlock(o.accountId, o.lockCoin, o.locked);
	o.locked = D.ZERO;
	o.status = D.isPositive(o.executedQty) ? 'PARTIALLY_CANCELED' : 'CANCELED';
	o.updateTime = now;
	ctx.release(o);
	ctx.ledger.cancels.push({
		orderId: o.orderId,
		clientOrderId: o.clientOrderId,
		accountId: o.accountId,
		status: o.status,
		via: req.via,
		apiKey: req.apiKey,
		at: now,
	});
	ctx.events.order(o);
	ctx.events.commit();
}
