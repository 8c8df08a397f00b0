/**
 * Funding Rate Crosses a Threshold (Trading Service Trigger, version 2) ACTIVE in a started n8n
 * 2.41.1 (`n8n start`), package installed from `npm pack`, sandbox on loopback with a funding
 * period of FUNDING_INTERVAL_MS: Trading Service Trigger (BTCUSDT-PERPETUAL, Rises Above 0.05 %)
 * → Crossing Message (Set).
 *
 * The sandbox is scripted with 10 funding rates, one per period, that cross 0.05 % upwards 4
 * times (periods 1, 3, 5 and 9). The workflow polls every second: n8n refuses a poll schedule
 * under a minute, so its Poll Times hold 60 custom crons, one per second of the minute (each "every
 * minute"). After the second crossing's execution n8n is stopped gracefully; the rate falls back
 * (period 4) and crosses again (period 5) while n8n is down; n8n is started again on the same user
 * folder (database) and the workflow is re-activated. Read back through n8n's REST API: exactly 4
 * executions, one per crossing, each with the crossing's rate, none repeated, none lost.
 *
 * First, the editor's routes: the Contract picker's list (the trigger's own `searchContracts`) and
 * Fetch Test Event (a manual run: the current rate as one item, one request).
 */
import { setTimeout as sleep } from 'timers/promises';

import {
	CREDENTIAL_TYPE,
	NODE_TYPES,
	SANDBOX_CREDENTIAL,
	type Workflow,
} from '../../tools/n8n/examples';
import { leakedSecrets, setUpN8nWithSandbox, type E2eFixture } from '../../tools/n8n/fixture';
import { stopN8nGracefully } from '../../tools/n8n/graceful';
import type { RestExecution } from '../../tools/n8n/rest';
import { getNodeItems } from '../../tools/n8n/run-data';
import { startN8n, type N8nInstance } from '../../tools/n8n/server';
import { describeE2E } from '../support/describe-e2e';

const SYMBOL = 'BTCUSDT-PERPETUAL';
/**
 * Long enough that n8n's start (10 to 16 s measured here) fits in the 4 periods between crossing
 * 3, made while n8n is down, and crossing 4, with room for a busier machine (28 s): each crossing
 * then has its own execution.
 */
const FUNDING_INTERVAL_MS = 7_000;
const RATE_PATH = '/api/v2/futures/fundingRate';
const HISTORY_PATH = '/api/v2/futures/historyFundingRate';

/** One rate per funding period: above 0.05 % (0.0005) in periods 1, 3, 5 and 9 only. */
const RATES = [
	'0.0002',
	'0.00061', // crossing 1
	'0.0003',
	'0.00072', // crossing 2, then n8n stops
	'0.0004', // back below while n8n is down (its state in the database still says "above")
	'0.00083', // crossing 3, while n8n is down
	'0.0001',
	'0.0005', // at the threshold: not above
	'0.00049',
	'0.000501', // crossing 4
];
const CROSSINGS = [1, 3, 5, 9];

const TRIGGER = 'Funding Rate Above 0.05%';
const MESSAGE = 'Crossing Message';
const WORKFLOW: Workflow = {
	id: 'tsFundingRateCross1',
	name: 'Funding rate crosses 0.05 %',
	active: false,
	settings: { executionOrder: 'v1' },
	nodes: [
		{
			id: '8d2f6a40-1c3b-4e7a-9f10-5a6b7c8d9e01',
			name: TRIGGER,
			type: NODE_TYPES.trigger,
			typeVersion: 2,
			position: [0, 0],
			parameters: {
				// Every second: one "every minute" cron per second of the minute.
				pollTimes: {
					item: Array.from({ length: 60 }, (_, second) => ({
						mode: 'custom',
						cronExpression: `${second} * * * * *`,
					})),
				},
				event: 'fundingRateCrossing',
				symbol: { __rl: true, mode: 'list', value: SYMBOL },
				crossing: 'above',
				threshold: '0.05',
			},
			credentials: { [CREDENTIAL_TYPE]: { ...SANDBOX_CREDENTIAL } },
		},
		{
			id: '8d2f6a40-1c3b-4e7a-9f10-5a6b7c8d9e02',
			name: MESSAGE,
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [260, 0],
			parameters: {
				assignments: {
					assignments: [
						{
							id: '8d2f6a40-1c3b-4e7a-9f10-5a6b7c8d9ea1',
							name: 'message',
							value:
								'={{ $json.symbol }} funding rate {{ $json.ratePercent }}% rose above {{ $json.threshold }}% (was {{ $json.previousRate }})',
							type: 'string',
						},
					],
				},
				options: {},
			},
		},
	],
	connections: { [TRIGGER]: { main: [[{ node: MESSAGE, type: 'main', index: 0 }]] } },
	pinData: {},
};

