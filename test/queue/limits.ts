/**
 * Check 13 of the queue suite: the exchange's documented request rates across two workers. The
 * sandbox runs at its default, the documented limits (20 order and 5 query requests a second per
 * API key; over that 429 code 0003, a one-minute suspension, and 418 for what is sent into it).
 *
 * Workflow: Webhook → Split Out (`body.orders`) → Order › Create (node version 2, every option at
 * its default: the node paces by itself), with its own credential: the master key with **n8n
 * Processes Sharing This Key = 2**. Two executions of 500 orders each are started at once through
 * the webhook; each worker (`--concurrency=1`) takes one. Each worker paces at 20 ÷ 2 = 10 order
 * requests a second, so together they never exceed the key's 20, and the 1,000 orders take ~50 s.
 *
 * Why 2 and not 3: the setting counts the n8n processes that send requests with the key at once.
 * In queue mode executions run on the workers only (webhook-started ones, and manual ones with
 * OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true); the main process only receives the webhook calls and
 * queues the executions. It would count only if a Trading Service trigger on the same key polled
 * there, which no workflow of this credential has.
 *
 * Asserted: the two executions ran on two different workers (their logs) and succeeded; 1,000
 * orders placed exactly once (the sandbox's ledger, by price); every item's outcome `placed`; no
 * request refused by the rate limits (`sandbox.rateLimitStats()` unchanged: 0 × 429, 0 × 418).
 * Printed: the requests, the 429s and 418s, the most order requests of the key the sandbox saw in
 * any second, the wall time.
 */
import { DEMO_KEYS, type Sandbox } from '../../sandbox';
import type { N8nCredential } from '../../tools/n8n/cli';
import { sandboxCredential, type Workflow } from '../../tools/n8n/examples';
import {
	CREATE_ORDER_PATH,
	PER_ITEM_WEBHOOK,
	callWebhook,
	createDefaultsWebhookWorkflow,
	limitOrders,
	tallyOrders,
	waitForFinished,
} from '../../tools/queue/workflows';
import { describeExecution, itemsOf, type QueueSuite } from './context';
import { expectEqual, expectTrue, figure } from './runner';

const WORKFLOW = { id: 'tsQueueLimits001', path: 'queue-documented-limits' } as const;
/** The master key, told that two n8n processes (the two workers) send with it. */
const CREDENTIAL = {
	id: 'sandbox-cred-2-procs',
	name: 'Trading Service Sandbox (master key, 2 processes share it)',
} as const;
const PROCESSES_SHARING_KEY = 2;
const EXECUTIONS = 2;
const ORDERS_EACH = 500;
/** Prices of this check's orders (a price names one order in the ledger slice of the check). */
const PRICE_BASE = 20_000;
/** The documented order rate of one key (sandbox default; the node's default too). */
const ORDER_PER_SECOND = 20;

export function limitsSetup(sb: Sandbox): {
	credentials: N8nCredential[];
	workflows: Workflow[];
	published: Array<{ id: string }>;
} {
	const credential = sandboxCredential(sb.baseUrl, DEMO_KEYS.master, { ...CREDENTIAL });
	credential.data = { ...credential.data, processesSharingKey: PROCESSES_SHARING_KEY };
	return {
		credentials: [credential],
		workflows: [
			createDefaultsWebhookWorkflow(WORKFLOW.id, WORKFLOW.path, { credential: { ...CREDENTIAL } }),
		],
		published: [WORKFLOW],
	};
}

/** The most entries of `times` (ms) inside any window of `windowMs` (a, b in one window: b - a < windowMs). */
function mostInWindow(times: number[], windowMs: number): number {
	const sorted = [...times].sort((a, b) => a - b);
	let most = 0;
	let from = 0;
	for (let to = 0; to < sorted.length; to++) {
		while (sorted[to] - sorted[from] >= windowMs) from++;
		most = Math.max(most, to - from + 1);
	}
	return most;
}

