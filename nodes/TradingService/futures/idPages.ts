import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import type { Pager } from '../transport';

/** How one futures list pages by ID (UAE documentation, "Futures Trading"). */
export interface IdPaging {
	/** For errors: "funding rates", "orders", "trades". */
	what: string;
	idField: 'id' | 'orderId' | 'tradeId';
	/** The query parameter that asks for the entries below the oldest read so far. */
	cursor: 'endId' | 'fromOrderId' | 'toId';
	/**
	 * 'below': the documentation says the cursor's own entry is not listed. 'either': it does not
	 * say (historyFundingRate's `endId`), so the walk sends the oldest ID read and asks for one entry
	 * more: read as "up to and including", the page starts with that entry, which is dropped; read
	 * as "below", it is not there. Either way every entry is read once, none skipped.
	 */
	cursorReading: 'below' | 'either';
	pageSize: number;
}

export const FUNDING_RATE_PAGING: IdPaging = {
	what: 'funding rates',
	idField: 'id',
	cursor: 'endId',
	cursorReading: 'either',
	pageSize: 100,
};

/** "fromOrderId=1003 returns 1002 and 1001". */
export const ORDERS_PAGING: IdPaging = {
	what: 'orders',
	idField: 'orderId',
	cursor: 'fromOrderId',
	cursorReading: 'below',
	pageSize: 500,
};

/** "IDs less than toId". */
export const TRADES_PAGING: IdPaging = {
	what: 'trades',
	idField: 'tradeId',
	cursor: 'toId',
	cursorReading: 'below',
	pageSize: 1000,
};

const ID = /^\d{1,20}$/;

function below(id: string, than: bigint): boolean {
	return BigInt(id) < than;
}

/** Each page checked before use; an entry with exactly the cursor's ID is dropped. */
export class IdWalk implements Pager {
	readonly entries: IDataObject[] = [];
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

	/** Ends the walk after the first page holding an entry `older` matches (back to a time). */
	until(older: (entry: IDataObject) => boolean): this {
		this.stopAfter = older;
		return this;
	}

	next(): { qs: IDataObject; itemIndex?: number } | undefined {
		const left = this.wanted === undefined ? Infinity : this.wanted - this.entries.length;
		if (this.done || left <= 0) return undefined;
		// Nothing is older than ID 1 (and the documentation's example value 0 may read as "no bound").
		if (this.oldest !== undefined && this.oldest <= 1n) return undefined;
		const again = this.oldest !== undefined && this.paging.cursorReading === 'either' ? 1 : 0;
		this.asked = Math.min(this.paging.pageSize, left + again);
		const qs: IDataObject = { ...this.query, limit: this.asked };
		if (this.oldest !== undefined) qs[this.paging.cursor] = this.oldest.toString();
		return { qs, itemIndex: this.itemIndex };
	}

	take(answer: unknown): void {
		const page = answer as IDataObject[];
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
