/**
 * Check 7 of the queue suite: the two order examples (tools/n8n/examples.ts, ORDER_EXAMPLES) run
 * on the workers from the REST API, as check 1 runs the other four, with in essence what
 * test/e2e/order-examples.e2e.test.ts asserts in one n8n process:
 *
 * - agent-open-orders.json: n8n's AI Agent on a worker, its OpenAI Chat Model pointed at the
 *   scripted OpenAI-compatible server of tools/fakeOpenAi.ts in this process (loopback), the
 *   package's node as its two tools. The model lists the open BTCUSDT orders with one tool,
 *   cancels the stale ones among what the tool returned with the other, and answers;
 * - cancel-stale-orders.json: every open order older than 24 hours is cancelled, the others stay
 *   open, every Cancel item says outcome "placed".
 *
 * Both use the sub account's demo key (the sub account holds only the orders seeded here): the
 * other checks leave thousands of resting orders on the main account, which the examples would
 * otherwise list, and hand to the model. The sandbox only takes seeded orders older than its newest
 * order, so the orders are seeded at start-up (seedOrderExampleOrders), before any check places one.
 * The agent runs first; cancel-stale-orders then finds what the agent left.
 */
import { DEMO_ACCOUNTS, DEMO_KEYS, type OrderView, type Sandbox } from '../../sandbox';
import {
	FAKE_MODEL,
	messageText,
	startFakeOpenAi,
	toolResults,
	type FakeOpenAi,
} from '../../tools/fakeOpenAi';
import type { N8nCredential } from '../../tools/n8n/cli';
import { AGENT_TOOLS, ordersIn, staleOrdersAgent } from '../../tools/staleOrdersAgent';
import {
	ORDER_EXAMPLES,
	loadOrderExample,
	openAiCredential,
	sandboxCredential,
	withCredential,
	type Workflow,
} from '../../tools/n8n/examples';
import type { RestExecution } from '../../tools/n8n/rest';
import { seedAgedOrders, type AgedOrder } from '../support/orders';
import { itemsOf, type QueueSuite } from './context';
import { expectEqual, expectTrue, fail, figure } from './runner';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const OPENAI_KEY = 'sk-fake-openai-key-for-the-queue-suite-0123456789';

/** The order examples' credential in this suite: the sub account's key. */
const SUB_CREDENTIAL = { id: 'sandbox-cred-sub', name: 'Trading Service Sandbox (sub account)' };
const STALE_WORKFLOW_ID = 'tsQueueStaleSub1';
const AGENT_WORKFLOW_ID = 'tsQueueAgentSub1';

const { list: LIST_TOOL, cancel: CANCEL_TOOL } = AGENT_TOOLS;

type Seeded = OrderView & { stale: boolean };

/** Open orders on the sub account at chosen ages (oldest first, as IDs grow with time). */
export function seedOrderExampleOrders(sb: Sandbox): Seeded[] {
	// Room for the BUY orders' locks.
	sb.setBalance(DEMO_ACCOUNTS.subTrading, 'USDT', '1000000');
	const orders: AgedOrder[] = [
		{ ageMs: 5 * DAY },
		{ ageMs: 49 * HOUR, symbol: 'ETHUSDT', side: 'SELL' },
		{ ageMs: 40 * HOUR, symbol: 'ETHUSDT', partlyFilled: true },
		{ ageMs: 30 * HOUR, partlyFilled: true },
		{ ageMs: 26 * HOUR, side: 'SELL' },
		{ ageMs: 25 * HOUR, symbol: 'SOLUSDT' },
		// Fresh: a day old only in about an hour, whatever this suite's length.
		{ ageMs: 23 * HOUR },
		{ ageMs: 6 * HOUR, symbol: 'ETHUSDT' },
		{ ageMs: 2 * HOUR, side: 'SELL' },
		{ ageMs: 60_000, symbol: 'SOLUSDT' },
	];
	return seedAgedOrders(
		sb,
		orders.map((o) => ({ ...o, key: DEMO_KEYS.sub })),
	);
}

