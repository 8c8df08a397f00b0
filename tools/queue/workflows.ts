/**
 * Workflows and order lists the queue-mode suite runs besides the examples, and small helpers to
 * drive them: a Webhook-started Create Many (the way a production workflow enqueues work in queue
 * mode: the main process receives the call, a worker runs the execution), and order lists whose
 * prices are unique, so that the sandbox's ledger shows by itself whether an order was lost or
 * placed twice, whatever the client order IDs say.
 */
import { randomUUID } from 'crypto';

import type { Ledger, LedgerRequest, Sandbox } from '../../sandbox';
import { NODE_TYPES, SANDBOX_CREDENTIAL, type Workflow, type WorkflowNode } from '../n8n/examples';
import type { RestExecution } from '../n8n/rest';
import type { N8nInstance } from '../n8n/server';

/** Create Many, version 1 (the default of these workflows). */
export const BATCH_ORDERS_PATH = '/api/v1/spot/batchOrders';
/** Create Many, version 2: the unified batch endpoint. */
export const UNIFIED_BATCH_ORDERS_PATH = '/api/v1.1/spot/batchOrders';
/** Create, version 2 (the per-item workflows' version), sends the unified order endpoint. */
export const CREATE_ORDER_PATH = '/api/v1.1/spot/order';
export const TRANSFER_PATH = '/api/v1/account/assetTransfer';

/** Node names of createManyWebhookWorkflow. */
export const CREATE_MANY_WEBHOOK = {
	trigger: 'Webhook',
	createMany: 'Create Many Orders',
} as const;

/** The action node's settings a workflow of the suite varies. */
export interface ActionNodeOptions {
	/** The node's version: 1 (the default here: one request after the other) or 2. */
	typeVersion?: 1 | 2;
	/** Version 2's Parallel Requests option (`options.parallelRequests`); unset: the node's default. */
	parallelRequests?: number;
	/** The node's On Error setting "Continue (using regular output)": every item carries its outcome. */
	continueOnError?: boolean;
	/** The credential the node uses (id and name); unset: the suite's master-key credential. */
	credential?: { id: string; name: string };
}

function webhookNode(webhookPath: string): WorkflowNode {
	return {
		id: randomUUID(),
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: {
			httpMethod: 'POST',
			path: webhookPath,
			responseMode: 'onReceived',
			options: {},
		},
	};
}

function actionNode(
	name: string,
	position: [number, number],
	parameters: Record<string, unknown>,
	options: ActionNodeOptions,
): WorkflowNode {
	const typeVersion = options.typeVersion ?? 1;
	const nodeOptions = { ...((parameters.options as Record<string, unknown> | undefined) ?? {}) };
	if (options.parallelRequests !== undefined) {
		if (typeVersion < 2) throw new Error('Parallel Requests is a version 2 option');
		nodeOptions.parallelRequests = options.parallelRequests;
	}
	return {
		id: randomUUID(),
		name,
		type: NODE_TYPES.action,
		typeVersion,
		position,
		parameters: { ...parameters, options: nodeOptions },
		credentials: { tradingServiceApi: { ...(options.credential ?? SANDBOX_CREDENTIAL) } },
		...(options.continueOnError ? { onError: 'continueRegularOutput' } : {}),
	};
}

/** A version 2 picker (resource locator) holding a value typed By ID. */
function byId(value: string): Record<string, unknown> {
	return { __rl: true, mode: 'id', value };
}

/** A chain of nodes, each one's output into the next. */
function chain(nodes: WorkflowNode[]): Workflow['connections'] {
	const connections: Workflow['connections'] = {};
	for (let i = 0; i < nodes.length - 1; i++)
		connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	return connections;
}

function webhookWorkflow(id: string, name: string, nodes: WorkflowNode[]): Workflow {
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes,
		connections: chain(nodes),
		pinData: {},
	};
}

/**
 * Webhook (POST /webhook/<path>, answers at once: the execution is queued) → Create Many in JSON
 * mode, reading the orders from the request body's `orders` array. Client order IDs are the
 * node's own (generated per execution).
 */
export function createManyWebhookWorkflow(
	id: string,
	webhookPath: string,
	name = `Queue: Create Many from ${webhookPath}`,
	options: ActionNodeOptions = {},
): Workflow {
	return webhookWorkflow(id, name, [
		webhookNode(webhookPath),
		actionNode(
			CREATE_MANY_WEBHOOK.createMany,
			[260, 0],
			{
				resource: 'order',
				operation: 'createMany',
				inputMode: 'json',
				ordersJson: '={{ $json.body.orders }}',
			},
			options,
		),
	]);
}

