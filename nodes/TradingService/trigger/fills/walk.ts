import type { IDataObject, INode } from 'n8n-workflow';

import { LIMITS } from '../../constants';
import { checkTradesPage, compareTradeIds, type AccountFill } from '../../helpers/trades';

/** A time range of the trade list (both bounds inclusive, ms), and the symbol sent, if any. */
export interface FillsQuery {
	symbol?: string;
	/** Whose fills (helpers/accountScope.ts), sent as `accountId`. */
	accountId?: string;
	startTime: number;
	endTime: number;
}

export interface FillsWalkOptions {
	/** `Date.now()` after which no further page is fetched. The first page is always fetched. */
	deadline?: number;
	/** Most pages to fetch; the walk then stops as at the deadline. */
	maxPages?: number;
	/** Start below this trade ID (exclusive): the rest of a walk an earlier poll stopped. */
	belowId?: string;
	/** Stops at the first page holding a fill that satisfies this; `found` is the newest such fill. */
	until?: (fill: AccountFill) => boolean;
}

/** Oldest first: by `time`, then by trade ID (compared as numbers, without losing digits). */
export function fillsOldestFirst(a: AccountFill, b: AccountFill): number {
	return Number(a.time) - Number(b.time) || compareTradeIds(a.id, b.id);
}

/**
 * Every fill of a time range, each once: the trade list answers newest first (trade ID
 * descending), the newest `limit` below `toId` (exclusive), so the walk asks for full pages of
 * 1,000 and moves `toId` down to the smallest ID of each full page, the way Get Trades' Return All
 * does (helpers/trades.ts). Every page is checked first (checkTradesPage). A page that is not full
 * ends the walk. Stopped by the deadline or `maxPages`, the fills of the range below `below` are
 * unread (`stopped`).
 */
export class FillsWalk {
	readonly fills: AccountFill[] = [];
	pages = 0;
	/** The next page's exclusive upper trade ID: the smallest read so far (or `belowId`). */
	below?: string;
	/** Set when the deadline or `maxPages` stopped the walk: fills below `below` may be unread. */
	stopped = false;
	/** With `until`: the newest fill (by time, then ID) of the first page that held a match. */
	found?: AccountFill;
	private done = false;

	constructor(
		private readonly node: INode,
		private readonly query: FillsQuery,
		private readonly options: FillsWalkOptions = {},
	) {
		this.below = options.belowId;
	}

	/** The next request (a transport Pager), or none when the walk is over. */
	next(): { qs: IDataObject } | undefined {
		if (this.done) return undefined;
		const { deadline, maxPages } = this.options;
		const pastDeadline = deadline !== undefined && Date.now() >= deadline;
		const pastPages = maxPages !== undefined && this.pages >= maxPages;
		if (this.pages > 0 && (pastDeadline || pastPages)) {
			this.stopped = true;
			this.done = true;
			return undefined;
		}
		const qs: IDataObject = {
			startTime: this.query.startTime,
			endTime: this.query.endTime,
			limit: LIMITS.accountTradesPageSize,
		};
		if (this.query.symbol !== undefined) qs.symbol = this.query.symbol;
		if (this.query.accountId !== undefined) qs.accountId = this.query.accountId;
		if (this.below !== undefined) qs.toId = this.below;
		return { qs };
	}

	take(answer: unknown): void {
		const limit = LIMITS.accountTradesPageSize;
		const fills = checkTradesPage(this.node, answer, limit, this.below);
		this.pages++;
		this.fills.push(...fills);
		const until = this.options.until;
		if (until !== undefined) {
			const matches = fills.filter(until);
			if (matches.length > 0) {
				this.found = matches.reduce((newest, fill) =>
					fillsOldestFirst(fill, newest) > 0 ? fill : newest,
				);
				this.done = true;
				return;
			}
		}
		if ((answer as unknown[]).length < limit || fills.length === 0) {
			this.done = true;
			return;
		}
		// Strictly descending (checked): the last fill has the smallest ID.
		this.below = fills[fills.length - 1].id;
	}
}
