/**
 * The example workflows in examples/, run with `n8n execute` in a real n8n 2.41.1 that loads the
 * package the way users install it (npm pack -> <user folder>/.n8n/nodes/node_modules), against
 * the sandbox in this process. Asserts the items n8n produced and the sandbox's own ledger of what
 * was placed and transferred.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { DEMO_ACCOUNTS } from '../../sandbox';
import {
	EXAMPLES,
	findNode,
	loadAllExamples,
	loadExample,
	withCredential,
	withManualTrigger,
	type Workflow,
} from '../../tools/n8n/examples';
import { describeE2E } from '../support/describe-e2e';
import { expectExampleShape } from '../support/examples';
import {
	BAD_CREDENTIAL,
	QUIET_N8N_ENV,
	setUpN8nWithSandbox,
	type E2eFixture,
} from '../../tools/n8n/fixture';
import { expectWorkflowOk, runWorkflow, type CheckedRun } from '../support/e2eRuns';
import { executeWorkflow, type ExecuteResult } from '../../tools/n8n/cli';
import { createN8nEnv } from '../../tools/n8n/environment';
import { getNodeError, getNodeItems } from '../../tools/n8n/run-data';

const DAY_MS = 24 * 3600 * 1000;

/** The scheduled-transfer example with a Manual Trigger in place of its Schedule Trigger. */
const MANUAL_TRANSFER_ID = 'tsSchedTransferM';
/** The same, with the wrong-secret credential. */
const BAD_TRANSFER_ID = 'tsSchedTransferX';

function manualTransfer(): Workflow {
	return withManualTrigger(
		loadExample('scheduledTransfer'),
		EXAMPLES.scheduledTransfer.trigger,
		MANUAL_TRANSFER_ID,
	);
}

