/**
 * The futures trading examples in a started n8n 2.41.1 (package installed from `npm pack`, sandbox
 * on loopback with fixed prices: BTC 50000, ETH 3000, SOL 150), their outcomes read from the
 * sandbox's futures book (test/fault/futuresLedger.ts):
 *
 * - futures-signal-entry.json, published: the same alert POSTed twice to its webhook places ONE
 *   MARKET BUY (Client Order ID `signal-<id>`, a business key: the second execution finds it,
 *   `alreadyPlaced`), whose fill gets its take-profit and stop-loss; a wrong passphrase places nothing.
 * - futures-kill-switch.json, run from its Schedule Trigger as the editor runs it: on a drawdown
 *   (unrealized PnL at or below -500 USDT) or a funding rate above 0.1 %, nothing is left open
 *   (limit and stop orders of every contract) and no position remains; below both, nothing is done.
 * - futures-reduce-only-agent.json: n8n's AI Agent with a scripted OpenAI-compatible model on
 *   loopback (tools/futuresAgent.ts) and the node as its tools; the agent's reduction (half the
 *   BTC position, reduce-only SELL) is placed, its increase (BUY) refused (by the node, or by the
 *   exchange as a reduce-only order that would increase the position): no BUY placed.
 *
 * After each test the sandbox (the exchange's documented request rates) refused nothing for its rate.
 */
import { DEMO_KEYS } from '../../sandbox';
import { TestClient } from '../../sandbox/testClient';
import {
	FUTURES_SIGNAL_PATH,
	FUTURES_TRADING_EXAMPLES,
	NODE_TYPES,
	OPENAI_CREDENTIAL,
	findNode,
	loadFuturesTradingExample,
	openAiCredential,
	type FuturesTradingExampleKey,
} from '../../tools/n8n/examples';
import { leakedSecrets, setUpN8nWithSandbox, type E2eFixture } from '../../tools/n8n/fixture';
import type { RestExecution } from '../../tools/n8n/rest';
import { getNodeItems } from '../../tools/n8n/run-data';
import { startN8n, type N8nInstance } from '../../tools/n8n/server';
import {
	startFakeOpenAi,
	toolResults,
	type ChatReply,
	type ChatRequest,
	type FakeOpenAi,
} from '../../tools/fakeOpenAi';
import {
	AGENT_BUY_QUANTITY,
	AGENT_CONTRACT,
	FUTURES_AGENT_TOOLS,
	reduceOnlyAgent,
} from '../../tools/futuresAgent';
import { describeE2E } from '../support/describe-e2e';
import { expectExampleShape } from '../support/examples';
import { isOpen, isStop, mainFuturesOrders, positionSize, typeOf } from '../fault/futuresLedger';

const SIGNAL = FUTURES_TRADING_EXAMPLES.futuresSignalEntry;
const KILL = FUTURES_TRADING_EXAMPLES.futuresKillSwitch;
const AGENT = FUTURES_TRADING_EXAMPLES.futuresReduceOnlyAgent;
const OPENAI_KEY = 'sk-fake-openai-key-for-futures-e2e-0123';

const BTC = 'BTCUSDT-PERPETUAL';
const ETH = 'ETHUSDT-PERPETUAL';
const SOL = 'SOLUSDT-PERPETUAL';
const ORDER_PATH = '/api/v2/futures/order';

