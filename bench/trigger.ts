/**
 * Bench 4: the trigger's idle poll. An active trigger (n8n-core's PollTriggerExecutor and
 * PollContext via tools/harness/poll.ts, event: funding fee, default 10-minute late records window)
 * over 3,000 records of the last hour; after the first poll (baseline), 50 polls with nothing new;
 * then 1,200 new records arrive, one poll emits them, and 50 more idle polls follow. An idle poll
 * re-reads the late records window (500 records per request), so it costs one request while the
 * window holds at most 500 records, more after a burst.
 */
import type { PollRunner } from '../tools/harness/poll';
import { triggerRunner } from '../tools/harness/trigger';
import { DEMO_ACCOUNTS, type Sandbox } from '../sandbox';
import { fmtMs, median, timed, type Row } from './stats';

const HISTORY = '/api/v1/account/balanceFlow';
const POLLS = 50;

function newRunner(sandbox: Sandbox): PollRunner {
	return triggerRunner(sandbox);
}

async function measure(sandbox: Sandbox) {
	sandbox.reset();
	const now = sandbox.now();
	sandbox.seedRecords({
		flowType: 32,
		count: 3000,
		startTime: now - 3_600_000,
		endTime: now - 1000,
		seed: 5,
	});
	const runner = newRunner(sandbox);
	const requestsOf = async (work: () => Promise<unknown>) => {
		const before = sandbox.ledger.requests.length;
		const { ms } = await timed(work);
		return {
			ms,
			requests: sandbox.ledger.requests.slice(before).filter((request) => request.path === HISTORY)
				.length,
		};
	};
	const idlePolls = async () => {
		const idle: Array<{ ms: number; requests: number }> = [];
		for (let poll = 0; poll < POLLS; poll++) {
			idle.push(
				await requestsOf(async () => {
					const outcome = await runner.poll();
					if (outcome.error) throw outcome.error;
					if (outcome.items.length > 0) throw new Error('idle poll emitted records');
				}),
			);
		}
		return {
			perPoll: idle.map((result) => result.requests),
			ms: median(idle.map((result) => result.ms)),
		};
	};
	const baseline = await requestsOf(() => runner.poll());
	const quiet = await idlePolls();
	// 1,200 new records (3 per millisecond) arrive: one poll emits them ...
	const start = sandbox.now() - 900;
	sandbox.addRecords(
		Array.from({ length: 1200 }, (_, index) => ({
			accountId: DEMO_ACCOUNTS.mainContract,
			flowTypeValue: 32,
			change: '-0.01',
			created: String(start + Math.floor(index / 3)),
		})),
	);
	let emitted = 0;
	const burst = await requestsOf(async () => {
		const outcome = await runner.poll();
		if (outcome.error) throw outcome.error;
		emitted = outcome.items.length;
	});
	// ... and for the next 10 minutes (the late records window) they are read again by every poll.
	const busy = await idlePolls();
	return { baseline, quiet, busy, burst, emitted };
}

export async function benchTriggerIdlePoll(sandbox: Sandbox): Promise<Row[]> {
	const result = await measure(sandbox);
	const spread = (perPoll: number[]) =>
		`${Math.min(...perPoll)} / ${median(perPoll)} / ${Math.max(...perPoll)}`;
	const name = '4. Trigger idle poll (3,000 records in the last hour)';
	return [
		{
			benchmark: name,
			measure: `requests per idle poll, ≤ 500 records in the late window (${POLLS} polls: min / median / max)`,
			value: spread(result.quiet.perPoll),
			target: '1',
			verdict: Math.max(...result.quiet.perPoll) === 1 ? 'met' : 'NOT MET',
		},
		{
			benchmark: name,
			measure: `same, after 1,200 new records (late window holds > 1,000)`,
			value: spread(result.busy.perPoll),
			target: '1',
			verdict: Math.max(...result.busy.perPoll) === 1 ? 'met' : 'NOT MET',
		},
		{
			benchmark: name,
			measure: 'idle poll wall time, median (before / after the burst)',
			value: `${fmtMs(result.quiet.ms)} / ${fmtMs(result.busy.ms)}`,
			target: '',
			verdict: 'info',
		},
		{
			benchmark: name,
			measure: 'first poll (baseline) requests',
			value: String(result.baseline.requests),
			target: '',
			verdict: 'info',
		},
		{
			benchmark: name,
			measure: 'poll after 1,200 new records: requests / emitted',
			value: `${result.burst.requests} / ${result.emitted} (${fmtMs(result.burst.ms)})`,
			target: '',
			verdict: result.emitted === 1200 ? 'info' : 'NOT MET',
		},
	];
}
