/**
 * Check 12 of the queue suite: the Trading Service Real-Time Trigger in queue mode. Triggers run
 * on the main process: the trigger holds the exchange's user data stream there, once, and the
 * workers never open it; every event starts one execution, which a worker runs.
 *
 * Workflow: Real-Time Trigger (Order Filled, the sub account's key: its account holds only the
 * orders check 7 seeded and those seeded here) → No Operation. 60 resting orders are seeded before
 * the activation, then filled in six groups:
 *
 *   0  5  while the main process is stopped gracefully before any event (caught up at its start)
 *   A  10 while the main process listens                                (from the stream)
 *   B  10 while the main process is stopped gracefully after events     (caught up at its start)
 *   B' 5  after it is back                                              (stream)
 *   C  20 40 ms before the main process is SIGKILLed, 5 while it is down (stream or catch-up: the
 *         kill lands while it emits; what it emitted is refused by n8n's deduplication key)
 *   C' 5  after it is back                                              (stream)
 *
 * A graceful stop is one SIGTERM to n8n, whose shutdown closes the trigger (cluster.restartMain:
 * N8nInstance.stop() signals the watchdog alone, which relays it). Asserted: at most one stream connection at any moment (sampled
 * every 50 ms) and one live listen key of the running main process; one connection opened and one
 * listen key created per start of the main process (4), none by the workers; a graceful stop
 * closes the connection and deletes its listen key; every fill one execution within its group's
 * phase (20 s), succeeded on a worker, none missed or repeated; the fills made while the main
 * process was down come from a catch-up; the deactivation closes the connection and deletes the
 * listen key. Printed besides: what the database held while the main process was down (the
 * trigger's saved state, the executions), the repeats n8n refused, the time from a fill to its
 * execution. The SIGKILLed process's listen key, alive after the kill (nobody was left to delete
 * it), must be deleted by the restarted trigger (it keeps its key in the saved state).
 */
import { DEMO_KEYS, type LedgerRequest, type Sandbox } from '../../sandbox';
import type { N8nCredential } from '../../tools/n8n/cli';
import { CREDENTIAL_TYPE, sandboxCredential, type Workflow } from '../../tools/n8n/examples';
import type { RestExecution } from '../../tools/n8n/rest';
import { queryPostgres } from '../../tools/queue/postgres';
import { itemsOf, type QueueSuite } from './context';
import { fail, figure, sleep, waitUntil } from './runner';

export const REAL_TIME_TYPE = 'n8n-nodes-trading-service.tradingServiceRealTimeTrigger';
const WORKFLOW_ID = 'tsQueueRealTime1';
const TRIGGER = 'Order Filled';
const NEXT = 'Next Step';
const CREDENTIAL = {
	id: 'sandbox-cred-stream',
	name: 'Trading Service Sandbox (sub account, real-time)',
} as const;
const LISTEN_KEY_PATH = '/api/v1/userDataStream';
const OPEN_ORDERS_PATH = '/api/v1/spot/openOrders';
/** Prices of this check's orders (a price names one order of the sub account). */
const PRICE_BASE = 30_000;
/** How long after the last of group C's fills the main process is SIGKILLed. */
const KILL_AFTER_MS = 40;
/** How many of group C's fills come just before the kill (the other 5 while the process is down). */
const KILLED_WHILE_EMITTING = 20;

/** The credential and workflow imported at start-up. */
export function realTimeSetup(sb: Sandbox): {
	credentials: N8nCredential[];
	workflows: Workflow[];
} {
	const workflow: Workflow = {
		id: WORKFLOW_ID,
		name: 'Queue: real-time order fills',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: '6d1f7f3e-2b7a-4c55-9d0e-5a8d1b2c3e41',
				name: TRIGGER,
				type: REAL_TIME_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters: { events: ['orderFilled'], filters: {}, options: {} },
				credentials: { [CREDENTIAL_TYPE]: { ...CREDENTIAL } },
			},
			{
				id: '0c9a4e52-7f13-4b8e-a6d2-3f5e9b1c7d20',
				name: NEXT,
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [240, 0],
				parameters: {},
			},
		],
		connections: { [TRIGGER]: { main: [[{ node: NEXT, type: 'main', index: 0 }]] } },
		pinData: {},
	};
	return {
		credentials: [sandboxCredential(sb.baseUrl, DEMO_KEYS.sub, { ...CREDENTIAL })],
		workflows: [workflow],
	};
}

