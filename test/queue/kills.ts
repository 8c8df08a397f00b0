/**
 * Checks 8–10 of the queue suite: a worker killed hard (SIGKILL to its process group, as an OOM
 * kill or a lost host) in the middle of an execution that writes, and the execution finished by
 * the other worker, in two ways:
 *
 * - **re-delivery**: what Bull does with a stalled job when `maxStalledCount` ≥ 1 (n8n before it
 *   hard-coded 0): the same job, same execution ID, from `active` back onto `wait`; the other
 *   worker takes it and runs the execution again from its stored data. n8n 2.41.1 sets
 *   `maxStalledCount: 0` (scaling/scaling.service.js), so it would fail the job at the next stall
 *   check once the dead worker's lock expired; the suite moves the job itself when that lock runs
 *   out, as Bull's moveStalledJobsToWait script would (tools/queue/bull.ts). Nothing may mark the
 *   execution crashed before: the job processor skips a crashed execution. n8n's queue recovery
 *   (main start, then every N8N_EXECUTIONS_QUEUE_RECOVERY_INTERVAL minutes) does not run meanwhile,
 *   and the killed worker stays down until the re-delivered execution has finished (at start, a
 *   worker's crash recovery marks what its event log shows unfinished as crashed);
 * - **retry**: `POST /rest/executions/<id>/retry` `{loadWorkflow: false}` (the executions list's
 *   "Retry with original workflow"): a new execution, mode `retry`, retryOf the killed one.
 *
 * Cases, the sandbox answering after 20 ms: (8) Create Many of 200 orders (version 2, Parallel
 * Requests 2), killed when about half its batch requests arrived; (9) Create, one order per item,
 * 50 items with business keys as Client Order IDs (version 2, Parallel Requests 2), killed after
 * 25 order requests; (10) Transfer Asset per item, 8 transfers, killed when the 4th arrived.
 * Every order has its own price and every transfer its own quantity, so the sandbox's ledger
 * shows a doubled write whatever the client order IDs say. Each variant prints and asserts:
 * writes committed twice, client order IDs used twice, writes re-sent after the exchange had
 * committed them (an open LIMIT order's ID re-sent is refused as a duplicate, which would hide a
 * double for any order that has filled meanwhile: the money rule never relies on it), every item
 * `outcome: "placed"` in the ledger exactly once, every input with an item carrying its outcome,
 * the final execution's status and worker, and everything placed exactly once when no item is
 * unknown or rejected. The killed worker is started again for the next case.
 */
import { DEMO_ACCOUNTS, type LedgerRequest } from '../../sandbox';
import type { RestExecution } from '../../tools/n8n/rest';
import {
	BULL_PREFIX,
	BULL_QUEUE,
	findActiveJob,
	redeliverWhenLockExpires,
} from '../../tools/queue/bull';
import type { QueueWorker } from '../../tools/queue/cluster';
import {
	BATCH_ORDERS_PATH,
	CREATE_MANY_WEBHOOK,
	CREATE_ORDER_PATH,
	UNIFIED_BATCH_ORDERS_PATH,
	PER_ITEM_WEBHOOK,
	TRANSFER_PATH,
	callWebhook,
	createManyWebhookWorkflow,
	createPerItemWebhookWorkflow,
	limitOrders,
	onSandboxRequest,
	transferWebhookWorkflow,
} from '../../tools/queue/workflows';
import type { Workflow } from '../../tools/n8n/examples';
import { describeExecution, itemsOf, type QueueSuite } from './context';
import { check, fail, figure, sleep, waitUntil } from './runner';

export type KillVariant = 'retry' | 'redelivery';

/** The sandbox answers every request after this long in the kill cases. */
const KILL_LATENCY_MS = 20;

/**
 * The workers' lock on a job (QUEUE_WORKER_LOCK_DURATION, n8n's default 60 s, renewed every
 * QUEUE_WORKER_LOCK_RENEW_TIME, 10 s): a re-delivery waits for the dead worker's lock to run out,
 * so the suite halves it to keep each re-delivery case under a minute. The node's crash safety
 * assumes 30 s or more (docs/queue-mode.md, "After a crash").
 */
