/**
 * Queue-mode end-to-end suite: the package on n8n's distributed engine (`npm run test:queue`).
 *
 * Starts on loopback, from scratch: the sandbox (in this process), PostgreSQL and Redis (Debian
 * packages; tools/queue/postgres.ts and redis.ts), n8n 2.41.1 main (EXECUTIONS_MODE=queue, DB_TYPE=postgresdb)
 * and two `n8n worker --concurrency=1`, each process with its own user folder holding the package
 * unpacked from `npm pack` (tools/queue/cluster.ts). Then, in order:
 *
 *  1. the four examples, each run twice at once from the REST API ("Execute workflow"; manual
 *     executions are offloaded to the workers): which worker ran each;
 *  2. 429s: the sandbox answers the first batch requests with 429 + Retry-After; every order of
 *     10 executions is placed exactly once;
 *  3. load, 2 workers: 50 Create Many executions × 20 orders queued at once = exactly 1,000 orders;
 *  4. a retried execution on another worker: Create Many of 100 orders fails after its first batch
 *     request; the worker that ran it is stopped; the execution is retried (REST, as the executions
 *     list does); every order placed exactly once;
 *  5. load, 1 worker: the same 50 × 20 (wall time printed, not asserted);
 *  6. the funding-fee trigger, published: its polls run on the main process; 5 polls with a
 *     restart of the main process between two of them and records arriving while it is down;
 *     every new funding fee emitted exactly once;
 *  7. the two order examples (the AI agent with a scripted OpenAI-compatible model, cancel stale
 *     orders) run on the workers from the REST API (test/queue/orderExamples.ts);
 *  8–10. a worker SIGKILLed in the middle of an execution that writes (Create Many of 200 orders,
 *     Create of 50 orders with business keys, 8 transfers), finished by the other worker either by
 *     a retry through the REST API (a) or by its job re-delivered as Bull re-delivers a stalled
 *     job (b); nothing committed twice or re-sent after it was committed, every item with its
 *     outcome (test/queue/kills.ts);
 * 12. the real-time trigger (test/queue/realTime.ts): one stream connection and listen key, on the
 *     main process, none on the workers; 60 fills, each one execution on a worker, across two
 *     graceful restarts and a SIGKILL of the main process with fills while it is down (runs
 *     before 11);
 * 13. the documented request rates (test/queue/limits.ts): two executions of 500 Order › Create
 *     items started at once, one per worker, the credential's n8n Processes Sharing This Key 2:
 *     1,000 orders placed once, none refused by the rate limits (runs before 11);
 * 11. clean shutdown: no process, database or Redis state left.
 *
 * The sandbox runs at its default request rates, the exchange's documented ones (20 order and 5
 * query requests a second per API key; over that 429 and a one-minute suspension): nothing here
 * turns them off.
 *
 * Every check prints its figures. The last line is `N passed, N failed`; the exit code is 1 when
 * any check failed. Set QUEUE_LOG_DIR=<dir> to keep every n8n process's log there, and
 * QUEUE_LOAD_LATENCY_MS=<ms> for the sandbox's answer latency in the load checks (default 100).
 */
import * as fs from 'fs';
import * as path from 'path';

import {
	DEMO_ACCOUNTS,
	DEMO_KEYS,
	startSandbox,
	type HistoryRecord,
	type LedgerRequest,
	type Sandbox,
} from '../../sandbox';
import {
	EXAMPLES,
	findNode,
	loadAllExamples,
	loadExample,
	sandboxCredential,
	withCredential,
	type ExampleKey,
	type Workflow,
} from '../../tools/n8n/examples';
import type { RestExecution } from '../../tools/n8n/rest';
import type { N8nInstance } from '../../tools/n8n/server';
import { startQueueCluster, type QueueCluster } from '../../tools/queue/cluster';
import {
	BATCH_ORDERS_PATH,
	CREATE_MANY_WEBHOOK,
	callWebhook,
	createManyWebhookWorkflow,
	limitOrders,
	onSandboxRequest,
	tallyOrders,
	waitForFinished,
	type LedgerTally,
} from '../../tools/queue/workflows';
import { describeExecution, itemsOf, type QueueSuite } from './context';
import { KILL_WORKER_ENV, killChecks, killWorkflows, reportKilledExecutions } from './kills';
import { limitsCheck, limitsSetup } from './limits';
import { realTimeCheck, realTimeSetup } from './realTime';
import {
	seedOrderExampleOrders,
	setUpOrderExamples,
	type OrderExamplesSetup,
} from './orderExamples';
import {
	check,
	expectEqual,
	expectTrue,
	fail,
	figure,
	results,
	say,
	sleep,
	suiteStarted,
	waitUntil,
} from './runner';

// ---------------------------------------------------------------------------------------------
// Workflows and credentials of the run
// ---------------------------------------------------------------------------------------------

/** The trigger's own credential: the read-only demo key, so its polls are told apart in the ledger. */
const TRIGGER_CREDENTIAL = {
	id: 'sandbox-cred-read',
	name: 'Trading Service Sandbox (read only)',
} as const;
const TRIGGER_WORKFLOW_ID = 'tsQueueFunding01';

