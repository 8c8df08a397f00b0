/**
 * Get Transaction History in either order the service may list (helpers/history.ts), through
 * n8n-core's real executor against the sandbox: the spec lists funding fees newest first, the UAE
 * documentation's general rule lists data earliest first. Return All (several pages, page bounds
 * inside a millisecond) reads every record once and emits items newest first either way; Limit
 * gives the newest Limit records; a full page of 500 all created in one millisecond is reported,
 * never silently cut. Beside getHistory.test.ts.
 */
import { DAY_MS } from '../../../../nodes/TradingService/constants';
import { DEMO_ACCOUNTS, type HistoryRecord } from '../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { useSandbox } from '../../../support/sandbox';

const HISTORY = '/api/v1/account/balanceFlow';
const sandbox = useSandbox({ rateLimit: false, requestRates: false });

type Order = 'descending' | 'ascending' | 'ascendingNewest';
const ORDERS: Order[] = ['descending', 'ascending', 'ascendingNewest'];

function parameters(overrides: Record<string, unknown> = {}) {
	const now = Date.now();
	return {
		resource: 'account',
		operation: 'getHistory',
		flowType: 32,
		startTime: new Date(now - DAY_MS).toISOString(),
		endTime: new Date(now).toISOString(),
		...overrides,
	};
}

/** Newest first: created descending, then id descending (numeric strings). */
const newestFirst = (records: HistoryRecord[]) =>
	[...records].sort(
		(a, b) =>
			Number(b.created) - Number(a.created) ||
			b.id.length - a.id.length ||
			(a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
	);

const idsOf = (run: { items: Array<{ json: Record<string, unknown> }> }) =>
	run.items.map((item) => String(item.json.id));

describe('UAE rule: history order, Get History Return All', () => {
	it.each(ORDERS)(
		'UAE rule: history %s: Return All over several pages (bounds inside a millisecond) emits every record once, newest first',
		async (order) => {
			sandbox().setBehaviour({ historyOrder: order });
			const now = Date.now();
			// 1,300 funding fees, three per millisecond: 500-record pages end inside a millisecond.
			const seeded = sandbox().seedRecords({
				flowType: 32,
				count: 1300,
				startTime: now - 3_600_000,
				endTime: now - 60_000,
				perMillisecond: 3,
				seed: 7,
			});
			const run = await runTradingService(sandbox(), {
				parameters: parameters({ returnAll: true }),
			});
			expect(run.error).toBeUndefined();
			const ids = idsOf(run);
			expect(new Set(ids).size).toBe(1300);
			expect(ids).toEqual(newestFirst(seeded).map((record) => record.id));
			// About one request per 500 records; an earliest-first page costs one probe per walk
			// (the walk then knows which end the service keeps), or one at the end.
			expect(requestsTo(sandbox(), HISTORY).length).toBeLessThanOrEqual(
				order === 'descending' ? 3 : 5,
			);
		},
	);

	it.each(ORDERS)(
		'UAE rule: history %s, full page of 500 with one created time: Return All stops with an error naming the millisecond, no item emitted',
		async (order) => {
			sandbox().setBehaviour({ historyOrder: order });
			const now = Date.now();
			const created = now - 30 * 60_000;
			const fee = (at: number) => ({
				accountId: DEMO_ACCOUNTS.mainContract,
				flowTypeValue: 32,
				change: '-1',
				created: String(at),
			});
			// 600 in one millisecond, with records on both sides of it.
			sandbox().addRecords([
				fee(created - 60_000),
				...Array.from({ length: 600 }, () => fee(created)),
				fee(created + 60_000),
			]);
			const run = await runTradingService(sandbox(), {
				parameters: parameters({ returnAll: true }),
			});
			expect(run.items).toEqual([]);
			expect(run.error?.message).toBe(
				`More than 500 records share the millisecond ${created} (${new Date(created).toISOString()}); the service cannot page past them by time`,
			);
		},
	);

	it.each(ORDERS)(
		'UAE rule: history %s: 499 records in one millisecond between full pages are read once each, none skipped',
		async (order) => {
			sandbox().setBehaviour({ historyOrder: order });
			const now = Date.now();
			const created = now - 30 * 60_000;
			const fee = (at: number) => ({
				accountId: DEMO_ACCOUNTS.mainContract,
				flowTypeValue: 32,
				change: '-1',
				created: String(at),
			});
			// Pages that begin or end in that millisecond, some of them nearly all of it.
			const records = sandbox().addRecords([
				...Array.from({ length: 600 }, (_, index) => fee(created - 600_000 + index * 1000)),
				...Array.from({ length: 499 }, () => fee(created)),
				...Array.from({ length: 600 }, (_, index) => fee(created + 1 + index * 1000)),
			]);
			const run = await runTradingService(sandbox(), {
				parameters: parameters({ returnAll: true }),
			});
			expect(run.error).toBeUndefined();
			expect(idsOf(run)).toEqual(newestFirst(records).map((record) => record.id));
		},
	);
});

describe('UAE rule: history order, Get History with a Limit', () => {
	it.each(ORDERS)(
		'UAE rule: history %s: Limit 10 gives the newest 10 records, newest first, asking for 10 first',
		async (order) => {
			sandbox().setBehaviour({ historyOrder: order });
			const now = Date.now();
			const seeded = sandbox().seedRecords({
				flowType: 32,
				count: 1200,
				startTime: now - 3_600_000,
				endTime: now - 60_000,
				perMillisecond: 2,
				seed: 8,
			});
			const run = await runTradingService(sandbox(), { parameters: parameters({ limit: 10 }) });
			expect(run.error).toBeUndefined();
			expect(idsOf(run)).toEqual(
				newestFirst(seeded)
					.slice(0, 10)
					.map((record) => record.id),
			);
			const requests = requestsTo(sandbox(), HISTORY);
			expect(requests[0].query).toContain('&limit=10&');
			if (order === 'descending') expect(requests).toHaveLength(1);
		},
	);
});
