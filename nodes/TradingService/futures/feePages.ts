import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import type { Pager } from '../transport';
import { FUTURES_PAGE_SIZES } from './futuresFields';

/** The funding fees of one contract in a time range, in ms (both ends inclusive). */
export interface FeesQuery {
	symbol: string;
	startTime: number;
	endTime: number;
}

const TIME = /^\d{1,15}$/;

/** What tells two fees apart: the exchange gives them no ID. */
const feeKey = (fee: IDataObject) =>
	`${String(fee.fundingTime)}/${String(fee.positionSide)}/${String(fee.symbol)}`;

/**
 * Every funding fee of one contract in a range (or the newest `wanted`), newest first. The service
 * has no ID and no cursor for them, so the walk pages by time: a full page moves `endTime` down to
 * the page's oldest `fundingTime`, and the fees of that settlement already read are dropped when the
 * next page lists them again (so a page cut between two fees of one settlement loses neither).
 * Each page is checked first: at most as many fees as asked for, each with a numeric `fundingTime`
 * inside the range asked, newest first; a fee later than the page before's oldest is an overlap and
 * stops the node. A full page that brings nothing new (more fees in one settlement than a page
 * holds) cannot be paged past, and stops the node too. A page shorter than asked for ends the list.
 */
export class FeesWalk implements Pager {
	readonly fees: IDataObject[] = [];
	pages = 0;
	private endTime: number;
	/** The fees read at `endTime`, the only time the next page may list again. */
	private atEnd = new Set<string>();
	private asked = 0;
	private done = false;

	constructor(
		private readonly node: INode,
		private readonly query: FeesQuery,
		private readonly wanted: number | undefined,
		private readonly itemIndex?: number,
	) {
		this.endTime = query.endTime;
	}

	next(): { qs: IDataObject; itemIndex?: number } | undefined {
		const left = this.wanted === undefined ? Infinity : this.wanted - this.fees.length;
		if (this.done || left <= 0) return undefined;
		// One more than wanted while fees already read may come again, so Limit is still met.
		this.asked = Math.min(FUTURES_PAGE_SIZES.historyFundingFees, left + this.atEnd.size);
		const { symbol, startTime } = this.query;
		return {
			qs: { symbol, startTime, endTime: this.endTime, limit: this.asked },
			itemIndex: this.itemIndex,
		};
	}

	take(answer: unknown): void {
		const page = answer as IDataObject[];
		this.pages++;
		if (page.length > this.asked)
			this.refuse(`${page.length} fees for a request of at most ${this.asked}`);
		let previous = Infinity;
		const fresh: IDataObject[] = [];
		for (const fee of page) {
			const time = fee.fundingTime;
			if (typeof time !== 'string' || !TIME.test(time))
				this.refuse(`a fee without a numeric fundingTime: ${JSON.stringify(fee)}`);
			const at = Number(time);
			if (at > previous)
				this.refuse(`a page that is not newest first: fundingTime ${time} after ${previous}`);
			if (at < this.query.startTime || at > this.endTime)
				this.refuse(
					`a fee at ${time}, outside the range asked for (${this.query.startTime} to ${this.endTime})`,
				);
			previous = at;
			if (at === this.endTime && this.atEnd.has(feeKey(fee))) continue;
			fresh.push(fee);
		}
		for (const fee of fresh) {
			if (this.wanted === undefined || this.fees.length < this.wanted) this.fees.push(fee);
		}
		if (page.length < this.asked) {
			this.done = true;
			return;
		}
		if (fresh.length === 0)
			this.refuse(
				`a full page of fees all settled at ${previous}: more than one request holds, so the walk cannot go on`,
			);
		if (previous !== this.endTime) this.atEnd = new Set();
		this.endTime = previous;
		for (const fee of page) if (Number(fee.fundingTime) === previous) this.atEnd.add(feeKey(fee));
	}

	private refuse(problem: string): never {
		throw new NodeOperationError(
			this.node,
			`The service answered the funding fee list of ${this.query.symbol} with ${problem}`,
			{
				description:
					'Return All and Limit page through the funding fees by time, which relies on the exchange listing them newest first, inside the range asked and at most as many as asked for, so none of this page was used. Try a shorter range; if it keeps happening, contact the exchange.',
				itemIndex: this.itemIndex,
			},
		);
	}
}
