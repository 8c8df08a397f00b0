import { NodeOperationError, sleep, type IDataObject } from 'n8n-workflow';

import { CANCEL_NOTHING_TO_CANCEL_CODES, LIMITS } from '../constants';
import { sameCode, toNodeError } from '../transport';
import type { EngineSession, NodeError, PendingWrite, Refusal, Verdict } from '../writes/engine';
import { outcomeOf, withOutcome } from '../writes/outcomes';
import { lostRunText } from '../writes/writeSession';
import {
	findFuturesOrder,
	FUTURES_CANCELLED_STATUSES,
	FUTURES_FILLED_STATUSES,
	FUTURES_OPEN_STATUSES,
	findTriggeredOrder,
	futuresOrderType,
	type FuturesOrderReference,
	type FuturesOrderType,
} from './futuresOrderFind';

// A cancel is sent again only once a lookup proved it was not applied and no attempt of it can be
// applied any more; 0212 says only "already completed or does not exist", so a lookup tells why.

export interface FuturesCancelWrite {
	/** The order as the user named it: what the ledger and every lookup go by. */
	reference: FuturesOrderReference;
	/** LIMIT or STOP, which the cancel must name: given by the user, or found. */
	type?: FuturesOrderType;
	/** The order ID the order was found under: what the request names instead of a client order ID. */
	sendAs?: { orderId: string };
	/** Whether the order was found open before sending: a later "no such order" proves nothing. */
	foundOpen?: boolean;
	/** The triggered stop whose order (sendAs) is cancelled instead (Find Automatically). */
	triggeredStop?: string;
}

export type PendingFuturesCancel = PendingWrite<FuturesCancelWrite>;

/** Refusal.detail. */
export type NotCancelledDetail = {
	reason: string;
	text: string;
	order?: IDataObject;
	/** A triggered stop: the order it placed, which now holds its client order ID. */
	triggeredOrderId?: string;
};

export function isNothingToCancel(code: unknown): boolean {
	return CANCEL_NOTHING_TO_CANCEL_CODES.some((known) => sameCode(code, known));
}

export const sentReference = (write: FuturesCancelWrite): FuturesOrderReference =>
	write.sendAs ?? write.reference;

function refusal(
	reason: string,
	text: string,
	code = '',
	msg = '',
	order?: IDataObject,
	triggeredOrderId?: string,
): Verdict {
	const detail: NotCancelledDetail = { reason, text, ...(order ? { order } : {}) };
	if (triggeredOrderId !== undefined) detail.triggeredOrderId = triggeredOrderId;
	return { kind: 'rejected', refusal: { code, msg, detail } };
}

const triggered = (placedId: string | undefined, code = '', msg = '', order?: IDataObject) => {
	const placed = `: the order it placed, ${placedId}, holds its client order ID now (cancel that one as a Limit order)`;
	const text = `the stop order has triggered${placedId === undefined ? '' : placed}`;
	return refusal('triggered', text, code, msg, order, placedId);
};

const ENDED: Array<[readonly string[], string, string]> = [
	[FUTURES_FILLED_STATUSES, 'alreadyFilled', 'the order is already filled'],
	[
		['PARTIALLY_CANCELED'],
		'alreadyPartiallyCancelled',
		'the order was already cancelled after a partial fill',
	],
	[FUTURES_CANCELLED_STATUSES, 'alreadyCancelled', 'the order is already cancelled'],
];

function notOpen(order: IDataObject, code = '', msg = ''): Verdict | undefined {
	const status = String(order.status);
	if (FUTURES_OPEN_STATUSES.includes(status)) return undefined;
	const [, reason, text] = ENDED.find(([statuses]) => statuses.includes(status)) ?? [
		[],
		'notOpen',
		`the order is no longer open (status ${status})`,
	];
	return refusal(reason, text, code, msg, order);
}

export const notFound = (code = '0211', msg = ''): Verdict =>
	refusal('notFound', 'the service has no futures order with this ID', code, msg);

