import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { LIMITS } from '../constants';
import {
	checkHistoryPage,
	historyPageRequest,
	sortNewestFirst,
	type HistoryQuery,
	type HistoryRecord,
} from './historyPage';

export interface WalkOptions {
	/**
	 * A full page of 500 records all created in one millisecond cannot be paged past by time.
	 * `fail` stops with an error (the action node: the user asked for all records); `skip` keeps
	 * the records the service returned and goes on around that millisecond (the trigger: an error
	 * would repeat on every poll and block all later events).
	 */
	overfull: 'fail' | 'skip';
	/** `Date.now()` after which no further page is fetched (the first page always is). */
	deadline?: number;
	/** Most pages to fetch; the walk then stops as at the deadline. */
	maxPages?: number;
	/** Stops the walk once the newest record that satisfies this is known. */
	until?: (record: HistoryRecord) => boolean;
	/** Only the newest this-many records (the first request asks for this many). Unset: all. */
	newest?: number;
}

/** [from, to], inclusive. */
export interface UnreadRange {
	from: number;
	to: number;
}

export interface WalkResult {
	/** Every record read, each once, newest first. */
	records: HistoryRecord[];
	pages: number;
	/** Set when the deadline or `maxPages` stopped the walk: the range not read yet. */
	resume?: UnreadRange;
	/** The newest record read that satisfies `until`. */
	found?: HistoryRecord;
	/** Milliseconds skipped over although the service could not return all their records. */
	overfullMilliseconds: number[];
}

/** Which end of the range the service keeps when the range holds more records than asked for. */
type Selection = 'newest' | 'oldest';

interface Window extends UnreadRange {
	/** Ids already read at `from` and at `to` (bounds are inclusive). */
	knownFrom: Set<string>;
	knownTo: Set<string>;
}

const idsAt = (page: HistoryRecord[], created: number) =>
	new Set(page.filter((record) => Number(record.created) === created).map((record) => record.id));

/**
 * Every record of a range, each once, paged by time (docs/api.md §4.1 "Return All"): a window
 * [from, to] not read yet; a full newest-first page moves `to` down, and a full earliest-first page
 * is followed by one probe of the range above it, which tells which end the service keeps. A full
 * page of one millisecond is overfull (WalkOptions). The transport sends what `next` asks for and
 * hands each answer to `take`.
 */
export class HistoryWalk {
	readonly result: WalkResult = { records: [], pages: 0, overfullMilliseconds: [] };
	private window: Window;
	private selection?: Selection;
	/** While a probe is out: the lower side, read next if the probe finds nothing new. */
	private below?: Window;
	private limit: number;
	private done = false;

	constructor(
		private readonly node: INode,
		private readonly query: HistoryQuery,
		private readonly options: WalkOptions,
		private readonly itemIndex?: number,
	) {
		this.window = {
			from: query.startTime,
			to: query.endTime,
			knownFrom: new Set(),
			knownTo: new Set(),
		};
		this.limit = options.newest ?? LIMITS.historyPageSize;
	}

	next(): { qs: IDataObject; itemIndex?: number } | undefined {
		if (this.done) return undefined;
		const { result, options, window } = this;
		if (window.from > window.to) {
			this.finish();
			return undefined;
		}
		// A probe is never left out: until it is answered, the unread part is two windows.
		const pastDeadline = options.deadline !== undefined && Date.now() >= options.deadline;
		const pastPages = options.maxPages !== undefined && result.pages >= options.maxPages;
		if (this.below === undefined && result.pages > 0 && (pastDeadline || pastPages)) {
			result.resume = { from: window.from, to: window.to };
			this.finish();
			return undefined;
		}
		return historyPageRequest(
			{ ...this.query, startTime: window.from, endTime: window.to },
			this.limit,
			this.itemIndex,
		);
	}