const RATE_LIMIT = { id: 'tsQueueRateLmt01', path: 'queue-rate-limit' } as const;
const LOAD_TWO = { id: 'tsQueueLoadTwo01', path: 'queue-load-two-workers' } as const;
const LOAD_ONE = { id: 'tsQueueLoadOne01', path: 'queue-load-one-worker' } as const;
const RETRY = { id: 'tsQueueRetried01', path: 'queue-retried' } as const;
const WEBHOOK_WORKFLOWS = [RATE_LIMIT, LOAD_TWO, LOAD_ONE, RETRY];

/** Price ranges per check (a price identifies an order in the ledger). */
const PRICES = { rateLimit: 60_000, loadTwo: 70_000, retry: 90_000, loadOne: 80_000 } as const;

function triggerWorkflow(): Workflow {
	const workflow = withCredential(
		loadExample('fundingFeeAlert'),
		TRIGGER_CREDENTIAL,
		TRIGGER_WORKFLOW_ID,
	);
	workflow.name = 'Queue: funding fee alert (published)';
	return workflow;
}

// ---------------------------------------------------------------------------------------------
// Helpers over the cluster
// ---------------------------------------------------------------------------------------------

let sb: Sandbox;
let cluster: QueueCluster | undefined;
let cookie = '';
let orderExamples: OrderExamplesSetup | undefined;

function main(): N8nInstance {
	if (!cluster) throw new Error('no cluster');
	return cluster.main;
}

async function execution(id: string): Promise<RestExecution> {
	return await main().getExecution(cookie, id);
}

/** Execution ids → worker names (from the workers' logs), e.g. { 'worker-1': ['3','5'], … }. */
function byWorker(ids: string[]): Record<string, string[]> {
	const out: Record<string, string[]> = {};
	for (const w of cluster!.workers) out[w.name] = [];
	out['no worker'] = [];
	for (const id of ids) out[cluster!.workerOf(id) ?? 'no worker'].push(id);
	if (out['no worker'].length === 0) delete out['no worker'];
	return out;
}

function perWorkerLine(ids: string[]): string {
	return Object.entries(byWorker(ids))
		.map(([worker, list]) => `${worker}: ${list.length}`)
		.join(', ');
}

function tallyLine(t: LedgerTally): string {
	return `orders placed ${t.placed} / intended ${t.intended}; lost ${t.missing.length}, doubled ${t.doubled.length}, unexpected ${t.unexpected}, repeated client order IDs ${t.repeatedClientIds}`;
}

function expectExact(t: LedgerTally): void {
	expectEqual('orders lost (intended prices with no order)', t.missing.slice(0, 10), []);
	expectEqual('orders doubled (prices placed more than once)', t.doubled.slice(0, 10), []);
	expectEqual('unexpected orders in the ledger', t.unexpected, 0);
	expectEqual('client order IDs used twice', t.repeatedClientIds, 0);
	expectEqual('orders placed', t.placed, t.intended);
}

/**
 * Queues `count` Create Many executions of `orders` orders each at once through the workflow's
 * webhook; waits until all finished. Returns the execution summaries and the wall time from the
 * first call to the last execution's stoppedAt (n8n's own record).
 */
async function queueCreateMany(
	target: { id: string; path: string },
	count: number,
	ordersEach: number,
	priceBase: number,
	timeoutMs: number,
): Promise<{ executions: RestExecution[]; wallMs: number; prices: string[] }> {
	const before = new Set((await main().listExecutions(cookie, target.id)).map((e) => String(e.id)));
	const prices: string[] = [];
	const bodies = Array.from({ length: count }, (_, i) => {
		const orders = limitOrders(priceBase + i * ordersEach, ordersEach);
		prices.push(...orders.map((o) => o.price));
		return { orders };
	});
	const t0 = Date.now();
	await Promise.all(bodies.map((body) => callWebhook(main().baseUrl, target.path, body)));
	const executions = await waitForFinished(main(), cookie, target.id, count, {
		timeoutMs,
		filter: (e) => !before.has(String(e.id)),
	});
	const lastStop = Math.max(...executions.map((e) => new Date(String(e.stoppedAt)).getTime()));
	return { executions, wallMs: lastStop - t0, prices };
}

function fundingFees(
	records: Array<{ symbol: string; change: string; agoMs: number }>,
): HistoryRecord[] {
	const now = sb.now();
	return sb.addRecords(
		records.map((r) => ({
			accountId: DEMO_ACCOUNTS.mainContract,
			flowTypeValue: 32,
			coin: 'USDT',
			symbol: r.symbol,
			change: r.change,
			created: String(now - r.agoMs),
		})),
	);
}