export interface OrderExamplesSetup {
	credentials: N8nCredential[];
	workflows: Workflow[];
	/** Check 7. */
	check(suite: QueueSuite): Promise<void>;
	stop(): Promise<void>;
}

/**
 * The fake OpenAI server (loopback: the workers run on this machine), the credentials (the sub
 * account's key, the OpenAI key pointing at the fake) and the two examples on the sub key, to
 * import with the others. Call at start-up, after seedOrderExampleOrders.
 */
export async function setUpOrderExamples(
	sb: Sandbox,
	seeded: Seeded[],
): Promise<OrderExamplesSetup> {
	let script = staleOrdersAgent();
	const ai: FakeOpenAi = await startFakeOpenAi({
		apiKey: OPENAI_KEY,
		respond: (request) => script.respond(request),
	});
	const stale = withCredential(
		loadOrderExample('cancelStaleOrders'),
		SUB_CREDENTIAL,
		STALE_WORKFLOW_ID,
	);
	const agent = withCredential(
		loadOrderExample('agentOpenOrders'),
		SUB_CREDENTIAL,
		AGENT_WORKFLOW_ID,
	);
	return {
		credentials: [
			sandboxCredential(sb.baseUrl, DEMO_KEYS.sub, SUB_CREDENTIAL),
			openAiCredential(ai.baseUrl, OPENAI_KEY),
		],
		workflows: [stale, agent],
		stop: () => ai.stop(),
		async check(suite) {
			script = staleOrdersAgent();
			ai.requests.length = 0;
			ai.chatRequests.length = 0;
			ai.errors.length = 0;
			const run = async (workflowId: string, trigger: string): Promise<RestExecution> => {
				const res = await suite.main().request<{
					data: { executionId?: string };
				}>('POST', `/rest/workflows/${workflowId}/run`, {
					cookie: suite.cookie(),
					body: { triggerToStartFrom: { name: trigger } },
				});
				const id = res.body?.data?.executionId;
				if (res.status !== 200 || !id)
					fail(`run of ${workflowId} did not start: HTTP ${res.status} ${res.text.slice(0, 500)}`);
				return await suite
					.main()
					.waitForExecution(suite.cookie(), String(id), { timeoutMs: 120_000 });
			};
			const subRequests = () => sb.ledger.requests.filter((r) => r.apiKey === DEMO_KEYS.sub.apiKey);
			const subOrdersPlaced = () =>
				sb.ledger.orders.filter((o) => o.apiKey === DEMO_KEYS.sub.apiKey).length;
			const isOpen = (orderId: string) =>
				['NEW', 'PARTIALLY_FILLED'].includes(sb.getOrder(orderId)!.status);
			expectTrue(
				'the seeded orders are all open before the examples run',
				seeded.every((o) => isOpen(o.orderId)),
			);

			// --- The agent -----------------------------------------------------------------------
			const ax = ORDER_EXAMPLES.agentOpenOrders;
			const btc = seeded.filter((o) => o.symbol === 'BTCUSDT');
			const staleBtc = btc.filter((o) => o.stale).map((o) => o.orderId);
			let requestIndex = subRequests().length;
			let cancelIndex = sb.ledger.cancels.length;
			const agentRun = await run(AGENT_WORKFLOW_ID, ax.trigger);
			const agentWorker = suite.cluster.workerOf(String(agentRun.id));
			const agentCancels = sb.ledger.cancels.slice(cancelIndex);
			const agentReads = subRequests()
				.slice(requestIndex)
				.filter((r) => r.path === '/api/v1/spot/openOrders' && r.method === 'GET');
			const runData = agentRun.data?.resultData?.runData ?? {};
			const toolItems = (node: string) =>
				(runData[node] ?? []).map((task) =>
					(
						(task.data as { ai_tool?: Array<Array<{ json: Record<string, unknown> }>> })
							?.ai_tool?.[0] ?? []
					).map((item) => item.json),
				);
			// The agent node runs once per model turn; its last run has the answer.
			const agentTasks = runData[ax.agent] ?? [];
			const answerItems = (agentTasks[agentTasks.length - 1]?.data?.main?.[0] ?? []).map(
				(item) => item.json,
			);
			figure(
				`agent execution ${agentRun.id} (${AGENT_WORKFLOW_ID}) on ${agentWorker ?? '(no worker log line)'}: ${agentRun.status}; ` +
					`${ai.chatRequests.length} chat requests to the fake model, ${agentReads.length} open-order read(s), ` +
					`${agentCancels.length} cancel(s) of ${staleBtc.length} stale BTCUSDT orders`,
			);
			figure(`agent's answer: ${String(answerItems[0]?.output ?? '(none)')}`);
			expectEqual(`agent execution ${agentRun.id} status`, agentRun.status, 'success');
			expectTrue(
				`agent execution ${agentRun.id} ran on a worker`,
				agentWorker !== undefined,
				'no "Worker started execution" line in any worker log',
			);
			expectEqual('errors of the scripted model', ai.errors.map(String), []);
			expectEqual(
				'chat requests (question, with the list, with the cancels)',
				ai.chatRequests.length,
				3,
			);
			expectTrue(
				'every chat request: the model of the example, not streamed, POST /v1/chat/completions with the key',
				ai.chatRequests.every((r) => r.model === FAKE_MODEL && r.stream !== true) &&
					ai.requests.every(
						(r) =>
							r.method === 'POST' &&
							r.path === '/v1/chat/completions' &&
							r.authorization === `Bearer ${OPENAI_KEY}`,
					),
			);
			expectEqual(
				"the user's question",
				messageText(ai.chatRequests[0].messages.find((m) => m.role === 'user')!),
				'What are my open orders on BTCUSDT? Cancel the ones older than a day.',
			);
			expectTrue(
				'the list tool read the open BTCUSDT orders from the sandbox',
				agentReads.length >= 1 &&
					agentReads.every((r) => r.status === 200 && /(^|&)symbol=BTCUSDT(&|$)/.test(r.query)),
				JSON.stringify(agentReads.map((r) => [r.status, r.query])),
			);
			const seen = toolResults(ai.chatRequests[1]).filter((r) => r.name === LIST_TOOL);
			expectEqual('list tool results the model saw', seen.length, 1);
			expectEqual(
				'orders the model saw (every open BTCUSDT order of the account)',
				ordersIn(seen[0].content)
					.map((o) => o.orderId)
					.sort(),
				btc.map((o) => o.orderId).sort(),
			);
			expectEqual(
				'orders cancelled by the agent (the ledger): exactly the stale BTCUSDT ones, once each',
				agentCancels.map((c) => c.orderId).sort(),
				[...staleBtc].sort(),
			);
			const cancelResults = toolResults(ai.chatRequests[2]).filter((r) => r.name === CANCEL_TOOL);
			expectEqual(
				'cancel tool calls',
				cancelResults.map((r) => String(r.arguments.orderId)).sort(),
				[...staleBtc].sort(),
			);
			expectTrue(
				'every cancel tool result says outcome "placed"',
				cancelResults.every((r) => /"outcome":\s*"placed"/.test(r.content)),
				cancelResults.map((r) => r.content.slice(0, 200)).join(' | '),
			);
			expectEqual(
				'the list tool ran once as a node of the execution, with the open BTCUSDT orders',
				toolItems(ax.listTool).map((items) => items.map((o) => String(o.orderId)).sort()),
				[btc.map((o) => o.orderId).sort()],
			);
			expectEqual(
				'the cancel tool ran once per stale order as a node of the execution: outcome placed',
				toolItems(ax.cancelTool)
					.map((items) => items.map((o) => [o.orderId, o.outcome]))
					.flat()
					.sort(),
				staleBtc.map((id) => [id, 'placed']).sort(),
			);
			expectEqual('the agent output item', answerItems.length, 1);
			expectEqual("the agent's answer is the model's", answerItems[0].output, script.answer());
			expectTrue(
				'the answer reports each cancel placed',
				staleBtc.every((id) => script.answer().includes(`${id}: placed`)),
			);

			// --- Cancel stale orders ------------------------------------------------------------
			const sx = ORDER_EXAMPLES.cancelStaleOrders;
			const openNow = seeded.filter((o) => isOpen(o.orderId));
			const staleNow = openNow.filter((o) => o.stale).map((o) => o.orderId);
			requestIndex = subRequests().length;
			cancelIndex = sb.ledger.cancels.length;
			const staleRun = await run(STALE_WORKFLOW_ID, sx.trigger);
			const staleWorker = suite.cluster.workerOf(String(staleRun.id));
			const staleCancels = sb.ledger.cancels.slice(cancelIndex);
			figure(
				`cancel-stale execution ${staleRun.id} (${STALE_WORKFLOW_ID}) on ${staleWorker ?? '(no worker log line)'}: ${staleRun.status}; ` +
					`${openNow.length} open orders on the sub account, ${staleNow.length} older than 24 hours, ${staleCancels.length} cancelled`,
			);
			expectEqual(`cancel-stale execution ${staleRun.id} status`, staleRun.status, 'success');
			expectTrue(
				`cancel-stale execution ${staleRun.id} ran on a worker`,
				staleWorker !== undefined,
				'no "Worker started execution" line in any worker log',
			);
			expectEqual(
				'Get Many listed every open order the key sees',
				itemsOf(staleRun, sx.list)
					.map((o) => String(o.orderId))
					.sort(),
				openNow.map((o) => o.orderId).sort(),
			);
			const kept = itemsOf(staleRun, sx.filter).map((o) => String(o.orderId));
			expectEqual('the Filter kept the stale ones', [...kept].sort(), [...staleNow].sort());
			const cancelled = itemsOf(staleRun, sx.cancel);
			expectEqual(
				'Cancel items: outcome placed, cancelled, in the Filter order',
				cancelled.map((i) => [i.orderId, i.outcome, i.cancelled]),
				kept.map((id) => [id, 'placed', true]),
			);
			expectEqual(
				'cancels in the ledger: one per stale order, by order ID',
				staleCancels.map((c) => [c.orderId, c.via]).sort(),
				staleNow.map((id) => [id, 'single']).sort(),
			);
			expectEqual(
				'DELETE /api/v1/spot/order requests',
				subRequests()
					.slice(requestIndex)
					.filter((r) => r.path === '/api/v1/spot/order' && r.method === 'DELETE').length,
				staleNow.length,
			);
			for (const o of seeded) {
				const status = sb.getOrder(o.orderId)!.status;
				if (o.stale)
					expectTrue(
						`stale order ${o.orderId} cancelled`,
						['CANCELED', 'PARTIALLY_CANCELED'].includes(status),
						status,
					);
				else expectTrue(`fresh order ${o.orderId} still open`, isOpen(o.orderId), status);
			}
			expectTrue(
				'the partly filled stale orders are PARTIALLY_CANCELED',
				seeded
					.filter((o) => o.stale && o.executedQty !== '0')
					.every((o) => sb.getOrder(o.orderId)!.status === 'PARTIALLY_CANCELED'),
			);
			expectEqual('orders placed with the sub key', subOrdersPlaced(), 0);
			figure(
				`seeded ${seeded.length} open orders (${seeded.filter((o) => o.stale).length} stale): ` +
					`${staleBtc.length} cancelled by the agent, ${staleNow.length} by cancel-stale-orders, ` +
					`${seeded.filter((o) => isOpen(o.orderId)).length} fresh left open`,
			);
		},
	};
}
