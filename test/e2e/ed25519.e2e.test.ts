/**
 * An Ed25519 (self-generated) key in a started n8n 2.41.1 (`n8n start`, driven through the
 * editor's REST API), against the sandbox's demo Ed25519 key (its public key configured):
 * - the credential's Test button passes it, and fails a private key of another pair;
 * - the Trading Service node places an order with it;
 * - n8n's stock HTTP Request node, with the credential as a predefined credential type, reads the
 *   account balance signed by the credential's own `authenticate`.
 * The private key never shows up in n8n's answers, run data or logs.
 */
import { generateKeyPairSync } from 'node:crypto';

import { DEMO_KEYS } from '../../sandbox';
import { DEMO_ED25519_PRIVATE_KEY } from '../../sandbox/constants';
import { importCredentials, importWorkflow } from '../../tools/n8n/cli';
import { CREDENTIAL_TYPE, NODE_TYPES, type Workflow } from '../../tools/n8n/examples';
import { leakedSecrets, setUpN8nWithSandbox, type E2eFixture } from '../../tools/n8n/fixture';
import { getNodeItems } from '../../tools/n8n/run-data';
import { startN8n, type N8nInstance } from '../../tools/n8n/server';
import { describeE2E } from '../support/describe-e2e';

const ED25519_CREDENTIAL = { id: 'sandbox-cred-ed25519', name: 'Trading Service Ed25519' };
const OTHER_PAIR_CREDENTIAL = { id: 'sandbox-cred-ed25519-other', name: 'Ed25519 (other pair)' };
const OTHER_PRIVATE_KEY = generateKeyPairSync('ed25519')
	.privateKey.export({ type: 'pkcs8', format: 'pem' })
	.toString();
const ORDER_WORKFLOW = 'tsEd25519Order1';
const HTTP_WORKFLOW = 'tsEd25519Http1';
const TRIGGER = 'Manual Trigger';
const ORDER_NODE = 'Buy BTC';
const HTTP_NODE = 'Read Balance';

/** Every line of the private keys but the PEM armour. */
const KEY_LINES = [DEMO_ED25519_PRIVATE_KEY, OTHER_PRIVATE_KEY].flatMap((pem) =>
	pem.split('\n').filter((line) => line !== '' && !line.startsWith('-----')),
);

function credentialData(baseUrl: string, privateKey: string) {
	return {
		baseUrl,
		signatureMethod: 'ed25519',
		apiKey: DEMO_KEYS.ed25519.apiKey,
		privateKey,
		recvWindow: 5000,
		weightBudget: 0,
		weightWindowSeconds: 60,
	};
}