/** Groups the trigger's history requests (read-only key) into polls: a gap over 3 s starts a new one. */
function pollsOf(requests: LedgerRequest[]): Array<{ at: number; requests: number }> {
	const polls: Array<{ at: number; last: number; requests: number }> = [];
	for (const r of requests) {
		if (r.apiKey !== DEMO_KEYS.readOnly.apiKey || r.path !== '/api/v1/account/balanceFlow')
			continue;
		const last = polls[polls.length - 1];
		if (last && r.at - last.last <= 3_000) {
			last.last = r.at;
			last.requests++;
		} else {
			polls.push({ at: r.at, last: r.at, requests: 1 });
		}
	}
	return polls.map(({ at, requests: n }) => ({ at, requests: n }));
}

// ---------------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------------

async function checkExamples(): Promise<void> {
	const keys = Object.keys(EXAMPLES) as ExampleKey[];
	const ledgerOrders = sb.ledger.orders.length;
	const ledgerTransfers = sb.ledger.transfers.length;
	// Every example twice, all started at once: 8 executions for 2 workers that take one at a time.
	const runs = [...keys, ...keys];
	const started = await Promise.all(
		runs.map(async (key) => {
			const ex = EXAMPLES[key];
			const res = await main().request<{ data: { executionId?: string } }>(
				'POST',
				`/rest/workflows/${ex.id}/run`,
				{
					cookie,
					body: { triggerToStartFrom: { name: ex.trigger } },
				},
			);
			const id = res.body?.data?.executionId;
			if (res.status !== 200 || !id)
				fail(`run of ${ex.file} did not start: HTTP ${res.status} ${res.text.slice(0, 500)}`);
			return { key, id: String(id) };
		}),
	);
	const done = await Promise.all(
		started.map(async (r) => ({
			...r,
			exec: await main().waitForExecution(cookie, r.id, { timeoutMs: 240_000 }),
		})),
	);

	for (const { key, id, exec } of done) {
		const ex = EXAMPLES[key];
		const worker = cluster!.workerOf(id);
		let detail = '';
		expectEqual(`${ex.file} execution ${id} status`, exec.status, 'success');
		if (key === 'batchOrders') {
			const items = itemsOf(exec, EXAMPLES.batchOrders.createMany);
			expectEqual(
				`${ex.file}: orders placed by Create Many`,
				items.filter((i) => i.success === true && i.alreadyPlaced === undefined).length,
				45,
			);
			detail = `${items.length} orders placed`;
		} else if (key === 'historyExport') {
			const records = itemsOf(exec, EXAMPLES.historyExport.history);
			expectTrue(
				`${ex.file}: funding fees returned`,
				records.length > 0 && records.every((r) => r.flowTypeValue === 32),
			);
			const [file] = itemsOf(exec, EXAMPLES.historyExport.csv);
			expectTrue(`${ex.file}: CSV file item`, file !== undefined);
			detail = `${records.length} funding fees exported`;
		} else if (key === 'scheduledTransfer') {
			const [transfer] = itemsOf(exec, EXAMPLES.scheduledTransfer.transfer);
			// Every write's item carries its outcome (CHANGELOG, Unreleased: output shape).
			expectEqual(`${ex.file}: transfer outcome`, transfer?.outcome, 'placed');
			const records = itemsOf(exec, EXAMPLES.scheduledTransfer.check);
			expectTrue(
				`${ex.file}: its record in the history`,
				records.some((r) => String(r.created) === String(transfer.timestamp) && r.change === '-25'),
				`transfer ${JSON.stringify(transfer)}, history ${JSON.stringify(records)}`,
			);
			detail = `transfer ${JSON.stringify(transfer)}`;
		} else {
			const alerts = itemsOf(exec, EXAMPLES.fundingFeeAlert.message);
			expectEqual(`${ex.file}: alert items`, alerts.length, 1);
			detail = String(alerts[0].message);
		}
		figure(
			`execution ${id.padStart(3)} ${ex.file.padEnd(24)} on ${worker ?? '(no worker log line)'}: ${detail}`,
		);
		expectTrue(
			`execution ${id} ran on a worker`,
			worker !== undefined,
			'no "Worker started execution" line in any worker log',
		);
	}
	const ids = done.map((d) => d.id);
	figure(`executions per worker: ${perWorkerLine(ids)}`);
	for (const w of cluster!.workers)
		expectTrue(`${w.name} ran at least one example`, byWorker(ids)[w.name].length > 0);
	expectEqual(
		'orders placed by the two batch-orders runs (ledger)',
		sb.ledger.orders.length - ledgerOrders,
		90,
	);
	expectEqual(
		'transfers made by the two scheduled-transfer runs (ledger)',
		sb.ledger.transfers.length - ledgerTransfers,
		2,
	);
}