describeE2E('examples in a real n8n (n8n execute)', () => {
	let fx: E2eFixture;

	beforeAll(async () => {
		fx = await setUpN8nWithSandbox({
			prefix: 'n8n-e2e-examples-',
			workflows: [
				...loadAllExamples(),
				manualTransfer(),
				withCredential(manualTransfer(), BAD_CREDENTIAL, BAD_TRANSFER_ID),
			],
		});
	});

	afterAll(async () => {
		await fx?.cleanup();
	});

	beforeEach(() => {
		fx.sb.reset();
	});

	// The sandbox runs at its default, the exchange's documented request rates (20 order and 5
	// query requests a second per key; over that 429 and a minute's suspension): after every test,
	// no request of it refused for its rate (the node paces by itself).
	afterEach(() => {
		expect(fx.sb.requestRates()).toEqual({
			orderPerSecond: 20,
			queryPerSecond: 5,
			suspensionMs: 60_000,
		});
		expect(fx.sb.rateLimitStats()).toEqual({ rateLimited: 0, intoSuspension: 0 });
	});

	const run = (workflowId: string): Promise<CheckedRun> => runWorkflow(fx, workflowId);

	const expectOk = (result: ExecuteResult): void => expectWorkflowOk(result);

	test('every example is a workflow of the installed package, with a fixed id and the sandbox credential', () => {
		const dist = path.join(
			fx.userFolder,
			'.n8n',
			'nodes',
			'node_modules',
			'n8n-nodes-trading-service',
		);
		const installed = JSON.parse(fs.readFileSync(path.join(dist, 'package.json'), 'utf8')) as {
			n8n: { nodes: string[] };
		};
		expect(installed.n8n.nodes).toEqual([
			'dist/nodes/TradingService/TradingService.node.js',
			'dist/nodes/TradingService/TradingServiceTrigger.node.js',
			'dist/nodes/TradingService/TradingServiceRealTimeTrigger.node.js',
		]);
		for (const workflow of loadAllExamples()) expectExampleShape(workflow);
	});

	test('batch orders: 45 items from a Code node -> Create Many -> 45 items, each paired to its order, in 3 batch requests', async () => {
		const ex = EXAMPLES.batchOrders;
		const result = await run(ex.id);
		expectOk(result);

		const list = getNodeItems(result.run, ex.list);
		expect(list).toHaveLength(45);
		const bySymbol = (symbol: string) => list.filter((item) => item.symbol === symbol).length;
		expect([bySymbol('BTCUSDT'), bySymbol('ETHUSDT')]).toEqual([25, 20]);

		const task = result.run.data.resultData.runData[ex.createMany][0];
		const items = task.data!.main![0]!;
		expect(items).toHaveLength(45);
		items.forEach((item, index) => {
			// Output i is the order of input item i: pairing survives the regrouping by symbol.
			expect(item.pairedItem).toEqual({ item: index });
			const input = list[index];
			const json = item.json as {
				success: boolean;
				code: number;
				msg: string;
				symbol: string;
				clientOrderId: string;
				order: Record<string, string>;
			};
			expect(json).toMatchObject({ success: true, code: 0, msg: 'success', symbol: input.symbol });
			expect(json.order).toMatchObject({
				symbol: input.symbol,
				side: input.side,
				type: 'LIMIT',
				price: input.price,
				origQty: input.quantity,
				status: 'NEW',
				timeInForce: 'GTC',
				accountId: DEMO_ACCOUNTS.mainTrading,
			});
			expect(json.clientOrderId).toBe(json.order.clientOrderId);
			expect(json).not.toHaveProperty('alreadyPlaced');
		});
		const clientIds = items.map((item) => (item.json as { clientOrderId: string }).clientOrderId);
		expect(new Set(clientIds).size).toBe(45);

		// The sandbox's own record: 3 requests (BTCUSDT 20 + 5, ETHUSDT 20), 45 orders, none twice.
		// Version 2 sends the unified batch endpoint.
		const requests = fx.sb.ledger.requests.filter((r) => r.path === '/api/v1.1/spot/batchOrders');
		expect(requests).toHaveLength(3);
		expect(requests.every((r) => r.status === 200)).toBe(true);
		const batches = requests.map((r) => JSON.parse(r.body) as Array<{ symbol: string }>);
		expect(batches.map((b) => `${b[0].symbol}:${b.length}`).sort()).toEqual([
			'BTCUSDT:20',
			'BTCUSDT:5',
			'ETHUSDT:20',
		]);
		for (const batch of batches) expect(new Set(batch.map((o) => o.symbol)).size).toBe(1);
		expect(fx.sb.ledger.requests.filter((r) => r.path === '/api/v1.1/spot/order')).toHaveLength(0);
		expect(fx.sb.ledger.orders).toHaveLength(45);
		expect(fx.sb.ledger.orders.every((o) => o.via === 'batch')).toBe(true);
		expect(fx.sb.ledger.orders.map((o) => o.clientOrderId).sort()).toEqual([...clientIds].sort());
	});

	test('scheduled transfer (Manual Trigger variant): one transfer 10001 -> 20001, and its two history records', async () => {
		const ex = EXAMPLES.scheduledTransfer;
		// The variant is made from the example: same nodes apart from the trigger.
		const original = loadExample('scheduledTransfer');
		const variant = manualTransfer();
		expect(findNode(original, ex.trigger).type).toBe('n8n-nodes-base.scheduleTrigger');
		expect(findNode(variant, 'Manual Trigger').type).toBe('n8n-nodes-base.manualTrigger');
		expect(variant.nodes.filter((n) => n.name !== 'Manual Trigger')).toEqual(
			original.nodes.filter((n) => n.name !== ex.trigger),
		);

		const result = await run(MANUAL_TRANSFER_ID);
		expectOk(result);

		const [transfer, ...moreTransfers] = getNodeItems(result.run, ex.transfer);
		expect(moreTransfers).toHaveLength(0);
		// The family's transfer answer: success, the transfer's ID as orderId (kept a string), a time.
		expect(transfer).toMatchObject({ outcome: 'placed', success: true });
		expect(transfer.orderId).toMatch(/^\d+$/);
		expect(String(transfer.timestamp)).toMatch(/^\d+$/);

		const records = getNodeItems(result.run, ex.check);
		expect(
			records.map((r) => [r.accountId, r.coin, r.change, r.flowTypeValue, r.created]).sort(),
		).toEqual([
			[DEMO_ACCOUNTS.mainTrading, 'USDT', '-25', 51, String(transfer.timestamp)],
			[DEMO_ACCOUNTS.subTrading, 'USDT', '25', 51, String(transfer.timestamp)],
		]);
		expect(
			records.every(
				(r) => r.flowType === 'USER_ACCOUNT_TRANSFER' && typeof r.createdIso === 'string',
			),
		).toBe(true);

		// Exactly one transfer, one request, and the balances moved once.
		expect(fx.sb.ledger.transfers).toEqual([
			expect.objectContaining({
				id: transfer.orderId,
				fromAccountId: '10001',
				toAccountId: '20001',
				coin: 'USDT',
				quantity: '25',
			}),
		]);
		expect(
			fx.sb.ledger.requests.filter((r) => r.path === '/api/v1/account/assetTransfer'),
		).toHaveLength(1);
		expect(fx.sb.getBalance(DEMO_ACCOUNTS.mainTrading, 'USDT')).toBe('99975');
		expect(fx.sb.getBalance(DEMO_ACCOUNTS.subTrading, 'USDT')).toBe('10025');
	});

	test('history export: Return All over a seeded 29-day range returns every seeded record once, and the CSV has them all', async () => {
		const ex = EXAMPLES.historyExport;
		const now = fx.sb.now();
		// 1,234 funding fees inside the range (3 pages of 500), plus records the query must not return:
		// older funding fees, and transfers in the same range.
		const seeded = fx.sb.seedRecords({
			flowType: 32,
			count: 1234,
			startTime: now - 29 * DAY_MS + 3600_000,
			endTime: now - 60_000,
			seed: 7,
		});
		fx.sb.seedRecords({
			flowType: 32,
			count: 40,
			startTime: now - 29.9 * DAY_MS,
			endTime: now - 29.2 * DAY_MS,
			seed: 8,
		});
		fx.sb.seedRecords({
			flowType: 51,
			count: 30,
			startTime: now - 20 * DAY_MS,
			endTime: now - 60_000,
			seed: 9,
		});

		const result = await run(ex.id);
		expectOk(result);

		const records = getNodeItems(result.run, ex.history);
		expect(records).toHaveLength(seeded.length);
		const ids = records.map((r) => r.id as string);
		expect(new Set(ids).size).toBe(seeded.length);
		expect([...ids].sort()).toEqual(seeded.map((r) => r.id).sort());
		expect(
			records.every(
				(r) =>
					r.flowTypeValue === 32 &&
					typeof r.symbol === 'string' &&
					typeof r.createdIso === 'string',
			),
		).toBe(true);
		const pages = fx.sb.ledger.requests.filter((r) => r.path === '/api/v1/account/balanceFlow');
		expect(pages.length).toBeGreaterThanOrEqual(3);
		expect(pages.every((r) => r.status === 200)).toBe(true);

		// Convert to File wrote one CSV (n8n keeps binary data on disk): a header and one row per record.
		const [file] = result.run.data.resultData.runData[ex.csv][0].data!.main![0]!;
		const binary = (
			file as { binary?: { data?: { id?: string; fileName?: string; mimeType?: string } } }
		).binary?.data;
		expect(binary).toMatchObject({ fileName: 'funding-fees.csv', mimeType: 'text/csv' });
		expect(binary!.id).toMatch(/^filesystem-v2:/);
		const csv = fs
			.readFileSync(
				path.join(fx.userFolder, '.n8n', 'storage', binary!.id!.slice('filesystem-v2:'.length)),
				'utf8',
			)
			.replace(/^\uFEFF/, ''); // n8n writes a BOM
		const lines = csv.split(/\r?\n/).filter((line) => line !== '');
		expect(lines).toHaveLength(seeded.length + 1);
		const header = lines[0].split(',').map((cell) => cell.replace(/"/g, ''));
		expect(header).toContain('id');
		const idColumn = header.indexOf('id');
		expect(
			lines
				.slice(1)
				.map((line) => line.split(',')[idColumn].replace(/"/g, ''))
				.sort(),
		).toEqual([...ids].sort());
	});

	test('wrong secret: the run fails at the transfer with an error that names the signature; no secret in any output; nothing transferred', async () => {
		const ex = EXAMPLES.scheduledTransfer;
		const result = await run(BAD_TRANSFER_ID);
		expect(result.ok).toBe(false);
		expect(result.exitCode).not.toBe(0);

		const error = getNodeError(result.run, ex.transfer);
		expect(error).toBeDefined();
		expect(result.error?.node?.name).toBe(ex.transfer);
		expect(error!.message).toMatch(/signature/i);
		expect(String(error!.description)).toMatch(/Secret Key/);
		// The exchange family's code for a bad signature (docs/error-codes.md).
		expect(String(error!.description)).toMatch(/code 0002/);
		expect(String(error!.description)).toMatch(/Outcome: rejected/);
		expect(Object.keys(result.run.data.resultData.runData)).not.toContain(ex.check);

		// The service refused it: no transfer, balances unchanged.
		const requests = fx.sb.ledger.requests.filter(
			(r) => r.path === '/api/v1/account/assetTransfer',
		);
		expect(requests.length).toBeGreaterThanOrEqual(1);
		expect(requests.every((r) => r.code === '0002')).toBe(true);
		expect(fx.sb.ledger.transfers).toHaveLength(0);
		expect(fx.sb.getBalance(DEMO_ACCOUNTS.mainTrading, 'USDT')).toBe('100000');
	});
});

/**
 * Generated client order IDs must not repeat across n8n instances: execution ids are a
 * per-database counter (1, 2, 3, ...), so a second instance (a new container without the old
 * database, a staging next to production) would repeat them; the node derives them from the
 * instant n8n established the execution instead (writes/writeSession.ts). Found by this suite.
 */
describeE2E('generated client order IDs do not repeat across n8n instances', () => {
	let fx: E2eFixture;
	let twin: string;

	beforeAll(async () => {
		fx = await setUpN8nWithSandbox({
			prefix: 'n8n-e2e-twin-a-',
			workflows: [loadExample('batchOrders')],
		});
		// A second n8n instance: the same set-up, its own database (a copy made before any run).
		twin = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-twin-b-'));
		fs.cpSync(fx.userFolder, twin, { recursive: true });
	});

	afterAll(async () => {
		await fx?.cleanup();
		if (twin) fs.rmSync(twin, { recursive: true, force: true });
	});

	let secondItems: Array<Record<string, unknown>> = [];

	test('two instances with their own databases each run the batch-orders example once: both runs succeed', async () => {
		const ex = EXAMPLES.batchOrders;
		const first = await executeWorkflow(fx.env, ex.id);
		expect(first.ok).toBe(true);
		expect(
			getNodeItems(first.run, ex.createMany).every(
				(item) => item.success === true && item.alreadyPlaced === undefined,
			),
		).toBe(true);
		expect(fx.sb.ledger.orders).toHaveLength(45);

		const second = await executeWorkflow(
			await createN8nEnv({ userFolder: twin, extra: QUIET_N8N_ENV }),
			ex.id,
		);
		expect(second.ok).toBe(true);
		secondItems = getNodeItems(second.run, ex.createMany);
		expect(secondItems).toHaveLength(45);
	});

	test('the second instance places its 45 orders instead of reporting them as already placed', () => {
		expect(secondItems).toHaveLength(45);
		expect(secondItems.filter((item) => item.alreadyPlaced === true)).toHaveLength(0);
		expect(fx.sb.ledger.orders).toHaveLength(90);
	});
});