type Group = '0' | 'A' | 'B' | "B'" | 'C' | "C'";
const GROUPS: Array<{ group: Group; count: number; expected: 'stream' | 'catchUp' | 'either' }> = [
	{ group: '0', count: 5, expected: 'catchUp' },
	{ group: 'A', count: 10, expected: 'stream' },
	{ group: 'B', count: 10, expected: 'catchUp' },
	{ group: "B'", count: 5, expected: 'stream' },
	{ group: 'C', count: 25, expected: 'either' },
	{ group: "C'", count: 5, expected: 'stream' },
];

interface Emitted {
	executionId: string;
	status: string;
	worker?: string;
	orderId: string;
	source: string;
	eventId: string;
	startedAt: number;
}

export async function realTimeCheck(suite: QueueSuite): Promise<void> {
	const { sb, cluster } = suite;
	for (const w of cluster.workers) {
		if (!w.running) {
			await w.start();
			figure(`${w.name} started again`);
		}
	}
	const problems: string[] = [];
	const requestIndex = sb.ledger.requests.length;
	const mainLogFrom = cluster.mainLogs().length;
	const openedBefore = sb.stream.stats().connectionsOpened;
	if (sb.stream.stats().listenKeys.length > 0)
		fail(`live listen keys before the activation: ${sb.stream.stats().listenKeys.length}`);
	let cookie = suite.cookie();
	const main = () => suite.main();

	// The most sockets and live listen keys at any moment (sampled), while the check runs.
	let maxConnections = 0;
	let samples = 0;
	const sampler = setInterval(() => {
		const s = sb.stream.stats();
		maxConnections = Math.max(maxConnections, s.connections);
		samples++;
	}, 50);

	// The orders, resting before the activation (so no event of theirs comes before a fill).
	const orders: Record<Group, string[]> = { '0': [], A: [], B: [], "B'": [], C: [], "C'": [] };
	let price = PRICE_BASE;
	for (const { group, count } of GROUPS) {
		for (let i = 0; i < count; i++) {
			orders[group].push(
				sb.seedOpenOrder({
					key: DEMO_KEYS.sub,
					symbol: 'BTCUSDT',
					side: 'BUY',
					price: String(price++),
					quantity: '0.001',
					time: sb.now(),
				}).orderId,
			);
		}
	}
	const groupOf = new Map<string, Group>();
	for (const { group } of GROUPS) for (const id of orders[group]) groupOf.set(id, group);
	const filledAt = new Map<string, number>();
	const fill = (ids: string[]) => {
		for (const id of ids) {
			sb.fillOrder(id);
			filledAt.set(id, Date.now());
		}
	};

	const streamRequests = () =>
		sb.ledger.requests
			.slice(requestIndex)
			.filter((r) => r.path === LISTEN_KEY_PATH && r.apiKey === DEMO_KEYS.sub.apiKey);
	const count = (requests: LedgerRequest[], method: string) =>
		requests.filter((r) => r.method === method).length;
	const liveKeys = () => sb.stream.stats().listenKeys;
	const connected = async (opened: number, what: string) => {
		await waitUntil(
			what,
			() => {
				const s = sb.stream.stats();
				return s.connections === 1 && s.connectionsOpened - openedBefore >= opened
					? true
					: undefined;
			},
			120_000,
			50,
		);
	};
	const finished = async () =>
		(await main().listExecutions(cookie, WORKFLOW_ID)).filter(
			(e) => e.stoppedAt && !['new', 'running', 'waiting', 'unknown'].includes(e.status),
		);
	/** Finished executions → the order of their item (read once per execution). */
	const orderOfExecution = new Map<string, string>();
	const finishedByOrder = async () => {
		const done = await finished();
		for (const e of done) {
			const id = String(e.id);
			if (orderOfExecution.has(id)) continue;
			const exec = await main().getExecution(cookie, id);
			const runData = exec.data?.resultData?.runData;
			const items = runData?.[NEXT]
				? itemsOf(exec, NEXT)
				: runData?.[TRIGGER]
					? itemsOf(exec, TRIGGER)
					: [];
			orderOfExecution.set(id, items.length > 0 ? String(items[0].orderId) : '');
		}
		return { ids: done.map((e) => String(e.id)), orders: new Set(orderOfExecution.values()) };
	};
	/** The finished executions at the end of each group's phase. */
	const phaseEnd = new Map<Group, Set<string>>();
	/**
	 * Until every fill of the group has a finished execution; after 20 s the shortfall is a problem
	 * and the check goes on.
	 */
	const phase = async (group: Group, what: string) => {
		const deadline = Date.now() + 20_000;
		for (;;) {
			const { ids, orders: done } = await finishedByOrder();
			const have = orders[group].filter((id) => done.has(id)).length;
			if (have === orders[group].length || Date.now() > deadline) {
				phaseEnd.set(group, new Set(ids));
				if (have < orders[group].length) {
					problems.push(`${what}: ${have} of ${orders[group].length} fills executed after 20 s`);
					figure(`${what}: only ${have} of ${orders[group].length} fills executed after 20 s`);
				}
				return;
			}
			await sleep(250);
		}
	};
	/**
	 * What the database holds for some fills (read while the main process is down): how many of
	 * their events the trigger's saved state counts as seen, and their executions by status.
	 */
	const saved = async (ids: string[]) => {
		const eventIds = new Set(ids.map((id) => `order-${id}-FILLED-0.001`));
		const staticData = JSON.parse(
			(
				await queryPostgres(
					cluster.postgres,
					`SELECT "staticData" FROM workflow_entity WHERE id = '${WORKFLOW_ID}'`,
				)
			).trim() || '{}',
		) as Record<string, { realTime?: { recent?: string[] } } | undefined>;
		const state = staticData[`node:${TRIGGER}`]?.realTime;
		const recent = state?.recent ?? [];
		const rows = (
			await queryPostgres(
				cluster.postgres,
				`SELECT id, status, "deduplicationKey" FROM execution_entity WHERE "workflowId" = '${WORKFLOW_ID}' ORDER BY id`,
			)
		)
			.trim()
			.split('\n')
			.filter((line) => line !== '')
			.map((line) => line.split('|'));
		const executions = rows.filter(([, , key]) => eventIds.has(key.split(':').pop() ?? ''));
		const statuses = new Map<string, number>();
		for (const [, status] of executions) statuses.set(status, (statuses.get(status) ?? 0) + 1);
		return {
			state: state !== undefined,
			seen: recent.filter((id) => eventIds.has(id)).length,
			executions: executions.length,
			line: [...statuses].map(([status, n]) => `${status} ${n}`).join(', ') || 'none',
		};
	};
	/** One connection and, of the running main process, one live listen key. */
	const oneConnection = (when: string, orphans: string[] = []) => {
		const s = sb.stream.stats();
		const own = s.listenKeys.filter((k) => !orphans.includes(k));
		figure(
			`${when}: connections ${s.connections}, live listen keys ${s.listenKeys.length}${orphans.length ? ` (${orphans.length} left by the killed process)` : ''}`,
		);
		if (s.connections !== 1) problems.push(`${when}: ${s.connections} stream connections, not 1`);
		if (own.length !== 1)
			problems.push(`${when}: ${own.length} live listen keys of the running main process, not 1`);
		return own[0];
	};

	/**
	 * A graceful stop of the main process (one SIGTERM: n8n's shutdown closes the trigger), the
	 * fills of `group` while it is down, and its start. `connection` is the connection it opens.
	 */
	const gracefulRestart = async (group: Group, connection: number, listenKey?: string) => {
		const stopAt = Date.now();
		let stoppedAfter = 0;
		let after = { connections: -1, keys: [] as string[], deleted: [] as string[] };
		let before = { state: false, seen: 0, executions: 0, line: '' };
		await cluster.restartMain(async () => {
			stoppedAfter = Date.now() - stopAt;
			const s = sb.stream.stats();
			after = { connections: s.connections, keys: s.listenKeys, deleted: s.deletedListenKeys };
			before = await saved([...filledAt.keys()]);
			fill(orders[group]);
			await sleep(2_000);
		});
		const readyAt = Date.now();
		cookie = await suite.login();
		figure(
			`graceful stop (one SIGTERM to n8n) took ${(stoppedAfter / 1000).toFixed(1)} s: then connections ${after.connections}, ` +
				`live listen keys ${after.keys.length}, its listen key deleted: ${after.deleted.includes(listenKey ?? '')}; ` +
				`${orders[group].length} fills while down; ready again ${((readyAt - stopAt - stoppedAfter) / 1000).toFixed(1)} s after the stop`,
		);
		figure(
			!before.state
				? `while it was down, the database held no saved state of the trigger (its baseline was never saved)`
				: filledAt.size === orders[group].length
					? `while it was down, the database held the trigger's saved state (its baseline)`
					: `while it was down, the database held the trigger's saved state; of the ${filledAt.size - orders[group].length} fills before, ${before.seen} events seen in it; executions ${before.line}`,
		);
		if (after.connections !== 0)
			problems.push(`after the graceful stop: ${after.connections} stream connections, not 0`);
		if (!after.deleted.includes(listenKey ?? '') || after.keys.length !== 0)
			problems.push(
				`after the graceful stop: the listen key was ${after.deleted.includes(listenKey ?? '') ? '' : 'not '}deleted, ${after.keys.length} live listen key(s)`,
			);
		await connected(connection, 'the stream connection of the restarted main process');
		return readyAt;
	};

	try {
		// --- Activation -------------------------------------------------------------------------
		const activationIndex = sb.ledger.requests.length;
		const t0 = Date.now();
		await main().activateWorkflow(cookie, WORKFLOW_ID);
		await connected(1, 'the stream connection after the activation');
		// The baseline (the open orders now) follows the connection.
		await waitUntil(
			'the baseline read of the open orders',
			() =>
				sb.ledger.requests
					.slice(activationIndex)
					.some(
						(r) =>
							r.path === OPEN_ORDERS_PATH &&
							r.method === 'GET' &&
							r.apiKey === DEMO_KEYS.sub.apiKey,
					)
					? true
					: undefined,
			30_000,
			50,
		);
		await sleep(500);
		figure(
			`activated in ${((Date.now() - t0) / 1000).toFixed(1)} s with ${cluster.workers.filter((w) => w.running).length} workers running`,
		);
		const key1 = oneConnection('after the activation');

		// --- 0: the main process stopped gracefully before any event, fills while it is down ----
		let readyAt = await gracefulRestart('0', 2, key1);
		await phase('0', 'group 0, filled while the main process was down before any event');
		await sleep(300);
		const key2 = oneConnection('after the restart');

		// --- A: fills while the main process listens ---------------------------------------------
		fill(orders.A);
		await phase('A', 'group A, filled while the main process listened');
		await sleep(300);
		oneConnection('after group A');

		// --- B: the main process stopped gracefully after events, fills while it is down ---------
		readyAt = await gracefulRestart('B', 3, key2);
		await phase('B', 'group B, filled while the main process was down');
		figure(
			`the restarted main process caught up: group B's executions finished ${((Date.now() - readyAt) / 1000).toFixed(1)} s after it was ready`,
		);
		await sleep(300);
		const key3 = oneConnection('after the restart');
		fill(orders["B'"]);
		await phase("B'", "group B', filled after the restart");

		// --- C: SIGKILL of the main process while it emits, fills while it is down --------------
		// 20 at once: creating their executions takes the main process long enough for the kill to
		// land while it emits them (with 5, it had sometimes created all 5 already).
		const firstC = orders.C.slice(0, KILLED_WHILE_EMITTING);
		const secondC = orders.C.slice(KILLED_WHILE_EMITTING);
		let afterKill = { connections: -1, keys: [] as string[] };
		let savedC = { state: false, seen: 0, executions: 0, line: '' };
		fill(firstC);
		await sleep(KILL_AFTER_MS);
		const killAt = Date.now();
		await cluster.killMain(async () => {
			// The kernel closes the dead process's socket; the sandbox sees it a moment later.
			await waitUntil(
				"the killed process's socket to close",
				() => (sb.stream.stats().connections === 0 ? true : undefined),
				10_000,
				20,
			);
			const s = sb.stream.stats();
			afterKill = { connections: s.connections, keys: s.listenKeys };
			savedC = await saved(firstC);
			fill(secondC);
			await sleep(2_000);
		});
		const backAfterC = Date.now();
		cookie = await suite.login();
		const orphans = afterKill.keys.filter((k) => k === key3);
		figure(
			`SIGKILL of the main process's group ${KILL_AFTER_MS} ms after ${firstC.length} fills; then connections ${afterKill.connections}, ` +
				`live listen keys ${afterKill.keys.length} (its listen key ${afterKill.keys.includes(key3 ?? '') ? 'still alive: the dead process could not delete it' : 'gone'}); ` +
				`5 fills while down; ready again ${((backAfterC - killAt) / 1000).toFixed(1)} s after the kill`,
		);
		figure(
			`while it was down, the database held for the ${firstC.length} fills before the kill: ${savedC.seen} events seen in the trigger's saved state; executions ${savedC.line}`,
		);
		await connected(4, 'the stream connection of the main process started after the SIGKILL');
		await phase('C', 'group C, filled as the main process was killed and while it was down');
		await sleep(300);
		oneConnection('after the restart that followed the SIGKILL');
		const leaked = sb.stream.stats();
		figure(
			`the killed process's listen key, after the restart: ${orphans.every((k) => leaked.deletedListenKeys.includes(k)) ? 'deleted by the restarted trigger' : 'still alive'}`,
		);
		for (const key of orphans)
			if (!leaked.deletedListenKeys.includes(key) || leaked.listenKeys.includes(key))
				problems.push("the restarted trigger did not delete the killed process's listen key");
		fill(orders["C'"]);
		await phase("C'", "group C', filled after the restart");
		// Late repeats, if any, would come now.
		await sleep(1_500);

		// --- Deactivation ----------------------------------------------------------------------
		const key4 = liveKeys().find((k) => !orphans.includes(k));
		await main().deactivateWorkflow(cookie, WORKFLOW_ID);
		await waitUntil(
			'the connection to close after the deactivation',
			() => (sb.stream.stats().connections === 0 ? true : undefined),
			15_000,
			50,
		);
		await sleep(500);
		const end = sb.stream.stats();
		figure(
			`deactivated: connections ${end.connections}, its listen key deleted: ${end.deletedListenKeys.includes(key4 ?? '')}, ` +
				`live listen keys ${end.listenKeys.length}${end.listenKeys.length ? ` (${end.listenKeys.filter((k) => orphans.includes(k)).length} of the SIGKILLed process)` : ''}`,
		);
		if (!end.deletedListenKeys.includes(key4 ?? ''))
			problems.push('the deactivation did not delete the listen key');
		if (end.listenKeys.some((k) => !orphans.includes(k)))
			problems.push(`after the deactivation: live listen keys other than the killed process's`);
		await sleep(1_000);
		if (sb.stream.stats().connectionsOpened !== end.connectionsOpened)
			problems.push('a connection was opened after the deactivation');

		// --- What the exchange saw -------------------------------------------------------------
		const requests = streamRequests();
		const opened = sb.stream.stats().connectionsOpened - openedBefore;
		figure(
			`stream: connections opened ${opened} (one per start of the main process: 4), most at once ${maxConnections} (${samples} samples every 50 ms); ` +
				`listen keys created ${count(requests, 'POST')}, kept alive ${count(requests, 'PUT')}, deleted ${count(requests, 'DELETE')}`,
		);
		if (maxConnections !== 1)
			problems.push(
				`${maxConnections} stream connections at once: the workers or a second activation opened the stream`,
			);
		if (opened !== 4)
			problems.push(`${opened} connections opened, not 4 (one per start of the main process)`);
		if (count(requests, 'POST') !== 4)
			problems.push(
				`${count(requests, 'POST')} listen keys created, not 4 (one per start of the main process)`,
			);

		// --- The executions ---------------------------------------------------------------------
		const summaries = await main().listExecutions(cookie, WORKFLOW_ID);
		const emitted: Emitted[] = [];
		for (const summary of summaries) {
			const exec: RestExecution = await main().getExecution(cookie, String(summary.id));
			const items = exec.data?.resultData?.runData?.[NEXT]
				? itemsOf(exec, NEXT)
				: exec.data?.resultData?.runData?.[TRIGGER]
					? itemsOf(exec, TRIGGER)
					: [];
			if (items.length !== 1)
				problems.push(
					`execution ${exec.id} (${exec.status}, mode ${exec.mode}): ${items.length} items, not 1`,
				);
			for (const item of items) {
				emitted.push({
					executionId: String(exec.id),
					status: exec.status,
					worker: cluster.workerOf(String(exec.id)),
					orderId: String(item.orderId),
					source: String(item.source),
					eventId: String(item.eventId),
					startedAt: new Date(String(exec.startedAt ?? exec.createdAt)).getTime(),
				});
			}
		}
		const perOrder = new Map<string, Emitted[]>();
		for (const e of emitted) perOrder.set(e.orderId, [...(perOrder.get(e.orderId) ?? []), e]);
		const filled = [...groupOf.keys()];
		const missed = filled.filter((id) => !perOrder.has(id));
		const repeated = [...perOrder].filter(([, list]) => list.length > 1);
		const foreign = [...perOrder.keys()].filter((id) => !groupOf.has(id));
		const notSuccess = emitted.filter((e) => e.status !== 'success');
		const noWorker = emitted.filter((e) => e.worker === undefined);
		const perWorker = new Map<string, number>();
		for (const e of emitted)
			perWorker.set(e.worker ?? '(none)', (perWorker.get(e.worker ?? '(none)') ?? 0) + 1);
		figure(
			`executions ${summaries.length} for ${filled.length} fills: missed ${missed.length}, repeated ${repeated.length}, of other orders ${foreign.length}; ` +
				`success ${emitted.length - notSuccess.length}${notSuccess.length ? `, other ${notSuccess.map((e) => `${e.executionId} ${e.status}`).join(', ')}` : ''}; ` +
				`per worker: ${[...perWorker].map(([w, n]) => `${w} ${n}`).join(', ')}`,
		);
		for (const { group, expected } of GROUPS) {
			const list = emitted.filter((e) => groupOf.get(e.orderId) === group);
			const stream = list.filter((e) => e.source === 'stream').length;
			const catchUp = list.filter((e) => e.source === 'catchUp').length;
			const late = list.filter((e) => !phaseEnd.get(group)?.has(e.executionId)).length;
			figure(
				`group ${group.padEnd(2)}: ${orders[group].length} fills, ${list.length} executions (from the stream ${stream}, from a catch-up ${catchUp})` +
					(late ? `; ${late} only after its phase, from a later catch-up` : ''),
			);
			if (late > 0)
				problems.push(
					`group ${group}: ${late} events emitted only after the phase, by a later catch-up (whose 2-minute overlap happened to reach back to them)`,
				);
			if (expected !== 'either' && list.some((e) => e.source !== expected))
				problems.push(
					`group ${group}: ${list.filter((e) => e.source !== expected).length} executions not from the ${expected === 'stream' ? 'stream' : 'catch-up'}`,
				);
		}
		const live = emitted
			.filter((e) => e.source === 'stream' && ['A', "B'", "C'"].includes(groupOf.get(e.orderId)!))
			.map((e) => e.startedAt - filledAt.get(e.orderId)!)
			.sort((a, b) => a - b);
		if (live.length > 0)
			figure(
				`from a fill to its execution's start on a worker (live groups): median ${live[Math.floor(live.length / 2)]} ms, max ${live[live.length - 1]} ms (printed, not asserted)`,
			);
		const mainLog = cluster.mainLogs().slice(mainLogFrom);
		const refused = (mainLog.match(/duplicate deduplication key/g) ?? []).length;
		figure(
			`repeats refused by n8n (an execution with the event's deduplication key existed): ${refused}`,
		);

		if (missed.length > 0)
			problems.push(
				`EVENTS LOST: ${missed.length} fills never started an execution (${missed
					.map((id) => `${id} of group ${groupOf.get(id)}`)
					.slice(0, 10)
					.join(', ')})`,
			);
		if (repeated.length > 0)
			problems.push(
				`EVENTS REPEATED: ${repeated.length} fills started more than one execution (${repeated
					.slice(0, 5)
					.map(
						([id, list]) =>
							`${id} of group ${groupOf.get(id)}: ${list.map((e) => `${e.executionId} ${e.source}`).join(', ')}`,
					)
					.join('; ')})`,
			);
		if (foreign.length > 0)
			problems.push(`${foreign.length} executions for orders this check did not fill`);
		if (notSuccess.length > 0)
			problems.push(
				`${notSuccess.length} executions did not succeed: ${notSuccess.map((e) => `${e.executionId} ${e.status}`).join(', ')}`,
			);
		if (noWorker.length > 0)
			problems.push(
				`${noWorker.length} executions no worker logged as started (${noWorker.map((e) => e.executionId).join(', ')})`,
			);
	} finally {
		clearInterval(sampler);
	}
	if (problems.length > 0) fail(problems.join('\n'));
}
