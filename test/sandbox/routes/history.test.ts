/**
 * routes/history.ts: GET /api/v1/account/balanceFlow: parameter checks, newest first with
 * inclusive bounds, retention windows, accountType and key visibility, limits; the inline
 * historyOversize and historyOldestFirst faults.
 */
import { DEMO_KEYS, type HistoryRecord } from '../../../sandbox';
import { TestClient } from '../../../sandbox/testClient';
import { useSandboxClients } from '../../support/sandbox';
import { T0, DAY, HISTORY, transfers } from '../support';

let clock = T0;
beforeEach(() => {
	clock = T0;
});
const { sandbox, master, sub } = useSandboxClients({
	now: () => clock,
	rateLimit: false,
	requestRates: false,
});

describe('GET /api/v1/account/balanceFlow', () => {
	it('validates its parameters', async () => {
		const base = { flowType: 32, startTime: 0, endTime: T0 };
		const cases: Array<[Record<string, string | number | undefined>, string]> = [
			[{ ...base, flowType: undefined }, 'flowType'],
			[{ ...base, flowType: 3 }, 'flowType'],
			[{ ...base, flowType: 'x' }, 'flowType'],
			[{ ...base, startTime: undefined }, 'startTime'],
			[{ ...base, endTime: undefined }, 'endTime'],
			[{ ...base, endTime: '17e11' }, 'endTime'],
			[{ ...base, accountType: 2 }, 'accountType'],
			[{ ...base, limit: 0 }, 'limit'],
			[{ ...base, limit: 501 }, 'limit'],
			[{ ...base, limit: -1 }, 'limit'],
			[{ ...base, startTime: T0 + 1 }, 'startTime'],
		];
		for (const [q, field] of cases) {
			const r = await master().history(q);
			expect([r.status, r.json.code, field]).toEqual([400, '0001', field]);
			expect(r.json.msg).toContain(`'${field}'`);
		}
	});

	it('returns records newest first (created desc, then id desc), bounds inclusive', async () => {
		sandbox().addRecords([
			{
				accountId: '10003',
				flowTypeValue: 32,
				change: '-1',
				created: String(T0 - 3000),
				symbol: 'BTCUSDT-PERPETUAL',
			},
			{
				accountId: '10003',
				flowTypeValue: 32,
				change: '-2',
				created: String(T0 - 1000),
				symbol: 'ETHUSDT-PERPETUAL',
			},
			{ accountId: '10003', flowTypeValue: 32, change: '-3', created: String(T0 - 2000) },
			{ accountId: '10003', flowTypeValue: 32, change: '-4', created: String(T0 - 1000) },
			{ accountId: '10003', flowTypeValue: 51, change: '5', created: String(T0 - 1000) },
		]);
		const r = await master().history({ flowType: 32, startTime: T0 - 3000, endTime: T0 - 1000 });
		const recs = r.json as HistoryRecord[];
		expect(recs.map((x) => x.change)).toEqual(['-4', '-2', '-3', '-1']);
		for (const x of recs) {
			expect(typeof x.symbol).toBe('string');
			expect(x.flowType).toBe('FUNDING_SETTLEMENT');
			expect(x.flowName).toBe('');
			expect(x.created).toMatch(/^\d+$/);
		}
		expect(BigInt(recs[0].id) > BigInt(recs[1].id)).toBe(true);
		const inner = await master().history({
			flowType: 32,
			startTime: T0 - 2999,
			endTime: T0 - 1001,
		});
		expect(inner.json.map((x: HistoryRecord) => x.change)).toEqual(['-3']);
	});

	it('applies the retention windows (7 days for 1/2, 30 days otherwise) without rejecting the query', async () => {
		sandbox().addRecords([
			{ accountId: '10003', flowTypeValue: 32, change: '-1', created: String(T0 - 30 * DAY) },
			{ accountId: '10003', flowTypeValue: 32, change: '-2', created: String(T0 - 30 * DAY - 1) },
			{
				accountId: '10001',
				flowTypeValue: 1,
				change: '1',
				created: String(T0 - 7 * DAY),
				symbol: 'BTCUSDT',
			},
			{
				accountId: '10001',
				flowTypeValue: 1,
				change: '2',
				created: String(T0 - 7 * DAY - 1),
				symbol: 'BTCUSDT',
			},
			{
				accountId: '10001',
				flowTypeValue: 2,
				change: '-3',
				created: String(T0 - 8 * DAY),
				symbol: 'BTCUSDT',
			},
			{ accountId: '10005', flowTypeValue: 900, change: '9', created: String(T0 - 29 * DAY) },
		]);
		const q = { startTime: 0, endTime: T0 };
		expect(
			(await master().history({ flowType: 32, ...q })).json.map((x: HistoryRecord) => x.change),
		).toEqual(['-1']);
		expect(
			(await master().history({ flowType: 1, ...q })).json.map((x: HistoryRecord) => x.change),
		).toEqual(['1']);
		expect((await master().history({ flowType: 2, ...q })).json).toEqual([]);
		expect(
			(await master().history({ flowType: 900, ...q })).json.map((x: HistoryRecord) => x.flowType),
		).toEqual(['CUSTODY_DEPOSIT']);
		// the window moves with the server clock
		clock = T0 + 1;
		expect((await master().history({ flowType: 32, ...q })).json).toEqual([]);
	});

	it('filters by accountType and by the key (master sees every account, sub only its own)', async () => {
		for (const [acc, t] of [
			['10001', 1],
			['10003', 3],
			['10005', 5],
			['10006', 6],
			['20001', 1],
		] as Array<[string, number]>) {
			sandbox().addRecords([
				{ accountId: acc, flowTypeValue: 51, change: String(t), created: String(T0 - 10) },
			]);
		}
		const accs = async (c: TestClient, accountType?: number) =>
			((await transfers(c, accountType)).json as HistoryRecord[]).map((x) => x.accountId).sort();
		expect(await accs(master())).toEqual(['10001', '10003', '10005', '10006', '20001']);
		expect(await accs(master(), 1)).toEqual(['10001', '20001']);
		expect(await accs(master(), 3)).toEqual(['10003']);
		expect(await accs(master(), 5)).toEqual(['10005']);
		expect(await accs(master(), 6)).toEqual(['10006']);
		expect(await accs(sub())).toEqual(['20001']);
		expect(await accs(sub(), 1)).toEqual(['20001']);
		expect(await accs(sub(), 6)).toEqual([]);
		expect(await accs(master().withCredentials(DEMO_KEYS.readOnly), 5)).toEqual(['10005']);
	});

	it('limit defaults to 50 and goes up to 500', async () => {
		sandbox().seedRecords({ flowType: 32, count: 600, startTime: T0 - DAY, endTime: T0 });
		const q = { flowType: 32, startTime: T0 - DAY, endTime: T0 };
		expect((await master().history(q)).json).toHaveLength(50);
		const all = (await master().history({ ...q, limit: 500 })).json as HistoryRecord[];
		expect(all).toHaveLength(500);
		expect(all[0].created).toBe(String(T0));
		for (let i = 1; i < all.length; i++)
			expect(Number(all[i - 1].created)).toBeGreaterThanOrEqual(Number(all[i].created));
	});
});