async function checkRateLimit(): Promise<void> {
	const orderIndex = sb.ledger.orders.length;
	const requestIndex = sb.ledger.requests.length;
	const faults = 4;
	// Each 429 proves nothing was processed; the node waits the documented minute (a Retry-After of
	// 1 s does not shorten it) and sends again.
	sb.setFaults({
		rules: [
			{
				kind: 'rateLimit',
				path: BATCH_ORDERS_PATH,
				method: 'POST',
				times: faults,
				retryAfterSeconds: 1,
			},
		],
	});
	try {
		const { executions, prices } = await queueCreateMany(
			RATE_LIMIT,
			10,
			20,
			PRICES.rateLimit,
			400_000,
		);
		const requests = sb.ledger.requests
			.slice(requestIndex)
			.filter((r) => r.path === BATCH_ORDERS_PATH);
		const limited = requests.filter((r) => r.status === 429);
		const tally = tallyOrders(sb.ledger, orderIndex, prices);
		figure(
			`batch requests ${requests.length}: ${limited.length} answered 429 with Retry-After: 1, ${requests.filter((r) => r.status === 200).length} answered 200`,
		);
		figure(
			`executions ${executions.length}: ${executions.map((e) => e.status).filter((s) => s === 'success').length} success; per worker: ${perWorkerLine(executions.map((e) => String(e.id)))}`,
		);
		figure(tallyLine(tally));
		expectEqual('429 answers served', limited.length, faults);
		expectEqual(
			'batch requests that went through',
			requests.filter((r) => r.status === 200).length,
			10,
		);
		const failed = executions.filter((e) => e.status !== 'success');
		expectEqual(
			'failed executions',
			failed.map((e) => e.id),
			[],
		);
		let alreadyPlaced = 0;
		for (const e of executions) {
			const items = itemsOf(await execution(String(e.id)), CREATE_MANY_WEBHOOK.createMany);
			expectEqual(
				`execution ${e.id}: orders placed`,
				items.filter((i) => i.success === true).length,
				20,
			);
			alreadyPlaced += items.filter((i) => i.alreadyPlaced === true).length;
		}
		figure(
			`items marked alreadyPlaced: ${alreadyPlaced} (a 429 means not processed: nothing to recover)`,
		);
		expectEqual('items marked alreadyPlaced', alreadyPlaced, 0);
		expectExact(tally);
	} finally {
		sb.clearFaults();
	}
}

/**
 * The sandbox answers on loopback in well under a millisecond; a real exchange is a network away.
 * The load checks add this much latency to every answer (QUEUE_LOAD_LATENCY_MS, default 100), so
 * that the 1-worker vs 2-worker figures show what a second worker buys when executions wait for
 * the exchange. 0 measures the machine alone.
 */
const LOAD_LATENCY_MS = Number(process.env.QUEUE_LOAD_LATENCY_MS ?? 100);

async function checkLoad(
	target: { id: string; path: string },
	priceBase: number,
	label: string,
	wall: Record<string, number>,
): Promise<void> {
	const orderIndex = sb.ledger.orders.length;
	const running = cluster!.workers.filter((w) => w.running).map((w) => w.name);
	sb.setFaults({ latencyMs: LOAD_LATENCY_MS });
	let queued: Awaited<ReturnType<typeof queueCreateMany>>;
	try {
		queued = await queueCreateMany(target, 50, 20, priceBase, 600_000);
	} finally {
		sb.clearFaults();
	}
	const { executions, wallMs, prices } = queued;
	const tally = tallyOrders(sb.ledger, orderIndex, prices);
	wall[label] = wallMs;
	const ids = executions.map((e) => String(e.id));
	figure(`workers running: ${running.join(', ')}; the sandbox answers after ${LOAD_LATENCY_MS} ms`);
	figure(
		`executions ${executions.length}: ${executions.filter((e) => e.status === 'success').length} success; per worker: ${perWorkerLine(ids)}`,
	);
	figure(tallyLine(tally));
	figure(
		`wall time (first webhook call → last execution stopped): ${(wallMs / 1000).toFixed(1)} s (printed, not asserted)`,
	);
	expectEqual(
		'failed executions',
		executions.filter((e) => e.status !== 'success').map(describeExecution),
		[],
	);
	expectExact(tally);
}

