/**
 * The Trading Service Trigger's catch-up, through n8n-core's real poll path against the sandbox:
 * records listed late inside the Late Records Window are emitted, also behind more than a page of
 * newer records or across polls stopped by the time budget, and a page that breaks the service's
 * promises stops the poll with the watermark where it was. Beside TradingServiceTrigger.node.test.ts.
 */
import { DEMO_ACCOUNTS } from '../../../sandbox';
import { PATHS } from '../../support/runs';
import { useSandbox } from '../../support/sandbox';
import { triggerRunner } from '../../support/trigger';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

/** A funding fee record (flowType 32) on the contract account, created at `created`. */
const fee = (created: number) => ({
	accountId: DEMO_ACCOUNTS.mainContract,
	flowTypeValue: 32,
	change: '-0.1',
	created: String(created),
});

describe('the trigger emits records listed late inside the window, also behind more than a page of newer records', () => {
	// The catch-up reads from the watermark minus the Late Records Window, every page of it: a walk
	// that stopped at the first full page reaching below the watermark would read a record listed
	// late, well inside the window, only if it were among the newest 500; behind 550 newer ones it
	// would never be emitted.
	it('a record listed 110 s late, inside the 10-minute window, behind 550 newer records, is emitted', async () => {
		const runner = triggerRunner(sandbox());
		const t0 = sandbox().now() - 5 * 60_000;
		sandbox().addRecords([fee(t0)]);
		expect((await runner.poll()).error).toBeUndefined();
		// 600 records, 200 ms apart, all after the baseline: emitted.
		const watermark = t0 + 120_000;
		sandbox().addRecords(Array.from({ length: 600 }, (_, index) => fee(watermark - index * 200)));
		expect((await runner.poll()).items).toHaveLength(600);
		// Listed late: 110 s before the newest record.
		const [late] = sandbox().addRecords([fee(watermark - 110_000)]);
		const poll = await runner.poll();
		expect(poll.items.map((item) => item.json.id)).toEqual([late.id]);
	});
});

describe('a catch-up stopped by the time budget misses no late record', () => {
	// A poll that runs out of its time budget stops its catch-up and goes on at the next poll. The
	// late records window is read again until the catch-up is done, so a record listed late while
	// the catch-up was stopped again and again is emitted too, and every record only once.
	it('1,200 new records over 20 minutes and one listed late: all emitted, each once', async () => {
		// A budget of 1 ms: every poll reads a single page per step, so the catch-up stops again and again.
		const runner = triggerRunner(sandbox(), { pollBudgetMs: 1 });
		const t0 = sandbox().now() - 30 * 60_000;
		sandbox().addRecords([fee(t0)]);
		expect((await runner.poll()).error).toBeUndefined();
		const fresh = sandbox().addRecords(
			Array.from({ length: 1200 }, (_, index) => fee(t0 + 1000 * (index + 1))),
		);
		// Inside the late records window (10 minutes) below the watermark the first poll set.
		const [late] = sandbox().addRecords([fee(t0 - 60_000)]);
		const emitted: string[] = [];
		for (let poll = 0; poll < 20; poll++) {
			const outcome = await runner.poll();
			expect(outcome.error).toBeUndefined();
			emitted.push(...outcome.items.map((item) => String(item.json.id)));
		}
		expect(emitted).toContain(late.id);
		expect(emitted.sort()).toEqual([...fresh, late].map((record) => record.id).sort());
	});
});

describe('a page that breaks the paging promises stops the poll, the watermark kept', () => {
	// The catch-up relies on pages of at most the records asked for, each in one order (newest or
	// oldest first). A page that is not could make it skip or repeat records: the poll emits
	// nothing and leaves its state as it was, so the next good page emits every record.
	it('trigger: a page in no order stops the poll without moving the watermark', async () => {
		const runner = triggerRunner(sandbox());
		const t0 = sandbox().now() - 5 * 60_000;
		sandbox().addRecords([fee(t0)]);
		expect((await runner.poll()).error).toBeUndefined();
		const before = runner.nodeStaticData();
		sandbox().addRecords(Array.from({ length: 5 }, (_, index) => fee(t0 + 1000 * (index + 1))));
		sandbox().setFaults({
			rules: [{ kind: 'historyUnordered', times: 1, path: PATHS.history }],
		});
		const bad = await runner.poll();
		expect(bad.error).toBeUndefined();
		expect(bad.items).toEqual([]);
		expect(runner.nodeStaticData()).toEqual(before);
		// The next good page emits them all.
		expect((await runner.poll()).items).toHaveLength(5);
	});

	it('a page longer than asked for stops the poll without moving the watermark; the next poll emits', async () => {
		const runner = triggerRunner(sandbox());
		const t0 = sandbox().now() - 5 * 60_000;
		sandbox().addRecords([fee(t0)]);
		expect((await runner.poll()).error).toBeUndefined();
		const before = runner.nodeStaticData();
		// More than a page exists, so the service can send more than the 500 asked for.
		sandbox().addRecords(Array.from({ length: 600 }, (_, index) => fee(t0 + 100 * (index + 1))));
		sandbox().setFaults({ rules: [{ kind: 'historyOversize', times: 1, path: PATHS.history }] });
		const bad = await runner.poll();
		expect(bad.error).toBeUndefined();
		expect(bad.items).toEqual([]);
		expect(runner.nodeStaticData()).toEqual(before);
		expect((await runner.poll()).items).toHaveLength(600);
	});
});
