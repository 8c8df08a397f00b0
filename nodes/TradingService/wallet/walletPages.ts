import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

/** The most records one page of either list holds (the documentation: default 500, max 1000). */
export const WALLET_PAGE_SIZE = 1000;

/**
 * The deposit statuses (hashkeypro-apidoc "Get Deposit History", its Deposit Status table), each in
 * plain words. 4 is the only one in which the coin has arrived.
 */
export const DEPOSIT_STATUSES: ReadonlyArray<{ code: number; name: string; text: string }> = [
	{ code: 1, name: 'Pending Address Authentication', text: 'pending address authentication' },
	{ code: 3, name: 'Failed', text: 'failed' },
	{ code: 4, name: 'Successful', text: 'successful' },
	{ code: 5, name: 'Refunding', text: 'refunding' },
	{ code: 6, name: 'Refund Completed', text: 'refund completed' },
	{ code: 7, name: 'Refund Failed', text: 'refund failed' },
	{ code: 8, name: 'Crediting the Account', text: 'crediting the account' },
	{
		code: 9,
		name: 'First Address Verification Failed',
		text: 'first address verification failed',
	},
	{ code: 12, name: 'Processing', text: 'processing' },
];

export const DEPOSIT_SUCCESSFUL = 4;
/** Deposits that will not become successful any more: failed, or refunded (or being refunded). */
export const DEPOSIT_FINAL = [3, 5, 6, 7];

/** The withdrawal statuses (the family's "Withdrawal records" status table), in plain words. */
export const WITHDRAWAL_STATUSES: ReadonlyArray<{ code: number; name: string; text: string }> = [
	{ code: 0, name: 'In Progress (Unknown)', text: 'in progress' },
	{ code: 1, name: 'Under Review', text: 'under review' },
	{ code: 2, name: 'Rejected', text: 'rejected' },
	{ code: 3, name: 'In Progress', text: 'in progress' },
	{ code: 6, name: 'Successful', text: 'successful' },
	{ code: 7, name: 'Failed', text: 'failed' },
	{ code: 9, name: 'Cancelled', text: 'cancelled' },
	{ code: 10, name: 'Pending Unfreeze', text: 'pending unfreeze' },
	{ code: 11, name: 'Cancellation Requested', text: 'cancellation requested' },
];

/**
 * The record with `statusText` next to its `status`: the table's words, or, for a code the table
 * does not list, says so (never a guess).
 */
export function withStatusText(
	record: IDataObject,
	table: ReadonlyArray<{ code: number; text: string }>,
): IDataObject {
	if (record.status === undefined || record.status === null) return record;
	const code = Number(record.status);
	const known = table.find((status) => status.code === code);
	const statusText = known?.text ?? `status ${String(record.status)} (not in the documented table)`;
	return { ...record, statusText };
}

/** A time range, both bounds inclusive (ms). */
export interface TimeRange {
	startTime: number;
	endTime: number;
}

/** A page paging by time cannot use: an overfull millisecond, or a full page that moves nothing on. */
export class WalletPageError extends NodeOperationError {}

const sameRange = (a: TimeRange, b: TimeRange) =>
	a.startTime === b.startTime && a.endTime === b.endTime;

/**
 * Every record of a range, paged by time (the lists have no usable ID paging: fromId is "to be
 * released"). The documentation does not say whether startTime and endTime include the records AT
 * them, so a request asks one millisecond wider on a side (records outside the range are dropped)
 * until a page holds a record at the bound sent there: then the exchange includes it, and the
 * range is sent as it is. A full page narrows the range to its oldest time (newest-first list) or
 * its newest (earliest-first), that millisecond included, and a record seen before is dropped by
 * its ID. A full page of one millisecond cannot be paged past: `overfull` 'fail' throws, 'skip'
 * notes it in `skipped` and reads on either side of it. `wanted`: stop once that many records
 * passed `keep` (a newest-first list gives the newest first).
 */
export class TimeWalk {
	readonly records: IDataObject[] = [];
	/** Milliseconds read around ('skip'): the list could not return all their records. */
	readonly skipped: number[] = [];
	private readonly seen = new Set<string>();
	/** The parts still to read; the last is read next. */
	private readonly ranges: TimeRange[];
	private sent?: TimeRange;
	/** Whether a page showed that the exchange includes the records at startTime / endTime. */
	private readonly includes = { startTime: false, endTime: false };
	private order?: 'newestFirst' | 'oldestFirst';