/** No such order: after it was found open before sending, that proves nothing (unknown). */
const notFoundNow = (pending: PendingFuturesCancel, code = '0211', msg = ''): Verdict =>
	pending.write.foundOpen
		? {
				kind: 'unknown',
				reason:
					'the order was found open before the cancel was sent, and the service now says it has no such order',
			}
		: notFound(code, msg);

/**
 * A triggered stop (ORDER_FILLED) is told apart. `mayCancelPlaced`: the order it placed, the only open
 * one holding the ID, is what gets cancelled (pinned; undefined returned).
 */
export async function ended(
	session: EngineSession,
	pending: PendingFuturesCancel,
	order: IDataObject,
	said: { code?: string; msg?: string; mayCancelPlaced?: boolean } = {},
): Promise<Verdict | undefined> {
	const { code = '', msg = '' } = said;
	if (String(order.status) !== 'ORDER_FILLED') return notOpen(order, code, msg);
	const placed = await findTriggeredOrder(session, order, pending.itemIndex).catch(() => undefined);
	if (placed !== undefined && said.mayCancelPlaced) {
		pending.write.triggeredStop = String(order.orderId);
		return pin(pending, placed, session);
	}
	return triggered(placed && String(placed.orderId), code, msg, order);
}

/** A refusal when the type is unreadable. */
export function pin(
	pending: PendingFuturesCancel,
	order: IDataObject,
	session: EngineSession,
): Verdict | undefined {
	const type = futuresOrderType(order);
	if (type === undefined) {
		const error = new NodeOperationError(
			session.node,
			`Order Type: the service gave the order the type "${String(order.orderType)}", which the node cannot tell as Limit or Stop`,
			{
				description:
					'Nothing was cancelled. Set Order Type to Limit or Stop instead of Find Automatically.',
				itemIndex: pending.itemIndex,
			},
		);
		return { kind: 'rejected', refusal: { error } };
	}
	pending.write.type ??= type;
	pending.write.sendAs ??= { orderId: String(order.orderId) };
	pending.write.foundOpen = true;
	return undefined;
}

/** One created after the first attempt holds the freed ID and proves nothing. */
function createdBeforeSending(pending: PendingFuturesCancel, order: IDataObject): boolean {
	if ('orderId' in sentReference(pending.write)) return true;
	const created = Number(order.time);
	const firstSentAt = pending.window.firstSentAt ?? Date.now();
	return !Number.isFinite(created) || created <= firstSentAt + LIMITS.futureToleranceMs;
}

/** Still open once no attempt can be applied any more: not applied (sent again once). */
export async function confirmFuturesCancel(
	session: EngineSession,
	pending: PendingFuturesCancel,
): Promise<Verdict> {
	for (;;) {
		const lookupStartedAt = Date.now();
		let order: IDataObject | undefined;
		try {
			order = await findFuturesOrder(
				session,
				sentReference(pending.write),
				pending.itemIndex,
				true,
			);
		} catch (error) {
			const reason = `looking the order up failed: ${(error as Error).message}`;
			return { kind: 'unknown', reason, failed: true };
		}
		if (order === undefined) return notFoundNow(pending, '', 'order status not found');
		if (!createdBeforeSending(pending, order))
			return {
				kind: 'unknown',
				reason: `the client order ID now names order ${String(order.orderId)}, placed after the cancel was sent, so the order it was sent for cannot be looked up by it`,
			};
		if (FUTURES_CANCELLED_STATUSES.includes(String(order.status)))
			return { kind: 'placed', result: order };
		const over = await ended(session, pending, order);
		if (over !== undefined) return over;
		const acceptableUntil =
			pending.window.acceptableUntil ??
			lookupStartedAt + LIMITS.maxRecvWindowMs + LIMITS.futureToleranceMs;
		if (lookupStartedAt >= acceptableUntil)
			return pin(pending, order, session) ?? { kind: 'notDone' };
		await sleep(acceptableUntil - lookupStartedAt);
	}
}

