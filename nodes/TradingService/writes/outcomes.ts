import {
	NodeApiError,
	type IDataObject,
	type INode,
	type JsonObject,
	type NodeOperationError,
} from 'n8n-workflow';

import { toNodeError } from '../transport';
import type { WriteLedger } from './ledger';
import type { PendingWrite, WriteWording } from './writeKind';

// A write's outcome as its error and item say it; in the error that stops a run of several
// writes, every item's (its run report).

/**
 * How a write ended: placed (the service executed it), rejected (it executed nothing, so sending it
 * again is safe once the cause is fixed) or unknown (it may have been executed; nobody could tell).
 * Every item and error about a write carries one of them.
 */
export type WriteOutcome = 'placed' | 'rejected' | 'unknown';

interface ErrorWithContext {
	context?: Record<string, unknown>;
}

/** The outcome an error reports for its write, if it is about one. */
export function outcomeOf(error: unknown): WriteOutcome | undefined {
	const outcome = (error as ErrorWithContext | null)?.context?.outcome;
	return outcome === 'placed' || outcome === 'rejected' || outcome === 'unknown'
		? outcome
		: undefined;
}

const OUTCOME_SENTENCES: Record<WriteOutcome, string> = {
	placed: 'Outcome: placed.',
	rejected: 'Outcome: rejected (nothing was executed).',
	unknown: 'Outcome: unknown (it may have been executed).',
};

/**
 * Marks an n8n error with the outcome of the write it is about: in its context (kept in the
 * execution data and in Continue On Fail items) and at the end of its description.
 */
export function withOutcome<E extends NodeApiError | NodeOperationError>(
	error: E,
	outcome: WriteOutcome,
): E {
	error.context.outcome = outcome;
	const sentence = OUTCOME_SENTENCES[outcome];
	const description = error.description ?? '';
	const stripped = description.replace(/ ?Outcome: (placed|rejected|unknown)[^.]*\.$/, '');
	error.description = stripped === '' ? sentence : `${stripped} ${sentence}`;
	return error;
}

/**
 * A write whose outcome nobody knows: it may have been applied (a dropped connection, a timeout, a
 * 5xx, an "execution status unknown" code). Never sent again blindly; the user is told what to check.
 */
export function outcomeUnknownError(
	node: INode,
	wording: WriteWording,
	cause: string,
	detail: string,
	itemIndex: number | undefined,
): NodeApiError {
	const { what, howToCheck } = wording;
	const error = new NodeApiError(node, { outcome: 'unknown' } as JsonObject, {
		message: `Unknown outcome: the ${what} may or may not have been executed (${cause})`,
		description: `${detail}. The service did not confirm the ${what}, so it was not sent again: sending it again could execute it twice. ${howToCheck} before you run this again.`,
		itemIndex,
	});
	return withOutcome(error, 'unknown');
}

/** A Continue On Fail item for an error: its message, description and, for a write, its outcome. */
export function errorItemJson(error: Error & { description?: string | null }): IDataObject {
	const json: IDataObject = { error: error.message, description: error.description ?? undefined };
	const outcome = outcomeOf(error);
	if (outcome !== undefined) json.outcome = outcome;
	return json;
}

/**
 * The error of a write as n8n gets it: an error the write engine did not mark was thrown before
 * anything was sent (bad input, a missing parameter), so nothing was executed.
 */
export function writeError(node: INode, error: unknown) {
	const nodeError = toNodeError(node, error);
	return outcomeOf(nodeError) === undefined ? withOutcome(nodeError, 'rejected') : nodeError;
}

/** What the error stopping a run says of the other items, from the ledger: every try of the run. */
export interface RunReport {
	/** Whether the item the error is about is left out (its one write is the error's). */
	of: 'others' | 'all';
	placed: number[];
	unknown: number[];
	nothingExecuted: number[];
	/** Create Many, whose items may hold many orders: each order of the run. */
	orders?: OrderCounts;
}

/** The writes of a run by what the ledger holds of them once every request in flight answered. */
export interface OrderCounts {
	placed: number;
	/** Sent, and may have been executed. */
	unknown: number;
	/** Sent (or checked against the exchange) and refused: executed nothing. */
	rejected: number;
	/** Never sent: the run stopped first. */
	notSent: number;
}

/** Counts `writes` (every write the run settled or meant to send) by what the ledger holds of each. */
export function orderCounts(writes: Array<PendingWrite<unknown>>): OrderCounts {
	const counts: OrderCounts = { placed: 0, unknown: 0, rejected: 0, notSent: 0 };
	for (const pending of writes) {
		const held = pending.slot.held;
		if (held !== undefined) counts[held]++;
		else if (pending.settled !== undefined || pending.window.firstSentAt !== undefined)
			counts.rejected++;
		else counts.notSent++;
	}
	return counts;
}

