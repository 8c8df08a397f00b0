import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type INode,
	type JsonObject,
} from 'n8n-workflow';

import { DAY_MS, LIMITS, findFlowType } from '../constants';
import { inputError } from './validation';

/** One account transaction record (spec §2.1), exactly as the service returned it. */
export interface HistoryRecord extends IDataObject {
	id: string;
	created: string;
}

export interface HistoryQuery {
	flowType: number;
	accountType?: number;
	startTime: number;
	endTime: number;
}

/**
 * A start a little older than the retention window is still accepted: "30 days ago" computed a
 * moment before the check would otherwise fail. The service simply has nothing that old.
 */
const RETENTION_GRACE_MS = 5 * 60 * 1000;

export function retentionStart(flowType: number, now: number): number {
	const retentionDays = findFlowType(flowType)?.retentionDays ?? 30;
	return now - retentionDays * DAY_MS;
}

/**
 * Checks a time range against the service's rules before anything is sent: start not after end, and
 * start inside the flow type's retention window, or moved up to it when `clamp` is set.
 */
export function checkHistoryRange(
	node: INode,
	query: HistoryQuery,
	now: number,
	clamp: boolean,
	itemIndex?: number,
): HistoryQuery {
	const flowType = findFlowType(query.flowType);
	if (flowType === undefined) {
		throw inputError(
			node,
			'Flow Type',
			`${query.flowType} is not a flow type the service knows`,
			'Pick a flow type from the list.',
			itemIndex,
		);
	}
	const oldest = retentionStart(query.flowType, now);
	let startTime = query.startTime;
	if (startTime < oldest - RETENTION_GRACE_MS) {
		if (!clamp) {
			throw inputError(
				node,
				'Start',
				`${new Date(startTime).toISOString()} is older than the service keeps ${flowType.displayName} records (${flowType.retentionDays} days, so not before ${new Date(oldest).toISOString()})`,
				`Move Start to within the last ${flowType.retentionDays} days, or turn on Options > Clamp Start to Retention Window.`,
				itemIndex,
			);
		}
		startTime = oldest;
	}
	if (startTime > query.endTime) {
		throw inputError(
			node,
			'Start',
			`Start (${new Date(startTime).toISOString()}) is after End (${new Date(query.endTime).toISOString()})`,
			'Set Start to End or earlier: both bounds are inclusive.',
			itemIndex,
		);
	}
	return { ...query, startTime };
}

/** The request for one history page: the newest `limit` records of the range, newest first. */
export function historyPageRequest(
	query: HistoryQuery,
	limit: number,
	itemIndex?: number,
): { qs: IDataObject; itemIndex?: number } {
	const qs: IDataObject = {
		startTime: String(query.startTime),
		endTime: String(query.endTime),
		limit: String(limit),
		flowType: query.flowType,
	};
	if (query.accountType !== undefined) qs.accountType = query.accountType;
	return { qs, itemIndex };
}

/**
 * A history page that breaks the service's promises: more records than asked for, or not newest
 * first. Paging by time relies on both, so such a page is never used: the action node fails, the
 * trigger warns and stops its poll (trigger/poll.ts).
 */
export class HistoryPageError extends NodeApiError {
	problem!: 'oversize' | 'unordered';
}

/** Throws HistoryPageError for a page longer than `limit` or not newest first. */
export function checkHistoryPage(
	node: INode,
	page: HistoryRecord[],
	limit: number,
	itemIndex?: number,
): void {
	if (page.length > limit) {
		const error = new HistoryPageError(node, { records: page.length, limit } as JsonObject, {
			message: `The service returned ${page.length} history records for a request of at most ${limit}: more records than asked for`,
			description:
				'Such a page cannot be paged by time, so none of it was used. Check that Base URL in the credential points at the Trading Service API, then run again.',
			itemIndex,
		});
		error.problem = 'oversize';
		throw error;
	}
	for (let index = 1; index < page.length; index++) {
		if (Number(page[index].created) > Number(page[index - 1].created)) {
			const error = new HistoryPageError(node, { position: index } as JsonObject, {
				message: 'The service returned a history page that is not newest first',
				description: `Record ${index} (created ${page[index].created}) is newer than record ${index - 1} (created ${page[index - 1].created}). Paging by time relies on the service's order, so none of the page was used: records could otherwise be missed. Run again; if it keeps happening, the service is not the Trading Service API this node expects.`,
				itemIndex,
			});
			error.problem = 'unordered';
			throw error;
		}
	}
}

