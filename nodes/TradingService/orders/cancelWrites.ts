import type { IDataObject } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { isServiceRejection, isUnknownOutcomeCode, isZeroCode } from '../transport';
import {
	pendingWrite,
	type EngineSession,
	type PendingWrite,
	type Refusal,
	type Settled,
	type Verdict,
	type WriteKind,
} from '../writes/engine';
import { fingerprint, type WriteLedger } from '../writes/ledger';
import { withOutcome } from '../writes/outcomes';
import {
	checkAfterLostRun,
	confirmCancel,
	explainNothingToCancel,
	isNothingToCancel,
	notOpenReason,
	notOpenRefusal,
	type NotOpenDetail,
} from './cancelLookups';
import { lookUpCancelsInLists } from './listLookups';
import type { OrderReference } from './orderIds';
import { ORDER_ENDPOINTS } from './endpoints';

// Cancels as the engine settles them (Cancel, and Cancel Many by order IDs), and what the items say
// of each. The exchange refuses to cancel an order that is no longer open: a rejection (nothing was
// done), reported as data. Some codes say why (-1139 filled, -1142 cancelled); the UAE variant's
// own (0212, 0211 per ID) do not, so the order is then looked up and the item says what it found.

export interface CancelWrite {
	/** The order as the user named it: what the ledger and every lookup go by. */
	reference: OrderReference;
	/** What the request names instead: a client order ID resolved in the run's account (Cancel). */
	sendAs?: OrderReference;
}

export type PendingCancel = PendingWrite<CancelWrite>;

export function cancelQuery(reference: OrderReference): IDataObject {
	return 'orderId' in reference
		? { orderId: reference.orderId }
		: { clientOrderId: reference.clientOrderId };
}

/** A cancel of the run, with its ledger slot (`slotName`: "3", or "3.1" for the second ID of item 3). */
export function pendingCancel(
	ledger: WriteLedger,
	slotName: string,
	reference: OrderReference,
	itemIndex: number,
): PendingCancel {
	return pendingWrite(
		ledger.slot(slotName, fingerprint('cancelOrder', cancelQuery(reference)), itemIndex),
		{ reference },
		itemIndex,
	);
}

/** What the ledger keeps of a cancelled order: the fields the service assigned, nothing else. */
function storedCancel(order: IDataObject): IDataObject {
	const stored: IDataObject = {};
	for (const field of ['orderId', 'clientOrderId', 'symbol', 'status', 'transactTime']) {
		if (typeof order[field] === 'string' || typeof order[field] === 'number')
			stored[field] = String(order[field]);
	}
	return stored;
}

function referenceText(reference: OrderReference): string {
	return 'orderId' in reference
		? `ID ${reference.orderId}`
		: `with client order ID ${reference.clientOrderId}`;
}

/**
 * What a cancel by IDs' answer says of each ID (docs/operations.md Cancel Many): it lists only the
 * IDs it did not cancel. An unlisted ID was cancelled only when the answer's code is success and
 * every listed entry names an ID sent; otherwise it is unknown, and looked up.
 */
function readCancelByIds(body: unknown, group: PendingCancel[]): Verdict[] {
	const { code, result } = body as IDataObject;
	const sent = new Set(group.map(({ write }) => cancelQuery(write.reference).orderId as string));
	const failures = new Map<string, IDataObject>();
	let unreadEntries = 0;
	for (const entry of (result ?? []) as unknown[]) {
		const orderId =
			entry !== null && typeof entry === 'object' ? (entry as IDataObject).orderId : undefined;
		if ((typeof orderId === 'string' || typeof orderId === 'number') && sent.has(String(orderId)))
			failures.set(String(orderId), entry as IDataObject);
		else unreadEntries++;
	}
	const unlistedReason =
		code !== undefined && code !== null && !isZeroCode(code)
			? `the cancel answer carries code ${String(code)}, so an order it does not list may not be cancelled`
			: unreadEntries > 0
				? `the cancel answer lists ${unreadEntries} failure${unreadEntries === 1 ? '' : 's'} that name no order ID sent, so an order it does not list may be one of them`
				: undefined;
	return group.map(({ write }): Verdict => {
		const orderId = cancelQuery(write.reference).orderId as string;
		const failure = failures.get(orderId);
		if (failure === undefined) {
			return unlistedReason === undefined
				? { kind: 'placed', result: { orderId } }
				: { kind: 'unknown', reason: unlistedReason };
		}
		const failureCode = String(failure.code);
		if (isUnknownOutcomeCode(failure.code))
			return { kind: 'unknown', reason: `the cancel answer gives it code ${failureCode}` };
		// 0211 (the UAE example's code for every failed ID) and the like do not say why: looked up.
		if (isNothingToCancel(failure.code))
			return { kind: 'duplicate', refusal: { code: failureCode, msg: '' } };
		const notOpen = notOpenReason(failure.code) ?? {
			code: failureCode,
			reason: 'refused',
			text: `the service refused with code ${failureCode}`,
		};
		return {
			kind: 'rejected',
			refusal: { code: failureCode, detail: { reason: notOpen.reason, text: notOpen.text } },
		};
	});
}

