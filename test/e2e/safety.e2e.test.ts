/**
 * Money safety in a real n8n 2.41.1 (`n8n execute`, the package installed as users install it),
 * against the sandbox in this process, whose ledger says what was really placed and transferred:
 * - a single order the service committed but never answered is reported placed, and not sent again;
 * - a transfer the service committed but never answered, with Retry On Fail on (3 tries), leaves
 *   exactly one transfer and is reported unknown: n8n's re-runs of the node do not send it again.
 */
import { DEMO_ACCOUNTS, DEMO_KEYS } from '../../sandbox';
import { NODE_TYPES, SANDBOX_CREDENTIAL, type Workflow } from '../../tools/n8n/examples';
import { setUpN8nWithSandbox, type E2eFixture } from '../../tools/n8n/fixture';
import { runWorkflow, type CheckedRun } from '../support/e2eRuns';
import { getNodeError, getNodeItems } from '../../tools/n8n/run-data';
import { describeE2E } from '../support/describe-e2e';

const ORDER_PATH = '/api/v1/spot/new/order';
const TRANSFER_PATH = '/api/v1/account/assetTransfer';
const ORDER_WORKFLOW = 'tsSafetyOrder1';
const TRANSFER_WORKFLOW = 'tsSafetyTransfer1';
const ORDER_NODE = 'Buy ETH';
const TRANSFER_NODE = 'Transfer USDT';

function workflow(
	id: string,
	node: { name: string; parameters: Record<string, unknown>; [setting: string]: unknown },
): Workflow {
	return {
		id,
		name: `Trading Service safety: ${node.name}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: `${id}-trigger`,
				name: 'Manual Trigger',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: `${id}-node`,
				type: NODE_TYPES.action,
				typeVersion: 1,
				position: [260, 0],
				credentials: { tradingServiceApi: { ...SANDBOX_CREDENTIAL } },
				...node,
			},
		],
		connections: { 'Manual Trigger': { main: [[{ node: node.name, type: 'main', index: 0 }]] } },
		pinData: {},
	};
}

const orderWorkflow = workflow(ORDER_WORKFLOW, {
	name: ORDER_NODE,
	parameters: {
		resource: 'order',
		operation: 'create',
		symbol: 'ETHUSDT',
		side: 'BUY',
		type: 'LIMIT',
		price: '100',
		// worth 20 USDT: at least ETHUSDT's minimum notional (10)
		quantity: '0.2',
	},
});

const transferWorkflow = workflow(TRANSFER_WORKFLOW, {
	name: TRANSFER_NODE,
	// n8n's Retry On Fail as a user sets it in the node's Settings (n8n takes a wait of 0 as its default, 1 s).
	retryOnFail: true,
	maxTries: 3,
	waitBetweenTries: 0,
	parameters: {
		resource: 'account',
		operation: 'transferAsset',
		fromAccountId: DEMO_ACCOUNTS.mainTrading,
		toAccountId: DEMO_ACCOUNTS.subTrading,
		coin: 'USDT',
		quantity: '25',
	},
});

describeE2E('money safety in a real n8n (n8n execute)', () => {
	let fx: E2eFixture;

	beforeAll(async () => {
		fx = await setUpN8nWithSandbox({
			prefix: 'n8n-e2e-safety-',
			workflows: [orderWorkflow, transferWorkflow],
		});
	});

	afterAll(async () => {
		await fx?.cleanup();
	});

	beforeEach(() => {
		fx.sb.reset();
	});

	const run = (workflowId: string): Promise<CheckedRun> => runWorkflow(fx, workflowId);

	test('a single order committed but never answered (connection dropped) is reported placed, with the order the service holds', async () => {
		fx.sb.setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: ORDER_PATH }] });
		const result = await run(ORDER_WORKFLOW);

		const sent = fx.sb.ledger.requests.filter((request) => request.path === ORDER_PATH);
		expect(sent[0]?.fault).toBe('dropAfter');
		expect(sent[0]?.appliedStatus).toBe(200);
		// Exactly one order exists, and it is the one the node reports.
		expect(fx.sb.ledger.orders).toHaveLength(1);
		const [placed] = fx.sb.ledger.orders;
		expect(result.error).toBeUndefined();
		expect(result.ok).toBe(true);
		const items = getNodeItems(result.run, ORDER_NODE);
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({
			outcome: 'placed',
			orderId: placed.orderId,
			clientOrderId: placed.clientOrderId,
			symbol: 'ETHUSDT',
		});
		expect(items[0].error).toBeUndefined();
	});

	test('a transfer committed but never answered is found in the transfer history by its client order ID: one transfer, reported placed', async () => {
		fx.sb.setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: TRANSFER_PATH }] });
		const result = await run(TRANSFER_WORKFLOW);

		expect(fx.sb.ledger.transfers).toHaveLength(1);
		const sent = fx.sb.ledger.requests.filter((request) => request.path === TRANSFER_PATH);
		expect(sent).toHaveLength(1);
		expect(result.ok).toBe(true);
		const items = getNodeItems(result.run, TRANSFER_NODE);
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({
			outcome: 'placed',
			confirmedByLookup: true,
			clientOrderId: fx.sb.ledger.transfers[0].clientOrderId,
		});
	});

	test('a transfer committed but never answered, the transfer history unreadable, with Retry On Fail on (3 tries), leaves exactly one transfer and is reported unknown', async () => {
		fx.sb.setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: TRANSFER_PATH }] });
		fx.sb.setBehaviour({ historyRefusedKeys: [DEMO_KEYS.master.apiKey] });
		const result = await run(TRANSFER_WORKFLOW);

		expect(fx.sb.ledger.transfers).toHaveLength(1);
		expect(fx.sb.ledger.transfers[0]).toMatchObject({
			fromAccountId: DEMO_ACCOUNTS.mainTrading,
			toAccountId: DEMO_ACCOUNTS.subTrading,
			quantity: '25',
		});
		expect(fx.sb.getBalance(DEMO_ACCOUNTS.subTrading, 'USDT')).toBe('10025');
		const sent = fx.sb.ledger.requests.filter((request) => request.path === TRANSFER_PATH);
		expect(sent).toHaveLength(1);

		// The run fails at the transfer (it did not end placed), with an unknown outcome: never "rejected".
		expect(result.ok).toBe(false);
		const error = getNodeError(result.run, TRANSFER_NODE);
		expect(error).toBeDefined();
		expect(error!.message).toMatch(/^Unknown outcome: /);
		// The last try is n8n's re-run of the node, refused from the write ledger: Retry On Fail did run.
		expect(error!.message).toMatch(/an earlier try of this node run sent it/);
		const description = String(error!.description);
		expect(description).toMatch(/Outcome: unknown/);
		expect(description).not.toMatch(/nothing was executed/i);
		const context = (error as { context?: { outcome?: string } }).context;
		if (context?.outcome !== undefined) expect(context.outcome).toBe('unknown');
	});
});