export const KILL_WORKER_ENV = { QUEUE_WORKER_LOCK_DURATION: '30000' } as const;

const WRITE_PATHS = new Set([
	BATCH_ORDERS_PATH,
	UNIFIED_BATCH_ORDERS_PATH,
	CREATE_ORDER_PATH,
	TRANSFER_PATH,
]);

/** One write the case intends: its unique price (orders) or quantity (transfers). */
interface Intended {
	value: string;
	/** A business key sent as the Client Order ID, when the case gives one. */
	clientOrderId?: string;
}

interface KillCase {
	number: number;
	title: string;
	workflow: () => Workflow;
	id: string;
	path: string;
	node: string;
	kind: 'order' | 'transfer';
	/** The requests that carry the writes, counted to choose the moment of the kill. */
	writePath: string;
	/** The write request on whose arrival the worker is killed. */
	killAt: number;
	/** Write requests a whole run sends (for the figures). */
	writeRequests: number;
	/** The webhook's body and what it intends, per variant (each its own prices or quantities). */
	input(variant: KillVariant): { body: unknown; intended: Intended[] };
}

/** Two price (or quantity) ranges per case, one per variant: a value names one write of the suite. */
const VARIANT_OFFSET: Record<KillVariant, number> = { retry: 0, redelivery: 1 };

const CASES: KillCase[] = [
	{
		number: 8,
		title: 'Create Many of 200 orders (version 2, Parallel Requests 2)',
		id: 'tsQueueKillMany1',
		path: 'queue-kill-create-many',
		workflow: () =>
			createManyWebhookWorkflow(
				'tsQueueKillMany1',
				'queue-kill-create-many',
				'Queue: kill during Create Many',
				{ typeVersion: 2, parallelRequests: 2, continueOnError: true },
			),
		node: CREATE_MANY_WEBHOOK.createMany,
		kind: 'order',
		writePath: UNIFIED_BATCH_ORDERS_PATH,
		killAt: 5,
		writeRequests: 10,
		input(variant) {
			const orders = limitOrders(40_000 + 1_000 * VARIANT_OFFSET[variant], 200);
			return { body: { orders }, intended: orders.map((o) => ({ value: o.price })) };
		},
	},
	{
		number: 9,
		title:
			'Create, one order per item, 50 items with business keys (version 2, Parallel Requests 2)',
		id: 'tsQueueKillKeys1',
		path: 'queue-kill-business-keys',
		workflow: () =>
			createPerItemWebhookWorkflow('tsQueueKillKeys1', 'queue-kill-business-keys', {
				parallelRequests: 2,
				continueOnError: true,
			}),
		node: PER_ITEM_WEBHOOK.create,
		kind: 'order',
		writePath: CREATE_ORDER_PATH,
		killAt: 25,
		writeRequests: 50,
		input(variant) {
			const orders = limitOrders(42_000 + 1_000 * VARIANT_OFFSET[variant], 50).map((o, n) => ({
				price: o.price,
				clientOrderId: `q-kill-${RUN_TAG}-${variant}-${n + 1}`,
			}));
			return {
				body: { orders },
				intended: orders.map((o) => ({ value: o.price, clientOrderId: o.clientOrderId })),
			};
		},
	},
	{
		number: 10,
		title: 'Transfer Asset, 8 transfers (version 2, paced one per second)',
		id: 'tsQueueKillXfer1',
		path: 'queue-kill-transfers',
		workflow: () =>
			transferWebhookWorkflow(
				'tsQueueKillXfer1',
				'queue-kill-transfers',
				{ from: DEMO_ACCOUNTS.mainTrading, to: DEMO_ACCOUNTS.subTrading },
				{ continueOnError: true },
			),
		node: PER_ITEM_WEBHOOK.transfer,
		kind: 'transfer',
		writePath: TRANSFER_PATH,
		killAt: 4,
		writeRequests: 8,
		input(variant) {
			// 3.1, 3.2, … (retry) and 4.1, 4.2, … (re-delivery): no other transfer of the suite moves these.
			const transfers = Array.from({ length: 8 }, (_, n) => ({
				quantity: `${3 + VARIANT_OFFSET[variant]}.${n + 1}`,
			}));
			return { body: { transfers }, intended: transfers.map((t) => ({ value: t.quantity })) };
		},
	},
];

