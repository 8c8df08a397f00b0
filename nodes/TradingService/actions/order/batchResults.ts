import type { IDataObject } from 'n8n-workflow';

import { ERROR_CODES } from '../../constants';
import type { OrderParams } from '../../helpers/orderRules';
import { isUnknownOutcomeCode, isZeroCode, sameCode } from '../../transport';
import { matchesSentOrder } from '../../transport/reconcile';

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
	if (!isObject(entry)) return { kind: 'unknown', reason: 'the batch answer has no result for this order' };
	const result = entry as BatchResultEntry;
	if (result.code === undefined || result.code === null) return { kind: 'unknown', entry: result, reason: 'its result carries no code' };
	if (isZeroCode(result.code)) {
		if (!isObject(result.order)) return { kind: 'unknown', entry: result, reason: 'its result says success but carries no order' };
		const sameId = sent.newClientOrderId === undefined || result.order.clientOrderId === sent.newClientOrderId;
		if (!sameId || !matchesSentOrder(sent, result.order)) {
			return { kind: 'unknown', entry: result, reason: 'its result is about another order' };
		}
		return { kind: 'placed', entry: result, order: result.order };
	}
	if (sameCode(result.code, ERROR_CODES.duplicateClientOrderId)) return { kind: 'duplicate', entry: result };
	if (isUnknownOutcomeCode(result.code)) {
		return { kind: 'unknown', entry: result, reason: `its result has code ${String(result.code)}, which means it may have been executed` };
	}
	return { kind: 'rejected', entry: result };
}

/**
 * Matches the entries of a batch answer to the orders sent, and reads each. Entries are matched by
 * client order ID; position is a fallback, used only where it provably agrees: every entry that
 * names an ID sits at that order's position (or none names one) and the counts agree. An order no
 * entry can be matched to is unknown.
 */
export function readBatchResults(sent: OrderParams[], result: unknown[]): EntryVerdict[] {
	const matched: Array<unknown> = new Array(sent.length).fill(undefined);
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
				if (entryClientOrderId(entry) === undefined && matched[position] === undefined) matched[position] = entry;
			});
		}
	} else if (positionAgrees) {
		result.forEach((entry, position) => (matched[position] = entry));
	}
	return sent.map((order, index) =>
		matched[index] === undefined && !positionAgrees && !byId
			? { kind: 'unknown', reason: `the batch answer has ${result.length} results for ${sent.length} orders` }
			: verdictOf(order, matched[index]),
	);
}
