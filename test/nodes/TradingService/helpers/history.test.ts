import { NodeOperationError, type IDataObject } from 'n8n-workflow';

import { DAY_MS } from '../../../../nodes/TradingService/constants';
import { HistoryWalk, type WalkOptions } from '../../../../nodes/TradingService/helpers/history';
import {
	HistoryPageError,
	checkHistoryPage,
	checkHistoryRange,
	historyPageRequest,
	retentionStart,
	type HistoryQuery,
	type HistoryRecord,
} from '../../../../nodes/TradingService/helpers/historyPage';
import { node, refusal as refusalOf } from '../../../support/fixedNode';

// The history rules without HTTP: range checks (fixed vectors) and the paging walk, fed by a
// model of the service's promise: at most `limit` records of [startTime, endTime], both bounds
// inclusive, in one of three orders (ServiceOrder).

const NOW = Date.UTC(2026, 0, 31, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

const refusal = (check: () => unknown) => refusalOf(check, 'the range');

/** Records at the given milliseconds, ids in order of creation. */
function recordsAt(times: number[]): HistoryRecord[] {
	return times.map((created, index) => ({ id: `r${index}`, created: String(created) }));
}

/**
 * 'descending': spec §4.1, the newest `limit` records, newest first. 'ascending': the UAE
 * documentation's rule, earliest first: the earliest `limit` records. 'ascendingNewest': the
 * newest `limit` records listed earliest first. Ties: by id, in the list's direction.
 */
type ServiceOrder = 'descending' | 'ascending' | 'ascendingNewest';
const ORDERS: ServiceOrder[] = ['descending', 'ascending', 'ascendingNewest'];

/** What the service answers for one page request. */
function serve(
	records: HistoryRecord[],
	qs: IDataObject,
	order: ServiceOrder = 'descending',
): HistoryRecord[] {
	const [start, end, limit] = [Number(qs.startTime), Number(qs.endTime), Number(qs.limit)];
	const newestFirst = records
		.filter((record) => Number(record.created) >= start && Number(record.created) <= end)
		.sort((a, b) => Number(b.created) - Number(a.created) || (a.id < b.id ? 1 : -1));
	if (order === 'descending') return newestFirst.slice(0, limit);
	if (order === 'ascendingNewest') return newestFirst.slice(0, limit).reverse();
	return newestFirst.reverse().slice(0, limit);
}

/** Runs a walk to its end against `records`; returns its result and the requests it sent. */
function walk(
	records: HistoryRecord[],
	query: HistoryQuery,
	options: WalkOptions,
	order: ServiceOrder = 'descending',
) {
	const history = new HistoryWalk(node, query, options, 0);
	const requests: IDataObject[] = [];
	for (let request = history.next(); request !== undefined; request = history.next()) {
		requests.push(request.qs);
		history.take(serve(records, request.qs, order));
	}
	return { result: history.result, requests };
}

/** Each record of `records` exactly once, newest first. */
function expectAllOnceNewestFirst(read: HistoryRecord[], records: HistoryRecord[]) {
	expect(read.map((record) => record.id).sort()).toEqual(records.map((record) => record.id).sort());
	const created = read.map((record) => Number(record.created));
	expect(created).toEqual([...created].sort((a, b) => b - a));
}

describe('checkHistoryRange', () => {
	const query = (startTime: number, flowType = 1): HistoryQuery => ({
		flowType,
		startTime,
		endTime: NOW,
	});

	it('keeps a range inside the retention window, up to 5 minutes older (grace)', () => {
		const start = NOW - 7 * DAY_MS - 5 * 60 * 1000;
		expect(checkHistoryRange(node, query(start), NOW, false)).toEqual(query(start));
		expect(retentionStart(1, NOW)).toBe(NOW - 7 * DAY_MS);
		expect(retentionStart(906, NOW)).toBe(NOW - 30 * DAY_MS);
	});

	it('refuses a Start older than the flow type is kept, naming both dates and the Clamp option', () => {
		const start = NOW - 8 * DAY_MS;
		const error = refusal(() => checkHistoryRange(node, query(start), NOW, false, 1));
		expect(error.message).toBe(
			`Start: ${iso(start)} is older than the service keeps Trade records (7 days, so not before ${iso(NOW - 7 * DAY_MS)})`,
		);
		expect(error.description).toBe(
			'Move Start to within the last 7 days, or turn on Options > Clamp Start to Retention Window.',
		);
		expect(error.context.itemIndex).toBe(1);
	});

	it('with Clamp, moves such a Start up to the retention window (30 days for fiat deposits)', () => {
		const clamped = checkHistoryRange(node, query(NOW - 90 * DAY_MS, 906), NOW, true);
		expect(clamped).toEqual({ flowType: 906, startTime: NOW - 30 * DAY_MS, endTime: NOW });
	});

	it('refuses a Start after End; equal bounds are one millisecond, accepted', () => {
		const error = refusal(() =>
			checkHistoryRange(node, { flowType: 2, startTime: NOW + 1, endTime: NOW }, NOW, false),
		);
		expect(error.message).toBe(`Start: Start (${iso(NOW + 1)}) is after End (${iso(NOW)})`);
		expect(error.description).toBe('Set Start to End or earlier: both bounds are inclusive.');
		expect(
			checkHistoryRange(node, { flowType: 2, startTime: NOW, endTime: NOW }, NOW, false),
		).toEqual({ flowType: 2, startTime: NOW, endTime: NOW });
	});

	it('refuses a flow type the service does not know', () => {
		expect(refusal(() => checkHistoryRange(node, query(NOW, 3), NOW, false)).message).toBe(
			'Flow Type: 3 is not a flow type the service knows',
		);
	});
});

describe('historyPageRequest', () => {
	it('sends times and limit as strings, the flow type, and the account type only when chosen', () => {
		expect(historyPageRequest({ flowType: 51, startTime: 1, endTime: 2 }, 500, 4)).toEqual({
			qs: { startTime: '1', endTime: '2', limit: '500', flowType: 51 },
			itemIndex: 4,
		});
		expect(
			Object.keys(
				historyPageRequest({ flowType: 51, accountType: 5, startTime: 1, endTime: 2 }, 10).qs,
			),
		).toEqual(['startTime', 'endTime', 'limit', 'flowType', 'accountType']);
	});
});

describe('checkHistoryPage', () => {
	it('accepts a page newest first, ties included, of at most the limit', () => {
		expect(() => checkHistoryPage(node, recordsAt([3, 3, 2, 1]), 4)).not.toThrow();
	});

	it('refuses a page longer than asked for (problem "oversize")', () => {
		let caught: unknown;
		try {
			checkHistoryPage(node, recordsAt([3, 2, 1]), 2);
		} catch (error) {
			caught = error;
		}
		expect(caught).toBeInstanceOf(HistoryPageError);
		expect((caught as HistoryPageError).problem).toBe('oversize');
		expect((caught as HistoryPageError).message).toBe(
			'The service returned 3 history records for a request of at most 2: more records than asked for',
		);
	});

	it('UAE rule: history ascending or descending pages are legal; the order is read from first vs last record', () => {
		expect(checkHistoryPage(node, recordsAt([3, 3, 2, 1]), 4)).toBe('newestFirst');
		expect(checkHistoryPage(node, recordsAt([1, 2, 2, 3]), 4)).toBe('oldestFirst');
		expect(checkHistoryPage(node, recordsAt([2, 2, 2]), 4)).toBe('flat');
		expect(checkHistoryPage(node, recordsAt([7]), 4)).toBe('flat');
		expect(checkHistoryPage(node, [], 4)).toBe('flat');
	});

	it('refuses a page in no order (problem "unordered"), naming the record that breaks it', () => {
		const cases: Array<[number[], string]> = [
			[[3, 1, 2], 'record 2 (created 2) comes after record 1 (created 1)'],
			[[1, 3, 2], 'record 2 (created 2) comes after record 1 (created 3)'],
			// First and last equal: every record must share that time.
			[[2, 1, 2], 'record 1 (created 1) comes after record 0 (created 2)'],
		];
		for (const [times, named] of cases) {
			let caught: unknown;
			try {
				checkHistoryPage(node, recordsAt(times), 500);
			} catch (error) {
				caught = error;
			}
			expect(caught).toBeInstanceOf(HistoryPageError);
			expect((caught as HistoryPageError).problem).toBe('unordered');
			expect((caught as HistoryPageError).message).toBe(
				'The service returned a history page in no order: neither newest first nor oldest first',
			);
			expect((caught as HistoryPageError).description).toContain(named);
		}
	});
});

describe('HistoryWalk', () => {
	const query: HistoryQuery = { flowType: 32, startTime: 0, endTime: 10_000 };

	it('reads every record once, newest first, moving End down to the oldest created of each full page', () => {
		// 1,200 records, three per millisecond: page boundaries fall inside a millisecond.
		const records = recordsAt(
			Array.from({ length: 1200 }, (_, index) => 1000 + Math.floor(index / 3)),
		);
		const { result, requests } = walk(records, query, { overfull: 'fail' });
		expect(result.records).toHaveLength(1200);
		expect(new Set(result.records.map((record) => record.id)).size).toBe(1200);
		const created = result.records.map((record) => Number(record.created));
		expect(created).toEqual([...created].sort((a, b) => b - a));
		expect(requests.map((qs) => qs.endTime)).toEqual(['10000', '1233', '1067']);
		expect(result.pages).toBe(3);
		expect(result.resume).toBeUndefined();
	});

	it('stops at the first page that is not full; nothing in range is one request', () => {
		expect(walk([], query, { overfull: 'fail' }).result).toEqual({
			records: [],
			pages: 1,
			overfullMilliseconds: [],
		});
	});

	it('more than a page in one millisecond: fails with "fail", naming the millisecond and what was read', () => {
		const records = recordsAt([...Array(3).fill(2000), ...Array(600).fill(1500)]);
		let caught: unknown;
		try {
			walk(records, query, { overfull: 'fail' });
		} catch (error) {
			caught = error;
		}
		expect((caught as Error).message).toBe(
			`More than 500 records share the millisecond 1500 (${iso(1500)}); the service cannot page past them by time`,
		);
		expect((caught as NodeOperationError).description).toMatch(
			/^503 records were read before this point/,
		);
	});

	it('more than a page in one millisecond: with "skip", goes on below it and reports it', () => {
		const records = recordsAt([...Array(600).fill(1500), 1499, 1000]);
		const { result } = walk(records, query, { overfull: 'skip' });
		expect(result.overfullMilliseconds).toEqual([1500]);
		expect(result.records.map((record) => record.created).slice(-2)).toEqual(['1499', '1000']);
		expect(result.records).toHaveLength(502);
	});

	it('maxPages stops the walk with the End to resume from', () => {
		const records = recordsAt(Array.from({ length: 1200 }, (_, index) => 1000 + index));
		const { result, requests } = walk(records, query, { overfull: 'fail', maxPages: 1 });
		expect(requests).toHaveLength(1);
		expect(result.records).toHaveLength(500);
		expect(result.resume).toEqual({ from: 0, to: 1700 });
	});

	it('until stops after the page in which a record first satisfies it', () => {
		const records = recordsAt(Array.from({ length: 1200 }, (_, index) => 1000 + index));
		const { result, requests } = walk(records, query, {
			overfull: 'fail',
			until: (record) => record.created === '1900',
		});
		expect(requests).toHaveLength(1);
		expect(result.found).toEqual({ id: 'r900', created: '1900' });
		expect(result.records).toHaveLength(500);
	});

	it('refuses a page in no order instead of using it', () => {
		const history = new HistoryWalk(node, query, { overfull: 'fail' });
		history.next();
		expect(() => history.take(recordsAt([1, 3, 2]))).toThrow(HistoryPageError);
		expect(history.result.records).toEqual([]);
	});
});

describe('HistoryWalk: UAE rule, history in either order', () => {
	const query: HistoryQuery = { flowType: 32, startTime: 0, endTime: 10_000 };

	it.each(ORDERS)(
		'UAE rule: history %s: every record once, newest first, page bounds inside a millisecond',
		(order) => {
			const records = recordsAt(
				Array.from({ length: 1200 }, (_, index) => 1000 + Math.floor(index / 3)),
			);
			const { result } = walk(records, query, { overfull: 'fail' }, order);
			expectAllOnceNewestFirst(result.records, records);
			expect(result.overfullMilliseconds).toEqual([]);
		},
	);

	it('UAE rule: history ascending (earliest kept): the walk moves Start up after one probe; ascending newest: one probe, then End down', () => {
		const records = recordsAt(Array.from({ length: 1200 }, (_, index) => 1000 + index));
		const up = walk(records, query, { overfull: 'fail' }, 'ascending');
		expect(up.requests.map((qs) => [qs.startTime, qs.endTime])).toEqual([
			['0', '10000'],
			['1499', '10000'], // the probe: new records above, so the service keeps the earliest
			['1998', '10000'],
		]);
		const down = walk(records, query, { overfull: 'fail' }, 'ascendingNewest');
		expect(down.requests.map((qs) => [qs.startTime, qs.endTime])).toEqual([
			['0', '10000'],
			['2199', '10000'], // the probe: nothing new above, so the page held the newest
			['0', '1700'],
			['0', '1201'],
		]);
		expectAllOnceNewestFirst(up.result.records, records);
		expectAllOnceNewestFirst(down.result.records, records);
	});

	it.each(ORDERS)(
		'UAE rule: history %s, full page of 500 with one created time: that millisecond is overfull ("fail" stops, "skip" reads around it)',
		(order) => {
			const records = recordsAt([900, 901, ...Array(500).fill(1500), 2000, 2001]);
			let caught: unknown;
			try {
				walk(records, query, { overfull: 'fail' }, order);
			} catch (error) {
				caught = error;
			}
			expect((caught as Error).message).toBe(
				`More than 500 records share the millisecond 1500 (${iso(1500)}); the service cannot page past them by time`,
			);
			const { result } = walk(records, query, { overfull: 'skip' }, order);
			expect(result.overfullMilliseconds).toEqual([1500]);
			expectAllOnceNewestFirst(result.records, records);
		},
	);

	it.each(ORDERS)(
		'UAE rule: history %s, full pages of 500 whose first and last share one created time are never taken for a direction',
		(order) => {
			// 499 records at 1500 and one at each side: some pages hold only that millisecond.
			const records = recordsAt([
				...Array.from({ length: 600 }, (_, index) => 100 + index),
				...Array(499).fill(1500),
				...Array.from({ length: 600 }, (_, index) => 3000 + index),
			]);
			const { result } = walk(records, query, { overfull: 'fail' }, order);
			expectAllOnceNewestFirst(result.records, records);
		},
	);

	it.each(ORDERS)('UAE rule: history %s: newest N are the newest N (Limit)', (order) => {
		const records = recordsAt(Array.from({ length: 1200 }, (_, index) => 1000 + index));
		const { result, requests } = walk(records, query, { overfull: 'skip', newest: 7 }, order);
		expect(result.records.map((record) => record.created)).toEqual([
			'2199',
			'2198',
			'2197',
			'2196',
			'2195',
			'2194',
			'2193',
		]);
		expect(requests[0].limit).toBe('7');
		if (order === 'descending') expect(requests).toHaveLength(1);
	});

	it.each(ORDERS)('UAE rule: history %s: until finds the newest match', (order) => {
		const records = recordsAt(Array.from({ length: 1200 }, (_, index) => 1000 + index));
		const { result } = walk(
			records,
			query,
			{ overfull: 'fail', until: (record) => Number(record.created) % 100 === 0 },
			order,
		);
		expect(result.found?.created).toBe('2100');
	});

	it.each(ORDERS)(
		'UAE rule: history %s: a walk stopped by maxPages says which part is unread',
		(order) => {
			const records = recordsAt(Array.from({ length: 1200 }, (_, index) => 1000 + index));
			const { result } = walk(records, query, { overfull: 'fail', maxPages: 1 }, order);
			const unread = result.resume as { from: number; to: number };
			const inUnread = (record: HistoryRecord) =>
				Number(record.created) >= unread.from && Number(record.created) <= unread.to;
			// Every record is read, or unread, or both at a bound; none is lost.
			const read = new Set(result.records.map((record) => record.id));
			expect(records.filter((record) => !read.has(record.id) && !inUnread(record))).toEqual([]);
		},
	);
});