/** Business keys differ from run to run, as a sheet's row IDs would not: nothing else differs. */
const RUN_TAG = Date.now().toString(36);

/** The kill cases' webhook workflows (imported and published at start-up). */
export function killWorkflows(): Array<{ id: string; path: string; workflow: Workflow }> {
	return CASES.map((c) => ({ id: c.id, path: c.path, workflow: c.workflow() }));
}

/** The client order IDs a write request carries (batch bodies, a single order's or transfer's parameters). */
function clientIdsOf(request: LedgerRequest): string[] {
	if (request.path === BATCH_ORDERS_PATH || request.path === UNIFIED_BATCH_ORDERS_PATH) {
		try {
			const parsed: unknown = JSON.parse(request.body);
			if (!Array.isArray(parsed)) return [];
			return parsed
				.map((o) => (o as Record<string, unknown>)?.newClientOrderId)
				.filter((id): id is string => typeof id === 'string' && id !== '');
		} catch {
			return [];
		}
	}
	const name = request.path === TRANSFER_PATH ? 'clientOrderId' : 'newClientOrderId';
	const query = new URLSearchParams(request.query).get(name);
	if (query) return [query];
	const body = /^[\w.%-]+=/.test(request.body) ? new URLSearchParams(request.body).get(name) : null;
	return body ? [body] : [];
}

/** A write the sandbox committed: its price or quantity, and its client order ID. */
interface Committed {
	value: string;
	clientOrderId: string;
}

interface KilledExecution {
	label: string;
	variant: KillVariant;
	executionId: string;
	finalId?: string;
}

/** The executions the kill cases killed, for the figures after them. */
export const killedExecutions: KilledExecution[] = [];

/** Runs the six kill checks (8a, 8b, 9a, 9b, 10a, 10b), retry before re-delivery in each case. */
export async function killChecks(suite: QueueSuite): Promise<void> {
	for (const c of CASES) {
		for (const [letter, variant] of [
			['a', 'retry'],
			['b', 'redelivery'],
		] as const) {
			const how =
				variant === 'retry'
					? 'retried through the REST API on the other worker'
					: 'its job re-delivered to the other worker';
			await check(`${c.number}${letter}. SIGKILL a worker during ${c.title}; ${how}`, () =>
				killCase(suite, c, variant),
			);
		}
	}
}

/** Starts every worker that is not running (a case that failed midway may have left one down). */
async function bothWorkersUp(suite: QueueSuite): Promise<void> {
	for (const w of suite.cluster.workers) {
		if (!w.running) {
			await w.start();
			figure(`${w.name} started again`);
		}
	}
}

