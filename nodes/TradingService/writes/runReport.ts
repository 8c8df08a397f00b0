import type { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { WriteLedger } from './ledger';
import { outcomeOf, withOutcome } from './outcomes';
import type { PendingWrite } from './pendingWrite';

/**
 * What the error that stops a run of several writes says of the other items: which have writes
 * placed, which may have, and which executed nothing. Read from the write ledger, so it covers this
 * try and every earlier try of the node run (Retry On Fail, a retried execution), and it is what
 * the next try goes by: placed writes are answered from the ledger, unknown ones looked up first,
 * the rest sent.
 */
export interface RunReport {
	/** Whether the item the error is about is left out (its one write is the error's). */
	of: 'others' | 'all';
	placed: number[];
	unknown: number[];
	nothingExecuted: number[];
	/** Create Many, whose items may hold many orders: what became of each order of the run. */
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

/**
 * The report of the items of a run but `failedItem` (the one the error is about, when its other
 * writes cannot have been placed).
 */
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

/**
 * The stopping error of a run with its report: what became of the other items (and, in Create
 * Many, of every order), and what running again does; kept in the error's context too
 * (`runReport`), as item ranges. A Create Many that executed something leads with its counts,
 * message and description alike, so that nothing the error says of the one request it names
 * ("this request was not executed") reads as the run's summary; otherwise the error comes first.
 */
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