/** Cancels as the engine settles them: one per request (Cancel), or 100 IDs per request (Cancel Many). */
export function cancelKind(
	run: EngineSession,
	sending: 'single' | 'byIds' | 'listedOpen',
): WriteKind<CancelWrite> {
	return {
		wording: ({ reference }) => ({
			what: `cancel of order ${referenceText(reference)}`,
			howToCheck: `Look up order ${referenceText(reference)} (Trading Service > Order > Get) and check its status`,
		}),
		whyNoLookup: () => undefined,
		unknownDetail: () => 'The node looked the order up and could not tell whether it was cancelled',
		stored: storedCancel,
		groups: (pending) => {
			if (sending === 'single') return pending.map((one) => [one]);
			const groups: PendingCancel[][] = [];
			for (let start = 0; start < pending.length; start += LIMITS.cancelIdsPerRequest)
				groups.push(pending.slice(start, start + LIMITS.cancelIdsPerRequest));
			return groups;
		},
		request: (group) => {
			const { itemIndex, write } = group[0];
			if (sending === 'single') {
				const qs = cancelQuery(write.sendAs ?? write.reference);
				return { endpoint: ORDER_ENDPOINTS.cancelOrder, request: { qs, itemIndex } };
			}
			const ids = group.map((one) => cancelQuery(one.write.reference).orderId).join(',');
			return { endpoint: ORDER_ENDPOINTS.cancelOrderByIds, request: { qs: { ids }, itemIndex } };
		},
		read: (body, group) =>
			sending === 'single'
				? [{ kind: 'placed', result: body as IDataObject }]
				: readCancelByIds(body, group),
		refused: (error) => {
			const said = sending === 'single' && isServiceRejection(error) ? error.rejection : undefined;
			// "Nothing to cancel" without the reason (0212, -2013, ...): the order is looked up.
			if (said !== undefined && isNothingToCancel(said.code))
				return { kind: 'duplicate', refusal: { code: String(said.code), msg: said.msg } };
			const notOpen = said === undefined ? undefined : notOpenReason(said.code);
			if (said !== undefined && notOpen !== undefined)
				return { kind: 'rejected', refusal: notOpenRefusal(notOpen, said.msg) };
			return { kind: 'rejected', refusal: { error } };
		},
		// Orders Cancel Many by symbol just listed open need no check after a lost run.
		precheck:
			sending === 'listedOpen'
				? undefined
				: (pending) => checkAfterLostRun(run, pending, lookUpCancelsInLists),
		// `said`: the refusal of a cancel with nothing to cancel (refused, read), explained by a lookup.
		lookup: (pending, said) =>
			said === undefined ? confirmCancel(run, pending) : explainNothingToCancel(run, pending, said),
		lookupMany: { key: 'cancel', lookUp: (entries) => lookUpCancelsInLists(run, entries) },
		// Two items of one run cancelling one order: the order is cancelled once, and both say so.
		sameWrite: ({ reference, sendAs }) => {
			const sent = sendAs ?? reference;
			return 'orderId' in sent ? sent.orderId : undefined;
		},
		sameWriteOfStored: (stored) =>
			typeof stored.orderId === 'string' && stored.orderId !== '' ? stored.orderId : undefined,
	};
}

// What Cancel and Cancel Many say of each cancel once the engine settled it, and Cancel Many's stop

/** What an item says of a cancel that was applied: answered, replayed from the ledger, or found. */
export function cancelledJson(settled: Extract<Settled, { outcome: 'placed' }>): IDataObject {
	return {
		outcome: 'placed',
		cancelled: true,
		...(settled.via === 'ledger' ? { replayed: true } : {}),
		...(settled.via === 'lookup' ? { confirmedByLookup: true } : {}),
		// Found already cancelled before sending, after a lost run (writes/writeSession.ts).
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
	const { reason, text, order } = refusal.detail as NotOpenDetail;
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
