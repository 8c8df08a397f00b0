/**
 * The three fills examples in one started n8n 2.41.1 (`n8n start`, driven through the editor's
 * REST API as the editor's buttons drive it), package installed from `npm pack`, sandbox on
 * loopback.
 *
 * fills-export.json: Manual Trigger → Trading Service (version 2) Account › Get Trades (BTCUSDT, the
 * last 24 hours, Return All) → Convert to File (CSV). The sandbox holds fills of three kinds:
 * seeded ones older than 24 hours (outside the range), seeded ones inside it on BTCUSDT and ETHUSDT
 * (more BTCUSDT ones than one page holds), and the fills of orders placed just now through the
 * sandbox's own signed client (a MARKET buy that fills at once, a LIMIT sell the exchange then
 * fills in part, an ETHUSDT MARKET buy). The CSV must hold exactly the BTCUSDT fills of the range,
 * each once, with the exchange's values as it sent them.
 *
 * The two alert-only fill examples (issue 42), which place nothing:
 * - order-filled-alert.json: Trading Service Trigger (version 2, Order Filled, polling) → Fill
 *   Message (Set), run as "Fetch Test Event" / "Execute workflow" runs it (one poll in manual mode:
 *   the newest fill), as test/e2e/trigger.e2e.test.ts runs the funding-fee alert;
 * - realtime-fill-alert.json: Trading Service Real-Time Trigger (Order Filled) → Fill Message,
 *   published: the exchange fills a resting order, the stream starts one execution.
 * Each time the fill gives exactly one message item, and no order is placed or cancelled (the
 * sandbox's order and cancel ledgers unchanged, no request to an order-writing path).
 */
import * as fs from 'fs';
import * as path from 'path';

import { DEMO_KEYS, type AccountTrade, type Sandbox } from '../../sandbox';
import { TestClient } from '../../sandbox/testClient';
import {
	FILL_ALERT_EXAMPLES,
	NODE_TYPES,
	V2_EXAMPLES,
	findNode,
	loadFillAlertExample,
	loadV2Example,
	type FillAlertExampleKey,
	type Workflow,
} from '../../tools/n8n/examples';
import { leakedSecrets, setUpN8nWithSandbox, type E2eFixture } from '../../tools/n8n/fixture';
import type { RestExecution } from '../../tools/n8n/rest';
import { getNodeItems } from '../../tools/n8n/run-data';
import { startN8n, type N8nInstance } from '../../tools/n8n/server';
import { describeE2E } from '../support/describe-e2e';
import { expectExampleShape } from '../support/examples';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ex = V2_EXAMPLES.fillsExport;

/** RFC 4180 CSV (quoted cells, doubled quotes, CRLF or LF) into rows of cells. */
function parseCsv(text: string): string[][] {
	const rows: string[][] = [];
	let row: string[] = [];
	let cell = '';
	let quoted = false;
	for (let i = 0; i < text.length; i++) {
		const c = text[i];
		if (quoted) {
			if (c === '"' && text[i + 1] === '"') {
				cell += '"';
				i++;
			} else if (c === '"') quoted = false;
			else cell += c;
		} else if (c === '"') quoted = true;
		else if (c === ',') {
			row.push(cell);
			cell = '';
		} else if (c === '\n' || c === '\r') {
			if (c === '\r' && text[i + 1] === '\n') i++;
			row.push(cell);
			rows.push(row);
			row = [];
			cell = '';
		} else cell += c;
	}
	if (cell !== '' || row.length > 0) {
		row.push(cell);
		rows.push(row);
	}
	return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

const POLLING = FILL_ALERT_EXAMPLES.orderFilledAlert;
const REALTIME = FILL_ALERT_EXAMPLES.realtimeFillAlert;

function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(probe: () => boolean, timeoutMs: number, what: string): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!probe()) {
		if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
		await sleep(50);
	}
}

