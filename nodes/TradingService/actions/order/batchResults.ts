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

/** Whether an entry placed an order other than the one sent at its position. */
function placedAnotherOrder(sent: OrderParams, entry: unknown): boolean {
	if (!isObject(entry) || !isZeroCode(entry.code) || !isObject(entry.order)) return false;
	const sameId = sent.newClientOrderId === undefined || entry.order.clientOrderId === sent.newClientOrderId;
	return !sameId || !matchesSentOrder(sent, entry.order);
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
	const positionRefuted = sent.some((order, index) => pairedByPosition[index] && placedAnotherOrder(order, matched[index]));
	return sent.map((order, index): EntryVerdict => {
		if (pairedByPosition[index] && positionRefuted) {
			return { kind: 'unknown', reason: 'the batch answer lists its results in another order than the orders sent, so this order\'s result cannot be told' };
		}
		if (matched[index] === undefined && !positionAgrees && !byId) {
			return { kind: 'unknown', reason: `the batch answer has ${result.length} results for ${sent.length} orders` };
		}
		return verdictOf(order, matched[index]);
	});
}