async function checkRetry(): Promise<void> {
	const orderIndex = sb.ledger.orders.length;
	let batchRequests = 0;
	// The first batch request goes through. The second is applied but its answer is lost (the
	// connection drops): the node finds its orders by client order ID. The service then refuses
	// every batch request (rate limited, asked to wait an hour: a refusal, nothing executed) until
	// the test clears the faults, so the execution fails with 40 of its 100 orders placed. (An
	// order whose outcome stays unknown is never sent again, by a retry either: docs/safety.md.)
	const removeHook = onSandboxRequest(sb, (request) => {
		if (request.path !== BATCH_ORDERS_PATH) return;
		batchRequests++;
		if (batchRequests === 2) {
			sb.setFaults({
				rules: [
					{ kind: 'dropAfter', path: BATCH_ORDERS_PATH, times: 1 },
					{
						kind: 'rateLimit',
						path: BATCH_ORDERS_PATH,
						times: 1_000_000,
						retryAfterSeconds: 3600,
					},
				],
			});
		}
	});
	let failedId: string;
	let prices: string[];
	try {
		const orders = limitOrders(PRICES.retry, 100);
		prices = orders.map((o) => o.price);
		await callWebhook(main().baseUrl, RETRY.path, { orders });
		const [failedSummary] = await waitForFinished(main(), cookie, RETRY.id, 1, {
			timeoutMs: 120_000,
		});
		failedId = String(failedSummary.id);
	} finally {
		removeHook();
		sb.clearFaults();
	}
	const failed = await execution(failedId);
	const placedBefore = tallyOrders(sb.ledger, orderIndex, prices);
	const ranOn = cluster!.workerOf(failedId);
	figure(
		`execution ${failedId} on ${ranOn}: ${failed.status}: ${failed.data?.resultData?.error?.message ?? ''}`,
	);
	figure(
		`before the retry: ${batchRequests} batch requests, ${placedBefore.placed} of 100 orders placed`,
	);
	expectEqual(`execution ${failedId} status`, failed.status, 'error');
	expectTrue('the failed execution ran on a worker', ranOn !== undefined);
	expectEqual('orders placed before the retry (batches 1 and 2)', placedBefore.placed, 40);

	const worker = cluster!.workers.find((w) => w.name === ranOn)!;
	await worker.stop();
	figure(
		`stopped ${worker.name}; running: ${cluster!.workers
			.filter((w) => w.running)
			.map((w) => w.name)
			.join(', ')}`,
	);

	// As the executions list's "Retry with original workflow" does.
	const retryRequestIndex = sb.ledger.requests.length;
	const res = await main().request<{ data: { id?: string; status?: string } }>(
		'POST',
		`/rest/executions/${failedId}/retry`,
		{
			cookie,
			body: { loadWorkflow: false },
			timeoutMs: 180_000,
		},
	);
	expectEqual('POST /rest/executions/<id>/retry HTTP status', res.status, 200);
	const retryId = String(res.body.data.id);
	const retried = await main().waitForExecution(cookie, retryId, { timeoutMs: 180_000 });
	const retriedOn = cluster!.workerOf(retryId);
	const items = itemsOf(retried, CREATE_MANY_WEBHOOK.createMany);
	// The 40 orders of the failed attempt come out as placed before, by either route: the write
	// ledger the retried execution carries over answers for them without a request (replayed), or
	// the service refuses the re-sent client order ID as a duplicate and the node reports it as
	// placed (alreadyPlaced).
	const replayed = items.filter((i) => i.replayed === true).length;
	const already = items.filter((i) => i.alreadyPlaced === true).length;
	const notPlaced = items.filter((i) => i.success !== true || i.outcome !== 'placed');
	const retryBatchRequests = sb.ledger.requests
		.slice(retryRequestIndex)
		.filter((r) => r.path === BATCH_ORDERS_PATH);
	const retrySent = retryBatchRequests.reduce((n, r) => n + batchSize(r), 0);
	const tally = tallyOrders(sb.ledger, orderIndex, prices);
	figure(
		`retry ${retryId} (retryOf ${String(retried.retryOf ?? failedId)}) on ${retriedOn}: ${retried.status}${retried.data?.resultData?.error?.message ? ` (${retried.data.resultData.error.message})` : ''}; ${items.length} items: ` +
			`${items.length - notPlaced.length} outcome placed (${replayed} replayed from the write ledger without a request, ` +
			`${already} alreadyPlaced: refused by the service as duplicates), ${notPlaced.length} not`,
	);
	figure(
		`the retry sent ${retryBatchRequests.length} batch request(s) carrying ${retrySent} orders (the 60 not placed before${retrySent > 60 ? ', and re-sends' : ''})`,
	);
	figure(tallyLine(tally));
	expectEqual(`retry ${retryId} status`, retried.status, 'success');
	expectTrue(
		'the retry ran on the other worker',
		retriedOn !== undefined && retriedOn !== ranOn,
		`ran on ${retriedOn}`,
	);
	// What the money rule needs: the sandbox's own ledger.
	if (tally.doubled.length > 0 || tally.repeatedClientIds > 0) {
		fail(
			`NODE BUG: ${tally.doubled.length} orders were placed twice after the retry: the client order IDs were not kept in ` +
				'the execution context across a retried execution on another worker',
		);
	}
	expectExact(tally);
	// What the user sees: every order of the retry comes out placed.
	if (notPlaced.length > 0) {
		const codes = [...new Set(notPlaced.map((i) => `${String(i.outcome)}/${String(i.code)}`))];
		fail(
			`NODE BUG: the ledger is right (every order placed once), but ${notPlaced.length} items of the retry are not ` +
				`outcome placed with success true (outcome/code ${codes.join(', ')}, e.g. "${String(notPlaced[0].msg)}")`,
		);
	}
	expectEqual('items of the retry', items.length, 100);
	expectEqual(
		'items placed before the failure (replayed + alreadyPlaced): the 40 orders of the failed attempt',
		replayed + already,
		40,
	);
}

/** Orders in a batch request's body (a JSON array; 0 when it cannot be read). */
function batchSize(request: LedgerRequest): number {
	try {
		const parsed: unknown = JSON.parse(request.body);
		return Array.isArray(parsed) ? parsed.length : 0;
	} catch {
		return 0;
	}
}