/** Node names of createPerItemWebhookWorkflow and transferWebhookWorkflow. */
export const PER_ITEM_WEBHOOK = {
	trigger: 'Webhook',
	split: 'One Item per Entry',
	create: 'Create Order',
	transfer: 'Transfer Asset',
} as const;

/** Split Out (n8n-nodes-base.splitOut) of the webhook body's array `field`: one item per entry. */
function splitOutNode(field: string): WorkflowNode {
	return {
		id: randomUUID(),
		name: PER_ITEM_WEBHOOK.split,
		type: 'n8n-nodes-base.splitOut',
		typeVersion: 1,
		position: [220, 0],
		parameters: { fieldToSplitOut: `body.${field}`, options: {} },
	};
}

/** One order of createPerItemWebhookWorkflow's body (`orders`): its price and business key. */
export interface KeyedOrder {
	price: string;
	clientOrderId: string;
}

/**
 * Webhook → Split Out (`body.orders`) → Create (one order per item, version 2): BTCUSDT LIMIT BUY of
 * 0.001 at the item's `price`, the item's `clientOrderId` as the Client Order ID (a business key:
 * the node looks it up before it sends).
 */
export function createPerItemWebhookWorkflow(
	id: string,
	webhookPath: string,
	options: Omit<ActionNodeOptions, 'typeVersion'> = {},
): Workflow {
	return webhookWorkflow(id, `Queue: Create per item from ${webhookPath}`, [
		webhookNode(webhookPath),
		splitOutNode('orders'),
		actionNode(
			PER_ITEM_WEBHOOK.create,
			[440, 0],
			{
				resource: 'order',
				operation: 'create',
				symbol: byId('BTCUSDT'),
				side: 'BUY',
				type: 'LIMIT',
				price: '={{ $json.price }}',
				quantity: '0.001',
				options: { newClientOrderId: '={{ $json.clientOrderId }}' },
			},
			{ ...options, typeVersion: 2 },
		),
	]);
}

/**
 * Webhook → Split Out (`body.orders`) → Create (one order per item, version 2, every option at its
 * default: the node's own client order IDs, its default Parallel Requests, its pacing): BTCUSDT
 * LIMIT BUY of 0.001 at the item's `price`.
 */
export function createDefaultsWebhookWorkflow(
	id: string,
	webhookPath: string,
	options: Omit<ActionNodeOptions, 'typeVersion' | 'parallelRequests'> = {},
): Workflow {
	return webhookWorkflow(id, `Queue: Create (defaults) per item from ${webhookPath}`, [
		webhookNode(webhookPath),
		splitOutNode('orders'),
		actionNode(
			PER_ITEM_WEBHOOK.create,
			[440, 0],
			{
				resource: 'order',
				operation: 'create',
				symbol: byId('BTCUSDT'),
				side: 'BUY',
				type: 'LIMIT',
				price: '={{ $json.price }}',
				quantity: '0.001',
			},
			{ ...options, typeVersion: 2 },
		),
	]);
}

/**
 * Webhook → Split Out (`body.transfers`) → Account › Transfer Asset (version 2): USDT from
 * `from` to `to`, the item's `quantity`. Client order IDs are the node's own.
 */
export function transferWebhookWorkflow(
	id: string,
	webhookPath: string,
	accounts: { from: string; to: string },
	options: Omit<ActionNodeOptions, 'typeVersion' | 'parallelRequests'> = {},
): Workflow {
	return webhookWorkflow(id, `Queue: Transfer per item from ${webhookPath}`, [
		webhookNode(webhookPath),
		splitOutNode('transfers'),
		actionNode(
			PER_ITEM_WEBHOOK.transfer,
			[440, 0],
			{
				resource: 'account',
				operation: 'transferAsset',
				fromAccountId: byId(accounts.from),
				toAccountId: byId(accounts.to),
				coin: byId('USDT'),
				quantity: '={{ $json.quantity }}',
			},
			{ ...options, typeVersion: 2 },
		),
	]);
}

export interface LimitOrder {
	symbol: string;
	side: 'BUY';
	type: 'LIMIT';
	price: string;
	quantity: string;
}

/**
 * `count` BTCUSDT limit buys priced `base`, `base + 1`, … (resting orders: they reserve nothing, so
 * any number fits the demo balance). The price identifies the order in the ledger.
 */
