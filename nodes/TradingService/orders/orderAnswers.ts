import type { IDataObject } from 'n8n-workflow';

import { ERROR_CODES, LIMITS, MARKET_TYPE_ALIASES, OPEN_ORDER_STATUSES } from '../constants';
import type { OrderParams } from './orderRules';
import { isUnknownOutcomeCode, isZeroCode, sameCode, type SendWindow } from '../transport';
import type { Verdict } from '../writes/pendingWrite';

/**
 * Matching what the service says to the orders sent: a batch answer's entries, and an order found
 * by a lookup. An answer proves "this order" only when the client order ID and the order's own
 * fields match what was sent.
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

/**
 * Whether an order the service holds is the one sent: the same client order ID (when one was
 * sent), symbol, side, type, price and size. The ID comes first: an identical order under another
 * ID is another order.
 */
export function matchesSentOrder(sent: SentOrder, found: IDataObject): boolean {
	return (
		(sent.newClientOrderId === undefined || found.clientOrderId === sent.newClientOrderId) &&
		found.symbol === sent.symbol &&
		found.side === sent.side &&
		sameType(sent, found.type) &&
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

/** The per-order result entry of a batch answer (spec §4.3). */
export interface BatchResultEntry {
	code?: unknown;
	msg?: unknown;
	order?: unknown;
	clientOrderId?: unknown;
}

/** What one entry says about its order. */
export type EntryVerdict =
	/** Code zero and the order, which is the one sent. */
	| { kind: 'placed'; entry: BatchResultEntry; order: IDataObject }
	/** A refusal: the order was not placed. */
	| { kind: 'rejected'; entry: BatchResultEntry }
	/** Refused because an open order holds its client order ID: look that order up. */
	| { kind: 'duplicate'; entry: BatchResultEntry }
	/** Nothing tells whether it was placed. */
	| { kind: 'unknown'; entry?: BatchResultEntry; reason: string };

function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function entryClientOrderId(entry: unknown): string | undefined {
	if (!isObject(entry)) return undefined;
	const id = isObject(entry.order) ? entry.order.clientOrderId : entry.clientOrderId;
	return typeof id === 'string' && id !== '' ? id : undefined;
}

/** One entry, matched to its order, read: placed only with code zero and the order it is about. */
function verdictOf(sent: OrderParams, entry: unknown): EntryVerdict {
	if (!isObject(entry))
		return { kind: 'unknown', reason: 'the batch answer has no result for this order' };
	const result = entry as BatchResultEntry;
	if (result.code === undefined || result.code === null)
		return { kind: 'unknown', entry: result, reason: 'its result carries no code' };
	if (isZeroCode(result.code)) {
		if (!isObject(result.order))
			return {
				kind: 'unknown',
				entry: result,
				reason: 'its result says success but carries no order',
			};
		if (!matchesSentOrder(sent, result.order)) {
			return { kind: 'unknown', entry: result, reason: 'its result is about another order' };
		}
		return { kind: 'placed', entry: result, order: result.order };
	}
	if (sameCode(result.code, ERROR_CODES.duplicateClientOrderId))
		return { kind: 'duplicate', entry: result };
	if (isUnknownOutcomeCode(result.code)) {
		return {
			kind: 'unknown',
			entry: result,
			reason: `its result has code ${String(result.code)}, which means it may have been executed`,
		};
	}
	return { kind: 'rejected', entry: result };
}

/** Whether an entry placed an order other than the one sent at its position. */
function placedAnotherOrder(sent: OrderParams, entry: unknown): boolean {
	if (!isObject(entry) || !isZeroCode(entry.code) || !isObject(entry.order)) return false;
	return !matchesSentOrder(sent, entry.order);
}

/**
 * Matches the entries of a batch answer to the orders sent, and reads each. Entries are matched by
 * client order ID. Position is a fallback for entries that carry no ID (a refused entry has only a
 * code and a message), used only where it provably agrees: the counts agree, every entry that
 * names an ID sits at that order's position, and every placed entry paired by position is the
 * order sent there. Otherwise the orders paired by position are unknown (then looked up by ID, or
 * reported), never rejected: a refusal at the wrong position may belong to a placed order.
 */
export function readBatchResults(sent: OrderParams[], result: unknown[]): EntryVerdict[] {
	const matched: Array<unknown> = new Array(sent.length).fill(undefined);
	const pairedByPosition: boolean[] = new Array(sent.length).fill(false);
	const sentIds = sent.map((order) => order.newClientOrderId);
	// With an order that has no client order ID, the service fills in IDs of its own: only position counts.
	const byId = sentIds.every((id) => id !== undefined);
	let positionAgrees = result.length === sent.length;
	if (byId) {
		const indexOfId = new Map(sentIds.map((id, index) => [id as string, index]));
		const taken = new Set<number>();
		result.forEach((entry, position) => {
			const id = entryClientOrderId(entry);
			if (id === undefined) return;
			const index = indexOfId.get(id);
			if (index !== position) positionAgrees = false;
			if (index === undefined || taken.has(index)) return;
			taken.add(index);
			matched[index] = entry;
		});
		if (positionAgrees) {
			result.forEach((entry, position) => {
				if (entryClientOrderId(entry) !== undefined || matched[position] !== undefined) return;
				matched[position] = entry;
				pairedByPosition[position] = true;
			});
		}
	} else if (positionAgrees) {
		result.forEach((entry, position) => {
			matched[position] = entry;
			pairedByPosition[position] = true;
		});
	}
	const positionRefuted = sent.some(
		(order, index) => pairedByPosition[index] && placedAnotherOrder(order, matched[index]),
	);
	return sent.map((order, index): EntryVerdict => {
		if (pairedByPosition[index] && positionRefuted) {
			return {
				kind: 'unknown',
				reason:
					"the batch answer lists its results in another order than the orders sent, so this order's result cannot be told",
			};
		}
		if (matched[index] === undefined && !positionAgrees && !byId) {
			return {
				kind: 'unknown',
				reason: `the batch answer has ${result.length} results for ${sent.length} orders`,
			};
		}
		return verdictOf(order, matched[index]);
	});
}