	constructor(
		private readonly node: INode,
		range: TimeRange,
		private readonly idField: string,
		private readonly options: {
			qs?: IDataObject;
			keep?: (record: IDataObject) => boolean;
			wanted?: number;
			itemIndex?: number;
			overfull?: 'fail' | 'skip';
		} = {},
	) {
		this.ranges = [{ ...range }];
	}

	/** What is sent for a range: 1 ms wider where the exchange may leave the bound out. */
	private query(range: TimeRange): TimeRange {
		return {
			startTime: range.startTime - (this.includes.startTime ? 0 : 1),
			endTime: range.endTime + (this.includes.endTime ? 0 : 1),
		};
	}

	next(): { qs: IDataObject; itemIndex?: number } | undefined {
		const range = this.ranges.at(-1);
		if (range === undefined) return undefined;
		this.sent = this.query(range);
		const qs = { ...this.options.qs, ...this.sent, limit: WALLET_PAGE_SIZE };
		return { qs, itemIndex: this.options.itemIndex };
	}

	take(page: unknown): void {
		const records = page as IDataObject[];
		const range = this.ranges.pop() as TimeRange;
		const sent = this.sent as TimeRange;
		const times = records.map((record) => Number(record.time));
		if (times.includes(sent.startTime)) this.includes.startTime = true;
		if (times.includes(sent.endTime)) this.includes.endTime = true;
		for (const record of records) {
			const id = String(record[this.idField]);
			const time = Number(record.time);
			if (this.seen.has(id) || time < range.startTime || time > range.endTime) continue;
			this.seen.add(id);
			if (this.options.keep?.(record) ?? true) this.records.push(record);
		}
		const [first, last] = [times[0], times[times.length - 1]];
		if (first !== last) this.order = first > last ? 'newestFirst' : 'oldestFirst';
		const { wanted } = this.options;
		if (wanted !== undefined && this.order === 'newestFirst' && this.records.length >= wanted) {
			this.ranges.length = 0;
			return;
		}
		if (records.length < WALLET_PAGE_SIZE) return;
		const rest = this.rest(range, times);
		if (rest.length === 1 && sameRange(this.query(rest[0]), sent)) {
			throw new WalletPageError(this.node, 'The list answered a full page that moves nothing on', {
				description: `Asked for ${sent.startTime} to ${sent.endTime} again after a full page of that range: the exchange seems to ignore startTime or endTime. Try again later.`,
				itemIndex: this.options.itemIndex,
			});
		}
		this.ranges.push(...rest.filter((part) => part.startTime <= part.endTime));
	}

	/** What of `range` is left after a full page with these times. */
	private rest(range: TimeRange, times: number[]): TimeRange[] {
		const oldest = Math.min(...times);
		const newest = Math.max(...times);
		if (this.order === 'newestFirst' && oldest < newest) return [{ ...range, endTime: oldest }];
		if (this.order === 'oldestFirst' && oldest < newest) return [{ ...range, startTime: newest }];
		// One millisecond: outside the range it was the widened bound (sent as it is from now on).
		if (oldest < range.startTime || oldest > range.endTime) return [range];
		if (this.options.overfull !== 'skip') {
			throw new WalletPageError(
				this.node,
				`More than ${WALLET_PAGE_SIZE} records share the millisecond ${oldest}`,
				{
					description:
						'The list pages by time, and the service returns at most 1,000 records per request, so the rest of that millisecond cannot be read. Pick a range that ends before it.',
					itemIndex: this.options.itemIndex,
				},
			);
		}
		if (!this.skipped.includes(oldest)) this.skipped.push(oldest);
		const below = { ...range, endTime: oldest - 1 };
		const above = { ...range, startTime: oldest + 1 };
		if (this.order === 'newestFirst') return [below];
		if (this.order === 'oldestFirst') return [above];
		return [below, above];
	}
}

/** Newest first: by time, then by ID (text of digits after any letter prefix, e.g. D123). */
export function newestFirst(idField: string) {
	const digits = (record: IDataObject) => String(record[idField]).replace(/^\D+/, '');
	return (a: IDataObject, b: IDataObject): number => {
		const byTime = Number(b.time) - Number(a.time);
		if (byTime !== 0) return byTime;
		const x = digits(a);
		const y = digits(b);
		return y.length - x.length || (y > x ? 1 : y < x ? -1 : 0);
	};
}
