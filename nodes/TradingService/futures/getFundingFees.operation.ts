import {
	updateDisplayOptions,
	type IDataObject,
	type INode,
	type INodeProperties,
	NodeOperationError,
} from 'n8n-workflow';

import { parallelRequestsOnly, returnAllAndLimit } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { timestampMs } from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import type { Pager } from '../transport';
import {
	contractField,
	contractsToRead,
	forEachContract,
	FUTURES_MAX_LIMIT,
	optionalContract,
	wantedEntries,
} from './contracts';
import { FUTURES_ENDPOINTS } from './endpoints';

const properties = (version: NodeVersion): INodeProperties[] => [
	contractField(
		version,
		'whose funding fees to list',
		'every contract the exchange lists (at least one request each)',
	),
	{
		displayName: 'Start',
		name: 'startTime',
		type: 'dateTime',
		required: true,
		default: '={{ $now.minus({ days: 1 }).toISO() }}',
		description: 'Earliest settlement time (inclusive)',
	},
	{
		displayName: 'End',
		name: 'endTime',
		type: 'dateTime',
		required: true,
		default: '={{ $now.toISO() }}',
		description: 'Latest settlement time (inclusive)',
	},
	...returnAllAndLimit(FUTURES_MAX_LIMIT),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['getFundingFees'] } }, [
		...properties(version),
		...parallelRequestsOnly(version),
	]);

interface FeesQuery {
	symbol: string;
	startTime: number;
	endTime: number;
}

const FEES_PAGE_SIZE = 1000;
const TIME = /^\d{1,15}$/;

/** What tells two fees apart: the exchange gives them no ID. */
const feeKey = (fee: IDataObject) =>
	`${String(fee.fundingTime)}/${String(fee.positionSide)}/${String(fee.symbol)}`;

/**
 * Paged by time: the fees at the new `endTime` come again and are dropped. An overlap, or a full
 * page that brings nothing new, stops the node.
 */
export class FeesWalk implements Pager {
	readonly fees: IDataObject[] = [];
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
		// More than wanted while fees already read may come again, so Limit is still met.
		this.asked = Math.min(FEES_PAGE_SIZE, left + this.atEnd.size);
		const { symbol, startTime } = this.query;
		return {
			qs: { symbol, startTime, endTime: this.endTime, limit: this.asked },
			itemIndex: this.itemIndex,
		};
	}

	take(answer: unknown): void {
		const page = answer as IDataObject[];
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

/** Newest first by settlement time; fees of one time keep the contracts' order. */
const newestFirst = (a: IDataObject, b: IDataObject) =>
	Number(b.fundingTime) - Number(a.fundingTime);

/** An empty Symbol walks every contract in turn, then merges; Limit applies to the merged list. */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const node = run.node;
	const symbol = optionalContract(run, itemIndex);
	const startTime = timestampMs(node, 'Start', run.parameter('startTime', itemIndex), itemIndex);
	const endTime = timestampMs(node, 'End', run.parameter('endTime', itemIndex), itemIndex);
	if (endTime < startTime)
		throw new NodeOperationError(node, 'End: is before Start', {
			description: 'Pick an End at or after the Start.',
			itemIndex,
		});
	const wanted = wantedEntries(run, itemIndex);
	const contracts = await contractsToRead(run, symbol, itemIndex);
	const fees = await forEachContract(contracts, async (contract) => {
		const walk = new FeesWalk(node, { symbol: contract, startTime, endTime }, wanted, itemIndex);
		await run.client.requestAllPages(FUTURES_ENDPOINTS.historyFundingFees, walk);
		return walk.fees;
	});
	if (contracts.length < 2) return fees;
	const merged = [...fees].sort(newestFirst);
	return wanted === undefined ? merged : merged.slice(0, wanted);
}
