import { sleep, type IDataObject } from 'n8n-workflow';

import {
	CANCEL_NOTHING_TO_CANCEL_CODES,
	CANCEL_PENDING_STATUS,
	CANCELLED_ORDER_STATUSES,
	ERROR_CODES,
	LIMITS,
	OPEN_ORDER_STATUSES,
} from '../constants';
import { inLanes } from '../helpers/lanes';
import { sameCode } from '../transport';
import type { EngineSession, LookupEntry, PendingWrite, Refusal, Verdict } from '../writes/engine';
import { findOrder, type OrderReference } from './orderIds';

// Why a cancel did nothing (the order is no longer open), and the order looked up to tell: after a
// lost answer, after a refusal that does not say why, and after a lost run.

type CancelWrite = { reference: OrderReference; sendAs?: OrderReference };
type PendingCancel = PendingWrite<CancelWrite>;

/** Why an order could not be cancelled because it is no longer open. */
export interface NotOpen {
	code: string;
	/** Machine-readable: alreadyFilled, alreadyCancelled, alreadyPartiallyCancelled, notFound. */
	reason: string;
	text: string;
}

/** The exchange's codes for an order that is no longer open: code, reason, text. */
const NOT_OPEN_REASONS: ReadonlyArray<[string, string, string]> = [
	[ERROR_CODES.orderFilled, 'alreadyFilled', 'the order is already filled'],
	[ERROR_CODES.orderCancelled, 'alreadyCancelled', 'the order is already cancelled'],
	[
		ERROR_CODES.orderPartiallyCancelled,
		'alreadyPartiallyCancelled',
		'the order was already cancelled after a partial fill',
	],
	[ERROR_CODES.orderNotOnBook, 'notFound', 'the service has no open order with this ID'],
	[ERROR_CODES.orderNotFound, 'notFound', 'the service has no order with this ID'],
];

