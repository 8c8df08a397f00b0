import { NodeApiError, updateDisplayOptions, type IDataObject, type IExecuteFunctions, type INodeProperties, type JsonObject } from 'n8n-workflow';

import { optionsCollection } from '../../descriptions/common';
import { orderReferenceFields } from '../../descriptions/orderLookup';
import { describeReference, orderReference, type OrderReference } from '../../helpers/orderIds';
import {
	ENDPOINTS,
	isServiceRejection,
	outcomeOf,
	outcomeUnknownError,
	serviceRequest,
	toNodeError,
	withOutcome,
	type WriteTrace,
} from '../../transport';
import { fingerprint, WriteLedger, type LedgerSlot } from '../../transport/ledger';
import { confirmCancel, notOpenReason, type NotOpen } from './cancelOutcome';

const properties: INodeProperties[] = [
	...orderReferenceFields,
	optionsCollection([
		{
			displayName: 'Fail If Order Not Open',
			name: 'failIfNotOpen',
			type: 'boolean',
			default: false,
			description:
				'Whether to stop with an error when the order is already filled or cancelled. Off: the node outputs an item with outcome "rejected" and the reason, and the workflow goes on.',
		},
	]),
];

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['order'], operation: ['cancel'] } }, properties);

/** The reference as the cancel endpoint takes it (DELETE /api/v1/spot/order). */
function cancelQuery(reference: OrderReference): IDataObject {
	return 'orderId' in reference ? { orderId: reference.orderId } : { clientOrderId: reference.clientOrderId };
}

/** What the ledger keeps of a cancelled order: the fields the service assigned, nothing else. */
function storedCancel(order: IDataObject): IDataObject {
	const stored: IDataObject = {};
	for (const field of ['orderId', 'clientOrderId', 'symbol', 'status', 'transactTime']) {
		if (typeof order[field] === 'string' || typeof order[field] === 'number') stored[field] = String(order[field]);
	}
	return stored;
}

/** The item for an order that is no longer open: a rejection reported as data, without `error`. */
function notOpenItem(reference: OrderReference, notOpen: NotOpen, said: string, order: IDataObject = {}): IDataObject {
	return {
		outcome: 'rejected',
		cancelled: false,
		reason: notOpen.reason,
		message: `Not cancelled: ${notOpen.text}`,
		code: notOpen.code,
		serviceMessage: said,
		...reference,
		...order,
	};
}

/**
 * Cancels one order. Answered: placed (cancelled) or rejected. An order already filled or cancelled
 * is an item saying so (or an error with Fail If Order Not Open). An unknown outcome (no answer,
 * 5xx, -1147) is settled by looking the order up; when the lookup proves the cancel was not applied
 * and the order is still open, the cancel is sent once more. A re-run of the node (Retry On Fail, a
 * retried execution) answers a cancel it already made from the write ledger.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const reference = orderReference(node, this.getNodeParameter('orderId', itemIndex, ''), this.getNodeParameter('clientOrderId', itemIndex, ''), itemIndex);
	const { failIfNotOpen = false } = this.getNodeParameter('options', itemIndex, {}) as { failIfNotOpen?: boolean };
	const qs = cancelQuery(reference);
	const slot = new WriteLedger(this).slot(String(itemIndex), fingerprint('cancelOrder', qs));
	if (slot.entry?.o === 'placed') return [{ outcome: 'placed', cancelled: true, replayed: true, ...(slot.entry.r ?? {}) }];
	const trace: WriteTrace = slot.entry === undefined ? {} : { firstSentAt: slot.entry.s, acceptableUntil: slot.entry.u };
	try {
		return [await settleCancel.call(this, reference, qs, slot, trace, slot.entry?.o === 'unknown', failIfNotOpen, itemIndex)];
	} catch (error) {
		const nodeError = toNodeError(node, error);
		throw outcomeOf(nodeError) === undefined ? withOutcome(nodeError, 'unknown') : nodeError;
	}
}

async function settleCancel(
	this: IExecuteFunctions,
	reference: OrderReference,
	qs: IDataObject,
	slot: LedgerSlot,
	trace: WriteTrace,
	maybeApplied: boolean,
	failIfNotOpen: boolean,
	itemIndex: number,
): Promise<IDataObject> {
	const node = this.getNode();
	const field = 'orderId' in reference ? 'Order ID' : 'Client Order ID';
	const notOpen = (found: NotOpen, said: string, order?: IDataObject): IDataObject => {
		slot.forget();
		if (found.reason === 'notFound' || failIfNotOpen) {
			const error = new NodeApiError(node, { code: found.code, msg: said } as JsonObject, {
				message: `${field}: could not cancel ${describeReference(reference)}: ${found.text}`,
				description:
					found.reason === 'notFound'
						? `The service said: "${said}" (code ${found.code}). Check the ${field}: it must be an open order of this API key's own account. Nothing was cancelled.`
						: `The service said: "${said}" (code ${found.code}). Nothing was cancelled. Turn off Fail If Order Not Open to get an item instead of an error.`,
				itemIndex,
			});
			throw withOutcome(error, 'rejected');
		}
		return notOpenItem(reference, found, said, order);
	};
	const unknown = (reason: string) => {
		slot.record({ o: 'unknown', s: trace.firstSentAt ?? Date.now(), u: trace.acceptableUntil ?? Date.now() });
		const { what, howToCheck } = ENDPOINTS.cancelOrder.write.describe({ qs });
		return outcomeUnknownError(node, what, reason, 'The node looked the order up and could not tell whether it was cancelled', howToCheck, itemIndex);
	};

	for (let sent = 0; ; sent++) {
		if (maybeApplied) {
			const confirmed = await confirmCancel.call(this, reference, trace, itemIndex);
			if (confirmed.kind === 'cancelled') {
				slot.record({ o: 'placed', r: storedCancel(confirmed.order) });
				return { outcome: 'placed', cancelled: true, confirmedByLookup: true, ...confirmed.order };
			}
			if (confirmed.kind === 'unknown') throw unknown(confirmed.reason);
			if (confirmed.notOpen !== undefined) return notOpen(confirmed.notOpen, `order status ${String(confirmed.order.status ?? 'not found')}`, confirmed.order);
			// Still open, and no attempt of the cancel can be applied any more: safe to send again, once.
			if (sent >= 2) throw unknown('the order was still open after the cancel was sent twice');
		}
		trace.firstSentAt ??= Date.now();
		slot.record({ o: 'unknown', s: trace.firstSentAt, u: Math.max(trace.acceptableUntil ?? 0, Date.now()) });
		try {
			const answer = (await serviceRequest.call(this, ENDPOINTS.cancelOrder, { qs, itemIndex, trace })) as IDataObject;
			slot.record({ o: 'placed', r: storedCancel(answer) });
			return { outcome: 'placed', cancelled: true, ...answer };
		} catch (caught) {
			const error = toNodeError(node, caught);
			if (isServiceRejection(error)) {
				const found = notOpenReason(error.rejection.code);
				if (found !== undefined) return notOpen(found, error.rejection.msg);
			}
			if (outcomeOf(error) === 'unknown') {
				maybeApplied = true;
				continue;
			}
			slot.forget();
			throw withOutcome(error, 'rejected');
		}
	}
}
