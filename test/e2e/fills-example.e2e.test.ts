/**
 * The fills export example (examples/fills-export.json) in a real n8n 2.41.1 (`n8n execute`),
 * package installed from `npm pack`, sandbox on loopback: Manual Trigger → Trading Service
 * (version 2) Account › Get Trades (BTCUSDT, the last 24 hours, Return All) → Convert to File (CSV).
 *
 * The sandbox holds fills of three kinds: seeded ones older than 24 hours (outside the range),
 * seeded ones inside it on BTCUSDT and ETHUSDT (more BTCUSDT ones than one page holds), and the
 * fills of orders placed just now through the sandbox's own signed client (a MARKET buy that fills
 * at once, a LIMIT sell the exchange then fills in part, an ETHUSDT MARKET buy). The CSV must hold
 * exactly the BTCUSDT fills of the range, each once, with the exchange's values as it sent them.
 */
import * as fs from 'fs';
import * as path from 'path';

import { DEMO_KEYS, type AccountTrade } from '../../sandbox';
import { TestClient } from '../../sandbox/testClient';
import {
	NODE_TYPES,
	V2_EXAMPLES,
	findNode,
	loadV2Example,
	type Workflow,
} from '../../tools/n8n/examples';
import { setUpN8nWithSandbox, type E2eFixture } from '../../tools/n8n/fixture';
import { expectWorkflowOk, runWorkflow, type CheckedRun } from '../support/e2eRuns';
import { getNodeItems } from '../../tools/n8n/run-data';
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

describeE2E('fills export example in a real n8n: Get Trades (version 2) → CSV', () => {
	let fx: E2eFixture;
	let client: TestClient;

	beforeAll(async () => {
		fx = await setUpN8nWithSandbox({
			prefix: 'n8n-e2e-fills-example-',
			workflows: [loadV2Example('fillsExport')],
		});
		client = new TestClient(fx.sb.baseUrl, DEMO_KEYS.master, () => fx.sb.now());
	});

	afterAll(async () => {
		await fx?.cleanup();
	});

	beforeEach(() => {
		fx.sb.reset();
	});

	async function run(workflowId: string): Promise<CheckedRun> {
		const result = await runWorkflow(fx, workflowId);
		expectWorkflowOk(result, workflowId);
		return result;
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
			symbol: { __rl: true, mode: 'id', value: 'BTCUSDT' },
			startTime: '={{ $now.minus({ hours: 24 }).toISO() }}',
			endTime: '={{ $now.toISO() }}',
			returnAll: true,
		});
		const csv = findNode(workflow, ex.csv);
		expect(csv.type).toBe('n8n-nodes-base.convertToFile');
		expect(csv.parameters).toMatchObject({ operation: 'csv', options: { fileName: 'fills.csv' } });
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

		const result = await run(ex.id);

		// The node: one item per fill, each BTCUSDT fill of the range once, the exchange's strings.
		const fills = getNodeItems(result.run, ex.trades);
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
		const [file] = result.run.data.resultData.runData[ex.csv][0].data!.main![0]!;
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
});
