/**
 * The funding-fee-alert example (Trading Service Trigger -> Set) and the credential's Test button
 * in a started n8n 2.41.1 (`n8n start`; also on n8n 1.123.81, jest.e2e.n8n1.config.js), driven
 * through the editor's REST API.
 *
 * Why not `n8n execute`: the CLI only starts workflows at a Manual Trigger; it cannot run a
 * polling trigger. The editor's routes can:
 *  - "Fetch Test Event" / "Execute workflow": POST /rest/workflows/<id>/run with
 *    {triggerToStartFrom: {name}} calls poll() once in manual mode (the newest record; static data
 *    is not saved);
 *  - activation: POST /rest/workflows/<id>/activate polls at once in trigger mode (the first poll
 *    only stores its watermark) and then on the node's Poll Times schedule.
 */
import { DEMO_ACCOUNTS, type HistoryRecord } from '../../sandbox';
import {
	CREDENTIAL_TYPE,
	EXAMPLES,
	SANDBOX_CREDENTIAL,
	findNode,
	loadExample,
	type Workflow,
} from '../../tools/n8n/examples';
import { describeE2E } from '../support/describe-e2e';
import {
	BAD_CREDENTIAL,
	leakedSecrets,
	setUpN8nWithSandbox,
	type E2eFixture,
} from '../../tools/n8n/fixture';
import type { RestExecution } from '../../tools/n8n/rest';
import { getNodeItems } from '../../tools/n8n/run-data';
import { startN8n, type N8nInstance } from '../../tools/n8n/server';
import { getRuntime } from '../../tools/n8n/runtime';

const ex = EXAMPLES.fundingFeeAlert;
const HOUR_MS = 3600_000;

function alertText(record: {
	change: string;
	coin: string;
	symbol?: string;
	created: string;
}): string {
	const d = new Date(Number(record.created)).toISOString(); // 2026-01-31T08:00:00.000Z
	return `Funding fee ${record.change} ${record.coin} on ${record.symbol} at ${d.slice(0, 10)} ${d.slice(11, 16)} UTC`;
}

function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs: number): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
		await sleep(100);
	}
}