export interface WalkOptions {
	/**
	 * More than a page of records in one millisecond cannot be paged past by time. `fail` stops
	 * with an error (the action node: the user asked for all records); `skip` keeps the page the
	 * service returned and goes on below that millisecond (the trigger: an error would repeat on
	 * every poll and block all later events).
	 */
	overfull: 'fail' | 'skip';
	/** `Date.now()` after which no further page is fetched. The first page is always fetched. */
	deadline?: number;
	/** Most pages to fetch; the walk then stops as at the deadline. */
	maxPages?: number;
	/** Stops the walk after the page in which a record first satisfies this. */
	until?: (record: HistoryRecord) => boolean;
}

export interface WalkResult {
	/** Every record read, each once, newest first. */
	records: HistoryRecord[];
	/** Requests sent. */
	pages: number;
	/**
	 * Set when the deadline or `maxPages` stopped the walk: records with `created` below `resumeTo`
	 * have not been read, and at `resumeTo` only some may have been.
	 */
	resumeTo?: number;
	/** Set when `until` stopped the walk. */
	found?: HistoryRecord;
	/** Milliseconds skipped over although the service could not return all their records. */
	overfullMilliseconds: number[];
}

/**
 * The paging rules of the history list: every record of the range, newest first, each once. The
 * service returns at most 500 records, newest first, with no cursor; so the walk moves the end
 * bound down to the oldest `created` of each full page (inclusive, so records sharing that
 * millisecond are not lost) and drops the records of that millisecond it has already read. It
 * stops at the first page that is not full. The transport sends the requests it asks for
 * (`next`) and hands it each answer (`take`); the endpoint has already checked that the answer is
 * a list of records.
 */
export class HistoryWalk {
	readonly result: WalkResult = { records: [], pages: 0, overfullMilliseconds: [] };
	private endTime: number;
	// Only records of the end bound's millisecond can come again on the next page: those ids are
	// all that needs remembering, not every id read (100,000 records would keep 100,000 ids).
	private idsAtEnd = new Set<string>();
	private done = false;

	constructor(
		private readonly node: INode,
		private readonly query: HistoryQuery,
		private readonly options: WalkOptions,
		private readonly itemIndex?: number,
	) {
		this.endTime = query.endTime;
	}

	/** The next page's request, or undefined when the walk is over. */
	next(): { qs: IDataObject; itemIndex?: number } | undefined {
		if (this.done || this.endTime < this.query.startTime) return undefined;
		const { result, options } = this;
		const pastDeadline = options.deadline !== undefined && Date.now() >= options.deadline;
		if (result.pages > 0 && (pastDeadline || result.pages === options.maxPages)) {
			result.resumeTo = this.endTime;
			this.done = true;
			return undefined;
		}
		return historyPageRequest(
			{ ...this.query, endTime: this.endTime },
			LIMITS.historyPageSize,
			this.itemIndex,
		);
	}

	/** Reads one answered page. */
	take(answer: unknown): void {
		const pageSize = LIMITS.historyPageSize;
		const page = answer as HistoryRecord[];
		checkHistoryPage(this.node, page, pageSize, this.itemIndex);
		const { result, options } = this;
		result.pages++;
		for (const record of page) {
			if (Number(record.created) === this.endTime && this.idsAtEnd.has(record.id)) continue;
			result.records.push(record);
			if (result.found === undefined && options.until?.(record) === true) result.found = record;
		}
		if (page.length < pageSize || result.found !== undefined) {
			this.done = true;
			return;
		}
		let oldest = Number(page[0].created);
		for (const record of page) oldest = Math.min(oldest, Number(record.created));
		if (oldest < this.endTime) {
			this.idsAtEnd = new Set(
				page.filter((record) => Number(record.created) === oldest).map((record) => record.id),
			);
			this.endTime = oldest;
			return;
		}
		if (options.overfull === 'fail') {
			throw new NodeOperationError(
				this.node,
				`More than ${pageSize} records share the millisecond ${this.endTime} (${new Date(this.endTime).toISOString()}); the service cannot page past them by time`,
				{
					description: `${result.records.length} records were read before this point. The service returns at most ${pageSize} records per request and pages only by time, so the rest of that millisecond cannot be fetched. Narrow the range by Account Type, or contact the exchange.`,
					itemIndex: this.itemIndex,
				},
			);
		}
		result.overfullMilliseconds.push(this.endTime);
		this.idsAtEnd = new Set();
		this.endTime -= 1;
	}
}