export function notOpenReason(code: unknown): NotOpen | undefined {
	const known = NOT_OPEN_REASONS.find(([known]) => sameCode(code, known));
	return known === undefined ? undefined : { code: known[0], reason: known[1], text: known[2] };
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

/** What the refusal of a cancel of an order that is not open tells (Refusal.detail). */
export type NotOpenDetail = { reason: string; text: string; order?: IDataObject };

/** A refusal because the order is not open: its code, the service's words, and the reason. */
export function notOpenRefusal(notOpen: NotOpen, said: string, order?: IDataObject): Refusal {
	const detail: NotOpenDetail = { reason: notOpen.reason, text: notOpen.text };
	return {
		code: notOpen.code,
		msg: said,
		detail: order === undefined ? detail : { ...detail, order },
	};
}

/** Cancelled, or the cancel accepted and being applied: either way no second request is needed. */
function isCancelled(status: string): boolean {
	return CANCELLED_ORDER_STATUSES.includes(status) || status === CANCEL_PENDING_STATUS;
}

/** A found order's verdict on a cancel, or when to look again (still open, the cancel may still apply). */
export type CancelFinding = Verdict | { again: number };

/**
 * What an order found after a cancel whose answer was lost says (docs/safety.md): cancelled (or
 * being cancelled), the cancel holds; filled, it was not applied; still open once no attempt can be
 * applied any more, it was not applied; still open before that: look again then.
 */
export function confirmFound(
	order: IDataObject,
	window: PendingCancel['window'],
	lookupStartedAt: number,
): CancelFinding {
	const status = String(order.status);
	if (isCancelled(status)) return { kind: 'placed', result: order };
	if (!OPEN_ORDER_STATUSES.includes(status)) {
		const notOpen = notOpenStatus(status);
		// Ended otherwise (filled); a status without a known reason is taken as not cancelled.
		return notOpen === undefined
			? { kind: 'notDone' }
			: { kind: 'rejected', refusal: notOpenRefusal(notOpen, `order status ${status}`, order) };
	}
	const acceptableUntil =
		window.acceptableUntil ?? lookupStartedAt + LIMITS.maxRecvWindowMs + LIMITS.futureToleranceMs;
	return lookupStartedAt >= acceptableUntil ? { kind: 'notDone' } : { again: acceptableUntil };
}

/** The verdict on a cancel whose lookup found no order: not on the book, nothing cancelled. */
export function notFoundVerdict(): Verdict {
	const notOpen = notOpenReason(ERROR_CODES.orderNotOnBook)!;
	return { kind: 'rejected', refusal: notOpenRefusal(notOpen, 'order status not found', {}) };
}

/**
 * Settles a cancel whose answer was lost, by looking the order up (Order › Get): see confirmFound.
 * Still open while the cancel may still be applied: looked up again once it cannot.
 */
export async function confirmCancel(run: EngineSession, pending: PendingCancel): Promise<Verdict> {
	for (;;) {
		const lookupStartedAt = Date.now();
		let order: IDataObject | undefined;
		try {
			order = await findOrder(run, pending.write.reference, pending.itemIndex, true);
		} catch (error) {
			return {
				kind: 'unknown',
				reason: `looking the order up failed: ${(error as Error).message}`,
				failed: true,
			};
		}
		if (order === undefined) return notFoundVerdict();
		const finding = confirmFound(order, pending.window, lookupStartedAt);
		if (!('again' in finding)) {
			// Sent again, it names the order found in the run's account, never a client order ID
			// alone (docs/safety.md "One account"): a retry resolves none before sending.
			if (finding.kind === 'notDone' && order.orderId !== undefined)
				pending.write.sendAs ??= { orderId: String(order.orderId) };
			return finding;
		}
		// The cancel may still be applied: look again once no attempt of it can be accepted any more.
		await sleep(finding.again - lookupStartedAt);
	}
}

/**
 * What an order found after a cancel refused as having nothing to cancel (`said`) says: nothing
 * was cancelled, and the order tells why (a 0212 for an order that filled is "already filled").
 */
export function explainFound(order: IDataObject | undefined, said: Refusal): Verdict {
	const code = said.code ?? '';
	const msg = said.msg ?? '';
	const refusal = (reason: string, text: string, found?: IDataObject): Verdict => ({
		kind: 'rejected',
		refusal: notOpenRefusal({ code, reason, text }, msg, found),
	});
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
 * Settles a cancel the service refused as having nothing to cancel by looking the order up once
 * (explainFound). Never throws: a lookup that fails leaves a rejection that says so.
 */
export async function explainNothingToCancel(
	run: EngineSession,
	pending: PendingCancel,
	said: Refusal,
): Promise<Verdict> {
	let order: IDataObject | undefined;
	try {
		order = await findOrder(run, pending.write.reference, pending.itemIndex, true);
	} catch (error) {
		const code = said.code ?? '';
		const text = `the service answered that there was nothing to cancel (code ${code}), and looking the order up to tell why failed: ${(error as Error).message}`;
		const notOpen = { code, reason: 'nothingToCancel', text };
		return { kind: 'rejected', refusal: notOpenRefusal(notOpen, said.msg ?? '') };
	}
	return explainFound(order, said);
}

/** Single lookups of a lost run's check in flight at once. */
const LOOKUPS_AT_ONCE = 10;

/** Cancels looked up in their accounts' lists (listLookups.ts), each listed order judged by `judge`. */
type ListLookup = (
	run: EngineSession,
	entries: Array<LookupEntry<CancelWrite>>,
	judge: (entry: LookupEntry<CancelWrite>, order: IDataObject) => Verdict,
) => Promise<Array<Verdict | undefined>>;

/** A lost run's check of an order found: cancelled (or being cancelled) is placed, else sent. */
function foundCancelled(_entry: unknown, order: IDataObject): Verdict {
	return isCancelled(String(order.status))
		? { kind: 'placed', result: order, alreadyPlaced: true }
		: { kind: 'notDone' };
}

/**
 * After a lost run each order is looked up before its cancel is sent: more than a few of one
 * account by order ID in its lists (`inLists`), the others one by one, 10 at a time. One already
 * cancelled (or being cancelled) is reported placed; anything else, or a failed lookup, lets the
 * cancel be sent (cancelling twice moves no money).
 */
export async function checkAfterLostRun(
	run: EngineSession,
	pending: PendingCancel[],
	inLists: ListLookup,
): Promise<Array<Verdict | undefined>> {
	if (run.lostRun === undefined) return pending.map(() => undefined);
	const entries = pending.map((one) => ({ pending: one }));
	const listed = await inLists(run, entries, foundCancelled).catch(() => []);
	const verdicts = pending.map((_, index) => listed[index]);
	const unlisted = [...pending.keys()].filter((index) => listed[index] === undefined);
	await inLanes(unlisted.length, LOOKUPS_AT_ONCE, async (position) => {
		const { write, itemIndex } = pending[unlisted[position]];
		const order = await findOrder(run, write.reference, itemIndex).catch(() => undefined);
		if (order !== undefined) verdicts[unlisted[position]] = foundCancelled(undefined, order);
	});
	return verdicts.map((verdict) => (verdict?.kind === 'placed' ? verdict : undefined));
}