async function killCase(suite: QueueSuite, c: KillCase, variant: KillVariant): Promise<void> {
	const { sb, cluster } = suite;
	await bothWorkersUp(suite);
	const { body, intended } = c.input(variant);
	const orderIndex = sb.ledger.orders.length;
	const transferIndex = sb.ledger.transfers.length;
	const requestIndex = sb.ledger.requests.length;
	const committedNow = (): Committed[] =>
		c.kind === 'order'
			? sb.ledger.orders
					.slice(orderIndex)
					.map((o) => ({ value: o.price, clientOrderId: o.clientOrderId }))
			: sb.ledger.transfers
					.slice(transferIndex)
					.map((t) => ({ value: t.quantity, clientOrderId: t.clientOrderId }));

	// Which worker runs the case's execution: the one whose log names an execution it had not.
	const seenBefore = new Map(cluster.workers.map((w) => [w.name, new Set(w.executions())]));
	const newExecutionOf = (w: QueueWorker) =>
		w.executions().find((id) => !seenBefore.get(w.name)!.has(id));
	const runningWorker = () => cluster.workers.find((w) => w.running && newExecutionOf(w));

	// Every request on arrival (before the sandbox processes it): re-sent client order IDs, and the
	// moment of the kill.
	const committedIds = new Set<string>();
	let scanned = 0;
	const resent: Array<{ id: string; request: LedgerRequest }> = [];
	let writes = 0;
	let killRequested = false;
	let killed:
		| { worker: QueueWorker; pid: number; inHook: boolean; exited: Promise<void> }
		| undefined;
	let killedAtWrite = 0;
	const tryKill = (inHook: boolean) => {
		const worker = runningWorker();
		if (!worker || killed) return;
		const pid = worker.pid() ?? -1;
		killed = { worker, pid, inHook, exited: worker.kill() };
	};
	sb.setFaults({ latencyMs: KILL_LATENCY_MS });
	const removeHook = onSandboxRequest(sb, (request) => {
		if (!WRITE_PATHS.has(request.path) || request.method !== 'POST') return;
		const committed = committedNow();
		for (; scanned < committed.length; scanned++) {
			if (committed[scanned].clientOrderId) committedIds.add(committed[scanned].clientOrderId);
		}
		for (const id of clientIdsOf(request)) if (committedIds.has(id)) resent.push({ id, request });
		if (request.path !== c.writePath || killRequested) return;
		writes++;
		if (writes === c.killAt) {
			killRequested = true;
			killedAtWrite = writes;
			tryKill(true);
		}
	});

	let restarting: Promise<void> | undefined;
	try {
		// --- 1. The run, killed midway ------------------------------------------------------------
		await callWebhook(suite.main().baseUrl, c.path, body);
		await waitUntil(
			`write request ${c.killAt} of the execution (and the kill)`,
			() => {
				if (killRequested && !killed) tryKill(false);
				if (killed) return true;
				// Ended before the kill: it would never come.
				const w = runningWorker();
				const id = w ? newExecutionOf(w) : undefined;
				if (id && w!.logs().includes(`Worker finished execution ${id} `))
					fail(
						`execution ${id} finished on ${w!.name} after ${writes} ${c.writePath} requests, before request ${c.killAt}: nothing was killed`,
					);
				return undefined;
			},
			// A worker restarted by the case before may take a while to pick the job up (seen once in
			// CI: the 4th transfer of case 10b had not come after 60 s; it came in 20 s on a rerun).
			120_000,
			5,
		);
		const k = killed!;
		await k.exited;
		const executionId = newExecutionOf(k.worker)!;
		const survivor = cluster.workers.find((w) => w !== k.worker)!;
		// Requests already on their way when the worker died are still processed by the sandbox.
		await sleep(200);
		const byKilled = committedNow();
		const killedExec = await suite.main().getExecution(suite.cookie(), executionId);
		figure(
			`execution ${executionId} on ${k.worker.name}: SIGKILL to its process group (${k.pid}) when ${c.writePath} request ${killedAtWrite} of ${c.writeRequests} arrived` +
				`${k.inHook ? '' : ' (a few ms later: its log line came after the request)'}; ` +
				`committed by then: ${byKilled.length} of ${intended.length} ${c.kind}s; n8n says the execution is "${killedExec.status}"`,
		);
		killedExecutions.push({
			label: `${c.number}${variant === 'retry' ? 'a' : 'b'}`,
			variant,
			executionId,
		});
		const restartKilled = () => {
			restarting ??= k.worker.start();
			return restarting;
		};

		// --- 2. Finished by the other worker ----------------------------------------------------
		let final: RestExecution;
		let finalWorker: string | undefined;
		const problems: string[] = [];
		if (variant === 'redelivery') {
			const jobId = await findActiveJob(cluster.redis, executionId);
			if (!jobId)
				fail(
					`execution ${executionId}: no job of it in ${BULL_PREFIX}:${BULL_QUEUE}:active (n8n status "${killedExec.status}")`,
				);
			// Bull moves a stalled job only once its lock is gone: the dead worker renewed it last up to
			// QUEUE_WORKER_LOCK_RENEW_TIME before the kill, for QUEUE_WORKER_LOCK_DURATION.
			const { waitedMs, lockTtlMs } = await redeliverWhenLockExpires(cluster.redis, jobId);
			const before = await suite.main().getExecution(suite.cookie(), executionId);
			const sinceStart =
				Date.now() - new Date(String(before.createdAt ?? before.startedAt)).getTime();
			if (before.status === 'crashed')
				problems.push(
					`execution ${executionId} was already "crashed" when its job was re-delivered: the job processor skips it`,
				);
			await waitUntil(
				`${survivor.name} to start execution ${executionId}`,
				() => (survivor.executions().includes(executionId) ? true : undefined),
				60_000,
				50,
			);
			figure(
				`re-delivered once the dead worker's lock ran out (${(lockTtlMs / 1000).toFixed(1)} s left after the kill, waited ${(waitedMs / 1000).toFixed(1)} s): ` +
					`job ${jobId} moved from ${BULL_PREFIX}:${BULL_QUEUE}:active back to :wait, ${(sinceStart / 1000).toFixed(1)} s after n8n created the execution ` +
					`("${before.status}" then); ${survivor.name} logged "Worker started execution ${executionId}"`,
			);
			// The killed worker starts again only once the execution has finished: at start, n8n's
			// crash recovery (the event bus's "Found unfinished executions") marks every execution its
			// event log shows started and not finished as crashed, unless the database says it
			// finished: this one, while it runs on the survivor, too.
			final = await suite
				.main()
				.waitForExecution(suite.cookie(), executionId, { timeoutMs: 180_000 });
			finalWorker = survivor.name;
		} else {
			const survivorBefore = new Set(survivor.executions());
			const retrying = suite.main().request<{
				data: { id?: string; status?: string; mode?: string };
			}>('POST', `/rest/executions/${executionId}/retry`, { cookie: suite.cookie(), body: { loadWorkflow: false }, timeoutMs: 180_000 });
			let settled = false;
			void retrying.then(
				() => (settled = true),
				() => (settled = true),
			);
			// The killed worker comes back once the survivor has taken the retry.
			await waitUntil(
				`${survivor.name} to start the retry`,
				() =>
					settled || survivor.executions().some((id) => !survivorBefore.has(id)) ? true : undefined,
				60_000,
				50,
			);
			// (Its crash recovery marks the killed execution crashed: the retry has its data already.)
			void restartKilled().catch(() => undefined);
			const res = await retrying;
			if (res.status !== 200 || !res.body?.data?.id)
				fail(
					`POST /rest/executions/${executionId}/retry (execution "${killedExec.status}") -> HTTP ${res.status}: ${res.text.slice(0, 500)}`,
				);
			const retryId = String(res.body.data.id);
			final = await suite.main().waitForExecution(suite.cookie(), retryId, { timeoutMs: 180_000 });
			finalWorker = cluster.workerOf(retryId);
			figure(
				`retried: POST /rest/executions/${executionId}/retry {loadWorkflow:false} on a "${killedExec.status}" execution -> HTTP 200, ` +
					`execution ${retryId} (mode ${final.mode}, retryOf ${String(final.retryOf ?? '-')})`,
			);
			if (final.mode !== 'retry' || String(final.retryOf) !== executionId)
				problems.push(
					`the retry ${retryId} is mode ${final.mode}, retryOf ${String(final.retryOf)}: expected retry of ${executionId}`,
				);
			killedExecutions[killedExecutions.length - 1].finalId = retryId;
		}
		await restartKilled();
		figure(`${k.worker.name} started again`);

		// --- 3. What the exchange holds, what the node says ----------------------------------------
		await sleep(200);
		const committed = committedNow();
		const intendedValues = new Set(intended.map((i) => i.value));
		const perValue = new Map<string, number>();
		const perClientId = new Map<string, number>();
		let unexpected = 0;
		for (const w of committed) {
			if (!intendedValues.has(w.value)) {
				unexpected++;
				continue;
			}
			perValue.set(w.value, (perValue.get(w.value) ?? 0) + 1);
			if (w.clientOrderId)
				perClientId.set(w.clientOrderId, (perClientId.get(w.clientOrderId) ?? 0) + 1);
		}
		const doubled = [...perValue].filter(([, n]) => n > 1);
		const missing = intended.filter((i) => !perValue.has(i.value)).map((i) => i.value);
		const idsTwice = [...perClientId].filter(([, n]) => n > 1);
		const resentIds = new Set(resent.map((r) => r.id));
		const resentRequests = new Set(resent.map((r) => r.request));
		const keysWrong = intended.filter(
			(i) =>
				i.clientOrderId !== undefined &&
				committed.some((w) => w.value === i.value && w.clientOrderId !== i.clientOrderId),
		).length;

		const items = final.data?.resultData?.runData?.[c.node] ? itemsOf(final, c.node) : [];
		const outcomeOf = (item: Record<string, unknown>) =>
			typeof item.outcome === 'string' ? item.outcome : 'none';
		const count = (outcome: string) => items.filter((i) => outcomeOf(i) === outcome).length;
		const placed = items.filter((i) => outcomeOf(i) === 'placed');
		const alreadyPlaced = placed.filter((i) => i.alreadyPlaced === true).length;
		const replayed = placed.filter((i) => i.replayed === true && i.alreadyPlaced !== true).length;
		const unknown = count('unknown');
		const rejected = count('rejected');
		const none = count('none');
		const others = items.length - placed.length - unknown - rejected - none;
		// Every item the node reports placed, in the ledger exactly once: by client order ID, else
		// by its price (orders) or its input's quantity (transfers: output items keep input order).
		const notOnce = items
			.map((item, index) => ({ item, index }))
			.filter(({ item }) => outcomeOf(item) === 'placed')
			.filter(({ item, index }) => {
				const id = typeof item.clientOrderId === 'string' ? item.clientOrderId : '';
				if (id) return committed.filter((w) => w.clientOrderId === id).length !== 1;
				const value = c.kind === 'order' ? String(item.price ?? '') : intended[index]?.value;
				return committed.filter((w) => w.value === value).length !== 1;
			});
		const finalRequests = sb.ledger.requests.slice(requestIndex);
		const perPath = new Map<string, number>();
		for (const r of finalRequests) {
			const key = `${r.method} ${r.path}`;
			perPath.set(key, (perPath.get(key) ?? 0) + 1);
		}

		figure(
			`final execution ${describeExecution(final)} on ${finalWorker ?? '(no worker log line)'}` +
				(variant === 'redelivery' ? ' (the same execution ID, re-run from its stored data)' : ''),
		);
		figure(
			`ledger: ${committed.length} ${c.kind}s committed for ${intended.length} intended; committed twice ${doubled.length}` +
				`${
					doubled.length
						? ` (e.g. ${doubled
								.slice(0, 3)
								.map(([v, n]) => `${v} ×${n}`)
								.join(', ')})`
						: ''
				}; ` +
				`missing ${missing.length}; unexpected ${unexpected}; client order IDs used twice ${idsTwice.length}` +
				(c.kind === 'order' && intended.some((i) => i.clientOrderId)
					? `; not under their business key ${keysWrong}`
					: ''),
		);
		const answers = new Map<string, number>();
		for (const r of resentRequests) {
			const answer = `${r.status}${r.code ? ` ${r.code}` : ''}`;
			answers.set(answer, (answers.get(answer) ?? 0) + 1);
		}
		figure(
			`writes re-sent after the exchange had committed them: ${resentIds.size} client order ID(s) in ${resentRequests.size} request(s)` +
				(resent.length
					? ` (e.g. ${[...resentIds].slice(0, 2).join(', ')}; answered ${[...answers].map(([a, n]) => `${a} ×${n}`).join(', ')})`
					: ''),
		);
		figure(
			`items ${items.length} of ${intended.length}: placed ${placed.length} (alreadyPlaced ${alreadyPlaced}, replayed ${replayed}, sent and answered ${placed.length - alreadyPlaced - replayed}), ` +
				`rejected ${rejected}, unknown ${unknown}, without an outcome ${none}${others ? `, other outcomes ${others}` : ''}`,
		);
		figure(`items placed that are not in the ledger exactly once: ${notOnce.length}`);
		figure(`requests during the case: ${[...perPath].map(([p, n]) => `${p} ${n}`).join(', ')}`);

		// --- 4. The verdict ------------------------------------------------------------------------
		if (variant === 'redelivery' && !survivor.executions().includes(executionId))
			problems.push(`${survivor.name} never logged "Worker started execution ${executionId}"`);
		if (finalWorker !== survivor.name)
			problems.push(
				`the final execution ran on ${finalWorker ?? 'no worker'}, not on ${survivor.name}`,
			);
		if (final.status !== 'success')
			problems.push(`final execution status "${final.status}", not "success"`);
		if (doubled.length > 0)
			problems.push(
				`MONEY RULE BROKEN: ${doubled.length} ${c.kind}s committed twice by the killed attempt and the ${variant === 'retry' ? 'retry' : 're-delivered run'} ` +
					`(the ${variant === 'retry' ? 'retried' : 're-delivered'} execution sent again what the killed one had placed)`,
			);
		if (idsTwice.length > 0)
			problems.push(`${idsTwice.length} client order IDs used by two committed ${c.kind}s`);
		if (resentIds.size > 0)
			problems.push(
				`MONEY RULE BROKEN: ${resentIds.size} client order IDs re-sent after the exchange had committed them (only the exchange's duplicate check stood in the way)`,
			);
		if (unexpected > 0)
			problems.push(`${unexpected} ${c.kind}s in the ledger that were not intended`);
		if (keysWrong > 0)
			problems.push(
				`${keysWrong} orders committed under another client order ID than their business key`,
			);
		if (notOnce.length > 0)
			problems.push(
				`${notOnce.length} items say outcome "placed" but are not in the ledger exactly once`,
			);
		if (items.length !== intended.length || none > 0)
			problems.push(
				`${items.length} items for ${intended.length} inputs, ${none} without an outcome: every input must come out with its outcome`,
			);
		if (
			unknown + rejected + none === 0 &&
			(missing.length > 0 || perValue.size !== intended.length)
		)
			problems.push(
				`no item unknown or rejected, yet ${missing.length} intended ${c.kind}s were never committed`,
			);
		if (problems.length > 0) fail(problems.join('\n'));
	} finally {
		removeHook();
		sb.clearFaults();
		if (restarting) await restarting.catch(() => undefined);
		await bothWorkersUp(suite).catch((error: Error) =>
			figure(`could not start the workers again: ${error.message}`),
		);
	}
}

/** Figures after the kill checks: what n8n made of every killed execution by now. */
export async function reportKilledExecutions(suite: QueueSuite): Promise<void> {
	if (killedExecutions.length > 0) figure('what n8n made of the killed executions by now:');
	for (const k of killedExecutions) {
		try {
			const e = await suite.main().getExecution(suite.cookie(), k.executionId);
			figure(
				`killed execution ${k.executionId} (${k.label}, ${k.variant}): now "${e.status}"` +
					`${e.data?.resultData?.error?.message ? ` (${e.data.resultData.error.message.slice(0, 160)})` : ''}` +
					`${k.finalId ? `; its retry ${k.finalId}` : ''}`,
			);
		} catch (error) {
			figure(`killed execution ${k.executionId}: ${(error as Error).message}`);
		}
	}
}