describe('history pages', () => {
	beforeEach(() => {
		sandbox().seedRecords({
			flowType: 51,
			count: 30,
			startTime: T0 - 29_000,
			endTime: T0,
			accountId: '10001',
		});
	});

	const page = async (extra: Record<string, number> = {}) =>
		(await master().history({ flowType: 51, startTime: 0, endTime: T0, limit: 10, ...extra }))
			.json as HistoryRecord[];

	const newestFirst = (recs: HistoryRecord[]) =>
		recs.every((r, i) => i === 0 || Number(recs[i - 1].created) >= Number(r.created));

	it('historyOversize: more records than the limit (by default twice as many), or extraRecords more', async () => {
		const normal = await page();
		expect(normal).toHaveLength(10);
		sandbox().setFaults({
			rules: [
				{ kind: 'historyOversize', times: 1 },
				{ kind: 'historyOversize', times: 1, extraRecords: 3 },
			],
		});
		const twice = await page();
		expect(twice).toHaveLength(20);
		expect(twice.slice(0, 10)).toEqual(normal);
		expect(newestFirst(twice)).toBe(true);
		expect(await page()).toHaveLength(13);
	});

	it('historyOldestFirst: the same page, ascending', async () => {
		const normal = await page();
		expect(newestFirst(normal)).toBe(true);
		sandbox().setFaults({ rules: [{ kind: 'historyOldestFirst', times: 1, path: HISTORY }] });
		const asc = await page();
		expect(asc).toEqual([...normal].reverse());
		expect(newestFirst(asc)).toBe(false);
	});

	it('historyUnordered: the first record of another time moved to the front, so the page is in no order', async () => {
		const normal = await page();
		sandbox().setFaults({ rules: [{ kind: 'historyUnordered', times: 1, path: HISTORY }] });
		const mixed = await page();
		expect(mixed).toEqual([normal[1], normal[0], ...normal.slice(2)]);
		// Two records in the first millisecond: the third one moves.
		sandbox().addRecords([
			{ accountId: '10001', flowTypeValue: 51, change: '1', created: String(T0) },
		]);
		const tied = await page();
		sandbox().setFaults({ rules: [{ kind: 'historyUnordered', times: 1, path: HISTORY }] });
		expect(await page()).toEqual([tied[2], tied[0], tied[1], ...tied.slice(3, 10)]);
		expect(newestFirst(mixed)).toBe(false);
		expect(newestFirst([...mixed].reverse())).toBe(false);
	});
});