describeE2E('funding-fee alert and the credential test in a started n8n (REST API)', () => {
	let fx: E2eFixture;
	let n8n: N8nInstance;
	let cookie: string;

	beforeAll(async () => {
		fx = await setUpN8nWithSandbox({
			prefix: 'n8n-e2e-trigger-',
			workflows: [loadExample('fundingFeeAlert')],
		});
		n8n = await startN8n(fx.env);
		cookie = await n8n.login();
	});

	afterAll(async () => {
		await n8n?.stop();
		if (n8n && fx) expect(leakedSecrets(n8n.logs(), fx.secrets)).toEqual([]);
		await fx?.cleanup();
	});

	function expectNoSecrets(value: unknown): void {
		expect(
			leakedSecrets(typeof value === 'string' ? value : JSON.stringify(value), fx.secrets),
		).toEqual([]);
	}

	function addFundingFees(
		records: Array<{ symbol: string; change: string; created: number }>,
	): HistoryRecord[] {
		return fx.sb.addRecords(
			records.map((r) => ({
				accountId: DEMO_ACCOUNTS.mainContract,
				flowTypeValue: 32,
				coin: 'USDT',
				symbol: r.symbol,
				change: r.change,
				created: String(r.created),
			})),
		);
	}

	function setItems(exec: RestExecution): Array<Record<string, unknown>> {
		return getNodeItems({ data: exec.data! }, ex.message);
	}

	test('manual poll (Execute workflow from the trigger): the newest funding fee goes through the Set node', async () => {
		fx.sb.reset();
		const now = fx.sb.now();
		const [, , newest] = addFundingFees([
			{ symbol: 'BTCUSDT-PERPETUAL', change: '-1.25', created: now - 3 * HOUR_MS },
			{ symbol: 'ETHUSDT-PERPETUAL', change: '0.4', created: now - 2 * HOUR_MS },
			{ symbol: 'ETHUSDT-PERPETUAL', change: '-0.731', created: now - HOUR_MS },
		]);

		const exec = await n8n.runWorkflowFromTrigger(cookie, ex.id, ex.trigger);
		expect(exec.status).toBe('success');
		expect(exec.mode).toBe('manual');
		expectNoSecrets(exec);

		const trigger = getNodeItems({ data: exec.data! }, ex.trigger);
		expect(trigger).toHaveLength(1);
		expect(trigger[0]).toMatchObject({
			id: newest.id,
			change: '-0.731',
			symbol: 'ETHUSDT-PERPETUAL',
			flowTypeValue: 32,
		});
		expect(setItems(exec)).toEqual([
			{ message: alertText(newest), paid: true, recordId: newest.id },
		]);

		// Only reads were sent.
		expect(fx.sb.ledger.requests.length).toBeGreaterThan(0);
		expect(
			fx.sb.ledger.requests.every(
				(r) => r.method === 'GET' && r.path === '/api/v1/account/balanceFlow' && r.status === 200,
			),
		).toBe(true);
	});

	test('activation: the first poll stores its watermark and emits nothing; the next scheduled poll emits only the new records, oldest first', async () => {
		fx.sb.reset();
		const now = fx.sb.now();
		addFundingFees([
			{ symbol: 'BTCUSDT-PERPETUAL', change: '-2.5', created: now - 16 * HOUR_MS },
			{ symbol: 'ETHUSDT-PERPETUAL', change: '-0.2', created: now - 8 * HOUR_MS },
		]);

		// n8n refuses poll schedules under a minute. A custom cron with one fixed second is "every
		// minute"; pick the second ~20 s from now, so the next scheduled poll comes soon and at a known time.
		const wf = (await n8n.getWorkflow(cookie, ex.id)) as {
			nodes: Array<{ name: string; parameters: Record<string, unknown> }>;
			versionId: string;
		};
		const second = Math.floor((Date.now() + 20_000) / 1000) % 60;
		findNode(wf as unknown as Workflow, ex.trigger).parameters.pollTimes = {
			item: [{ mode: 'custom', cronExpression: `${second} * * * * *` }],
		};
		const patched = await n8n.request('PATCH', `/rest/workflows/${ex.id}`, {
			cookie,
			body: { nodes: wf.nodes, versionId: wf.versionId },
		});
		expect(patched.status).toBe(200);

		const requestsBefore = fx.sb.ledger.requests.length;
		const activatedAt = Date.now();
		await n8n.activateWorkflow(cookie, ex.id);
		try {
			// Activation starts the first poll (n8n 2.41.1 answers before it is done): it reads the
			// history once, stores the watermark and emits nothing.
			const baseline = await waitFor(() => {
				const sent = fx.sb.ledger.requests.slice(requestsBefore);
				return sent.length > 0 ? sent : undefined;
			}, 30_000);
			await sleep(1000);
			expect(baseline.length).toBeGreaterThanOrEqual(1);
			expect(
				baseline.every((r) => r.path === '/api/v1/account/balanceFlow' && r.status === 200),
			).toBe(true);
			expect(
				(await n8n.listExecutions(cookie, ex.id)).filter((e) => e.mode === 'trigger'),
			).toHaveLength(0);

			// New funding fees arrive after the baseline.
			const t = fx.sb.now();
			const added = addFundingFees([
				{ symbol: 'BTCUSDT-PERPETUAL', change: '-0.05', created: t - 2000 },
				{ symbol: 'ETHUSDT-PERPETUAL', change: '0.125', created: t - 1000 },
			]);

			const [exec, ...more] = await n8n.waitForExecutions(cookie, ex.id, 1, {
				mode: 'trigger',
				timeoutMs: 100_000,
			});
			expect(more).toHaveLength(0);
			expect(exec.status).toBe('success');
			expectNoSecrets(exec);
			// The next poll came on schedule (at most a minute after activation, plus the run itself).
			expect(new Date(String(exec.startedAt)).getTime() - activatedAt).toBeLessThan(75_000);

			const trigger = getNodeItems({ data: exec.data! }, ex.trigger);
			expect(trigger.map((r) => r.id)).toEqual(added.map((r) => r.id));
			expect(setItems(exec)).toEqual([
				{ message: alertText(added[0]), paid: true, recordId: added[0].id },
				{ message: alertText(added[1]), paid: false, recordId: added[1].id },
			]);
		} finally {
			await n8n.deactivateWorkflow(cookie, ex.id);
		}
	});

	test("the credential's Test button (POST /rest/credentials/test): the sandbox credential passes, a wrong secret fails", async () => {
		fx.sb.reset();
		// As the editor does: read the credential (secrets come back redacted) and send it to test.
		async function testCredential(credential: { id: string; name: string }) {
			const stored = await n8n.request<{ data: { data: Record<string, unknown> } }>(
				'GET',
				`/rest/credentials/${credential.id}?includeData=true`,
				{ cookie },
			);
			expect(stored.status).toBe(200);
			expectNoSecrets(stored.text);
			const res = await n8n.request<{ data: { status: string; message: string } }>(
				'POST',
				'/rest/credentials/test',
				{
					cookie,
					body: {
						credentials: {
							id: credential.id,
							name: credential.name,
							type: CREDENTIAL_TYPE,
							data: stored.body.data.data,
						},
					},
				},
			);
			expect(res.status).toBe(200);
			expectNoSecrets(res.text);
			return res.body.data;
		}

		expect(await testCredential(SANDBOX_CREDENTIAL)).toMatchObject({ status: 'OK' });
		const good = fx.sb.ledger.requests.filter((r) => r.path === '/api/v1/account/checkApiKey');
		expect(good.length).toBeGreaterThanOrEqual(1);
		expect(good.every((r) => r.status === 200)).toBe(true);

		const bad = await testCredential(BAD_CREDENTIAL);
		expect(bad.status).toBe('Error');
		// The credential's test has a `rules` entry for HTTP 400 (otherwise n8n would show only the
		// status text, "Bad Request"). n8n 1.x (1.123.81) does not reach the rules for this error: it
		// shows the node error's own message.
		expect(bad.message).toBe(
			getRuntime().major === 1
				? 'Bad request - please check your parameters'
				: 'The service refused the signed request: check the API Key and the Secret Key or Private Key (they must belong together), that the key has not expired (keys unused for 90 days expire) and allows this server’s IP address (API Management page of the exchange), and that this server’s clock is right',
		);
		expect(fx.sb.ledger.requests.some((r) => r.code === '0002')).toBe(true);
	});
});