function orderParts(counts: OrderCounts): string {
	const parts = [`${counts.placed} placed`];
	if (counts.unknown > 0) parts.push(`${counts.unknown} with an unknown outcome`);
	if (counts.rejected > 0) parts.push(`${counts.rejected} refused (executed nothing)`);
	if (counts.notSent > 0) parts.push(`${counts.notSent} not sent`);
	return parts.join(', ');
}

/** The report of a run's items but `failedItem` (when its other writes cannot have been placed). */
export function runReport(ledger: WriteLedger, itemCount: number, failedItem?: number): RunReport {
	const outcomes = ledger.itemOutcomes();
	const report: RunReport = {
		of: failedItem === undefined ? 'all' : 'others',
		placed: [],
		unknown: [],
		nothingExecuted: [],
	};
	for (let item = 0; item < itemCount; item++) {
		if (item === failedItem) continue;
		const outcome = outcomes.get(item);
		if (outcome === 'placed') report.placed.push(item);
		else if (outcome === 'unknown') report.unknown.push(item);
		else report.nothingExecuted.push(item);
	}
	return report;
}

/** Item numbers as short ranges: "0–2, 5, 8–199". */
export function itemRanges(items: number[]): string {
	const parts: string[] = [];
	for (let start = 0; start < items.length; ) {
		let end = start;
		while (end + 1 < items.length && items[end + 1] === items[end] + 1) end++;
		parts.push(end === start ? String(items[start]) : `${items[start]}–${items[end]}`);
		start = end + 1;
	}
	return parts.join(', ');
}

function counted(label: string, items: number[], note = ''): string {
	const noun = items.length === 1 ? 'item' : 'items';
	return `${label}: ${items.length} ${noun} (${noun} ${itemRanges(items)}${note})`;
}

const RUNNING_AGAIN =
	'Running the node again (Retry On Fail, or a retry of the execution) sends only what was not placed: placed writes are answered from the node’s record, and writes whose outcome is unknown are looked up before anything is sent.';

/** What the run's orders did, in a few words: the start of Create Many's stopping error. */
function headline(orders: OrderCounts): string {
	const maybe = orders.unknown > 0 ? ` (and ${orders.unknown} with an unknown outcome)` : '';
	return `${orders.placed} order${orders.placed === 1 ? '' : 's'} placed${maybe} before the run stopped`;
}

/** The stopping error of a run with its report and what running again does (`context.runReport`). */
export function withRunReport<E extends NodeApiError | NodeOperationError>(
	error: E,
	report: RunReport,
): E {
	const { placed, unknown, nothingExecuted, orders } = report;
	if (placed.length + unknown.length + nothingExecuted.length === 0) return error;
	const executed =
		placed.length + unknown.length + (orders === undefined ? 0 : orders.placed + orders.unknown) >
		0;
	const parts: string[] = [];
	if (placed.length > 0) parts.push(counted('placed, wholly or in part', placed));
	if (unknown.length > 0) parts.push(counted('outcome unknown', unknown));
	if (nothingExecuted.length > 0)
		parts.push(counted('nothing executed', nothingExecuted, ': not sent, or refused'));
	const outcome = outcomeOf(error);
	if (outcome !== undefined) withOutcome(error, outcome);
	// The outcome is of the write the error names: "nothing was executed" would read as the run's
	// while other writes of it were executed.
	if (outcome === 'rejected' && executed)
		error.description = (error.description ?? '').replace(
			/Outcome: rejected \(nothing was executed\)\.$/,
			'Outcome: rejected (the write this error names executed nothing; other writes of this run were executed or may have been, as listed).',
		);
	const items = report.of === 'others' ? 'The other items of this run' : 'The items of this run';
	const ofOrders =
		orders === undefined
			? ''
			: `Orders of this run, once every batch in flight was answered: ${orderParts(orders)}. `;
	const summary = `${ofOrders}${items}: ${parts.join('; ')}.`;
	const own = error.description ?? '';
	const again = executed ? ` ${RUNNING_AGAIN}` : '';
	// Create Many's one error stands for many orders: once some were placed, the run's summary
	// leads, message and all (an unknown outcome's own error already says it may have executed).
	if (orders !== undefined && orders.placed > 0) {
		error.message = `${headline(orders)}: ${error.message}`;
		error.description = `${summary} What stopped it: ${own}${again}`;
	} else {
		error.description = `${own} ${summary}${again}`.trim();
	}
	error.context.runReport = {
		placed: itemRanges(placed),
		unknown: itemRanges(unknown),
		nothingExecuted: itemRanges(nothingExecuted),
		...(orders === undefined ? {} : { orders: { ...orders } }),
	};
	return error;
}
