import { sleep, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { ERROR_CODES, LIMITS } from '../constants';
import { ENDPOINTS, type WriteTrace } from './endpoints';
import { isServiceRejection } from './errors';
import { serviceRequest } from './index';

/**
 * Reconciling an order whose outcome is unknown: look it up by its client order ID
 * (GET /api/v1/spot/order?origClientOrderId=…, the family's query-order endpoint) instead of
 * assuming anything. The family only refuses a client order ID while an order holding it is open,
 * so a blind re-send of an order that was placed and filled would place it again: an order is sent
 * once more only when the lookup proves the earlier attempts were not, and can no longer be,
 * executed.
 */

/** The fields of an order as sent: enough to tell it from another order that holds the same ID. */
export interface SentOrder extends IDataObject {
	symbol: string;
	side: string;
	type: string;
	newClientOrderId?: string;
	price?: string;
	quantity?: string;
	amount?: string;
}

export type Reconciled =
	/** The lookup found the order: it was placed. `alreadyPlaced`: it existed before the last request. */
	| { kind: 'placed'; order: IDataObject; alreadyPlaced: boolean }
	/** Not found once no attempt could still be accepted: it was not executed. */
	| { kind: 'notPlaced' }
	/** The lookup failed, or found an order that may not be this one. */
	| { kind: 'unknown'; reason: string };

const OPEN_STATUSES = ['NEW', 'PARTIALLY_FILLED'];

/** A decimal as digits without insignificant zeros ("0.0100" and "0.01" are one number). */
function decimalKey(value: unknown): string | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const match = /^(\d*)(?:\.(\d*))?$/.exec(String(value).trim());
	if (match === null) return String(value);
	const whole = match[1].replace(/^0+(?=\d)/, '') || '0';
	const fraction = (match[2] ?? '').replace(/0+$/, '');
	return fraction === '' ? whole : `${whole}.${fraction}`;
}

function sameDecimal(sent: string | undefined, found: unknown): boolean {
	if (sent === undefined || found === undefined || found === null) return true;
	return decimalKey(sent) === decimalKey(found);
}

/** Whether an order the service holds is the one sent: same symbol, side, type, price and size. */
export function matchesSentOrder(sent: SentOrder, found: IDataObject): boolean {
	return (
		found.symbol === sent.symbol &&
		found.side === sent.side &&
		found.type === sent.type &&
		sameDecimal(sent.price, found.price) &&
		sameDecimal(sent.quantity, found.origQty) &&
		sameDecimal(sent.amount, found.reqAmount)
	);
}

/**
 * What a found order says about the write. The service stamps an order with its own clock, and
 * accepts a request only while that clock is less than the future tolerance behind the request's
 * timestamp: an order stamped at or before the first attempt's start minus that tolerance existed
 * before this write was first sent.
 */
function judge(sent: SentOrder, found: IDataObject, trace: WriteTrace, duplicateAnswered: boolean): Reconciled {
	const matches = matchesSentOrder(sent, found);
	const stamped = Number(found.time ?? found.transactTime);
	const sinceFirstAttempt =
		trace.firstSentAt !== undefined && Number.isFinite(stamped) && stamped > trace.firstSentAt - LIMITS.futureToleranceMs;
	const open = OPEN_STATUSES.includes(String(found.status));
	if (matches && sinceFirstAttempt) return { kind: 'placed', order: found, alreadyPlaced: duplicateAnswered };
	// An open order holding the ID refused every attempt of this write (the service refuses an ID an
	// open order holds, and an order never reopens): the order meant is the one found.
	if (matches && open) return { kind: 'placed', order: found, alreadyPlaced: true };
	return {
		kind: 'unknown',
		reason: `the lookup found another order with client order ID ${sent.newClientOrderId} (order ${String(found.orderId)}, ${String(found.side)} ${String(found.type)} ${String(found.symbol)}, status ${String(found.status)}), so it cannot tell whether this one was placed; give every order its own client order ID`,
	};
}

/**
 * Looks an order up by its client order ID until the lookup settles its outcome:
 * - found: placed, with the order as the service holds it now;
 * - not found once `trace.acceptableUntil` has passed (no attempt can still be accepted): not placed;
 * - not found before that: waits until it has passed, then looks again;
 * - the lookup fails: unknown.
 * `duplicateAnswered`: the last attempt was refused because an open order holds the ID.
 */
export async function reconcileOrder(
	this: IExecuteFunctions,
	sent: SentOrder,
	trace: WriteTrace,
	itemIndex: number,
	duplicateAnswered = false,
): Promise<Reconciled> {
	const clientOrderId = sent.newClientOrderId;
	if (clientOrderId === undefined) return { kind: 'unknown', reason: 'the order has no client order ID to look it up by' };
	for (;;) {
		// The lookup is signed during the request, so its timestamp is at least this; the service
		// accepted it, so its clock had passed that timestamp minus the future tolerance.
		const lookupStartedAt = Date.now();
		let found: IDataObject | undefined;
		try {
			found = (await serviceRequest.call(this, ENDPOINTS.queryOrder, { qs: { origClientOrderId: clientOrderId }, itemIndex })) as IDataObject;
		} catch (error) {
			if (!isServiceRejection(error, ERROR_CODES.orderNotFound)) {
				return { kind: 'unknown', reason: `looking the order up by its client order ID failed: ${(error as Error).message}` };
			}
		}
		if (found !== undefined) return judge(sent, found, trace, duplicateAnswered);
		if (duplicateAnswered) {
			return { kind: 'unknown', reason: `the service said an open order holds client order ID ${clientOrderId}, but a lookup did not find it` };
		}
		const acceptableUntil = trace.acceptableUntil ?? lookupStartedAt + LIMITS.maxRecvWindowMs + LIMITS.futureToleranceMs;
		if (lookupStartedAt >= acceptableUntil) return { kind: 'notPlaced' };
		await sleep(acceptableUntil - lookupStartedAt);
	}
}
