import { sleep, type IDataObject } from 'n8n-workflow';

import {
	CANCEL_NOTHING_TO_CANCEL_CODES,
	CANCEL_PENDING_STATUS,
	CANCELLED_ORDER_STATUSES,
	ERROR_CODES,
	LIMITS,
	OPEN_ORDER_STATUSES,
} from '../constants';
import { inScope } from '../helpers/accountScope';
import { lookupQuery, type OrderReference } from './orderIds';
import {
	ENDPOINTS,
	isServiceRejection,
	isUnknownOutcomeCode,
	isZeroCode,
	sameCode,
	toNodeError,
} from '../transport';
import type { EngineRun, WriteKind } from '../writes/engine';
import { fingerprint, type WriteLedger } from '../writes/ledger';
import {
	pendingWrite,
	type PendingWrite,
	type Refusal,
	type Verdict,
} from '../writes/pendingWrite';

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

/** Why an order could not be cancelled because it is no longer open. */
export interface NotOpen {
	code: string;
	/** Machine-readable: alreadyFilled, alreadyCancelled, alreadyPartiallyCancelled, notFound. */
	reason: string;
	text: string;
}

/** The exchange's codes for an order that is no longer open. */
const NOT_OPEN_REASONS: readonly NotOpen[] = [
	{ code: ERROR_CODES.orderFilled, reason: 'alreadyFilled', text: 'the order is already filled' },
	{
		code: ERROR_CODES.orderCancelled,
		reason: 'alreadyCancelled',
		text: 'the order is already cancelled',
	},
	{
		code: ERROR_CODES.orderPartiallyCancelled,
		reason: 'alreadyPartiallyCancelled',
		text: 'the order was already cancelled after a partial fill',
	},
	{
		code: ERROR_CODES.orderNotOnBook,
		reason: 'notFound',
		text: 'the service has no open order with this ID',
	},
	{
		code: ERROR_CODES.orderNotFound,
		reason: 'notFound',
		text: 'the service has no order with this ID',
	},
];

/** The not-open reason of a cancel refused with `code`, if the code is one of them. */
export function notOpenReason(code: unknown): NotOpen | undefined {
	const known = NOT_OPEN_REASONS.find((entry) => sameCode(code, entry.code));
	return known === undefined ? undefined : { ...known };
}

/**
 * Whether a cancel was refused as having nothing to cancel without saying why (0212, 0211, -1143,
 * -2013): the order may be filled, cancelled or unknown, so it is looked up before it is reported.
 */
export function isNothingToCancel(code: unknown): boolean {
	return CANCEL_NOTHING_TO_CANCEL_CODES.some((known) => sameCode(code, known));
}

/** The same reasons from a looked-up order's status. */
function notOpenStatus(status: string): NotOpen | undefined {
	if (status === 'FILLED') return notOpenReason(ERROR_CODES.orderFilled);
	if (status === 'CANCELED' || status === 'REJECTED')
		return notOpenReason(ERROR_CODES.orderCancelled);
	if (status === 'PARTIALLY_CANCELED') return notOpenReason(ERROR_CODES.orderPartiallyCancelled);
	return undefined;
}

/** A refusal because the order is not open: its code, the service's words, and the reason. */
function notOpenRefusal(notOpen: NotOpen, said: string, order?: IDataObject): Refusal {
	return {
		code: notOpen.code,
		msg: said,
		detail: {
			reason: notOpen.reason,
			text: notOpen.text,
			...(order === undefined ? {} : { order }),
		},
	};
}

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
 * The order a cancel names; undefined when the service has none. An order ID names one order of the
 * whole exchange; a client order ID is unique per account only, so it is looked up in the run's
 * account (helpers/accountScope.ts): a master key's sub account may hold an order under the same
 * client order ID, and that one never settles this cancel.
 */
async function lookUp(run: EngineRun, pending: PendingCancel): Promise<IDataObject | undefined> {
	const { reference } = pending.write;
	const scope = 'orderId' in reference ? undefined : await run.account(pending.itemIndex);
	try {
		const order = (await run.client.request(ENDPOINTS.queryOrder, {
			qs: { ...lookupQuery(reference), ...(scope ? { accountId: scope.accountId } : {}) },
			itemIndex: pending.itemIndex,
		})) as IDataObject;
		return scope === undefined || inScope(scope, order) ? order : undefined;
	} catch (error) {
		if (isServiceRejection(error, ERROR_CODES.orderNotFound)) return undefined;
		throw toNodeError(run.node, error);
	}
}

/**
 * Settles a cancel whose answer was lost, by looking the order up (Order › Get): cancelled means
 * the cancel was applied (or the order was cancelled anyway: either way it is cancelled); filled
 * means it was not; still open once no attempt of the cancel can be applied any more means it was
 * not applied, and may be sent again.
 */
