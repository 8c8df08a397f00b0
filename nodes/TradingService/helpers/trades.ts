import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type INode,
	type JsonObject,
} from 'n8n-workflow';

import { DAY_MS, LIMITS } from '../constants';

/** A time range of the trade list, in ms. */
export interface TradesQuery {
	symbol?: string;
	/** Whose fills: the account the node acts on (accountScope.ts). */
	accountId?: string;
	startTime: number;
	endTime: number;
}

export function checkTradesRange(
	node: INode,
	query: TradesQuery,
	now: number,
	itemIndex?: number,
): void {
	if (query.endTime < query.startTime) {
		throw new NodeOperationError(node, 'End: is before Start', {
			description: 'Pick an End at or after the Start.',
			itemIndex,
		});
	}
	const oldest = now - LIMITS.accountTradesRetentionDays * DAY_MS;
	if (query.startTime < oldest) {
		throw new NodeOperationError(
			node,
			`Start: ${new Date(query.startTime).toISOString()} is more than ${LIMITS.accountTradesRetentionDays} days ago`,
			{
				description: `The exchange keeps fills for ${LIMITS.accountTradesRetentionDays} days. Pick a Start after ${new Date(oldest).toISOString()}.`,
				itemIndex,
			},
		);
	}
}

/** The newest full page of the range below `toId` (exclusive). */
function tradesPageQuery(query: TradesQuery, toId: string | undefined): IDataObject {
	const qs: IDataObject = {
		startTime: query.startTime,
		endTime: query.endTime,
		limit: LIMITS.accountTradesPageSize,
	};
	if (query.symbol !== undefined) qs.symbol = query.symbol;
	if (query.accountId !== undefined) qs.accountId = query.accountId;
	if (toId !== undefined) qs.toId = toId;
	return qs;
}

function idOf(record: IDataObject): bigint | undefined {
	return typeof record.id === 'string' && /^\d{1,20}$/.test(record.id)
		? BigInt(record.id)
		: undefined;
}

/**
 * Every fill of a range, newest first, paged backwards by `toId` (docs/api.md §4.21). A fill at or
 * above the last `toId` is dropped as already taken (a service reading it as "up to" could repeat
 * one), and a page that brings nothing new ends the walk.
 */
export class TradesWalk {
	readonly trades: IDataObject[] = [];
	private below?: bigint;
	private done = false;

	constructor(
		private readonly node: INode,
		private readonly query: TradesQuery,
		private readonly itemIndex?: number,
	) {}

	next(): { qs: IDataObject; itemIndex?: number } | undefined {
		if (this.done) return undefined;
		return { qs: tradesPageQuery(this.query, this.below?.toString()), itemIndex: this.itemIndex };
	}

	take(page: unknown): void {
		const records = page as IDataObject[];
		let smallest: bigint | undefined;
		let taken = 0;
		for (const record of records) {
			const id = idOf(record);
			if (id === undefined) {
				throw new NodeOperationError(
					this.node,
					'The service answered the trade list with a trade without a numeric ID',
					{
						description: `Trade: ${JSON.stringify(record)}. Return All pages by trade ID, so it cannot go on; try a smaller range or Limit.`,
						itemIndex: this.itemIndex,
					},
				);
			}
			if (this.below !== undefined && id >= this.below) continue;
			this.trades.push(record);
			taken++;
			if (smallest === undefined || id < smallest) smallest = id;
		}
		if (records.length < LIMITS.accountTradesPageSize || taken === 0) this.done = true;
		else this.below = smallest;
	}
}

/** `id` and `time` are strings of digits. */
export interface AccountFill extends IDataObject {
	id: string;
	time: string;
}

/** A page paging by trade ID cannot use: the trigger warns and stops, its state unmoved. */
export class TradesPageError extends NodeApiError {}

