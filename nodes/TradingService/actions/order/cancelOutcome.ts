import { sleep, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { ERROR_CODES, LIMITS } from '../../constants';
import { lookupQuery, type OrderReference } from '../../helpers/orderIds';
import { ENDPOINTS, isServiceRejection, sameCode, serviceRequest, type WriteTrace } from '../../transport';

/**
 * What a cancel of one order came to, shared by Cancel and Cancel Many. The exchange refuses to
 * cancel an order that is no longer open, with a code saying why: that is a rejection (nothing was
 * done), reported as data, since the order is not open either way.
 */

/** Why an order could not be cancelled because it is no longer open: the exchange's codes. */
const NOT_OPEN_REASONS: ReadonlyArray<{ code: string; reason: string; text: string }> = [
	{ code: ERROR_CODES.orderFilled, reason: 'alreadyFilled', text: 'the order is already filled' },
	{ code: ERROR_CODES.orderCancelled, reason: 'alreadyCancelled', text: 'the order is already cancelled' },
	{ code: ERROR_CODES.orderPartiallyCancelled, reason: 'alreadyPartiallyCancelled', text: 'the order was already cancelled after a partial fill' },
	{ code: ERROR_CODES.orderNotOnBook, reason: 'notFound', text: 'the service has no open order with this ID' },
];

export interface NotOpen {
	code: string;
	reason: string;
	text: string;
}

/** The not-open reason of a cancel refused with `code`, if the code is one of them. */
export function notOpenReason(code: unknown): NotOpen | undefined {
	const known = NOT_OPEN_REASONS.find((entry) => sameCode(code, entry.code));
	return known === undefined ? undefined : { ...known, code: known.code };
}

/** The same reasons from a looked-up order's status. */
function notOpenStatus(status: string): NotOpen | undefined {
	if (status === 'FILLED') return notOpenReason(ERROR_CODES.orderFilled);
	if (status === 'CANCELED' || status === 'REJECTED') return notOpenReason(ERROR_CODES.orderCancelled);
	if (status === 'PARTIALLY_CANCELED') return notOpenReason(ERROR_CODES.orderPartiallyCancelled);
	return undefined;
}

const OPEN_STATUSES = ['NEW', 'PARTIALLY_FILLED', 'PENDING_NEW'];

export type ConfirmedCancel =
	/** The order is cancelled now. */
	| { kind: 'cancelled'; order: IDataObject }
	/** The order ended otherwise (filled) or is still open once the cancel can no longer be applied. */
	| { kind: 'notCancelled'; order: IDataObject; notOpen?: NotOpen }
	| { kind: 'unknown'; reason: string };

/**
 * Settles a cancel whose answer was lost, by looking the order up (Order › Get): cancelled means the
 * cancel was applied (or the order was cancelled anyway: either way it is cancelled); filled means it
 * was not; still open after every attempt's receive window has passed means it was not applied.
 */
export async function confirmCancel(
	this: IExecuteFunctions,
	reference: OrderReference,
	trace: WriteTrace,
	itemIndex: number,
): Promise<ConfirmedCancel> {
	const qs: IDataObject = lookupQuery(reference);
	for (;;) {
		const lookupStartedAt = Date.now();
		let order: IDataObject;
		try {
			order = (await serviceRequest.call(this, ENDPOINTS.queryOrder, { qs, itemIndex })) as IDataObject;
		} catch (error) {
			if (isServiceRejection(error, ERROR_CODES.orderNotFound)) {
				return { kind: 'notCancelled', order: {}, notOpen: notOpenReason(ERROR_CODES.orderNotOnBook) };
			}
			return { kind: 'unknown', reason: `looking the order up failed: ${(error as Error).message}` };
		}
		const status = String(order.status);
		if (status === 'CANCELED' || status === 'PARTIALLY_CANCELED') return { kind: 'cancelled', order };
		if (!OPEN_STATUSES.includes(status)) return { kind: 'notCancelled', order, notOpen: notOpenStatus(status) };
		const acceptableUntil = trace.acceptableUntil ?? lookupStartedAt + LIMITS.maxRecvWindowMs + LIMITS.futureToleranceMs;
		if (lookupStartedAt >= acceptableUntil) return { kind: 'notCancelled', order };
		// The cancel may still be applied: look again once no attempt of it can be accepted any more.
		await sleep(acceptableUntil - lookupStartedAt);
	}
}
