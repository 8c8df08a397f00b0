import { sleep, type IDataObject, type INode, type NodeOperationError } from 'n8n-workflow';

import { LIMITS, MARKET_TYPE_ALIASES, OPEN_ORDER_STATUSES } from '../constants';
import type { SendWindow } from '../transport';
import type { EngineSession, PendingWrite, Refusal, Verdict } from '../writes/engine';
import { findOrder } from './orderIds';
import { refusedError, type OrderParams } from './orderRules';

// An order sent earlier, found again: in the write ledger (what it keeps of a placed order), or at
// the service by its client order ID after an answer that leaves its outcome unknown. An order the
// service holds is the one sent only when the client order ID and the order's own fields match.

/** The fields Fit to Symbol Rules may change. */
export const FITTED_FIELDS = ['price', 'quantity', 'amount'] as const;

/**
 * What the ledger keeps of a placed order: the fields the service assigned, and, when Fit to
 * Symbol Rules changed the order, the values sent (a re-run may not be able to fit it again).
 */
export function storedOrderResult(
	order: IDataObject,
	write?: { order: OrderParams; given?: OrderParams },
): IDataObject {
	const stored: IDataObject = {};
	if (write?.given !== undefined) {
		const sent: IDataObject = {};
		for (const field of FITTED_FIELDS)
			if (write.order[field] !== undefined) sent[field] = write.order[field];
		stored.sent = sent;
	}
	for (const field of ['orderId', 'clientOrderId', 'status'] as const) {
		if (typeof order[field] === 'string' || typeof order[field] === 'number')
			stored[field] = String(order[field]);
	}
	const time = order.transactTime ?? order.time;
	if (typeof time === 'string' || typeof time === 'number') stored.transactTime = String(time);
	return stored;
}

/**
 * An order an earlier try of this node run placed, answered from the ledger: what was sent plus
 * what the service assigned then (its status may have moved on since). Nothing is sent.
 */
export function replayedOrder(order: OrderParams, stored: IDataObject): IDataObject {
	const { newClientOrderId, ...given } = order;
	const { sent, ...assigned } = stored;
	return {
		outcome: 'placed',
		replayed: true,
		...given,
		...(sent as IDataObject | undefined),
		clientOrderId: newClientOrderId ?? null,
		...assigned,
	};
}

type PendingOrder = PendingWrite<{ order: OrderParams }>;

/** The fields of an order as sent: enough to tell it from another order that holds the same ID. */
export interface SentOrder extends IDataObject {
	symbol: string;
	side: string;
	type: string;
	newClientOrderId?: string;
	price?: string;
	quantity?: string;
	amount?: string;
	timeInForce?: string;
}

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

/**
 * Whether a found type is the type sent: the exchange may name a MARKET order after the field its
 * size was given in (MARKET_OF_BASE for a quantity, MARKET_OF_QUOTE for an amount).
 */
function sameType(sent: SentOrder, found: unknown): boolean {
	if (found === sent.type) return true;
	const sizeField = typeof found === 'string' ? MARKET_TYPE_ALIASES[found] : undefined;
	return sent.type === 'MARKET' && sizeField !== undefined && sent[sizeField] !== undefined;
}

/** A LIMIT order's time in force (GTC, IOC or FOK on the unified endpoint) is part of the order. */
function sameTimeInForce(sent: SentOrder, found: unknown): boolean {
	if (sent.type !== 'LIMIT' || sent.timeInForce === undefined) return true;
	return found === undefined || found === null || found === sent.timeInForce;
}

/**
 * Whether an order the service holds is the one sent: the same client order ID (when one was
 * sent), symbol, side, type, price, size and a LIMIT order's time in force. The ID comes first:
 * an identical order under another ID is another order.
 */
export function matchesSentOrder(sent: SentOrder, found: IDataObject): boolean {
	return (
		(sent.newClientOrderId === undefined || found.clientOrderId === sent.newClientOrderId) &&
		found.symbol === sent.symbol &&
		found.side === sent.side &&
		sameType(sent, found.type) &&
		sameDecimal(sent.price, found.price) &&
		sameDecimal(sent.quantity, found.origQty) &&
		sameDecimal(sent.amount, found.reqAmount) &&
		sameTimeInForce(sent, found.timeInForce)
	);
}

/**
 * What a found order says about the write. The exchange accepts a request only while its clock is
 * less than the future tolerance behind the request's timestamp: an order it stamped before the
 * first attempt's start minus that tolerance existed before this write was first sent.
 */