/** Trade ids compared as numbers, without losing digits. */
export function compareTradeIds(a: string, b: string): number {
	const x = a.replace(/^0+(?=\d)/, '');
	const y = b.replace(/^0+(?=\d)/, '');
	if (x.length !== y.length) return x.length - y.length;
	return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * One page checked: at most `limit` fills, numeric `id` and `time`, ids strictly descending and
 * below `toId` (a fill with exactly that id is dropped: a service reading `toId` as "up to" lists
 * it again).
 */
export function checkTradesPage(
	node: INode,
	page: unknown,
	limit: number,
	toId?: string,
): AccountFill[] {
	const records = page as IDataObject[];
	const refuse = (message: string, detail: JsonObject): never => {
		throw new TradesPageError(node, detail, {
			message,
			description:
				'Paging by trade ID relies on the exchange listing its fills newest first and at most as many as asked for, so none of this page was used. Check that Base URL in the credential points at the Trading Service API; if it keeps happening, contact the exchange.',
		});
	};
	if (records.length > limit) {
		refuse(
			`The service returned ${records.length} fills for a request of at most ${limit}: more fills than asked for`,
			{ fills: records.length, limit },
		);
	}
	const fills: AccountFill[] = [];
	let before: string | undefined;
	for (const [index, record] of records.entries()) {
		const { id, time } = record;
		if (typeof id !== 'string' || !/^\d{1,20}$/.test(id)) {
			refuse(`The service answered the trade list with a fill without a numeric ID`, {
				position: index,
			});
		}
		if (typeof time !== 'string' || !/^\d{1,15}$/.test(time)) {
			refuse(`The service answered the trade list with fill ${String(id)} without a numeric time`, {
				position: index,
			});
		}
		const fill = record as AccountFill;
		if (toId !== undefined) {
			const order = compareTradeIds(fill.id, toId);
			if (order === 0) continue;
			if (order > 0) {
				refuse(
					`The service listed fill ${fill.id} in answer to a request for fills below ID ${toId}`,
					{ position: index },
				);
			}
		}
		if (before !== undefined && compareTradeIds(fill.id, before) >= 0) {
			refuse(
				`The service returned a trade list page that is not newest first: fill ${fill.id} comes after fill ${before}`,
				{ position: index },
			);
		}
		before = fill.id;
		fills.push(fill);
	}
	return fills;
}

export interface FillsWalkOptions {
	/** `Date.now()` after which no further page is fetched (the first page always is). */
	deadline?: number;
	/** Most pages to fetch; the walk then stops as at the deadline. */
	maxPages?: number;
	/** Start below this trade ID (exclusive): the rest of a walk an earlier poll stopped. */
	belowId?: string;
	/** Stops at the first page holding a fill that satisfies this; `found` is the newest such fill. */
	until?: (fill: AccountFill) => boolean;
}

/** Oldest first: by `time`, then by trade ID. */
export function fillsOldestFirst(a: AccountFill, b: AccountFill): number {
	return Number(a.time) - Number(b.time) || compareTradeIds(a.id, b.id);
}

/** The trigger's walk: as TradesWalk, every page checked first (checkTradesPage). */
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
		private readonly query: TradesQuery,
		private readonly options: FillsWalkOptions = {},
	) {
		this.below = options.belowId;
	}

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
		return { qs: tradesPageQuery(this.query, this.below) };
	}

	take(answer: unknown): void {
		const limit = LIMITS.accountTradesPageSize;
		const fills = checkTradesPage(this.node, answer, limit, this.below);
		this.pages++;
		this.fills.push(...fills);
		const matches = this.options.until === undefined ? [] : fills.filter(this.options.until);
		if (matches.length > 0) {
			this.found = matches.reduce((newest, fill) =>
				fillsOldestFirst(fill, newest) > 0 ? fill : newest,
			);
			this.done = true;
		} else if ((answer as unknown[]).length < limit || fills.length === 0) {
			this.done = true;
		} else {
			// Strictly descending (checked): the last fill has the smallest ID.
			this.below = fills[fills.length - 1].id;
		}
	}
}