async function waitFor<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
		await sleep(100);
	}
}

describeE2E(
	'Funding Rate Crosses a Threshold in a started n8n: 10 periods, 4 crossings, a restart',
	() => {
		let fx: E2eFixture;
		let n8n: N8nInstance | undefined;
		let cookie: string;
		const logs: string[] = [];

		beforeAll(async () => {
			fx = await setUpN8nWithSandbox({
				prefix: 'n8n-e2e-funding-rate-',
				workflows: [WORKFLOW],
				sandbox: { fundingIntervalMs: FUNDING_INTERVAL_MS },
			});
			n8n = await startN8n(fx.env);
			cookie = await n8n.login();
		});

		afterAll(async () => {
			if (n8n) {
				logs.push(n8n.logs());
				await n8n.stop();
			}
			if (fx) expect(leakedSecrets(logs.join('\n'), fx.secrets)).toEqual([]);
			await fx?.cleanup();
		});

		const triggerExecutions = async () =>
			(await n8n!.listExecutions(cookie, WORKFLOW.id)).filter((e) => e.mode === 'trigger');

		/** Until the workflow has `count` finished trigger executions. */
		const executions = (count: number, timeoutMs: number) =>
			n8n!.waitForExecutions(cookie, WORKFLOW.id, count, { mode: 'trigger', timeoutMs });

		test("the Contract picker (the trigger's searchContracts) and Fetch Test Event", async () => {
			const sb = fx.sb;
			sb.reset();
			const listed = await n8n!.request<{
				data: { results: Array<{ name: string; value: string }> };
			}>('POST', '/rest/dynamic-node-parameters/resource-locator-results', {
				cookie,
				body: {
					path: 'parameters.symbol',
					nodeTypeAndVersion: { name: NODE_TYPES.trigger, version: 2 },
					currentNodeParameters: WORKFLOW.nodes[0].parameters,
					methodName: 'searchContracts',
					credentials: { [CREDENTIAL_TYPE]: { ...SANDBOX_CREDENTIAL } },
					workflowId: WORKFLOW.id,
				},
			});
			expect(listed.status).toBe(200);
			const results = listed.body.data.results;
			expect(results).toContainEqual({ name: 'BTCUSDT-PERPETUAL (BTC/USDT)', value: SYMBOL });
			expect(results.map((entry) => entry.value)).toEqual(
				expect.arrayContaining(['ETHUSDT-PERPETUAL', 'SOLUSDT-PERPETUAL', 'XRPUSDT-PERPETUAL']),
			);

			sb.futures.setFundingRates(SYMBOL, ['0.00042']);
			const requestsBefore = sb.ledger.requests.length;
			const exec = await n8n!.runWorkflowFromTrigger(cookie, WORKFLOW.id, TRIGGER);
			expect(exec.status).toBe('success');
			expect(exec.mode).toBe('manual');
			expect(getNodeItems({ data: exec.data! }, TRIGGER)).toEqual([
				expect.objectContaining({
					symbol: SYMBOL,
					rate: '0.00042',
					ratePercent: '0.042',
					threshold: '0.05',
					crossing: 'above',
					previousRate: null,
				}),
			]);
			expect(sb.ledger.requests.slice(requestsBefore).map((r) => `${r.path} ${r.status}`)).toEqual([
				`${RATE_PATH} 200`,
			]);
		});

		test('exactly one execution per crossing, across a restart of n8n: none repeated, none lost', async () => {
			const sb = fx.sb;
			sb.reset();
			// Below the threshold until the script starts: the first poll only remembers "below".
			sb.futures.setFundingRates(SYMBOL, ['0.0001']);
			const requestsBefore = sb.ledger.requests.length;
			await n8n!.activateWorkflow(cookie, WORKFLOW.id);
			await waitFor(
				() =>
					sb.ledger.requests.slice(requestsBefore).some((r) => r.path === RATE_PATH)
						? true
						: undefined,
				30_000,
				'the first poll',
			);

			// The script starts at the next funding period, 200 ms into it.
			const start = (Math.floor(sb.now() / FUNDING_INTERVAL_MS) + 1) * FUNDING_INTERVAL_MS;
			await sleep(start + 200 - sb.now());
			sb.futures.setFundingRates(SYMBOL, RATES);
			const periodStart = (period: number) => start + period * FUNDING_INTERVAL_MS;
			const fundingTimeOf = (period: number) => String(periodStart(period + 1));

			// Crossings 1 and 2, live; then a graceful stop (n8n saves no static data at the stop).
			await executions(2, 4 * FUNDING_INTERVAL_MS + 30_000);
			expect(sb.now()).toBeLessThan(periodStart(5));
			const stopped = await stopN8nGracefully(n8n!);
			logs.push(n8n!.logs());
			expect(stopped.graceful).toBe(true);
			n8n = undefined;
			const downFrom = sb.now();

			// Period 4 (below) and 5 (above: crossing 3) begin while n8n is down.
			await sleep(Math.max(0, periodStart(5) + 200 - sb.now()));
			const restartedAt = sb.now();
			n8n = await startN8n(fx.env);
			cookie = await n8n.login();

			// n8n's first poll after the start (it activates the workflow once it is ready) comes in
			// period 5 to 8: after crossing 3, before crossing 4.
			const firstAfter = await waitFor(
				() => sb.ledger.requests.find((r) => r.at >= restartedAt && r.path === RATE_PATH),
				60_000,
				'the first poll after the start',
			);
			const firstPeriod = Math.floor((firstAfter.at - start) / FUNDING_INTERVAL_MS);
			expect(firstPeriod).toBeGreaterThanOrEqual(5);
			expect(firstPeriod).toBeLessThan(9);

			// The last crossing, and two more periods to see that nothing else comes.
			await executions(4, periodStart(10) - sb.now() + 30_000);
			await sleep(Math.max(0, periodStart(12) - sb.now()));
			await n8n.deactivateWorkflow(cookie, WORKFLOW.id);

			const summaries = await triggerExecutions();
			const all: RestExecution[] = await Promise.all(
				summaries.map((e) => n8n!.getExecution(cookie, String(e.id))),
			);
			all.sort((a, b) => Number(a.id) - Number(b.id));
			const items = all.map((exec) => getNodeItems({ data: exec.data! }, TRIGGER));
			const messages = all.map((exec) => getNodeItems({ data: exec.data! }, MESSAGE));
			expect(all.every((exec) => exec.status === 'success')).toBe(true);
			expect(items.map((list) => list.map((item) => item.rate))).toEqual(
				CROSSINGS.map((period) => [RATES[period]]),
			);
			expect(items.map((list) => list[0])).toEqual(
				CROSSINGS.map((period) =>
					expect.objectContaining({
						symbol: SYMBOL,
						rate: RATES[period],
						threshold: '0.05',
						crossing: 'above',
						previousRate: RATES[period - 1],
						nextFundingTime: fundingTimeOf(period),
					}),
				),
			);
			expect(messages[0]).toEqual([
				{ message: `${SYMBOL} funding rate 0.061% rose above 0.05% (was 0.0002)` },
			]);

			// Requests: one rate read per poll, within the exchange's query rate; the settled rates read
			// once, by the first poll after the restart (a funding time had passed since the saved state).
			const sent = sb.ledger.requests.slice(requestsBefore);
			expect(sent.every((r) => r.status === 200)).toBe(true);
			expect(new Set(sent.map((r) => r.path))).toEqual(new Set([RATE_PATH, HISTORY_PATH]));
			const history = sent.filter((r) => r.path === HISTORY_PATH);
			expect(history).toHaveLength(1);
			expect(history[0].at).toBeGreaterThanOrEqual(restartedAt);
			const perSecond = new Map<number, number>();
			for (const r of sent) {
				const second = Math.floor(r.at / 1000);
				perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
			}
			expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(5);
			process.stdout.write(
				`funding rate e2e: ${all.length} executions for ${CROSSINGS.length} crossings over ${RATES.length} periods of ${FUNDING_INTERVAL_MS} ms; n8n polled nothing for ${((firstAfter.at - downFrom) / 1000).toFixed(1)} s (graceful stop ${stopped.exitedAfterMs} ms); the first poll after the start came ${firstAfter.at - restartedAt} ms after it, in period ${firstPeriod} (${RATES[firstPeriod]}), crossing 3 ${firstPeriod === 5 ? 'from the current rate' : 'from the settled rates'}; ${sent.filter((r) => r.path === RATE_PATH).length} rate reads, ${history.length} settled-rates read\n`,
			);
		});
	},
);