export function judgeFound(
	sent: SentOrder,
	found: IDataObject,
	window: SendWindow,
	duplicateAnswered: boolean,
): Verdict {
	const matches = matchesSentOrder(sent, found);
	const stamped = Number(found.time ?? found.transactTime);
	const sinceFirstAttempt =
		window.firstSentAt !== undefined &&
		Number.isFinite(stamped) &&
		stamped > window.firstSentAt - LIMITS.futureToleranceMs;
	const open = OPEN_ORDER_STATUSES.includes(String(found.status));
	if (matches && sinceFirstAttempt)
		return { kind: 'placed', result: found, alreadyPlaced: duplicateAnswered };
	// An open order holding the ID refused every attempt of this write (the service refuses an ID an
	// open order holds, and an order never reopens): the order meant is the one found.
	if (matches && open) return { kind: 'placed', result: found, alreadyPlaced: true };
	if (sent.newClientOrderId !== undefined && found.clientOrderId !== sent.newClientOrderId) {
		return {
			kind: 'unknown',
			reason: `the lookup by client order ID ${sent.newClientOrderId} answered order ${String(found.orderId)}, which holds client order ID ${String(found.clientOrderId)}, so it cannot tell whether this one was placed`,
		};
	}
	return {
		kind: 'unknown',
		reason: `the lookup found another order with client order ID ${sent.newClientOrderId} (order ${String(found.orderId)}, ${String(found.side)} ${String(found.type)} ${String(found.symbol)}, status ${String(found.status)}), so it cannot tell whether this one was placed; give every order its own client order ID`,
	};
}

/**
 * An order whose outcome is unknown, looked up by its client order ID. Not found proves nothing
 * (docs/safety.md): the exchange may still create it later than any receive window, and refuses an
 * ID only while its order is open, so a second attempt could fill twice. It is never sent again:
 * looked up once more after its attempts' receive window, and unknown if still not found.
 * `duplicate`: the last attempt was refused because an open order holds the ID.
 */
export async function lookUpOrder(
	run: EngineSession,
	pending: PendingOrder,
	duplicate: Refusal | undefined,
): Promise<Verdict> {
	const { order } = pending.write;
	const clientOrderId = order.newClientOrderId;
	if (clientOrderId === undefined)
		return { kind: 'unknown', reason: 'the order has no client order ID to look it up by' };
	for (let lookups = 1; ; lookups++) {
		const lookupStartedAt = Date.now();
		let found: IDataObject | undefined;
		try {
			found = await findOrder(run, { clientOrderId }, pending.itemIndex, true);
		} catch (error) {
			return {
				kind: 'unknown',
				reason: `looking the order up by its client order ID failed: ${(error as Error).message}`,
				failed: true,
			};
		}
		if (found !== undefined)
			return judgeFound(order, found, pending.window, duplicate !== undefined);
		if (duplicate !== undefined) {
			const reason = `the service said an open order holds client order ID ${clientOrderId}, but a lookup did not find it`;
			return { kind: 'unknown', reason };
		}
		const acceptableUntil =
			pending.window.acceptableUntil ??
			lookupStartedAt + LIMITS.maxRecvWindowMs + LIMITS.futureToleranceMs;
		if (lookups > 1 || lookupStartedAt >= acceptableUntil) {
			const reason = `no order with client order ID ${clientOrderId} was found, which does not prove it was not placed: the exchange may still create it after a timeout, so it was not sent again`;
			return { kind: 'unknown', reason };
		}
		await sleep(acceptableUntil - lookupStartedAt);
	}
}

/**
 * A write refused because an open order holds its client order ID: placed if the order found is
 * this one; else rejected when only this attempt was sent, unknown after earlier unknown ones.
 */
export async function lookUpDuplicate(
	run: EngineSession,
	pending: PendingOrder,
	duplicate: Refusal,
): Promise<Verdict> {
	const verdict = await lookUpOrder(run, pending, duplicate);
	if (verdict.kind === 'placed' || pending.maybeExecuted) return verdict;
	const reason = verdict.kind === 'unknown' ? verdict.reason : 'the lookup did not find it';
	return {
		kind: 'rejected',
		refusal: {
			...duplicate,
			error: duplicate.error ?? duplicateRefusedError(run.node, pending, reason),
		},
	};
}

/** A batch entry refused as a duplicate, whose holder is not this order. */
function duplicateRefusedError(
	node: INode,
	pending: PendingOrder,
	reason: string,
): NodeOperationError {
	return refusedError(
		node,
		'An open order already uses this client order ID',
		`The service refused order ${pending.write.order.newClientOrderId} as a duplicate, and ${reason}. This request placed nothing.`,
		pending.itemIndex,
	);
}
