/**
 * The order examples in a real n8n 2.41.1 (package installed from `npm pack`, sandbox on loopback):
 *
 * - cancel-stale-orders.json (a Manual Trigger variant, as `n8n execute` starts only there): open
 *   orders seeded at chosen ages; exactly the ones older than 24 hours are cancelled (the sandbox's
 *   ledger), the others stay open, and every Cancel item says outcome "placed".
 * - agent-open-orders.json: n8n's AI Agent with the OpenAI Chat Model node, whose credential's Base
 *   URL points at a scripted OpenAI-compatible server on loopback (tools/fakeOpenAi.ts), and the
 *   package's node as two tools. The scripted model lists the open BTCUSDT orders with one tool,
 *   cancels the stale ones among what that tool returned with the other, then answers. No network
 *   beyond 127.0.0.1.
 */
import * as fs from 'fs';
import * as path from 'path';

import { DEMO_KEYS } from '../../sandbox';
import {
	NODE_TYPES,
	OPENAI_CREDENTIAL,
	ORDER_EXAMPLES,
	findNode,
	loadOrderExample,
	openAiCredential,
	withManualTrigger,
	type Workflow,
} from '../../tools/n8n/examples';
import { setUpN8nWithSandbox, type E2eFixture } from '../../tools/n8n/fixture';
import { expectWorkflowOk, runWorkflow, type CheckedRun } from '../support/e2eRuns';
import { getNodeItems } from '../../tools/n8n/run-data';
import {
	FAKE_MODEL,
	messageText,
	startFakeOpenAi,
	toolResults,
	type ChatReply,
	type ChatRequest,
	type FakeOpenAi,
} from '../../tools/fakeOpenAi';
import { AGENT_TOOLS, ordersIn, staleOrdersAgent } from '../../tools/staleOrdersAgent';
import { describeE2E } from '../support/describe-e2e';
import { seedAgedOrders, type AgedOrder } from '../support/orders';
import { expectExampleShape } from '../support/examples';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const OPENAI_KEY = 'sk-fake-openai-key-for-e2e-0123456789';

/** The stale-orders example with a Manual Trigger in place of its Schedule Trigger. */
const MANUAL_STALE_ID = 'tsCancelStaleM01';

function manualStale(): Workflow {
	return withManualTrigger(
		loadOrderExample('cancelStaleOrders'),
		ORDER_EXAMPLES.cancelStaleOrders.trigger,
		MANUAL_STALE_ID,
	);
}