export function limitOrders(base: number, count: number): LimitOrder[] {
	return Array.from({ length: count }, (_, i) => ({
		symbol: 'BTCUSDT',
		side: 'BUY' as const,
		type: 'LIMIT' as const,
		price: String(base + i),
		quantity: '0.001',
	}));
}

export interface LedgerTally {
	/** Orders in the ledger with an intended price. */
	placed: number;
	intended: number;
	/** Intended prices with no order. */
	missing: string[];
	/** Intended prices placed more than once (with their count). */
	doubled: Array<{ price: string; count: number }>;
	/** Orders in the ledger slice whose price was not intended. */
	unexpected: number;
	/** Client order IDs used by more than one placed order. */
	repeatedClientIds: number;
}

/** Compares the orders the ledger holds from `fromIndex` on with the intended prices. */
export function tallyOrders(
	ledger: Ledger,
	fromIndex: number,
	intendedPrices: string[],
): LedgerTally {
	const intended = new Set(intendedPrices);
	const counts = new Map<string, number>();
	const clientIds = new Map<string, number>();
	let unexpected = 0;
	for (const order of ledger.orders.slice(fromIndex)) {
		if (!intended.has(order.price)) {
			unexpected++;
			continue;
		}
		counts.set(order.price, (counts.get(order.price) ?? 0) + 1);
		clientIds.set(order.clientOrderId, (clientIds.get(order.clientOrderId) ?? 0) + 1);
	}
	return {
		placed: [...counts.values()].reduce((a, b) => a + b, 0),
		intended: intended.size,
		missing: intendedPrices.filter((p) => !counts.has(p)),
		doubled: [...counts].filter(([, n]) => n > 1).map(([price, count]) => ({ price, count })),
		unexpected,
		repeatedClientIds: [...clientIds.values()].filter((n) => n > 1).length,
	};
}

/**
 * Calls `onRequest` synchronously for every request the sandbox receives, before it picks a
 * fault for it: a fault plan set from the callback applies to that very request. The sandbox's
 * fault rules match by path and method only; this is how a test fails "the second batch request
 * and every one after it". Returns a function that removes the hook.
 */
export function onSandboxRequest(
	sb: Sandbox,
	onRequest: (request: LedgerRequest) => void,
): () => void {
	const requests = sb.ledger.requests;
	const original = requests.push;
	requests.push = function (this: LedgerRequest[], ...entries: LedgerRequest[]): number {
		const length = original.apply(this, entries);
		for (const entry of entries) onRequest(entry);
		return length;
	};
	return () => {
		requests.push = original;
	};
}

/** POST a JSON body to a production webhook; retries while n8n has not registered it yet (404). */
export async function callWebhook(
	baseUrl: string,
	webhookPath: string,
	body: unknown,
	options: { registerTimeoutMs?: number } = {},
): Promise<void> {
	const deadline = Date.now() + (options.registerTimeoutMs ?? 30_000);
	for (;;) {
		const res = await fetch(`${baseUrl}/webhook/${webhookPath}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
			signal: AbortSignal.timeout(60_000),
		});
		const text = await res.text();
		if (res.status >= 200 && res.status < 300) return;
		if (res.status !== 404 || Date.now() > deadline) {
			throw new Error(`POST /webhook/${webhookPath} -> HTTP ${res.status}: ${text.slice(0, 500)}`);
		}
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

const DONE = (e: RestExecution) =>
	Boolean(e.stoppedAt) && !['new', 'running', 'waiting', 'unknown'].includes(e.status);

/**
 * Waits until the workflow has `count` finished executions (summaries, newest first), optionally
 * only those matching `filter`. Polls the executions list.
 */
export async function waitForFinished(
	n8n: N8nInstance,
	cookie: string,
	workflowId: string,
	count: number,
	options: { timeoutMs?: number; filter?: (e: RestExecution) => boolean; pollMs?: number } = {},
): Promise<RestExecution[]> {
	const deadline = Date.now() + (options.timeoutMs ?? 300_000);
	for (;;) {
		const all = await n8n.listExecutions(cookie, workflowId);
		const done = all.filter((e) => DONE(e) && (options.filter?.(e) ?? true));
		if (done.length >= count) return done;
		if (Date.now() > deadline) {
			const states = all.map((e) => e.status).join(', ');
			throw new Error(
				`workflow ${workflowId}: ${done.length} of ${count} executions finished in time (states: ${states || 'none'})`,
			);
		}
		await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
	}
}