describeE2E(
	'futures trading examples in a started n8n: signal entry, kill switch, reduce-only agent',
	() => {
		let fx: E2eFixture;
		let ai: FakeOpenAi;
		let n8n: N8nInstance;
		let cookie: string;
		let client: TestClient;
		let script: (request: ChatRequest, index: number) => ChatReply = () => {
			throw new Error('no script set');
		};

		beforeAll(async () => {
			ai = await startFakeOpenAi({ apiKey: OPENAI_KEY, respond: (r, i) => script(r, i) });
			fx = await setUpN8nWithSandbox({
				prefix: 'n8n-e2e-futures-trading-',
				workflows: (Object.keys(FUTURES_TRADING_EXAMPLES) as FuturesTradingExampleKey[]).map(
					loadFuturesTradingExample,
				),
				credentials: [openAiCredential(ai.baseUrl, OPENAI_KEY)],
				sandbox: { market: { moving: false } },
			});
			client = new TestClient(fx.sb.baseUrl, DEMO_KEYS.master, () => fx.sb.now());
			n8n = await startN8n(fx.env);
			cookie = await n8n.login();
		});

		afterAll(async () => {
			await n8n?.stop();
			if (n8n && fx) expect(leakedSecrets(n8n.logs(), [...fx.secrets, OPENAI_KEY])).toEqual([]);
			await fx?.cleanup();
			await ai?.stop();
		});

		beforeEach(() => {
			fx.sb.reset();
			ai.requests.length = 0;
			ai.chatRequests.length = 0;
			ai.errors.length = 0;
		});

		afterEach(() => {
			expect(fx.sb.rateLimitStats()).toEqual({ rateLimited: 0, intoSuspension: 0 });
		});

		function itemsOf(exec: RestExecution, node: string): Array<Record<string, unknown>> {
			return getNodeItems({ data: exec.data! }, node);
		}

		function ran(exec: RestExecution, node: string): boolean {
			return exec.data?.resultData.runData[node] !== undefined;
		}

		async function runFrom(workflowId: string, trigger: string): Promise<RestExecution> {
			const exec = await n8n.runWorkflowFromTrigger(cookie, workflowId, trigger);
			expect({
				workflowId,
				status: exec.status,
				error: exec.data?.resultData.error?.message,
			}).toEqual({
				workflowId,
				status: 'success',
				error: undefined,
			});
			return exec;
		}

		function writesTo(path: string, method = 'POST') {
			return fx.sb.ledger.requests.filter((r) => r.path === path && r.method === method);
		}

		test('the three examples: fixed ids, inactive, the sandbox credential, Futures writes on version 2 with their guardrails', () => {
			for (const key of Object.keys(FUTURES_TRADING_EXAMPLES) as FuturesTradingExampleKey[]) {
				const workflow = loadFuturesTradingExample(key);
				expect(workflow.id).toBe(FUTURES_TRADING_EXAMPLES[key].id);
				expectExampleShape(workflow, key === 'futuresSignalEntry' ? 1 : 2);
				for (const node of workflow.nodes.filter((n) =>
					n.type.startsWith('n8n-nodes-trading-service.'),
				))
					expect({ name: node.name, typeVersion: node.typeVersion }).toEqual({
						name: node.name,
						typeVersion: 2,
					});
			}
			const signal = loadFuturesTradingExample('futuresSignalEntry');
			expect(findNode(signal, SIGNAL.trigger)).toMatchObject({
				type: 'n8n-nodes-base.webhook',
				parameters: { httpMethod: 'POST', path: FUTURES_SIGNAL_PATH },
			});
			expect(findNode(signal, SIGNAL.entry).parameters).toMatchObject({
				resource: 'futures',
				operation: 'createOrder',
				side: 'BUY',
				orderType: 'MARKET',
				options: { clientOrderId: "={{ 'signal-' + $json.body.id }}" },
				guardrails: {
					allowedContracts: 'BTCUSDT-PERPETUAL, ETHUSDT-PERPETUAL',
					maxOrderQuantity: '0.05',
				},
			});
			const kill = loadFuturesTradingExample('futuresKillSwitch');
			expect(kill.settings?.timezone).toBe('UTC');
			expect(findNode(kill, KILL.cancel).parameters).toEqual({
				resource: 'futures',
				operation: 'cancelManyOrders',
				cancelBy: 'all',
			});
			expect(findNode(kill, KILL.close).parameters).toMatchObject({
				operation: 'closePosition',
				closeAmount: 'all',
			});
			const agent = loadFuturesTradingExample('futuresReduceOnlyAgent');
			expect(findNode(agent, AGENT.model).credentials).toEqual({
				openAiApi: { ...OPENAI_CREDENTIAL },
			});
			const tool = findNode(agent, AGENT.orderTool);
			expect(tool.type).toBe(NODE_TYPES.tool);
			expect(tool.parameters.guardrails).toMatchObject({
				reduceOnlyRequired: true,
				maxOrderNotional: '5000',
			});
			for (const name of [AGENT.positionsTool, AGENT.orderTool])
				expect(agent.connections[name]).toEqual({
					ai_tool: [[{ node: AGENT.agent, type: 'ai_tool', index: 0 }]],
				});
		});

		test('signal entry (published): the same alert twice places ONE order with its TP and SL; the second execution reports it alreadyPlaced; a wrong passphrase places nothing', async () => {
			const alert = {
				id: 'tv-20260129-0815',
				passphrase: 'change-this-passphrase',
				action: 'buy',
				symbol: BTC,
				quantity: '0.01',
				takeProfit: '52000',
				stopLoss: '48500',
			};
			const post = async (body: unknown) => {
				// Published webhooks register just after activation: 404 until then (nothing received).
				for (let attempt = 0; ; attempt++) {
					const res = await fetch(`${n8n.baseUrl}/webhook/${FUTURES_SIGNAL_PATH}`, {
						method: 'POST',
						headers: { 'Content-Type': 'application/json' },
						body: JSON.stringify(body),
					});
					await res.text();
					if (res.status === 404 && attempt < 40) {
						await new Promise((resolve) => setTimeout(resolve, 250));
						continue;
					}
					expect(res.status).toBe(200);
					return;
				}
			};
			await n8n.activateWorkflow(cookie, SIGNAL.id);
			let execs: RestExecution[];
			try {
				await post(alert);
				await n8n.waitForExecutions(cookie, SIGNAL.id, 1, { timeoutMs: 60_000 });
				await post(alert); // the alert delivered again
				await n8n.waitForExecutions(cookie, SIGNAL.id, 2, { timeoutMs: 60_000 });
				await post({ ...alert, id: 'tv-forged-1', passphrase: 'guessed' });
				execs = await n8n.waitForExecutions(cookie, SIGNAL.id, 3, { timeoutMs: 60_000 });
			} finally {
				await n8n.deactivateWorkflow(cookie, SIGNAL.id);
			}
			execs.sort((a, b) => Number(a.id) - Number(b.id));
			for (const exec of execs)
				expect({
					id: exec.id,
					status: exec.status,
					error: exec.data?.resultData.error?.message,
				}).toEqual({ id: exec.id, status: 'success', error: undefined });

			// The sandbox: one order request, one MARKET BUY filled, its TP and SL resting as reduce-only SELL stops.
			expect(writesTo(ORDER_PATH)).toHaveLength(1);
			const orders = mainFuturesOrders(fx.sb);
			const entries = orders.filter((o) => o.clientOrderId === `signal-${alert.id}`);
			expect(entries).toHaveLength(1);
			expect(entries[0]).toMatchObject({
				symbol: BTC,
				side: 'BUY',
				quantity: '0.01',
				status: 'FILLED',
			});
			expect(typeOf(entries[0])).toBe('MARKET');
			const children = orders.filter(
				(o) => o !== orders.find((e) => e.orderId === entries[0].orderId),
			);
			expect(children).toHaveLength(2);
			for (const child of children) {
				expect(child).toMatchObject({
					symbol: BTC,
					side: 'SELL',
					quantity: '0.01',
					reduceOnly: true,
				});
				expect(isStop(child)).toBe(true);
				expect(isOpen(child)).toBe(true);
			}
			expect(positionSize(fx.sb, BTC)).toBe('0.01');
			expect(orders.some((o) => o.clientOrderId === 'signal-tv-forged-1')).toBe(false);

			// The node: placed, then the same order found by its business key, nothing sent.
			const [first] = itemsOf(execs[0], SIGNAL.entry);
			const [second] = itemsOf(execs[1], SIGNAL.entry);
			expect(first).toMatchObject({
				outcome: 'placed',
				clientOrderId: `signal-${alert.id}`,
				orderId: entries[0].orderId,
			});
			expect(second).toMatchObject({
				outcome: 'placed',
				alreadyPlaced: true,
				orderId: entries[0].orderId,
			});
			expect(ran(execs[2], SIGNAL.entry)).toBe(false);
		});

		/** Open orders of three contracts, limit (placed by the sandbox) and stop (through the API). */
		async function seedOpenOrders(): Promise<void> {
			fx.sb.futures.placeOpenOrder({ symbol: BTC, side: 'BUY', quantity: '0.01', price: '45000' });
			fx.sb.futures.placeOpenOrder({ symbol: BTC, side: 'BUY', quantity: '0.02', price: '44000' });
			fx.sb.futures.placeOpenOrder({ symbol: ETH, side: 'BUY', quantity: '0.5', price: '2500' });
			fx.sb.futures.placeOpenOrder({ symbol: SOL, side: 'BUY', quantity: '3', price: '120' });
			fx.sb.futures.placeOpenOrder({
				symbol: BTC,
				side: 'SELL',
				quantity: '0.05',
				price: '60000',
				reduceOnly: true,
			});
			for (const [symbol, side, quantity, stopPrice] of [
				[ETH, 'SELL', '0.5', '2500'],
				[SOL, 'BUY', '2', '180'],
			]) {
				const res = await client.call({
					method: 'POST',
					path: ORDER_PATH,
					query: {
						symbol,
						side,
						type: 'STOP',
						baseQty: quantity,
						stopPrice,
						...(side === 'SELL' ? { reduceOnly: 'true' } : {}),
					},
				});
				if (res.status !== 200) throw new Error(`stop order: HTTP ${res.status} ${res.text}`);
			}
			const open = mainFuturesOrders(fx.sb).filter(isOpen);
			expect([open.length, open.filter(isStop).length]).toEqual([7, 2]);
		}

		test('kill switch on a drawdown: unrealized PnL -800 USDT; every open order (limit and stop, every contract) cancelled, every position closed', async () => {
			fx.sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.2', price: '54000' }); // -800 at 50000
			fx.sb.futures.fill({ symbol: ETH, side: 'BUY', quantity: '1.5' });
			await seedOpenOrders();

			const exec = await runFrom(KILL.id, KILL.trigger);

			const [tripped] = itemsOf(exec, KILL.check);
			expect(tripped.reasons).toEqual([
				expect.stringMatching(/^unrealized PnL -80\d(\.\d+)? USDT is at or below -500 USDT$/),
			]);
			expect(mainFuturesOrders(fx.sb).filter(isOpen)).toEqual([]);
			expect(fx.sb.futures.positions()).toEqual([]);
			for (const item of itemsOf(exec, KILL.cancel)) expect(item.outcome).toBe('placed');
			const closes = itemsOf(exec, KILL.close);
			expect(closes.map((c) => [c.symbol, c.outcome]).sort()).toEqual([
				[BTC, 'placed'],
				[ETH, 'placed'],
			]);
			// Each close: one reduce-only MARKET SELL of the whole position.
			const closing = mainFuturesOrders(fx.sb).filter(
				(o) => o.side === 'SELL' && typeOf(o) === 'MARKET',
			);
			expect(closing.map((o) => [o.symbol, o.quantity, o.reduceOnly, o.status]).sort()).toEqual([
				[BTC, '0.2', true, 'FILLED'],
				[ETH, '1.5', true, 'FILLED'],
			]);
		});

		test('kill switch on a funding rate above 0.1 %: the same, with positions at the mark; below both thresholds nothing is cancelled or closed', async () => {
			fx.sb.futures.fill({ symbol: ETH, side: 'BUY', quantity: '1.5' });
			fx.sb.futures.fill({ symbol: SOL, side: 'BUY', quantity: '10' });
			fx.sb.futures.setFundingRates(ETH, ['0.001']); // exactly the threshold: not above
			fx.sb.futures.setFundingRates(SOL, ['0.0001']);
			await seedOpenOrders();

			const calm = await runFrom(KILL.id, KILL.trigger);
			expect(itemsOf(calm, KILL.rates)).toHaveLength(2);
			expect(ran(calm, KILL.cancel)).toBe(false);
			expect(mainFuturesOrders(fx.sb).filter(isOpen)).toHaveLength(7);
			expect(fx.sb.futures.positions()).toHaveLength(2);
			expect(writesTo('/api/v2/futures/cancelOrders', 'DELETE')).toEqual([]);

			fx.sb.futures.setFundingRates(SOL, ['0.00100001']);
			const exec = await runFrom(KILL.id, KILL.trigger);
			expect(itemsOf(exec, KILL.check)[0].reasons).toEqual([
				`${SOL} funding rate 0.00100001 is above 0.001`,
			]);
			expect(mainFuturesOrders(fx.sb).filter(isOpen)).toEqual([]);
			expect(fx.sb.futures.positions()).toEqual([]);
			expect(
				itemsOf(exec, KILL.close)
					.map((c) => [c.symbol, c.outcome])
					.sort(),
			).toEqual([
				[ETH, 'placed'],
				[SOL, 'placed'],
			]);
		});

		test('reduce-only agent: the reduction (SELL half the BTC position, reduce-only) is placed, the increase (BUY 0.05) refused, no BUY placed', async () => {
			fx.sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.15' });
			fx.sb.futures.fill({ symbol: ETH, side: 'BUY', quantity: '1' });
			const before = mainFuturesOrders(fx.sb).length;
			const model = reduceOnlyAgent();
			script = model.respond;

			const exec = await runFrom(AGENT.id, AGENT.trigger);
			expect(ai.errors).toEqual([]);

			// The model: the question, the positions, the sell's answer, the buy's answer.
			expect(ai.chatRequests).toHaveLength(4);
			const calls = toolResults(ai.chatRequests[3]).filter(
				(r) => r.name === FUTURES_AGENT_TOOLS.order,
			);
			expect(calls.map((c) => [c.arguments.side, c.arguments.quantity])).toEqual([
				['SELL', '0.075'],
				['BUY', AGENT_BUY_QUANTITY],
			]);
			expect(calls[0].content).toMatch(/"outcome":\s*"placed"/);
			expect(calls[1].content).not.toMatch(/"outcome":\s*"placed"/);
			expect(calls[1].content).toMatch(/reduce/i);

			// The sandbox: the reduce-only SELL placed; the BUY (reduce-only, as the tool sends every
			// order) refused by the node or by the exchange (-1149: it would increase the position).
			const sent = writesTo(ORDER_PATH).map((r) => {
				const query = new URLSearchParams(r.query);
				return [query.get('side'), query.get('reduceOnly'), r.status];
			});
			expect(sent[0]).toEqual(['SELL', 'true', 200]);
			expect(sent.slice(1)).toEqual(sent.length === 1 ? [] : [['BUY', 'true', 400]]);
			const placed = mainFuturesOrders(fx.sb).slice(before);
			expect(placed).toHaveLength(1);
			expect(placed[0]).toMatchObject({
				symbol: AGENT_CONTRACT,
				side: 'SELL',
				quantity: '0.075',
				reduceOnly: true,
				status: 'FILLED',
			});
			expect(positionSize(fx.sb, BTC)).toBe('0.075');
			expect(positionSize(fx.sb, ETH)).toBe('1');

			const runs = exec.data!.resultData.runData[AGENT.agent].length;
			const [answer] = getNodeItems({ data: exec.data! }, AGENT.agent, runs - 1);
			expect(answer.output).toBe(model.answer());
			expect(model.answer()).toMatch(
				/^SELL 0\.075 BTCUSDT-PERPETUAL \(half of 0\.15\): placed\. BUY 0\.05 BTCUSDT-PERPETUAL: refused: /,
			);
		});
	},
);