function workflow(id: string, node: Record<string, unknown>): Workflow {
	return {
		id,
		name: `Trading Service Ed25519: ${String(node.name)}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: `${id}-trigger`,
				name: TRIGGER,
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: `${id}-node`,
				position: [260, 0],
				credentials: { [CREDENTIAL_TYPE]: { ...ED25519_CREDENTIAL } },
				...node,
			} as unknown as Workflow['nodes'][number],
		],
		connections: { [TRIGGER]: { main: [[{ node: String(node.name), type: 'main', index: 0 }]] } },
		pinData: {},
	};
}

describeE2E('an Ed25519 credential in a started n8n (REST API)', () => {
	let fx: E2eFixture;
	let n8n: N8nInstance;
	let cookie: string;

	beforeAll(async () => {
		// The HTTP Request node's URL names the sandbox's address, known once it listens: the
		// credentials and workflows are imported after the set-up.
		fx = await setUpN8nWithSandbox({ prefix: 'n8n-e2e-ed25519-', workflows: [] });
		await importCredentials(fx.env, [
			{
				...ED25519_CREDENTIAL,
				type: CREDENTIAL_TYPE,
				data: credentialData(fx.sb.baseUrl, DEMO_ED25519_PRIVATE_KEY),
			},
			{
				...OTHER_PAIR_CREDENTIAL,
				type: CREDENTIAL_TYPE,
				data: credentialData(fx.sb.baseUrl, OTHER_PRIVATE_KEY),
			},
		]);
		await importWorkflow(fx.env, [
			workflow(ORDER_WORKFLOW, {
				name: ORDER_NODE,
				type: NODE_TYPES.action,
				typeVersion: 2,
				parameters: {
					resource: 'order',
					operation: 'create',
					symbol: 'BTCUSDT',
					side: 'BUY',
					type: 'LIMIT',
					price: '100',
					quantity: '0.2',
				},
			}),
			workflow(HTTP_WORKFLOW, {
				name: HTTP_NODE,
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				parameters: {
					method: 'GET',
					url: `${fx.sb.baseUrl}/api/v1/account`,
					authentication: 'predefinedCredentialType',
					nodeCredentialType: CREDENTIAL_TYPE,
					options: {},
				},
			}),
		]);
		n8n = await startN8n(fx.env);
		cookie = await n8n.login();
	});

	afterAll(async () => {
		await n8n?.stop();
		if (n8n) expect(leakedSecrets(n8n.logs(), KEY_LINES)).toEqual([]);
		await fx?.cleanup();
	});

	const expectNoKey = (value: unknown) =>
		expect(
			leakedSecrets(typeof value === 'string' ? value : JSON.stringify(value), KEY_LINES),
		).toEqual([]);

	async function testCredential(credential: { id: string; name: string }) {
		// As the editor does: read the credential (secrets come back redacted) and send it to test.
		const stored = await n8n.request<{ data: { data: Record<string, unknown> } }>(
			'GET',
			`/rest/credentials/${credential.id}?includeData=true`,
			{ cookie },
		);
		expect(stored.status).toBe(200);
		expectNoKey(stored.text);
		const res = await n8n.request<{ data: { status: string; message: string } }>(
			'POST',
			'/rest/credentials/test',
			{
				cookie,
				body: {
					credentials: { ...credential, type: CREDENTIAL_TYPE, data: stored.body.data.data },
				},
			},
		);
		expect(res.status).toBe(200);
		expectNoKey(res.text);
		return res.body.data;
	}

	test("the credential's Test button passes the Ed25519 credential and fails another pair's key", async () => {
		fx.sb.reset();
		expect(await testCredential(ED25519_CREDENTIAL)).toMatchObject({ status: 'OK' });
		const checks = fx.sb.ledger.requests.filter((r) => r.path === '/api/v1/account/checkApiKey');
		expect(checks.map((r) => r.status)).toEqual([200]);
		expect(checks[0].query).toMatch(/&signature=[A-Za-z0-9%]{88,}$/);
		expect(await testCredential(OTHER_PAIR_CREDENTIAL)).toMatchObject({ status: 'Error' });
		expect(fx.sb.ledger.requests.at(-1)?.code).toBe('0002');
	});

	test('the Trading Service node places an order with it', async () => {
		fx.sb.reset();
		const exec = await n8n.runWorkflowFromTrigger(cookie, ORDER_WORKFLOW, TRIGGER);
		expect(exec.status).toBe('success');
		expectNoKey(exec);
		expect(fx.sb.ledger.orders).toHaveLength(1);
		const [item] = getNodeItems({ data: exec.data! }, ORDER_NODE);
		expect(item).toMatchObject({ orderId: fx.sb.ledger.orders[0].orderId, symbol: 'BTCUSDT' });
	});

	test("n8n's HTTP Request node with the credential (predefined type) reads the balance", async () => {
		fx.sb.reset();
		const exec = await n8n.runWorkflowFromTrigger(cookie, HTTP_WORKFLOW, TRIGGER);
		expect(exec.status).toBe('success');
		expectNoKey(exec);
		const [account] = getNodeItems({ data: exec.data! }, HTTP_NODE);
		const balances = (account as { balances?: Array<{ asset: string; total: string }> }).balances;
		expect(balances?.find((b) => b.asset === 'USDT')?.total).toBe('100000');
		const read = fx.sb.ledger.requests.filter((r) => r.path === '/api/v1/account');
		expect(read.map((r) => r.status)).toEqual([200]);
	});
});
