/**
 * deferred.ts: work run once at its due time on the real clock, from its timer or earlier from
 * runDue(), earliest first; unref'd timers; clear() drops what waits; sweeps (funding settlement)
 * run first by every runDue() and kept by clear().
 */
import { DeferredWork } from '../../sandbox/deferred';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Block the thread (no timer can run meanwhile) until `ms` have passed. */
const busyWait = (ms: number) => {
	const end = Date.now() + ms;
	while (Date.now() < end) {
		// spin
	}
};
const refTimers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

let work: DeferredWork;
beforeEach(() => {
	work = new DeferredWork();
});
afterEach(() => work.clear());

describe('DeferredWork', () => {
	it('runs a task from its timer once its delay has passed, and only once', async () => {
		const ran: string[] = [];
		work.defer(30, () => ran.push('a'));
		expect(ran).toEqual([]);
		await sleep(300);
		expect(ran).toEqual(['a']);
		work.runDue();
		expect([ran, work.pending]).toEqual([['a'], 0]);
	});

	it('runDue() runs what is due before its timer gets to it, earliest first, ties in order', () => {
		const ran: string[] = [];
		work.defer(20, () => ran.push('late'));
		work.defer(5, () => ran.push('early'));
		work.defer(5, () => ran.push('early too'));
		work.defer(60_000, () => ran.push('far'));
		busyWait(30);
		work.runDue();
		expect(ran).toEqual(['early', 'early too', 'late']);
		expect(work.pending).toBe(1);
	});

	it('a task that defers more work leaves it for its own time', () => {
		const ran: string[] = [];
		work.defer(0, () => {
			ran.push('first');
			work.defer(60_000, () => ran.push('second'));
		});
		work.runDue(Date.now() + 1);
		expect([ran, work.pending]).toEqual([['first'], 1]);
	});

	it('its timers never keep the process alive, and clear() drops every task', async () => {
		const before = refTimers();
		const ran: string[] = [];
		work.defer(20, () => ran.push('x'));
		expect(refTimers()).toBe(before);
		work.clear();
		await sleep(40);
		work.runDue();
		expect([ran, work.pending]).toEqual([[], 0]);
	});

	it('a sweep runs at the start of every runDue(), before the tasks due, and clear() keeps it', () => {
		const ran: string[] = [];
		work.addSweep(() => ran.push('sweep'));
		work.defer(0, () => ran.push('task'));
		work.runDue(Date.now() + 1);
		work.clear();
		work.runDue();
		expect(ran).toEqual(['sweep', 'task', 'sweep']);
	});
});