describeE2E(
	'order examples in a real n8n: cancel stale orders, and an AI agent with the node as its tools',
	() => {
		let fx: E2eFixture;
		let ai: FakeOpenAi;
		/** The scripted model's answer to each chat-completions request; set by each test. */
		let script: (request: ChatRequest, index: number) => ChatReply = () => {
			throw new Error('no script set');
		};

		beforeAll(async () => {
			ai = await startFakeOpenAi({
				apiKey: OPENAI_KEY,
				respond: (request, index) => script(request, index),
			});
			fx = await setUpN8nWithSandbox({
				prefix: 'n8n-e2e-order-examples-',
				workflows: [
					loadOrderExample('cancelStaleOrders'),
					manualStale(),
					loadOrderExample('agentOpenOrders'),
				],
				credentials: [openAiCredential(ai.baseUrl, OPENAI_KEY)],
			});
		});

		afterAll(async () => {
			await fx?.cleanup();
			await ai?.stop();
		});

		beforeEach(() => {
			fx.sb.reset();
			ai.requests.length = 0;
			ai.chatRequests.length = 0;
			ai.errors.length = 0;
		});

		async function run(workflowId: string): Promise<CheckedRun> {
			const result = await runWorkflow(fx, workflowId, [...fx.secrets, OPENAI_KEY]);
			expectWorkflowOk(result, workflowId);
			return result;
		}

		/** Seed open orders at the given ages (`sub`: on the sub account). */
		const seed = (orders: Array<AgedOrder & { sub?: boolean }>) =>
			seedAgedOrders(
				fx.sb,
				orders.map(({ sub, ...o }) => (sub ? { ...o, key: DEMO_KEYS.sub } : o)),
			);

		test("both examples: fixed ids, inactive, the installed package's node types, the sandbox (and OpenAI) credential", () => {
			const installed = path.join(
				fx.userFolder,
				'.n8n',
				'nodes',
				'node_modules',
				'n8n-nodes-trading-service',
				'package.json',
			);
			expect(fs.existsSync(installed)).toBe(true);
			for (const key of Object.keys(ORDER_EXAMPLES) as Array<keyof typeof ORDER_EXAMPLES>) {
				const workflow = loadOrderExample(key);
				expect(workflow.id).toBe(ORDER_EXAMPLES[key].id);
				expectExampleShape(workflow, 2);
			}
			const agent = loadOrderExample('agentOpenOrders');
			const ex = ORDER_EXAMPLES.agentOpenOrders;
			expect(findNode(agent, ex.model).credentials).toEqual({
				openAiApi: { ...OPENAI_CREDENTIAL },
			});
			expect([findNode(agent, ex.listTool).type, findNode(agent, ex.cancelTool).type]).toEqual([
				NODE_TYPES.tool,
				NODE_TYPES.tool,
			]);
			expect(agent.connections[ex.listTool]).toEqual({
				ai_tool: [[{ node: ex.agent, type: 'ai_tool', index: 0 }]],
			});
			expect(agent.connections[ex.cancelTool]).toEqual({
				ai_tool: [[{ node: ex.agent, type: 'ai_tool', index: 0 }]],
			});
			expect(agent.connections[ex.model]).toEqual({
				ai_languageModel: [[{ node: ex.agent, type: 'ai_languageModel', index: 0 }]],
			});
		});

		test('cancel stale orders (Manual Trigger variant): exactly the orders older than 24 hours are cancelled, each outcome "placed"; the others stay open', async () => {
			const ex = ORDER_EXAMPLES.cancelStaleOrders;
			// The variant is made from the example: same nodes apart from the trigger.
			const original = loadOrderExample('cancelStaleOrders');
			const variant = manualStale();
			expect(findNode(original, ex.trigger).type).toBe('n8n-nodes-base.scheduleTrigger');
			expect(variant.nodes.filter((n) => n.name !== 'Manual Trigger')).toEqual(
				original.nodes.filter((n) => n.name !== ex.trigger),
			);

			const orders = seed([
				{ ageMs: 5 * DAY },
				{ ageMs: 49 * HOUR, symbol: 'ETHUSDT', side: 'SELL' },
				{ ageMs: 30 * HOUR, partlyFilled: true },
				{ ageMs: 26 * HOUR, sub: true },
				{ ageMs: 25 * HOUR, symbol: 'SOLUSDT' },
				{ ageMs: 23 * HOUR },
				{ ageMs: 6 * HOUR, symbol: 'ETHUSDT' },
				{ ageMs: 2 * HOUR, sub: true },
				{ ageMs: 60_000, side: 'SELL' },
			]);
			const stale = orders.filter((o) => o.stale).map((o) => o.orderId);
			const fresh = orders.filter((o) => !o.stale).map((o) => o.orderId);
			expect([stale.length, fresh.length]).toEqual([5, 4]);

			const result = await run(MANUAL_STALE_ID);

			// Get Many read every open order the key sees (main and sub account), newest first.
			const listed = getNodeItems(result.run, ex.list);
			expect(listed.map((o) => o.orderId).sort()).toEqual(orders.map((o) => o.orderId).sort());
			// The Filter kept the stale ones, by the order's own time field.
			const kept = getNodeItems(result.run, ex.filter);
			expect(kept.map((o) => o.orderId).sort()).toEqual([...stale].sort());

			const task = result.run.data.resultData.runData[ex.cancel][0];
			const cancelled = task.data!.main![0]!;
			expect(cancelled).toHaveLength(stale.length);
			cancelled.forEach((item, index) => {
				expect(item.pairedItem).toEqual({ item: index });
				expect(item.json).toMatchObject({
					outcome: 'placed',
					cancelled: true,
					orderId: kept[index].orderId,
				});
				expect(['CANCELED', 'PARTIALLY_CANCELED']).toContain(item.json.status);
			});

			// The sandbox's own record: one cancel per stale order, each once; the fresh ones untouched.
			expect(fx.sb.ledger.cancels.map((c) => c.orderId).sort()).toEqual([...stale].sort());
			expect(fx.sb.ledger.cancels.every((c) => c.via === 'single')).toBe(true);
			expect(
				fx.sb.ledger.requests.filter(
					(r) => r.path === '/api/v1/spot/order' && r.method === 'DELETE',
				),
			).toHaveLength(stale.length);
			for (const id of stale)
				expect(['CANCELED', 'PARTIALLY_CANCELED']).toContain(fx.sb.getOrder(id)!.status);
			expect(fx.sb.getOrder(orders.find((o) => o.executedQty !== '0')!.orderId)!.status).toBe(
				'PARTIALLY_CANCELED',
			);
			for (const id of fresh) expect(fx.sb.getOrder(id)!.status).toBe('NEW');
			expect(fx.sb.ledger.orders).toHaveLength(0);
		});

		test('AI agent: the scripted model lists the open BTCUSDT orders with one tool, cancels exactly the stale ones with the other, and answers', async () => {
			const ex = ORDER_EXAMPLES.agentOpenOrders;
			const orders = seed([
				{ ageMs: 3 * DAY },
				{ ageMs: 40 * HOUR, symbol: 'ETHUSDT' }, // stale, but not BTCUSDT: the user did not ask
				{ ageMs: 26 * HOUR, side: 'SELL' },
				{ ageMs: 20 * HOUR },
				{ ageMs: HOUR, side: 'SELL' },
			]);
			const btc = orders.filter((o) => o.symbol === 'BTCUSDT');
			const staleBtc = btc.filter((o) => o.stale).map((o) => o.orderId);
			expect(staleBtc).toHaveLength(2);

			const { list: listTool, cancel: cancelTool } = AGENT_TOOLS;
			const agentModel = staleOrdersAgent();
			script = agentModel.respond;

			const result = await run(ex.id);
			expect(ai.errors).toEqual([]);

			// The model was asked three times: the question, then with the list, then with the cancels.
			expect(ai.chatRequests).toHaveLength(3);
			expect(ai.chatRequests.every((r) => r.model === FAKE_MODEL && r.stream !== true)).toBe(true);
			expect(
				ai.requests.every(
					(r) =>
						r.method === 'POST' &&
						r.path === '/v1/chat/completions' &&
						r.authorization === `Bearer ${OPENAI_KEY}`,
				),
			).toBe(true);
			expect(messageText(ai.chatRequests[0].messages.find((m) => m.role === 'user')!)).toBe(
				'What are my open orders on BTCUSDT? Cancel the ones older than a day.',
			);

			// The list tool really read the sandbox: one request for BTCUSDT's open orders, all 4 came back to the model.
			const reads = fx.sb.ledger.requests.filter(
				(r) => r.path === '/api/v1/spot/openOrders' && r.method === 'GET',
			);
			expect(reads.length).toBeGreaterThanOrEqual(1);
			expect(reads.every((r) => r.status === 200 && /(^|&)symbol=BTCUSDT(&|$)/.test(r.query))).toBe(
				true,
			);
			const seen = toolResults(ai.chatRequests[1]).filter((r) => r.name === listTool);
			expect(seen).toHaveLength(1);
			// (n8n adds the tool call's id to the arguments it sends back.)
			expect(seen[0].arguments).toMatchObject({ symbol: 'BTCUSDT' });
			expect(
				ordersIn(seen[0].content)
					.map((o) => o.orderId)
					.sort(),
			).toEqual(btc.map((o) => o.orderId).sort());

			// Exactly the stale BTCUSDT orders were cancelled, once each; the rest are open.
			expect(fx.sb.ledger.cancels.map((c) => c.orderId).sort()).toEqual([...staleBtc].sort());
			for (const o of orders)
				expect(fx.sb.getOrder(o.orderId)!.status).toBe(
					staleBtc.includes(o.orderId) ? 'CANCELED' : 'NEW',
				);
			const cancelResults = toolResults(ai.chatRequests[2]).filter((r) => r.name === cancelTool);
			expect(cancelResults.map((r) => r.arguments.orderId).sort()).toEqual([...staleBtc].sort());
			for (const r of cancelResults) expect(r.content).toMatch(/"outcome":\s*"placed"/);
			expect(fx.sb.ledger.orders).toHaveLength(0);

			// The tools ran as n8n nodes of the execution, and the agent's answer is its output.
			const runData = result.run.data.resultData.runData;
			expect(Object.keys(runData)).toEqual(
				expect.arrayContaining([ex.trigger, ex.agent, ex.model, ex.listTool, ex.cancelTool]),
			);
			const toolItems = (node: string) =>
				runData[node].map((task) =>
					(
						task.data as { ai_tool?: Array<Array<{ json: Record<string, unknown> }>> }
					).ai_tool![0].map((item) => item.json),
				);
			expect(toolItems(ex.listTool)).toHaveLength(1);
			expect(
				toolItems(ex.listTool)[0]
					.map((o) => o.orderId)
					.sort(),
			).toEqual(btc.map((o) => o.orderId).sort());
			const cancelRuns = toolItems(ex.cancelTool);
			expect(cancelRuns.map((items) => items.length)).toEqual(staleBtc.map(() => 1));
			expect(cancelRuns.map(([item]) => [item.orderId, item.outcome, item.status]).sort()).toEqual(
				staleBtc.map((id) => [id, 'placed', 'CANCELED']).sort(),
			);
			const [answer, ...more] = getNodeItems(result.run, ex.agent, runData[ex.agent].length - 1);
			expect(more).toHaveLength(0);
			expect(answer.output).toBe(agentModel.answer());
			expect(agentModel.answer()).toContain(`${staleBtc[0]}: placed`);
		});
	},
);
