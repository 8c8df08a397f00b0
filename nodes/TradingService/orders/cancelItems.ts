import type { IDataObject } from 'n8n-workflow';

import { withOutcome } from '../writes/outcomes';
import type { Refusal, Settled } from '../writes/pendingWrite';
import type { PendingCancel } from './cancelWrites';

// What Cancel and Cancel Many say of each cancel once the write engine settled it, and Cancel
// Many's stop when its first request is refused.

/** What an item says of a cancel that was applied: answered, replayed from the ledger, or found. */
export function cancelledJson(settled: Extract<Settled, { outcome: 'placed' }>): IDataObject {
	return {
		outcome: 'placed',
		cancelled: true,
		...(settled.via === 'ledger' ? { replayed: true } : {}),
		...(settled.via === 'lookup' ? { confirmedByLookup: true } : {}),
		// Found already cancelled before sending, after a lost run (writes/writeRun.ts).
		...(settled.via === 'lookup' && settled.alreadyPlaced ? { alreadyPlaced: true } : {}),
		...sharedJson(settled),
	};
}

/** An item whose order another item of the run cancelled (or tried to): which one (writes/sameWrites.ts). */
function sharedJson(settled: Settled): IDataObject {
	return settled.sharedWith === undefined ? {} : { sameCancelAsItem: settled.sharedWith };
}

/**
 * The item of one order of Cancel Many, once the engine settled its cancel: one per order, whether
 * it was named by ID or found open for a symbol.
 */
export function cancelItem(pending: PendingCancel): IDataObject {
	const orderId = 'orderId' in pending.write.reference ? pending.write.reference.orderId : '';
	const settled = pending.settled!;
	if (settled.outcome === 'placed') {
		const status = settled.via === 'lookup' ? { status: settled.result.status } : {};
		return { orderId, ...cancelledJson(settled), ...status };
	}
	if (settled.outcome === 'unknown') {
		return {
			orderId,
			outcome: 'unknown',
			cancelled: null,
			message: `Unknown outcome: the cancel request got no usable answer and ${settled.reason}`,
			// The same advice as for a single cancel: the cancel kind owns the wording.
			howToCheck: `Look up order ID ${orderId} (Trading Service > Order > Get) and check its status`,
			...sharedJson(settled),
		};
	}
	return { ...refusedCancelItem(orderId, settled.refusal), ...sharedJson(settled) };
}

/** The item of a cancel that cancelled nothing, and why. */
function refusedCancelItem(orderId: string, refusal: Refusal): IDataObject {
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

/**
 * Cancel Many's hook after each request: its first request refused while nothing of `pending` is
 * cancelled stops the node with the refusal (nothing was cancelled). A later request's refusal gives
 * its IDs items saying why, since earlier IDs were.
 */
export function stopOnFirstRefusal(
	pending: () => Iterable<PendingCancel>,
): (group: PendingCancel[]) => void {
	let requests = 0;
	return (group) => {
		requests++;
		const first = group[0].settled;
		if (requests > 1 || first?.outcome !== 'rejected' || first.refusal.error === undefined) return;
		if ([...pending()].some((one) => one.settled?.outcome === 'placed')) return;
		throw withOutcome(first.refusal.error, 'rejected');
	};
}
