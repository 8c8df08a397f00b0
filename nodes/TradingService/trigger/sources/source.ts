import type { IDataObject, NodeOperationError } from 'n8n-workflow';

import type { ServiceClient } from '../../transport';
import type { KeyedRecord } from '../state';

/**
 * What the trigger reads its events from: the account history (history.ts) or the account's
 * trades (fills.ts). The baseline, the catch-up, the test event and the state are the same for
 * both; a source says what a page request is, how pages are checked, and how records are ordered,
 * keyed and filtered.
 */
export interface EventSource<R extends IDataObject> {
	/** The state's query key: when it changes, the trigger starts over like a first activation. */
	query: string;
	/** How many records a full page holds. */
	pageSize: number;
	/** Wording of the warning when an unfinished catch-up fell out of the retention window. */
	expiredCatchUp: string;
	/** A record as the state keeps it: its id, and its time in the place of `created`. */
	key(record: R): KeyedRecord;
	oldestFirst(a: R, b: R): number;
	/** Whether a record passes the trigger's filters. */
	matches(record: R): boolean;
	/** Reads a range, each record once, newest first, within what `options` allow. */
	read(client: ServiceClient, range: ReadRange, options: ReadOptions<R>): Promise<RangeRead<R>>;
	/** The error of Fetch Test Event when the read found no record that matches. */
	noTestEvent(read: RangeRead<R>): NodeOperationError;
}

/** A time range (both bounds inclusive, ms); fills: only those with a trade ID below `belowId`. */
export interface ReadRange {
	startTime: number;
	endTime: number;
	belowId?: string;
}

/** The unread rest of a range: [from, to], inclusive; fills: below the trade ID `belowId`. */
export interface UnreadRest {
	from: number;
	to: number;
	belowId?: string;
}

export interface ReadOptions<R> {
	/** `Date.now()` after which no further page is fetched. The first page is always fetched. */
	deadline?: number;
	/** Most pages to fetch; the read then stops as at the deadline. */
	maxPages?: number;
	/** Stops once the newest record that satisfies this is known (`found`). */
	until?: (record: R) => boolean;
	/** Only the newest page is wanted (the baseline). */
	newestPage?: boolean;
}

export interface RangeRead<R> {
	/** Every record read, each once, newest first. */
	records: R[];
	/** With `until`: the newest record read that satisfies it. */
	found?: R;
	/** Set when the deadline or `maxPages` stopped the read: what of the range is still unread. */
	resume?: UnreadRest;
	/** Milliseconds the service could not return all records of (history only). */
	overfullMilliseconds?: number[];
}