describe('behaviour historyOrder', () => {
	// 30 records one second apart, two of them sharing T0 - 10000: the limit cuts inside it.
	beforeEach(() => {
		sandbox().seedRecords({
			flowType: 51,
			count: 30,
			startTime: T0 - 29_000,
			endTime: T0,
			accountId: '10001',
		});
		sandbox().addRecords([
			{ accountId: '10001', flowTypeValue: 51, change: '1', created: String(T0 - 10_000) },
		]);
	});
	const page = async (extra: Record<string, number> = {}) =>
		(await master().history({ flowType: 51, startTime: 0, endTime: T0, limit: 10, ...extra }))
			.json as HistoryRecord[];
	const times = (recs: HistoryRecord[]) => recs.map((r) => Number(r.created) - T0);

	it('descending (default): the newest `limit` records, newest first', async () => {
		expect(times(await page())).toEqual([
			0, -1000, -2000, -3000, -4000, -5000, -6000, -7000, -8000, -9000,
		]);
	});

	it('UAE rule: history ascending: the earliest `limit` records, earliest first, ties by id ascending', async () => {
		const all = await page({ limit: 500 });
		sandbox().setBehaviour({ historyOrder: 'ascending' });
		const asc = await page({ limit: 20 });
		expect(times(asc)).toEqual([
			...Array.from({ length: 19 }, (_, index) => -29_000 + index * 1000),
			-10_000,
		]);
		expect(asc).toEqual([...all].reverse().slice(0, 20));
		// The rest of the range, asked from the last created on.
		const next = (
			await master().history({ flowType: 51, startTime: T0 - 10_000, endTime: T0, limit: 500 })
		).json as HistoryRecord[];
		expect(times(next)).toEqual([
			-10_000,
			-10_000,
			...Array.from({ length: 10 }, (_, index) => -9000 + index * 1000),
		]);
	});

	it('UAE rule: history ascendingNewest: the newest `limit` records, listed earliest first', async () => {
		const normal = await page();
		sandbox().setBehaviour({ historyOrder: 'ascendingNewest' });
		expect(await page()).toEqual([...normal].reverse());
	});
});