async function checkTrigger(restartStoppedWorker: () => Promise<void>): Promise<void> {
	const ex = EXAMPLES.fundingFeeAlert;
	const requestIndex = sb.ledger.requests.length;
	const emitted = new Map<string, number>();
	const expected: HistoryRecord[] = [];
	// Funding fees from before the activation: never emitted.
	fundingFees([
		{ symbol: 'BTCUSDT-PERPETUAL', change: '-2.5', agoMs: 16 * 3600_000 },
		{ symbol: 'ETHUSDT-PERPETUAL', change: '-0.2', agoMs: 8 * 3600_000 },
	]);

	// n8n refuses poll intervals under a minute. A custom cron at one fixed second is "every
	// minute"; the second is ~25 s ahead, so the first scheduled poll comes soon.
	const wf = (await main().getWorkflow(cookie, TRIGGER_WORKFLOW_ID)) as unknown as Workflow & {
		versionId: string;
	};
	const second = Math.floor((Date.now() + 25_000) / 1000) % 60;
	findNode(wf, ex.trigger).parameters.pollTimes = {
		item: [{ mode: 'custom', cronExpression: `${second} * * * * *` }],
	};
	const patched = await main().request('PATCH', `/rest/workflows/${TRIGGER_WORKFLOW_ID}`, {
		cookie,
		body: { nodes: wf.nodes, versionId: wf.versionId },
	});
	expectEqual('PATCH poll times', patched.status, 200);

	const polls = () => pollsOf(sb.ledger.requests.slice(requestIndex));
	const triggerExecutions = async () =>
		(await main().listExecutions(cookie, TRIGGER_WORKFLOW_ID)).filter((e) => e.mode === 'trigger');
	const waitForExecutions = async (count: number, what: string) =>
		await waitUntil(
			what,
			async () => {
				const done = (await triggerExecutions()).filter((e) => e.stoppedAt);
				return done.length >= count ? done : undefined;
			},
			150_000,
		);

	const t0 = sb.now();
	await main().activateWorkflow(cookie, TRIGGER_WORKFLOW_ID);
	// Poll 1 (activation): reads the history once, stores its watermark, emits nothing.
	await waitUntil('the activation poll', () => (polls().length >= 1 ? true : undefined), 60_000);
	await sleep(1000);
	// The worker stopped by the retry check comes back meanwhile (the executions go to the workers).
	await restartStoppedWorker();
	expectEqual('executions after the activation poll', (await triggerExecutions()).length, 0);

	expected.push(
		...fundingFees([
			{ symbol: 'BTCUSDT-PERPETUAL', change: '-0.05', agoMs: 2000 },
			{ symbol: 'ETHUSDT-PERPETUAL', change: '0.125', agoMs: 1000 },
		]),
	);
	await waitForExecutions(1, 'the first scheduled poll to emit');

	// Arrives before the main process stops, then more while it is down.
	expected.push(...fundingFees([{ symbol: 'BTCUSDT-PERPETUAL', change: '-0.031', agoMs: 500 }]));
	let downFrom = 0;
	let downUntil = 0;
	await cluster!.restartMain(async () => {
		downFrom = sb.now();
		expected.push(
			...fundingFees([
				{ symbol: 'ETHUSDT-PERPETUAL', change: '-0.0075', agoMs: 300 },
				{ symbol: 'BTCUSDT-PERPETUAL', change: '0.02', agoMs: 200 },
			]),
		);
		await sleep(5000);
		downUntil = sb.now();
	});
	cookie = await main().login();
	figure(
		`main process restarted: down for ${((downUntil - downFrom) / 1000).toFixed(1)} s (+ start-up), 2 funding fees written meanwhile`,
	);
	// The restarted main activates the workflow again; that poll catches up.
	await waitForExecutions(2, 'the poll of the restarted main to emit');

	expected.push(...fundingFees([{ symbol: 'ETHUSDT-PERPETUAL', change: '-0.4', agoMs: 1000 }]));
	await waitForExecutions(3, 'a scheduled poll after the restart to emit');
	expected.push(
		...fundingFees([
			{ symbol: 'BTCUSDT-PERPETUAL', change: '-1.1', agoMs: 1500 },
			{ symbol: 'ETHUSDT-PERPETUAL', change: '0.3', agoMs: 700 },
		]),
	);
	const finished = await waitForExecutions(4, 'the next scheduled poll to emit');
	await main().deactivateWorkflow(cookie, TRIGGER_WORKFLOW_ID);

	const seenPolls = polls();
	for (const summary of finished) {
		const exec = await execution(String(summary.id));
		expectEqual(`trigger execution ${summary.id} status`, exec.status, 'success');
		const records = itemsOf(exec, ex.trigger);
		const alerts = itemsOf(exec, ex.message);
		expectEqual(
			`execution ${summary.id}: one alert per record`,
			alerts.map((a) => a.recordId),
			records.map((r) => r.id),
		);
		for (const r of records) emitted.set(String(r.id), (emitted.get(String(r.id)) ?? 0) + 1);
		figure(
			`trigger execution ${String(summary.id).padStart(4)} on ${cluster!.workerOf(String(summary.id)) ?? '(no worker)'}: ${records.length} record(s)`,
		);
	}
	const pollTimes = seenPolls.map((p) => `+${((p.at - t0) / 1000).toFixed(0)}s`).join(', ');
	figure(`polls (history reads by the trigger's key) at ${pollTimes}: ${seenPolls.length} polls`);
	const duringDowntime = seenPolls.filter((p) => p.at > downFrom && p.at < downUntil);
	figure(
		`polls while the main process was down: ${duringDowntime.length} (polls run on the main process; the workers kept running)`,
	);
	const once = expected.filter((r) => emitted.get(r.id) === 1).length;
	const extra = [...emitted.keys()].filter((id) => !expected.some((r) => r.id === id));
	figure(
		`funding fees written after the activation ${expected.length}; emitted exactly once ${once}; emitted twice or more ${[...emitted.values()].filter((n) => n > 1).length}; never ${expected.filter((r) => !emitted.has(r.id)).length}; old records emitted ${extra.length}`,
	);
	expectTrue('at least 5 polls', seenPolls.length >= 5, `${seenPolls.length} polls`);
	expectEqual('polls while the main process was down', duringDowntime.length, 0);
	expectEqual(
		'records never emitted',
		expected.filter((r) => !emitted.has(r.id)).map((r) => r.id),
		[],
	);
	expectEqual(
		'records emitted more than once',
		[...emitted].filter(([, n]) => n > 1),
		[],
	);
	expectEqual('records emitted that were there before the activation', extra, []);
	expectEqual('new funding fees emitted exactly once', once, expected.length);
}

