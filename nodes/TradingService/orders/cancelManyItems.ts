import type { IDataObject } from 'n8n-workflow';

import type { PendingCancel } from './cancelWrites';

/**
 * The items of Cancel Many: one per order, whether it was named by ID or found open for a symbol,
 * each with the outcome of its cancel.
 */

/** The item of one order, once the engine settled its cancel. */
export function cancelItem(pending: PendingCancel): IDataObject {
	const orderId = 'orderId' in pending.write.reference ? pending.write.reference.orderId : '';
	const settled = pending.settled!;
	if (settled.outcome === 'placed') {
		if (settled.via === 'ledger')
			return { orderId, outcome: 'placed', cancelled: true, replayed: true };
		if (settled.via === 'lookup')
			return {
				orderId,
				outcome: 'placed',
				cancelled: true,
				confirmedByLookup: true,
				// Found already cancelled before sending, after a lost run (writes/recovery.ts).
				...(settled.alreadyPlaced ? { alreadyPlaced: true } : {}),
				status: settled.result.status,
			};
		return { orderId, outcome: 'placed', cancelled: true };
	}
	if (settled.outcome === 'unknown') {
		return {
			orderId,
			outcome: 'unknown',
			cancelled: null,
			message: `Unknown outcome: the cancel request got no usable answer and ${settled.reason}`,
			// The same advice as for a single cancel: the cancel kind owns the wording.
			howToCheck: `Look up order ID ${orderId} (Trading Service > Order > Get) and check its status`,
		};
	}
	const { refusal } = settled;
	if (refusal.error !== undefined) {
		return {
			orderId,
			outcome: 'rejected',
			cancelled: false,
			reason: 'requestRefused',
			message: `Not cancelled: ${refusal.error.message}`,
		};
	}
	const { reason, text, order } = refusal.detail as {
		reason: string;
		text: string;
		order?: IDataObject;
	};
	if (order !== undefined) {
		return {
			orderId,
			outcome: 'rejected',
			cancelled: false,
			confirmedByLookup: true,
			reason,
			message: `Not cancelled: ${text}`,
			...(order.status === undefined ? {} : { status: order.status }),
		};
	}
	return {
		orderId,
		outcome: 'rejected',
		cancelled: false,
		reason,
		message: `Not cancelled: ${text}`,
		code: refusal.code,
	};
}