	take(answer: unknown): void {
		const page = answer as HistoryRecord[];
		const limit = this.limit;
		const order = checkHistoryPage(this.node, page, limit, this.itemIndex);
		const { result, window } = this;
		result.pages++;
		// After the first page every request asks for a full page.
		this.limit = LIMITS.historyPageSize;
		let fresh = 0;
		for (const record of order === 'oldestFirst' ? [...page].reverse() : page) {
			const created = Number(record.created);
			if (created === window.from && window.knownFrom.has(record.id)) continue;
			if (created === window.to && window.knownTo.has(record.id)) continue;
			fresh++;
			result.records.push(record);
			if (this.options.until?.(record) === true) {
				if (result.found === undefined || created > Number(result.found.created)) {
					result.found = record;
				}
			}
		}
		const full = page.length >= limit;
		if (this.below !== undefined) {
			// The probe's answer: anything not read yet above the page means the service keeps the
			// earliest records; then nothing below that page is unread.
			if (fresh === 0 && !full) {
				this.selection = 'newest';
				this.window = this.below;
				this.below = undefined;
				this.afterPage();
				return;
			}
			this.selection = 'oldest';
			this.below = undefined;
		}
		if (!full) {
			this.finish();
			return;
		}
		const created = page.map((record) => Number(record.created));
		const oldest = Math.min(...created);
		const newest = Math.max(...created);
		if (order === 'flat') {
			this.overfull(oldest);
		} else if (order === 'newestFirst' || this.selection === 'newest') {
			// The newest records of the window: what is left is below them.
			this.selection ??= 'newest';
			this.window = { ...this.window, to: oldest, knownTo: idsAt(page, oldest) };
		} else if (this.selection === 'oldest') {
			this.window = { ...this.window, from: newest, knownFrom: idsAt(page, newest) };
		} else {
			this.probe(
				{ ...window, from: newest, knownFrom: idsAt(page, newest) },
				{ ...window, to: oldest, knownTo: idsAt(page, oldest) },
			);
		}
		this.afterPage();
	}

	/** A full page of one millisecond: overfull; the walk goes on above and below it. */
	private overfull(created: number): void {
		const { result, options, window } = this;
		const pageSize = LIMITS.historyPageSize;
		if (options.newest === undefined) {
			if (options.overfull === 'fail') {
				throw new NodeOperationError(
					this.node,
					`More than ${pageSize} records share the millisecond ${created} (${new Date(created).toISOString()}); the service cannot page past them by time`,
					{
						description: `${result.records.length} records were read before this point. The service returned a full page of ${pageSize} records all created in that millisecond; it returns at most ${pageSize} records per request and pages only by time, so the rest of that millisecond (if any) cannot be fetched. Narrow the range by Account Type, or contact the exchange.`,
						itemIndex: this.itemIndex,
					},
				);
			}
			result.overfullMilliseconds.push(created);
		}
		// Only the newest records are wanted: a full page of one millisecond is enough of them.
		const above: Window = { ...window, from: created + 1, knownFrom: new Set() };
		const below: Window = { ...window, to: created - 1, knownTo: new Set() };
		if (this.selection === 'newest') this.window = below;
		else if (this.selection === 'oldest') this.window = above;
		else if (above.from > above.to) {
			this.window = below;
		} else this.probe(above, below);
	}

	private probe(above: Window, below: Window): void {
		this.window = above;
		this.below = below;
	}

	private afterPage(): void {
		const { result, options } = this;
		if (this.below !== undefined || this.selection === 'oldest') {
			// Walking up (or not knowing yet): newer records may still come.
			if (options.newest !== undefined) this.keepNewest(options.newest);
			return;
		}
		if (options.newest !== undefined && result.records.length >= options.newest) this.finish();
		else if (result.found !== undefined) this.finish();
	}

	private keepNewest(count: number): void {
		const { result } = this;
		if (result.records.length > count) {
			result.records = sortNewestFirst(result.records).slice(0, count);
		}
	}

	private finish(): void {
		this.done = true;
		sortNewestFirst(this.result.records);
		if (this.options.newest !== undefined) this.keepNewest(this.options.newest);
	}
}