// ---------------------------------------------------------------------------------------------

async function run(): Promise<void> {
	say(
		`queue-mode suite: n8n 2.41.1 main + 2 workers (concurrency 1), PostgreSQL, Redis, sandbox; started ${new Date().toISOString()}`,
	);
	sb = await startSandbox({ port: 0, host: '127.0.0.1' });
	// History for the history export (29 days of funding fees) and the alert's manual poll.
	sb.seedDemo();
	// Resting limit orders hold their cost: room for the ~2,500 orders of the run.
	sb.setBalance(DEMO_ACCOUNTS.mainTrading, 'USDT', '1000000000');
	// The order examples' open orders (check 7): the sandbox takes a seeded order only if it is
	// older than every order placed, so they are seeded before any check places one.
	const seeded = seedOrderExampleOrders(sb);
	orderExamples = await setUpOrderExamples(sb, seeded);
	const kills = killWorkflows();
	const realTime = realTimeSetup(sb);
	const limits = limitsSetup(sb);
	const published = [...WEBHOOK_WORKFLOWS, ...kills, ...limits.published];

	const workflows: object[] = [
		...loadAllExamples(),
		triggerWorkflow(),
		...WEBHOOK_WORKFLOWS.map((w) => createManyWebhookWorkflow(w.id, w.path)),
		...orderExamples.workflows,
		...kills.map((k) => k.workflow),
		...realTime.workflows,
		...limits.workflows,
	];
	// The sandbox runs at the exchange's documented request rates (20 order, 5 query requests a
	// second per key). The master key's executions run on both workers at once (checks 1 to 5 and
	// 8 to 10 queue them together), so its credential says so: each worker paces at half the
	// rates. The main process does not count: in queue mode it only queues executions, and no
	// trigger of this key polls there (the funding-fee trigger of check 6 has the read-only key).
	const master = sandboxCredential(sb.baseUrl, DEMO_KEYS.master);
	master.data = { ...master.data, processesSharingKey: 2 };
	const credentials = [
		master,
		sandboxCredential(sb.baseUrl, DEMO_KEYS.readOnly, { ...TRIGGER_CREDENTIAL }),
		...orderExamples.credentials,
		...realTime.credentials,
		...limits.credentials,
	];
	const wall: Record<string, number> = {};
	let stoppedWorker: string | undefined;

	const up = await check(
		'start-up: PostgreSQL, Redis, n8n main + 2 workers, the package unpacked into each .n8n/nodes',
		async () => {
			cluster = await startQueueCluster({
				credentials,
				workflows,
				workerEnv: { ...KILL_WORKER_ENV },
				log: (line) => figure(line),
			});
			cookie = await main().login();
			for (const w of published) await main().activateWorkflow(cookie, w.id);
			figure(
				`published ${published.length} webhook workflows; env of every process: ${Object.keys(cluster.queueEnv).join(', ')}`,
			);
			figure(
				`the workers also get ${Object.entries(KILL_WORKER_ENV)
					.map(([k, v]) => `${k}=${v}`)
					.join(', ')} (the kill checks wait for a dead worker's lock to run out)`,
			);
			for (const w of cluster.workers) {
				const installed = path.join(
					w.userFolder,
					'.n8n',
					'nodes',
					'node_modules',
					'n8n-nodes-trading-service',
					'package.json',
				);
				expectTrue(`${w.name}: package unpacked`, fs.existsSync(installed), installed);
				figure(`${w.name}: health port ${w.healthPort}, task broker port ${w.brokerPort}`);
			}
		},
	);

	if (up) {
		await check('1. the four examples run on the workers', checkExamples);
		await check(
			'2. rate limits: 429s absorbed by Retry-After, no write lost or doubled',
			checkRateLimit,
		);
		await check(
			'3. load, 2 workers: 50 Create Many executions × 20 orders queued at once = 1,000 orders',
			() => checkLoad(LOAD_TWO, PRICES.loadTwo, '2 workers', wall),
		);
		await check(
			'4. a failed Create Many of 100 orders, retried on the other worker: every order placed once',
			async () => {
				try {
					await checkRetry();
				} finally {
					stoppedWorker = cluster!.workers.find((w) => !w.running)?.name;
				}
			},
		);
		await check(
			`5. load, 1 worker: 50 Create Many executions × 20 orders queued at once = 1,000 orders`,
			async () => {
				const running = cluster!.workers.filter((w) => w.running);
				// Without the retry check's stop, stop one here: this check is about one worker.
				for (const w of running.slice(1)) await w.stop();
				stoppedWorker = cluster!.workers.find((w) => !w.running)?.name;
				await checkLoad(LOAD_ONE, PRICES.loadOne, '1 worker', wall);
			},
		);
		if (wall['1 worker'] !== undefined && wall['2 workers'] !== undefined) {
			figure(
				`wall time for 1,000 orders (exchange latency ${LOAD_LATENCY_MS} ms): 1 worker ${(wall['1 worker'] / 1000).toFixed(1)} s, ` +
					`2 workers ${(wall['2 workers'] / 1000).toFixed(1)} s`,
			);
		}
		await check(
			'6. the funding-fee trigger, published: 5 polls on the main process, a restart between two, each new fee emitted once',
			() =>
				checkTrigger(async () => {
					const worker = cluster!.workers.find((w) => w.name === stoppedWorker);
					if (worker && !worker.running) {
						await worker.start();
						figure(`${worker.name} started again`);
					}
				}),
		);
	}

	if (up && cluster) {
		const suite: QueueSuite = {
			sb,
			cluster,
			main,
			cookie: () => cookie,
			login: async () => (cookie = await main().login()),
		};
		await check(
			'7. the two order examples on the workers: the AI agent (scripted model) and cancel stale orders',
			() => orderExamples!.check(suite),
		);
		await killChecks(suite);
		await reportKilledExecutions(suite);
		await check(
			'12. the real-time trigger on the main process: one stream, none on the workers; each fill one execution across a restart and a SIGKILL of the main process',
			() => realTimeCheck(suite),
		);
		await check(
			'13. the documented rates: 1,000 orders (Create, version 2, defaults) across two workers with n8n Processes Sharing This Key 2: 0 × 429',
			() => limitsCheck(suite),
		);
	}

	await check(
		'11. clean shutdown: no process, database or Redis state left',
		async () => {
			if (process.env.QUEUE_LOG_DIR && cluster) writeLogs(process.env.QUEUE_LOG_DIR, cluster);
			const c = cluster;
			await c?.stop();
			await sb.stop();
			await orderExamples?.stop();
			if (!c) fail('the cluster never started');
			const left = c.leftovers();
			figure(`left after stop: ${left.length === 0 ? 'nothing' : left.join('; ')}`);
			expectEqual('leftovers', left, []);
		},
		{ always: true },
	);
}

