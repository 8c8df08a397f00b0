/**
 * The trigger's baseline and catch-up in either order the service may list history
 * (helpers/history.ts), through n8n-core's real poll path against the sandbox: newest first (the
 * spec, for funding fees), earliest first keeping the earliest records (the UAE documentation's
 * general rule) and the newest records listed earliest first. Every new record is emitted once,
 * oldest first; none that existed at activation is; a full page of 500 records all created in one
 * millisecond is read around, never repeated.
 */
import { DEMO_ACCOUNTS } from '../../../../sandbox';
import { useSandbox } from '../../../support/sandbox';
import { triggerRunner } from '../../../support/trigger';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

type Order = 'descending' | 'ascending' | 'ascendingNewest';
const ORDERS: Order[] = ['descending', 'ascending', 'ascendingNewest'];

/** A funding fee record (flowType 32) on the contract account, created at `created`. */
const fee = (created: number) => ({
	accountId: DEMO_ACCOUNTS.mainContract,
	flowTypeValue: 32,
	change: '-0.1',
	created: String(created),
});

/** Every emitted record is new, none twice, and each poll's items are oldest first. */
function expectOldestFirst(items: Array<{ json: Record<string, unknown> }>) {
	const created = items.map((item) => Number(item.json.created));
	expect(created).toEqual([...created].sort((a, b) => a - b));
}

describe('UAE rule: history order, trigger baseline and catch-up', () => {
	it.each(ORDERS)(
		'UAE rule: history %s: 1,200 records at activation are not emitted; 1,200 new ones (two per millisecond) are, once each, oldest first',
		async (order) => {
			sandbox().setBehaviour({ historyOrder: order });
			const runner = triggerRunner(sandbox());
			const now = sandbox().now();
			// More than two pages exist at activation: an earliest-first page holds the oldest.
			sandbox().addRecords(
				Array.from({ length: 1200 }, (_, index) => fee(now - 3_600_000 + index * 1000)),
			);
			const baseline = await runner.poll();
			expect(baseline.error).toBeUndefined();
			expect(baseline.items).toEqual([]);
			expect(runner.nodeStaticData().watermark).toBe(now - 3_600_000 + 1199 * 1000);
			const fresh = sandbox().addRecords(
				Array.from({ length: 1200 }, (_, index) =>
					fee(now - 3_600_000 + 1200 * 1000 + Math.floor(index / 2) * 100),
				),
			);
			const poll = await runner.poll();
			expect(poll.error).toBeUndefined();
			expect(poll.items.map((item) => item.json.id).sort()).toEqual(
				fresh.map((record) => record.id).sort(),
			);
			expectOldestFirst(poll.items);
			expect((await runner.poll()).items).toEqual([]);
		},
	);

	it.each(ORDERS)(
		'UAE rule: history %s: a catch-up stopped again and again by the time budget emits every new record once',
		async (order) => {
			sandbox().setBehaviour({ historyOrder: order });
			// A budget of 1 ms: each poll reads one page per step, then resumes at the next poll.
			const runner = triggerRunner(sandbox(), { pollBudgetMs: 1 });
			const t0 = sandbox().now() - 30 * 60_000;
			sandbox().addRecords([fee(t0)]);
			expect((await runner.poll()).error).toBeUndefined();
			const fresh = sandbox().addRecords(
				Array.from({ length: 1200 }, (_, index) => fee(t0 + 500 * (Math.floor(index / 3) + 1))),
			);
			const emitted: string[] = [];
			let resumed = 0;
			for (let poll = 0; poll < 20; poll++) {
				const outcome = await runner.poll();
				expect(outcome.error).toBeUndefined();
				expectOldestFirst(outcome.items);
				emitted.push(...outcome.items.map((item) => String(item.json.id)));
				if (runner.nodeStaticData().resume !== undefined) resumed++;
			}
			// The budget did stop the catch-up: some polls left a resume point for the next.
			expect(resumed).toBeGreaterThan(0);
			expect(emitted.sort()).toEqual(fresh.map((record) => record.id).sort());
		},
	);

	it.each(ORDERS)(
		'UAE rule: history %s, full page of 500 with one created time: the trigger emits the 500 the service returns and everything around them, none twice',
		async (order) => {
			sandbox().setBehaviour({ historyOrder: order });
			const runner = triggerRunner(sandbox());
			const t0 = sandbox().now() - 5 * 60_000;
			sandbox().addRecords([fee(t0)]);
			expect((await runner.poll()).error).toBeUndefined();
			const crowded = t0 + 60_000;
			const before = sandbox().addRecords(
				Array.from({ length: 10 }, (_, index) => fee(t0 + 1000 * (index + 1))),
			);
			const same = sandbox().addRecords(Array.from({ length: 600 }, () => fee(crowded)));
			const after = sandbox().addRecords(
				Array.from({ length: 10 }, (_, index) => fee(crowded + 1000 * (index + 1))),
			);
			const poll = await runner.poll();
			expect(poll.error).toBeUndefined();
			const ids = poll.items.map((item) => String(item.json.id));
			expect(new Set(ids).size).toBe(ids.length);
			for (const record of [...before, ...after]) expect(ids).toContain(record.id);
			const sameIds = new Set(same.map((record) => record.id));
			expect(ids.filter((id) => sameIds.has(id))).toHaveLength(500);
			expectOldestFirst(poll.items);
			// Nothing read is emitted again.
			const next = await runner.poll();
			expect(next.items.filter((item) => ids.includes(String(item.json.id)))).toEqual([]);
		},
	);
});
