import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import type { OrderParams } from '../../helpers/orderRules';
import { ENDPOINTS, outcomeUnknownError, withOutcome } from '../../transport';
import type { LedgerEntry, LedgerSlot } from '../../transport/ledger';
import type { WriteTrace } from '../../transport';

/** What the ledger keeps of a placed order: the fields the service assigned, nothing else. */
export function storedOrderResult(order: IDataObject): IDataObject {
	const stored: IDataObject = {};
	for (const field of ['orderId', 'clientOrderId', 'status'] as const) {
		if (typeof order[field] === 'string' || typeof order[field] === 'number') stored[field] = String(order[field]);
	}
	const time = order.transactTime ?? order.time;
	if (typeof time === 'string' || typeof time === 'number') stored.transactTime = String(time);
	return stored;
}

/**
 * An order an earlier try of this node run placed, answered from the ledger: what was sent plus
 * what the service assigned then (its status may have moved on since). Nothing is sent.
 */
export function replayedOrder(order: OrderParams, entry: LedgerEntry): IDataObject {
	const { newClientOrderId, ...sent } = order;
	return { outcome: 'placed', replayed: true, ...sent, clientOrderId: newClientOrderId ?? null, ...(entry.r ?? {}) };
}

/** The ledger record of a write whose outcome is unknown, from its trace. */
export function unknownEntry(trace: WriteTrace): Omit<LedgerEntry, 'v'> {
	const now = Date.now();
	return { o: 'unknown', s: trace.firstSentAt ?? now, u: trace.acceptableUntil ?? now };
}

/** Marks a write in flight: unknown until its answer says otherwise. */
export function markInFlight(slot: LedgerSlot, trace: WriteTrace): void {
	const now = Date.now();
	trace.firstSentAt ??= now;
	slot.record({ o: 'unknown', s: trace.firstSentAt, u: Math.max(trace.acceptableUntil ?? 0, now) });
}

/** How an order is named to the user and what to check, from the endpoint table. */
export function orderWording(order: OrderParams): { what: string; howToCheck: string } {
	return ENDPOINTS.newOrder.write.describe({ qs: order });
}

/** The error for an order whose outcome stays unknown, with the reason the node could not settle it. */
export function orderUnknownError(context: IExecuteFunctions, order: OrderParams, reason: string, itemIndex: number) {
	const { what, howToCheck } = orderWording(order);
	return outcomeUnknownError(
		context.getNode(),
		what,
		reason,
		order.newClientOrderId === undefined
			? 'The order has no client order ID, so the node cannot look it up'
			: `Client order ID ${order.newClientOrderId}`,
		howToCheck,
		itemIndex,
	);
}

/** A rejection after a lookup (e.g. the client order ID is held by another open order). */
export function orderRejectedError(context: IExecuteFunctions, message: string, description: string, itemIndex: number) {
	return withOutcome(new NodeOperationError(context.getNode(), message, { description, itemIndex }), 'rejected');
}
