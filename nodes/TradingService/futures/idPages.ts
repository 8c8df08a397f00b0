import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import type { Pager } from '../transport';

/** How one futures list pages by ID (UAE documentation, "Futures Trading"). */
export interface IdPaging {
	/** What the list holds, for errors: "funding rates", "orders", "trades". */
	what: string;
	/** The field holding each entry's ID. */
	idField: 'id' | 'orderId' | 'tradeId';
	/** The query parameter that asks for the entries below the oldest read so far. */
	cursor: 'endId' | 'fromOrderId' | 'toId';
	/**
	 * How the service reads the cursor. 'below': the entries below it, as documented
	 * (`fromOrderId`: "fromOrderId=1003 returns 1002 and 1001"; `toId`: "IDs less than toId").
	 * 'either': the documentation does not say whether the entry at the cursor is listed too
	 * (historyFundingRate's `endId`). The walk then sends the oldest ID read itself and asks for one
	 * entry more than it still wants: read as "up to and including", the page starts with the entry
	 * already read, which is dropped; read as "below", it is not there. Either way every entry is
	 * read once, none is skipped.
	 */
	cursorReading: 'below' | 'either';
	/** The most entries one request returns. */
	pageSize: number;
}

/**
 * historyFundingRate pages by `endId`, "End Id": the documentation does not say whether the entry
 * with that ID is listed too, so the walk reads every rate once either way ('either'). 100 a page.
 */
export const FUNDING_RATE_PAGING: IdPaging = {
	what: 'funding rates',
	idField: 'id',
	cursor: 'endId',
	cursorReading: 'either',
	pageSize: 100,
};

const ID = /^\d{1,20}$/;

/** IDs compared as numbers without losing digits (BigInt). */
function below(id: string, than: bigint): boolean {
	return BigInt(id) < than;
}

/**
 * Every entry of a list the service sends newest first by ID (or the newest `wanted`), page by
 * page: the first page without a cursor, every next one with the oldest ID read so far as the
 * cursor. Each page is checked before any entry of it is kept: at most as many entries as asked
 * for, each with a numeric ID, strictly descending, all below the oldest of the page before (an
 * entry with exactly that ID, which a service reading the cursor as "up to and including" sends
 * again, is dropped; one above it is an overlap and stops the node). A page shorter than asked for
 * ends the list; so does `until`'s test, once a page holds an entry it matches.
 */
export class IdWalk implements Pager {
	readonly entries: IDataObject[] = [];
	/** Requests sent. */
	pages = 0;
	private oldest?: bigint;
	private asked = 0;
	private done = false;
	private stopAfter?: (entry: IDataObject) => boolean;

	constructor(
		private readonly node: INode,
		private readonly paging: IdPaging,
		private readonly query: IDataObject,
		private readonly wanted: number | undefined,
		private readonly itemIndex?: number,
	) {}

	/**
	 * Ends the walk after the first page holding an entry `older` matches (a walk back to a time):
	 * the entries of that page are kept, no further page is asked for.
	 */
	until(older: (entry: IDataObject) => boolean): this {
		this.stopAfter = older;
		return this;
	}

	next(): { qs: IDataObject; itemIndex?: number } | undefined {
		const left = this.wanted === undefined ? Infinity : this.wanted - this.entries.length;
		if (this.done || left <= 0) return undefined;
		// Nothing is older than ID 1 (and the documentation's example value 0 may read as "no bound").
		if (this.oldest !== undefined && this.oldest <= 1n) return undefined;
		// With a cursor read either way, the page may start with the entry at the cursor: one more.
		const again = this.oldest !== undefined && this.paging.cursorReading === 'either' ? 1 : 0;
		this.asked = Math.min(this.paging.pageSize, left + again);
		const qs: IDataObject = { ...this.query, limit: this.asked };
		if (this.oldest !== undefined) qs[this.paging.cursor] = this.oldest.toString();
		return { qs, itemIndex: this.itemIndex };
	}

	take(answer: unknown): void {
		const page = answer as IDataObject[];
		this.pages++;
		const { what, idField } = this.paging;
		if (page.length > this.asked)
			this.refuse(`${page.length} ${what} for a request of at most ${this.asked}`);
		let previous: string | undefined;
		let taken = 0;
		for (const entry of page) {
			const id = entry[idField];
			if (typeof id !== 'string' || !ID.test(id))
				this.refuse(`an entry without a numeric ${idField}: ${JSON.stringify(entry)}`);
			const text = id as string;
			if (previous !== undefined && !below(text, BigInt(previous)))
				this.refuse(`a page that is not newest first: ${idField} ${text} after ${previous}`);
			previous = text;
			if (this.oldest !== undefined && BigInt(text) === this.oldest) continue;
			if (this.oldest !== undefined && !below(text, this.oldest))
				this.refuse(
					`${idField} ${text} again, or above the ${this.oldest.toString()} it was asked to stay below`,
				);
			if (this.wanted !== undefined && this.entries.length >= this.wanted) continue;
			this.entries.push(entry);
			taken++;
		}
		const reachedStop = this.stopAfter !== undefined && page.some(this.stopAfter);
		if (page.length < this.asked || taken === 0 || reachedStop) this.done = true;
		else this.oldest = BigInt(previous as string);
	}

	private refuse(problem: string): never {
		throw new NodeOperationError(
			this.node,
			`The service answered the ${this.paging.what} list with ${problem}`,
			{
				description: `Return All and Limit page through the ${this.paging.what} by ID, which relies on the exchange listing them newest first and at most as many as asked for, so none of this page was used. Check that Base URL in the credential points at the Trading Service API; if it keeps happening, contact the exchange.`,
				itemIndex: this.itemIndex,
			},
		);
	}
}