export async function limitsCheck(suite: QueueSuite): Promise<void> {
	const { sb, cluster } = suite;
	const rates = sb.requestRates();
	figure(`the sandbox's request rates: ${JSON.stringify(rates)}`);
	expectEqual("the sandbox's request rates (the documented ones, its default)", rates, {
		orderPerSecond: 20,
		queryPerSecond: 5,
		suspensionMs: 60_000,
	});
	const running = cluster.workers.filter((w) => w.running).map((w) => w.name);
	expectEqual('workers running', running.length, 2);

	const statsBefore = sb.rateLimitStats();
	const orderIndex = sb.ledger.orders.length;
	const requestIndex = sb.ledger.requests.length;
	const before = new Set(
		(await suite.main().listExecutions(suite.cookie(), WORKFLOW.id)).map((e) => String(e.id)),
	);
	const bodies = Array.from({ length: EXECUTIONS }, (_, i) => ({
		orders: limitOrders(PRICE_BASE + i * ORDERS_EACH, ORDERS_EACH),
	}));
	const prices = bodies.flatMap((b) => b.orders.map((o) => o.price));

	const t0 = Date.now();
	await Promise.all(bodies.map((body) => callWebhook(suite.main().baseUrl, WORKFLOW.path, body)));
	const executions = await waitForFinished(suite.main(), suite.cookie(), WORKFLOW.id, EXECUTIONS, {
		timeoutMs: 300_000,
		filter: (e) => !before.has(String(e.id)),
		pollMs: 1000,
	});
	const lastStop = Math.max(...executions.map((e) => new Date(String(e.stoppedAt)).getTime()));
	const wallMs = lastStop - t0;

	const requests = sb.ledger.requests
		.slice(requestIndex)
		.filter((r) => r.apiKey === DEMO_KEYS.master.apiKey);
	const orderRequests = requests.filter((r) => r.path === CREATE_ORDER_PATH);
	const status = (code: number) => requests.filter((r) => r.status === code).length;
	const statsAfter = sb.rateLimitStats();
	const stats = {
		rateLimited: statsAfter.rateLimited - statsBefore.rateLimited,
		intoSuspension: statsAfter.intoSuspension - statsBefore.intoSuspension,
	};
	const orderClass = requests.filter((r) => r.rateClass === 'order').map((r) => r.at);
	const queryClass = requests.filter((r) => r.rateClass === 'query').map((r) => r.at);
	const tally = tallyOrders(sb.ledger, orderIndex, prices);

	figure(
		`requests of the key ${requests.length}: ${orderRequests.length} order requests (POST ${CREATE_ORDER_PATH}), ` +
			`${orderClass.length} in the order class, ${queryClass.length} in the query class; ` +
			`429: ${status(429)}, 418: ${status(418)}; rateLimitStats during the check ${JSON.stringify(stats)}, ` +
			`over the run ${JSON.stringify(statsAfter)}`,
	);
	figure(
		`most order-class requests of the key at the sandbox in any 1,000 ms: ${mostInWindow(orderClass, 1000)} (limit ${ORDER_PER_SECOND}); ` +
			`query class: ${mostInWindow(queryClass, 1000)} (limit 5)`,
	);
	figure(
		`wall time (first webhook call → last execution stopped): ${(wallMs / 1000).toFixed(1)} s ` +
			`(${((EXECUTIONS * ORDERS_EACH) / (wallMs / 1000)).toFixed(1)} orders a second; expected ~${(EXECUTIONS * ORDERS_EACH) / ORDER_PER_SECOND} s: ` +
			`${ORDER_PER_SECOND / PROCESSES_SHARING_KEY} a second per worker)`,
	);

	const workers = new Set<string>();
	let placedItems = 0;
	for (const summary of executions) {
		const id = String(summary.id);
		const exec = await suite.main().getExecution(suite.cookie(), id);
		const worker = cluster.workerOf(id);
		const items = itemsOf(exec, PER_ITEM_WEBHOOK.create);
		const placed = items.filter((i) => i.outcome === 'placed' && i.success !== false).length;
		const outcomes: Record<string, number> = {};
		for (const i of items) outcomes[String(i.outcome)] = (outcomes[String(i.outcome)] ?? 0) + 1;
		const seconds =
			(new Date(String(exec.stoppedAt)).getTime() - new Date(String(exec.startedAt)).getTime()) /
			1000;
		figure(
			`execution ${id} on ${worker ?? '(no worker log line)'}: ${exec.status}, ${items.length} items, outcomes ${JSON.stringify(outcomes)}, ${seconds.toFixed(1)} s`,
		);
		expectEqual(`execution ${id} status`, describeExecution(exec), `${id} success`);
		expectTrue(`execution ${id} ran on a worker`, worker !== undefined);
		if (worker) workers.add(worker);
		expectEqual(`execution ${id}: items`, items.length, ORDERS_EACH);
		placedItems += placed;
	}
	figure(
		`orders placed ${tally.placed} / intended ${tally.intended}; lost ${tally.missing.length}, doubled ${tally.doubled.length}, unexpected ${tally.unexpected}, repeated client order IDs ${tally.repeatedClientIds}`,
	);
	expectEqual('the workers that ran the two executions', workers.size, 2);
	expectEqual('items with outcome placed', placedItems, EXECUTIONS * ORDERS_EACH);
	expectEqual('orders lost', tally.missing.slice(0, 10), []);
	expectEqual('orders doubled', tally.doubled.slice(0, 10), []);
	expectEqual('unexpected orders in the ledger', tally.unexpected, 0);
	expectEqual('client order IDs used twice', tally.repeatedClientIds, 0);
	expectEqual('orders placed (ledger)', tally.placed, EXECUTIONS * ORDERS_EACH);
	expectEqual('order requests', orderRequests.length, EXECUTIONS * ORDERS_EACH);
	expectEqual('sandbox.rateLimitStats() during the check', stats, {
		rateLimited: 0,
		intoSuspension: 0,
	});
	// Every check of the suite runs at the documented rates: none may have been refused either.
	expectEqual('sandbox.rateLimitStats() over the whole run so far', statsAfter, {
		rateLimited: 0,
		intoSuspension: 0,
	});
	expectEqual('answers 429', status(429), 0);
	expectEqual('answers 418', status(418), 0);
}
