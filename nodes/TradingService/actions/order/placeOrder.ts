import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { ERROR_CODES } from '../../constants';
import type { OrderParams } from '../../helpers/orderRules';
import { ENDPOINTS, isServiceRejection, outcomeOf, serviceRequest, toNodeError, withOutcome, type WriteTrace } from '../../transport';
import type { LedgerSlot } from '../../transport/ledger';
import { reconcileOrder } from '../../transport/reconcile';
import { markInFlight, orderUnknownError, replayedOrder, storedOrderResult, unknownEntry } from './outcomes';

/**
 * Places one order and settles its outcome (Create):
 * - answered: placed, or rejected (nothing executed, so the ledger forgets it);
 * - unknown (no answer, 5xx, an "execution unknown" code): looked up by its client order ID;
 *   found → placed; proven not executed → sent once more with the same ID; else unknown;
 * - answered "duplicate client order ID": looked up; the open order holding the ID is this order;
 * - already in the ledger (n8n re-ran the node): placed → the stored result, nothing sent;
 *   unknown → looked up first, as above.
 * Without a client order ID an unknown outcome cannot be looked up: it is reported, never resent.
 */
export async function placeSingleOrder(
	this: IExecuteFunctions,
	order: OrderParams,
	qs: IDataObject,
	slot: LedgerSlot,
	itemIndex: number,
): Promise<IDataObject> {
	try {
		return await settle.call(this, order, qs, slot, itemIndex);
	} catch (error) {
		// Whatever failed here, the order may have been sent: an error without an outcome is unknown.
		const nodeError = toNodeError(this.getNode(), error);
		throw outcomeOf(nodeError) === undefined ? withOutcome(nodeError, 'unknown') : nodeError;
	}
}

async function settle(this: IExecuteFunctions, order: OrderParams, qs: IDataObject, slot: LedgerSlot, itemIndex: number): Promise<IDataObject> {
	const entry = slot.entry;
	if (entry?.o === 'placed') return replayedOrder(order, entry);
	const trace: WriteTrace = entry === undefined ? {} : { firstSentAt: entry.s, acceptableUntil: entry.u };
	// Whether an attempt of this order may have been executed: then it is looked up before anything else.
	let maybeExecuted = entry?.o === 'unknown';
	let resent = false;
	const placed = (found: IDataObject, alreadyPlaced: boolean): IDataObject => {
		slot.record({ o: 'placed', r: storedOrderResult(found) });
		return alreadyPlaced ? { outcome: 'placed', alreadyPlaced: true, ...found } : { outcome: 'placed', ...found };
	};
	const stillUnknown = (reason: string) => {
		slot.record(unknownEntry(trace));
		return orderUnknownError(this, order, reason, itemIndex);
	};

	for (;;) {
		if (maybeExecuted) {
			if (order.newClientOrderId === undefined) {
				// Only reached from the ledger: an unanswered order without an ID is reported at once.
				throw stillUnknown('an earlier try of this node run sent it and got no answer, and it has no client order ID to look it up by');
			}
			const settled = await reconcileOrder.call(this, order, trace, itemIndex);
			if (settled.kind === 'placed') return placed(settled.order, settled.alreadyPlaced);
			if (settled.kind === 'unknown') throw stillUnknown(settled.reason);
			// Proven not executed, and no attempt can be any more: safe to send once more.
			if (resent) throw stillUnknown('it was not found after it was sent again, and is not sent a third time in this run');
			resent = true;
		}
		markInFlight(slot, trace);
		try {
			const answer = (await serviceRequest.call(this, ENDPOINTS.newOrder, { qs, itemIndex, trace })) as IDataObject;
			return placed(answer, false);
		} catch (caught) {
			const error = toNodeError(this.getNode(), caught);
			if (isServiceRejection(error, ERROR_CODES.duplicateClientOrderId)) {
				const settled = await reconcileOrder.call(this, order, trace, itemIndex, true);
				if (settled.kind === 'placed') return placed(settled.order, true);
				if (maybeExecuted) throw stillUnknown(settled.kind === 'unknown' ? settled.reason : 'the lookup did not find it');
				// Only this one attempt was sent, and the service refused it: nothing was executed.
				slot.forget();
				throw withOutcome(error, 'rejected');
			}
			if (outcomeOf(error) === 'unknown' && order.newClientOrderId !== undefined) {
				maybeExecuted = true;
				continue;
			}
			if (outcomeOf(error) === 'unknown') {
				slot.record(unknownEntry(trace));
				throw error;
			}
			// Refused, so this attempt executed nothing; any earlier attempt was proven not executed.
			slot.forget();
			throw withOutcome(error, 'rejected');
		}
	}
}