/** A cancel refused as having nothing to cancel (or the wrong type), explained. Never throws. */
export async function explainFuturesCancel(
	session: EngineSession,
	pending: PendingFuturesCancel,
	said: Refusal,
): Promise<Verdict> {
	const code = said.code ?? '';
	const msg = said.msg ?? '';
	let order: IDataObject | undefined;
	try {
		order = await findFuturesOrder(session, sentReference(pending.write), pending.itemIndex, true);
	} catch (error) {
		const text = `the service answered that there was nothing to cancel (code ${code}), and looking the order up to tell why failed: ${(error as Error).message}`;
		return refusal('nothingToCancel', text, code, msg);
	}
	if (order === undefined) return notFoundNow(pending, code, msg);
	// After a lost run, that run's cancel may have landed first: cancelled is this write done.
	if (session.lostRun !== undefined && FUTURES_CANCELLED_STATUSES.includes(String(order.status)))
		return { kind: 'placed', result: order, alreadyPlaced: true };
	const over = await ended(session, pending, order, { code, msg });
	if (over !== undefined) return over;
	const type = futuresOrderType(order);
	const sent = pending.write.type;
	// A stop cancelled by its client order ID after it triggered: the order it placed holds the ID.
	if (sent === 'STOP' && type === 'LIMIT' && 'clientOrderId' in sentReference(pending.write))
		return triggered(String(order.orderId), code, msg, order);
	if (type !== undefined && sent !== undefined && type !== sent) {
		const text = `the order is a ${type} order, not ${sent}: set Order Type to ${type === 'STOP' ? 'Stop' : 'Limit'} or Find Automatically`;
		return refusal('wrongType', text, code, msg, order);
	}
	const text = `the service refused the cancel (code ${code}), yet the order is still open (status ${String(order.status)}). Try the cancel again`;
	return refusal('stillOpen', text, code, msg, order);
}

/**
 * A cancel refused after a lost run (not as nothing to cancel, e.g. -1021): the lost run may have
 * cancelled the order, so the refusal alone does not say "nothing was executed". Looked up once.
 */
export async function refusedAfterLostRun(
	session: EngineSession,
	pending: PendingFuturesCancel,
	said: Refusal,
): Promise<Verdict> {
	let order: IDataObject | undefined;
	try {
		order = await findFuturesOrder(session, sentReference(pending.write), pending.itemIndex, true);
	} catch (error) {
		const refused = said.error?.message ?? `code ${said.code ?? ''}`;
		return {
			kind: 'unknown',
			reason: `an earlier run may have cancelled the order, sending the cancel again was refused (${refused}), and looking the order up failed: ${(error as Error).message}`,
			failed: true,
		};
	}
	if (order !== undefined && FUTURES_CANCELLED_STATUSES.includes(String(order.status)))
		return { kind: 'placed', result: order, alreadyPlaced: true };
	return { kind: 'rejected', refusal: said };
}

/**
 * A read a cancel needs before sending (the key's accounts, the open orders) failed: nothing of
 * this run was sent. After a lost run that run may have cancelled, so: unknown, not rejected.
 */
export function readBeforeCancelFailed(
	session: EngineSession,
	error: unknown,
	what: string,
): NodeError {
	const failed = toNodeError(session.node, error);
	if (outcomeOf(failed) !== undefined) return failed;
	const lostRun = session.lostRun;
	if (lostRun === undefined || failed instanceof NodeOperationError)
		return withOutcome(failed, 'rejected');
	failed.description =
		`${lostRunText(lostRun)}, and it may have cancelled these orders; ${what} failed, so nothing was sent this time. ${failed.description ?? ''}`.trim();
	return withOutcome(failed, 'unknown');
}

/**
 * A retry may start while a request of the crashed run is still within its receive window: what
 * a lookup finds after a lost run proves nothing until then (docs/safety.md, "After a crash").
 */
export async function lostRunSettled(session: EngineSession): Promise<void> {
	const from = session.lostRun?.settledFrom ?? 0;
	if (Date.now() < from) await sleep(from - Date.now());
}
