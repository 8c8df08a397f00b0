import type { IDataObject } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { ENDPOINTS, isServiceRejection, isUnknownOutcomeCode, isZeroCode } from '../transport';
import type { EngineRun, WriteKind } from '../writes/engine';
import { fingerprint, type WriteLedger } from '../writes/ledger';
import { pendingWrite, type PendingWrite, type Verdict } from '../writes/pendingWrite';
import {
	checkAfterLostRun,
	confirmCancel,
	explainNothingToCancel,
	isNothingToCancel,
	notOpenReason,
	notOpenRefusal,
} from './cancelLookups';
import { lookUpCancelsInLists } from './cancelLists';
import type { OrderReference } from './orderIds';

/**
 * Cancels as the engine settles them (Cancel, and Cancel Many by order IDs). The exchange refuses
 * to cancel an order that is no longer open: that is a rejection (nothing was done), and the
 * operations report it as data, since the order is not open either way. Some codes say why
 * (-1139 filled, -1142 cancelled); the UAE variant's own (0212 "already completed or does not
 * exist", 0211 per ID) do not, so the order is then looked up and the item says what it found.
 */

export interface CancelWrite {
	/** The order as the user named it: what the ledger and every lookup go by. */
	reference: OrderReference;
	/**
	 * What the cancel request names instead, when that differs: a client order ID resolved to its
	 * order ID in the run's account (Cancel, for a key that sees several trading accounts).
	 */
	sendAs?: OrderReference;
}

export type PendingCancel = PendingWrite<CancelWrite>;

/** The reference as the cancel endpoint takes it (DELETE /api/v1/spot/order). */
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
		ledger.slot(slotName, fingerprint('cancelOrder', cancelQuery(reference))),
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

/** "ID 123" or "with client order ID abc". */
function referenceText(reference: OrderReference): string {
	return 'orderId' in reference
		? `ID ${reference.orderId}`
		: `with client order ID ${reference.clientOrderId}`;
}

/**
 * What the answer of DELETE /api/v1/spot/cancelOrderByIds says of each ID. It lists only the IDs it
 * did not cancel, each with a code: an ID it does not list was cancelled only when the answer's own
 * code is success and every listed entry names one of the IDs sent. Otherwise an unlisted ID is
 * unknown (then looked up): an error code over an empty list, or an entry naming its order under
 * another key, says nothing about the IDs it leaves out.
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
export function cancelKind(run: EngineRun, sending: 'single' | 'byIds'): WriteKind<CancelWrite> {
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
		request: (group) =>
			sending === 'single'
				? {
						endpoint: ENDPOINTS.cancelOrder,
						request: {
							qs: cancelQuery(group[0].write.sendAs ?? group[0].write.reference),
							itemIndex: group[0].itemIndex,
						},
					}
				: {
						endpoint: ENDPOINTS.cancelOrderByIds,
						request: {
							qs: { ids: group.map(({ write }) => cancelQuery(write.reference).orderId).join(',') },
							itemIndex: group[0].itemIndex,
						},
					},
		read: (body, group) =>
			sending === 'single'
				? [{ kind: 'placed', result: body as IDataObject }]
				: readCancelByIds(body, group),
		refused: (error) => {
			// "Nothing to cancel" without the reason (0212, -2013, ...): the order is looked up.
			if (
				sending === 'single' &&
				isServiceRejection(error) &&
				isNothingToCancel(error.rejection.code)
			) {
				const { code, msg } = error.rejection;
				return { kind: 'duplicate', refusal: { code: String(code), msg } };
			}
			const notOpen =
				sending === 'single' && isServiceRejection(error)
					? notOpenReason(error.rejection.code)
					: undefined;
			if (notOpen !== undefined && isServiceRejection(error))
				return { kind: 'rejected', refusal: notOpenRefusal(notOpen, error.rejection.msg) };
			return { kind: 'rejected', refusal: { error } };
		},
		precheck: (pending) => checkAfterLostRun(run, pending),
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