function writeLogs(dir: string, c: QueueCluster): void {
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(path.join(dir, 'main.log'), c.mainLogs());
	for (const w of c.workers) fs.writeFileSync(path.join(dir, `${w.name}.log`), w.logs());
	figure(`n8n logs written to ${dir}`);
}

async function shutdownOnSignal(signal: NodeJS.Signals): Promise<void> {
	say(`\n${signal}: stopping the cluster`);
	try {
		await cluster?.stop();
		await sb?.stop();
		await orderExamples?.stop();
	} finally {
		process.exit(130);
	}
}

process.once('SIGINT', (s) => void shutdownOnSignal(s));
process.once('SIGTERM', (s) => void shutdownOnSignal(s));

run()
	.catch(async (error) => {
		results.push({
			name: 'suite',
			ok: false,
			seconds: 0,
			error: String((error as Error).stack ?? error),
		});
		say(`suite error: ${(error as Error).stack ?? String(error)}`);
		await cluster?.stop().catch(() => undefined);
	})
	.finally(() => {
		const passed = results.filter((r) => r.ok).length;
		const failed = results.length - passed;
		say(`\nqueue-mode suite: wall time ${((Date.now() - suiteStarted) / 1000).toFixed(1)} s`);
		for (const r of results)
			say(`  ${r.ok ? 'PASS' : 'FAIL'} ${r.name} (${r.seconds.toFixed(1)} s)`);
		say(`${passed} passed, ${failed} failed`);
		process.exit(failed === 0 ? 0 : 1);
	});
