/**
 * Bench 4: the trigger's idle poll. An active trigger (n8n-core's PollTriggerExecutor and
 * PollContext via test/harness/poll.ts) over a history that already holds records; after the
 * first poll (baseline), polls with nothing new must cost one request each. For reference: a
 * poll after a burst of new records, and its request count.
 */
import { TradingServiceApi } from '../credentials/TradingServiceApi.credentials';
import { TradingServiceTrigger } from '../nodes/TradingService/TradingServiceTrigger.node';
import { PollRunner } from '../test/harness/poll';
import { credentialsFor } from '../test/helpers/node';
import { DEMO_ACCOUNTS, type Sandbox } from '../test/sandbox';
import { fmtMs, median, timed, type Row } from './stats';

const HISTORY = '/api/v1/account/balanceFlow';
const TYPE = 'n8n-nodes-trading-service.tradingServiceTrigger';

export async function benchTriggerIdlePoll(sandbox: Sandbox): Promise<Row[]> {
	const POLLS = 50;
	sandbox.reset();
	const now = sandbox.now();
	// A busy history: 3,000 funding fee records over the last hour, more than a page in the late window.
	sandbox.seedRecords({ flowType: 32, count: 3000, startTime: now - 3_600_000, endTime: now - 1000, perMillisecond: 2, seed: 5 });
	const runner = new PollRunner({
		node: {
			id: 'trigger',
			name: 'Trading Service Trigger',
			type: TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: { event: 32 },
			credentials: { tradingServiceApi: { id: '1', name: 'Sandbox' } },
		},
		nodeTypes: { [TYPE]: new TradingServiceTrigger() },
		credentialTypes: { tradingServiceApi: new TradingServiceApi() },
		credentials: { tradingServiceApi: credentialsFor(sandbox) as never },
	});
	const requestsOf = async (work: () => Promise<unknown>) => {
		const before = sandbox.ledger.requests.length;
		const { ms } = await timed(work);
		return { ms, requests: sandbox.ledger.requests.slice(before).filter((request) => request.path === HISTORY).length };
	};
	const baseline = await requestsOf(() => runner.poll());
	const idle: Array<{ ms: number; requests: number }> = [];
	for (let poll = 0; poll < POLLS; poll++) {
		const result = await requestsOf(async () => {
			const outcome = await runner.poll();
			if (outcome.error) throw outcome.error;
			if (outcome.items.length > 0) throw new Error('idle poll emitted records');
		});
		idle.push(result);
	}
	// For reference: 1,200 new records (3 per millisecond), then one poll.
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
	const perPoll = idle.map((result) => result.requests);
	const maxPerPoll = Math.max(...perPoll);
	const name = '4. Trigger idle poll (3,000 records in the last hour)';
	return [
		{ benchmark: name, measure: `requests per idle poll (${POLLS} polls: min / median / max)`, value: `${Math.min(...perPoll)} / ${median(perPoll)} / ${maxPerPoll}`, target: '1', verdict: maxPerPoll === 1 ? 'met' : 'NOT MET' },
		{ benchmark: name, measure: 'idle poll wall time, median', value: fmtMs(median(idle.map((result) => result.ms))), target: '', verdict: 'info' },
		{ benchmark: name, measure: 'first poll (baseline) requests', value: String(baseline.requests), target: '', verdict: 'info' },
		{ benchmark: name, measure: 'poll after 1,200 new records: requests / emitted', value: `${burst.requests} / ${emitted} (${fmtMs(burst.ms)})`, target: '', verdict: emitted === 1200 ? 'info' : 'NOT MET' },
	];
}
