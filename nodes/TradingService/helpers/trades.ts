import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { DAY_MS, LIMITS } from '../constants';

/** A time range of Get Trades, in ms. */
export interface TradesQuery {
	symbol?: string;
	startTime: number;
	endTime: number;
}

/**
 * Refuses a range the exchange cannot answer, before anything is sent: an End before the Start, or a
 * Start older than the 30 days the exchange keeps fills for.
 */
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

function idOf(record: IDataObject): bigint | undefined {
	return typeof record.id === 'string' && /^\d{1,20}$/.test(record.id)
		? BigInt(record.id)
		: undefined;
}

/**
 * Every fill of a range, newest first, as the exchange lists them. A page is the newest
 * LIMITS.accountTradesPageSize fills below the last page's smallest trade ID (`toId`, which the
 * exchange reads as "less than"); a full page asks for the next. A fill at or above that ID is
 * dropped as already taken, so a service that read `toId` as "up to" could not repeat one, and a
 * page that brings nothing new ends the walk.
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

	/** The next request (a transport Pager), or none when the walk is done. */
	next(): { qs: IDataObject; itemIndex?: number } | undefined {
		if (this.done) return undefined;
		const qs: IDataObject = {
			startTime: this.query.startTime,
			endTime: this.query.endTime,
			limit: LIMITS.accountTradesPageSize,
		};
		if (this.query.symbol !== undefined) qs.symbol = this.query.symbol;
		if (this.below !== undefined) qs.toId = this.below.toString();
		return { qs, itemIndex: this.itemIndex };
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
