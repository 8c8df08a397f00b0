/** syntheticHistory.ts (Sandbox.seedRecords): 100,000 records, deterministic for a seed, paged fast. */
import { createHash } from 'node:crypto';

import { type HistoryRecord } from '../../sandbox';
import { useSandboxClients } from '../support/sandbox';
import { T0, DAY } from './support';

const digest = (recs: HistoryRecord[]) =>
	createHash('sha256').update(JSON.stringify(recs)).digest('hex');
const { sandbox, master } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});

describe('seeding', () => {
	it('seeds 100,000 funding fees quickly and deterministically; pages stay fast', async () => {
		const opts = {
			flowType: 32,
			count: 100_000,
			startTime: T0 - 30 * DAY + 1,
			endTime: T0,
			seed: 7,
			perMillisecond: 2,
		};
		const t1 = Date.now();
		const a = sandbox().seedRecords(opts);
		const seedMs = Date.now() - t1;
		// About 0.5 s on an idle machine, over 5 s on a loaded one: the bound catches only a seeding
		// that grows faster than the records (100,000² steps take minutes). Speed: bench/.
		expect(seedMs).toBeLessThan(30_000);
		expect(a).toHaveLength(100_000);
		sandbox().reset();
		const b = sandbox().seedRecords(opts);
		expect(digest(b)).toBe(digest(a));
		expect(b[12345]).toEqual(a[12345]);
		expect(a[0].created).toBe(String(opts.startTime));
		expect(a[a.length - 1].created).toBe(String(T0));
		expect(a[0].created).toBe(a[1].created); // perMillisecond 2
		expect(a[1].created).not.toBe(a[2].created);
		expect(new Set(a.map((x) => x.symbol))).toEqual(
			new Set(['BTCUSDT-PERPETUAL', 'ETHUSDT-PERPETUAL']),
		);
		expect(new Set(a.map((x) => x.id)).size).toBe(100_000);
		const other = sandbox().seedRecords({ ...opts, seed: 8, accountId: '20001' });
		expect(digest(other.map((x) => ({ ...x, id: '', accountId: '' })))).not.toBe(
			digest(a.map((x) => ({ ...x, id: '', accountId: '' }))),
		);

		// walk the whole 100k history backwards, 500 at a time, by moving endTime (a client's pagination)
		const t2 = Date.now();
		let end = T0;
		let seen = 0;
		let pages = 0;
		const ids = new Set<string>();
		for (;;) {
			const page = (
				await master().history({
					flowType: 32,
					accountType: 3,
					startTime: opts.startTime,
					endTime: end,
					limit: 500,
				})
			).json as HistoryRecord[];
			pages++;
			const fresh = page.filter((x) => !ids.has(x.id));
			for (const x of fresh) ids.add(x.id);
			seen += fresh.length;
			if (page.length < 500) break;
			end = Number(page[page.length - 1].created);
		}
		expect(seen).toBe(100_000);
		expect(pages).toBeGreaterThan(200);
		// About 3 s for 200 pages on an idle machine: the bound catches only pages grown tens of times
		// slower (a copy or sort of the whole history per page). Speed: bench/.
		expect(Date.now() - t2).toBeLessThan(45_000);
	}, 120_000);
});