async function confirmCancel(run: EngineRun, pending: PendingCancel): Promise<Verdict> {
	for (;;) {
		const lookupStartedAt = Date.now();
		let order: IDataObject | undefined;
		try {
			order = await lookUp(run, pending);
		} catch (error) {
			return {
				kind: 'unknown',
				reason: `looking the order up failed: ${(error as Error).message}`,
			};
		}
		if (order === undefined) {
			return {
				kind: 'rejected',
				refusal: notOpenRefusal(
					notOpenReason(ERROR_CODES.orderNotOnBook)!,
					'order status not found',
					{},
				),
			};
		}
		const status = String(order.status);
		// Cancelled, or the cancel accepted and being applied: either way no second request is needed.
		if (CANCELLED_ORDER_STATUSES.includes(status) || status === CANCEL_PENDING_STATUS)
			return { kind: 'placed', result: order };
		if (!OPEN_ORDER_STATUSES.includes(status)) {
			const notOpen = notOpenStatus(status);
			// Ended otherwise (filled); a status without a known reason is taken as not cancelled.
			return notOpen === undefined
				? { kind: 'notDone' }
				: { kind: 'rejected', refusal: notOpenRefusal(notOpen, `order status ${status}`, order) };
		}
		const acceptableUntil =
			pending.window.acceptableUntil ??
			lookupStartedAt + LIMITS.maxRecvWindowMs + LIMITS.futureToleranceMs;
		if (lookupStartedAt >= acceptableUntil) return { kind: 'notDone' };
		// The cancel may still be applied: look again once no attempt of it can be accepted any more.
		await sleep(acceptableUntil - lookupStartedAt);
	}
}

/**
 * Settles a cancel the service refused as having nothing to cancel (`said`: its code and words) by
 * looking the order up once: the refusal proves nothing was cancelled, the lookup tells why, and
 * the item says exactly that (a 0212 for an order that filled is "already filled"). Never throws:
 * a lookup that fails leaves a rejection that says so.
 */
async function explainNothingToCancel(
	run: EngineRun,
	pending: PendingCancel,
	said: Refusal,
): Promise<Verdict> {
	const code = said.code ?? '';
	const msg = said.msg ?? '';
	const refusal = (reason: string, text: string, order?: IDataObject): Verdict => ({
		kind: 'rejected',
		refusal: {
			code,
			msg,
			detail: { reason, text, ...(order === undefined ? {} : { order }) },
		},
	});
	let order: IDataObject | undefined;
	try {
		order = await lookUp(run, pending);
	} catch (error) {
		return refusal(
			'nothingToCancel',
			`the service answered that there was nothing to cancel (code ${code}), and looking the order up to tell why failed: ${(error as Error).message}`,
		);
	}
	if (order === undefined) return refusal('notFound', 'the service has no order with this ID');
	const status = String(order.status);
	const notOpen = notOpenStatus(status);
	if (notOpen !== undefined) return refusal(notOpen.reason, notOpen.text, order);
	if (OPEN_ORDER_STATUSES.includes(status)) {
		return refusal(
			'stillOpen',
			`the service refused the cancel (code ${code}), yet the order is still open (status ${status}). Try the cancel again`,
			order,
		);
	}
	return refusal(
		'nothingToCancel',
		`the service answered that there was nothing to cancel (code ${code}); the order's status is ${status}`,
		order,
	);
}

/**
 * After a lost run (writes/recovery.ts): each order is looked up before its cancel is sent. One
 * already cancelled (or being cancelled) is reported placed, found already done (the lost run's
 * cancel, or another's: either way the order is cancelled); any other answer, or a failed lookup,
 * lets the cancel be sent, since cancelling twice moves no money and its answer says the rest.
 */
async function checkAfterLostRun(
	run: EngineRun,
	pending: PendingCancel[],
): Promise<Array<Verdict | undefined>> {
	if (run.lostRun === undefined) return pending.map(() => undefined);
	const verdicts: Array<Verdict | undefined> = [];
	for (const one of pending) {
		try {
			const order = await lookUp(run, one);
			if (order === undefined) {
				verdicts.push(undefined);
				continue;
			}
			const status = String(order.status);
			verdicts.push(
				CANCELLED_ORDER_STATUSES.includes(status) || status === CANCEL_PENDING_STATUS
					? { kind: 'placed', result: order, alreadyPlaced: true }
					: undefined,
			);
		} catch {
			verdicts.push(undefined);
		}
	}
	return verdicts;
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
		const failure = failures.get(cancelQuery(write.reference).orderId as string);
		if (failure === undefined) {
			return unlistedReason === undefined
				? { kind: 'placed', result: {} }
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
	};
}