/** What would show an order placed or cancelled: the sandbox's ledgers and any order write sent. */
function orderWrites(sb: Sandbox): unknown {
	return {
		orders: sb.ledger.orders.map((o) => o.orderId),
		cancels: sb.ledger.cancels.length,
		writes: sb.ledger.requests
			.filter((r) => r.method !== 'GET' && r.path.startsWith('/api/v1/spot/'))
			.map((r) => `${r.method} ${r.path}`),
	};
}

/** A resting BTCUSDT BUY of the master key, filled by the exchange now. */
function fillABuy(sb: Sandbox, price: string, quantity: string): string {
	const { orderId } = sb.seedOpenOrder({
		symbol: 'BTCUSDT',
		side: 'BUY',
		price,
		quantity,
		time: sb.now(),
	});
	sb.fillOrder(orderId);
	return orderId;
}

describeE2E(
	'fills examples in a started n8n: the export (Get Trades → CSV) and two alerts that place nothing',
	() => {
		let fx: E2eFixture;
		let client: TestClient;
		let n8n: N8nInstance;
		let cookie: string;

		beforeAll(async () => {
			fx = await setUpN8nWithSandbox({
				prefix: 'n8n-e2e-fills-example-',
				workflows: [
					loadV2Example('fillsExport'),
					loadFillAlertExample('orderFilledAlert'),
					loadFillAlertExample('realtimeFillAlert'),
				],
			});
			client = new TestClient(fx.sb.baseUrl, DEMO_KEYS.master, () => fx.sb.now());
			n8n = await startN8n(fx.env);
			cookie = await n8n.login();
		});

		afterAll(async () => {
			await n8n?.stop();
			if (n8n && fx) expect(leakedSecrets(n8n.logs(), fx.secrets)).toEqual([]);
			await fx?.cleanup();
		});

		beforeEach(() => {
			fx.sb.reset();
		});

		/** Runs a Manual Trigger example as the editor's "Execute workflow" button does; it must succeed. */
		async function run(workflowId: string, trigger: string): Promise<RestExecution> {
			const exec = await n8n.runWorkflowFromTrigger(cookie, workflowId, trigger);
			expect({ workflowId, status: exec.status }).toEqual({ workflowId, status: 'success' });
			return exec;
		}

		function itemsOf(exec: RestExecution, node: string): Array<Record<string, unknown>> {
			return getNodeItems({ data: exec.data! }, node);
		}

		/** The fills of one of our orders, as the sandbox answers them to its own signed client. */
		async function fillsOf(symbol: string, clientOrderId: string): Promise<AccountTrade[]> {
			const res = await client.trades({ symbol, clientOrderId, limit: 1000 });
			expect(res.status).toBe(200);
			return res.json as AccountTrade[];
		}

		async function placeOrder(params: Record<string, string>): Promise<void> {
			const res = await client.order(params);
			if (res.status !== 200)
				throw new Error(`order ${JSON.stringify(params)}: HTTP ${res.status} ${res.text}`);
		}

		test('the example: a fixed id, inactive, the sandbox credential, Get Trades on version 2 of the node, a CSV file', () => {
			const workflow: Workflow = loadV2Example('fillsExport');
			expect(workflow.id).toBe(ex.id);
			expectExampleShape(workflow, 1);
			expect(findNode(workflow, ex.trigger).type).toBe('n8n-nodes-base.manualTrigger');
			const trades = findNode(workflow, ex.trades);
			expect(trades.type).toBe(NODE_TYPES.action);
			expect(trades.typeVersion).toBe(2);
			expect(trades.parameters).toEqual({
				resource: 'account',
				operation: 'getTrades',
				symbol: { __rl: true, mode: 'list', value: 'BTCUSDT', cachedResultName: 'BTCUSDT' },
				startTime: '={{ $now.minus({ hours: 24 }).toISO() }}',
				endTime: '={{ $now.toISO() }}',
				returnAll: true,
			});
			const csv = findNode(workflow, ex.csv);
			expect(csv.type).toBe('n8n-nodes-base.convertToFile');
			expect(csv.parameters).toMatchObject({
				operation: 'csv',
				options: { fileName: 'fills.csv' },
			});
			expect(workflow.connections).toEqual({
				[ex.trigger]: { main: [[{ node: ex.trades, type: 'main', index: 0 }]] },
				[ex.trades]: { main: [[{ node: ex.csv, type: 'main', index: 0 }]] },
			});
		});

		test('fills export: exactly the BTCUSDT fills of the last 24 hours, over more than one page, each once in the CSV with the exchange’s values', async () => {
			const now = fx.sb.now();
			// Oldest first (fill ids grow with time). Older than 24 hours: outside the range.
			const old = fx.sb.seedTrades({
				count: 6,
				startTime: now - 3 * DAY,
				endTime: now - 25 * HOUR,
				symbols: ['BTCUSDT'],
				seed: 3,
			});
			// Inside the range, both symbols, both sides of self-matches: about 1,200 BTCUSDT fills,
			// more than the exchange's 1,000 a request.
			const seeded = fx.sb.seedTrades({
				count: 2400,
				startTime: now - 23 * HOUR,
				endTime: now - 2 * HOUR,
				symbols: ['BTCUSDT', 'ETHUSDT'],
				bothSides: true,
				seed: 11,
			});
			// Orders placed now: a MARKET buy (fills at once), a LIMIT sell the exchange fills in part,
			// and an ETHUSDT MARKET buy (another symbol).
			await placeOrder({
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'MARKET',
				quantity: '0.01',
				newClientOrderId: 'fills-e2e-market',
			});
			const limitRes = await client.order({
				symbol: 'BTCUSDT',
				side: 'SELL',
				type: 'LIMIT',
				quantity: '0.004',
				price: '61000',
				newClientOrderId: 'fills-e2e-limit',
			});
			expect(limitRes.status).toBe(200);
			fx.sb.fillOrder(String((limitRes.json as { orderId: string }).orderId), '0.0015');
			await placeOrder({
				symbol: 'ETHUSDT',
				side: 'BUY',
				type: 'MARKET',
				quantity: '0.1',
				newClientOrderId: 'fills-e2e-eth',
			});

			const placedBtc = [
				...(await fillsOf('BTCUSDT', 'fills-e2e-market')),
				...(await fillsOf('BTCUSDT', 'fills-e2e-limit')),
			];
			expect(placedBtc.length).toBeGreaterThanOrEqual(2);
			expect((await fillsOf('ETHUSDT', 'fills-e2e-eth')).length).toBeGreaterThanOrEqual(1);
			const expected = [...seeded.filter((t) => t.symbol === 'BTCUSDT'), ...placedBtc];
			expect(expected.length).toBeGreaterThan(1000);
			const byId = new Map(expected.map((t) => [t.id, t]));
			const before = fx.sb.ledger.requests.length;
			// The reads above went with the master key too, and the node paces only its own requests:
			// let the key's second pass, as the exchange counts 5 query requests a second per key.
			await sleep(1_100);

			const exec = await run(ex.id, ex.trigger);

			// The node: one item per fill, each BTCUSDT fill of the range once, the exchange's strings.
			const fills = itemsOf(exec, ex.trades);
			const ids = fills.map((f) => String(f.id));
			expect(new Set(ids).size).toBe(ids.length);
			expect([...ids].sort()).toEqual([...byId.keys()].sort());
			for (const id of old.map((t) => t.id)) expect(ids).not.toContain(id);
			for (const fill of fills) {
				const want = byId.get(String(fill.id))!;
				expect(fill).toMatchObject({
					symbol: 'BTCUSDT',
					orderId: want.orderId,
					price: want.price,
					qty: want.qty,
					commission: want.commission,
					commissionAsset: want.commissionAsset,
					isBuyer: want.isBuyer,
					isMaker: want.isMaker,
				});
				for (const field of ['id', 'orderId', 'price', 'qty', 'commission'])
					expect(typeof fill[field]).toBe('string');
			}

			// What went to the exchange: signed GET /api/v1/account/trades for BTCUSDT, more than one page.
			const requests = fx.sb.ledger.requests
				.slice(before)
				.filter((r) => r.path === '/api/v1/account/trades');
			expect(requests.length).toBeGreaterThanOrEqual(2);
			for (const r of requests) {
				expect(r.method).toBe('GET');
				expect(r.status).toBe(200);
				expect(r.query).toMatch(/(^|&)symbol=BTCUSDT(&|$)/);
				expect(r.query).toMatch(/(^|&)signature=[0-9a-f]{64}(&|$)/);
			}

			// Convert to File wrote fills.csv (n8n keeps binary data on disk): a header, a row per fill.
			const [file] = exec.data!.resultData.runData[ex.csv][0].data!.main![0]!;
			const binary = (
				file as { binary?: { data?: { id?: string; fileName?: string; mimeType?: string } } }
			).binary?.data;
			expect(binary).toMatchObject({ fileName: 'fills.csv', mimeType: 'text/csv' });
			expect(binary!.id).toMatch(/^filesystem-v2:/);
			const text = fs
				.readFileSync(
					path.join(fx.userFolder, '.n8n', 'storage', binary!.id!.slice('filesystem-v2:'.length)),
					'utf8',
				)
				.replace(/^\uFEFF/, ''); // n8n writes a BOM
			const [header, ...rows] = parseCsv(text);
			expect(rows).toHaveLength(expected.length);
			const column = (name: string): number => {
				const index = header.indexOf(name);
				expect({ name, found: index >= 0 }).toEqual({ name, found: true });
				return index;
			};
			const [idCol, symbolCol, priceCol, qtyCol, feeCol, feeCoinCol] = [
				'id',
				'symbol',
				'price',
				'qty',
				'commission',
				'commissionAsset',
			].map(column);
			expect(rows.map((row) => row[idCol]).sort()).toEqual([...byId.keys()].sort());
			for (const row of rows) {
				const want = byId.get(row[idCol])!;
				// Decimals as the exchange wrote them: no float rounding, no exponent, no lost zeros.
				expect([row[symbolCol], row[priceCol], row[qtyCol], row[feeCol], row[feeCoinCol]]).toEqual([
					'BTCUSDT',
					want.price,
					want.qty,
					want.commission,
					want.commissionAsset,
				]);
			}
		});

		test('the two examples: fixed ids, inactive, a trigger of the package on Order Filled and a Set node, no node that can place an order', () => {
			const triggers: Record<FillAlertExampleKey, [string, number, Record<string, unknown>]> = {
				orderFilledAlert: [
					NODE_TYPES.trigger,
					2,
					{
						pollTimes: { item: [{ mode: 'everyMinute' }] },
						event: 'orderFilled',
						filters: {},
						options: {},
					},
				],
				realtimeFillAlert: [
					NODE_TYPES.realTimeTrigger,
					1,
					{ events: ['orderFilled'], filters: {}, options: {} },
				],
			};
			for (const key of Object.keys(FILL_ALERT_EXAMPLES) as FillAlertExampleKey[]) {
				const ex = FILL_ALERT_EXAMPLES[key];
				const workflow: Workflow = loadFillAlertExample(key);
				expect(workflow.id).toBe(ex.id);
				expectExampleShape(workflow, 1);
				const trigger = findNode(workflow, ex.trigger);
				const [type, typeVersion, parameters] = triggers[key];
				expect({ key, type: trigger.type, typeVersion: trigger.typeVersion }).toEqual({
					key,
					type,
					typeVersion,
				});
				expect(trigger.parameters).toEqual(parameters);
				expect(findNode(workflow, ex.message).type).toBe('n8n-nodes-base.set');
				// Places nothing: no action or tool node of the package, only the trigger.
				expect(
					workflow.nodes.filter((n) => n.type === NODE_TYPES.action || n.type === NODE_TYPES.tool),
				).toEqual([]);
				expect(workflow.connections).toEqual({
					[ex.trigger]: { main: [[{ node: ex.message, type: 'main', index: 0 }]] },
				});
				const notes = workflow.nodes.filter((n) => n.type === 'n8n-nodes-base.stickyNote');
				expect(notes.map((n) => String(n.parameters.content)).join('\n')).toMatch(
					/places nothing[\s\S]*\*\*Change\*\*: add Slack, Telegram or Send Email/,
				);
			}
		});

		test('order-filled-alert: a fill, then a test poll: one message item with the fill, only reads sent', async () => {
			const sb = fx.sb;
			const orderId = fillABuy(sb, '45000.37', '0.01');
			const before = orderWrites(sb);
			const requestsBefore = sb.ledger.requests.length;

			const exec = await n8n.runWorkflowFromTrigger(cookie, POLLING.id, POLLING.trigger);
			expect(exec.status).toBe('success');

			const [fill, ...moreFills] = itemsOf(exec, POLLING.trigger);
			expect(moreFills).toEqual([]);
			expect(fill).toMatchObject({ orderId, symbol: 'BTCUSDT', isBuyer: true, price: '45000.37' });
			const time = new Date(Number(fill.time)).toISOString(); // 2026-01-31T08:00:00.000Z
			expect(itemsOf(exec, POLLING.message)).toEqual([
				{
					message: `Filled: BUY ${String(fill.qty)} BTCUSDT at 45000.37 (fee ${String(fill.commission)} ${String(fill.commissionAsset)}, order ${orderId}, ${time.slice(0, 10)} ${time.slice(11, 19)} UTC)`,
					orderId,
					fillId: String(fill.id),
				},
			]);
			expect(Number(fill.qty)).toBe(0.01);

			// Nothing placed or cancelled; every request a read.
			expect(orderWrites(sb)).toEqual(before);
			const sent = sb.ledger.requests.slice(requestsBefore);
			expect(sent.length).toBeGreaterThan(0);
			expect(sent.filter((r) => r.method !== 'GET')).toEqual([]);
		});

		test('realtime-fill-alert (published): a fill starts one execution with one message item, no order placed', async () => {
			const sb = fx.sb;
			const opened = sb.stream.stats().connectionsOpened;
			const activatedAt = Date.now();
			await n8n.activateWorkflow(cookie, REALTIME.id);
			try {
				await waitFor(
					() => sb.stream.stats().connectionsOpened > opened,
					30_000,
					'the trigger connected',
				);
				// The baseline read (the open orders) comes before the fill.
				await waitFor(
					() =>
						sb.ledger.requests.some(
							(r) => r.path === '/api/v1/spot/openOrders' && r.at >= activatedAt,
						),
					30_000,
					'the baseline',
				);
				await sleep(300);
				const orderId = fillABuy(sb, '45100.37', '0.001');
				const before = orderWrites(sb);

				const [exec] = await n8n.waitForExecutions(cookie, REALTIME.id, 1, {
					mode: 'trigger',
					timeoutMs: 30_000,
				});
				expect(exec.status).toBe('success');
				const [event, ...moreEvents] = itemsOf(exec, REALTIME.trigger);
				expect(moreEvents).toEqual([]);
				expect(event).toMatchObject({
					event: 'orderFilled',
					orderId,
					side: 'BUY',
					source: 'stream',
				});
				expect(itemsOf(exec, REALTIME.message)).toEqual([
					{
						message: `Filled: BUY ${String(event.executedQuantity)} BTCUSDT at 45100.37 (order ${orderId})`,
						orderId,
						source: 'stream',
					},
				]);
				expect(Number(event.executedQuantity)).toBe(0.001);

				// One execution only, and nothing placed or cancelled.
				await sleep(500);
				expect(
					(await n8n.listExecutions(cookie, REALTIME.id)).filter((e) => e.mode === 'trigger'),
				).toHaveLength(1);
				expect(orderWrites(sb)).toEqual(before);
			} finally {
				await n8n.deactivateWorkflow(cookie, REALTIME.id);
			}
		});
	},
);
