import type { IPollFunctions } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { fetchHistoryPage, type HistoryQuery, type HistoryRecord } from '../helpers/history';

export interface WalkOptions {
	/**
	 * Stop once a full page reaches records older than this (the watermark): everything newer
	 * than it has then been read. Without it the walk goes down to the query's start.
	 */
	stopBelow?: number;
	/** `Date.now()` after which no further page is fetched. The first page is always fetched. */
	deadline?: number;
}

export interface WalkResult {
	/** Every record read, each once, newest first. */
	records: HistoryRecord[];
	/** Requests sent. */
	pages: number;
	/**
	 * Set when the deadline stopped the walk: records with `created` below `resumeTo` have not been
	 * read, and at `resumeTo` only some may have been.
	 */
	resumeTo?: number;
	/** Milliseconds at which more than a page of records sat, so the service could not return them all. */
	overfullMilliseconds: number[];
}

/**
 * Reads the history of a range newest first, like `fetchAllHistory`, but stops as soon as it has
 * everything newer than `stopBelow`, and can stop early at a deadline, telling where to resume.
 *
 * The service returns at most 500 records per request, newest first, with no cursor. Each full
 * page moves the end bound down to the page's oldest `created` (inclusive, so records sharing
 * that millisecond are not lost); ids already read are dropped. When a full page sits in one
 * millisecond the service cannot page past it: the walk keeps the 500 it got and goes on below
 * that millisecond, instead of failing every poll from then on.
 */
export async function walkHistory(
	this: IPollFunctions,
	query: HistoryQuery,
	options: WalkOptions = {},
): Promise<WalkResult> {
	const pageSize = LIMITS.historyPageSize;
	const seenIds = new Set<string>();
	const result: WalkResult = { records: [], pages: 0, overfullMilliseconds: [] };
	let endTime = query.endTime;
	while (endTime >= query.startTime) {
		if (result.pages > 0 && options.deadline !== undefined && Date.now() >= options.deadline) {
			result.resumeTo = endTime;
			return result;
		}
		const page = await fetchHistoryPage.call(this, { ...query, endTime }, pageSize);
		result.pages++;
		for (const record of page) {
			if (seenIds.has(record.id)) continue;
			seenIds.add(record.id);
			result.records.push(record);
		}
		if (page.length < pageSize) return result;

		let oldest = Number(page[0].created);
		for (const record of page) oldest = Math.min(oldest, Number(record.created));
		if (options.stopBelow !== undefined && oldest < options.stopBelow) return result;
		if (oldest >= endTime) {
			result.overfullMilliseconds.push(endTime);
			endTime -= 1;
		} else {
			endTime = oldest;
		}
	}
	return result;
}
