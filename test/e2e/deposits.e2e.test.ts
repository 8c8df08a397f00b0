/**
 * Deposit Received (Trading Service Trigger, version 2) ACTIVE in a started n8n 2.41.1 (`n8n
 * start`), package installed from `npm pack`, sandbox on loopback at the documented request rates:
 * the deposit-received-transfer example (DEPOSIT_EXAMPLES.depositReceivedTransfer), Deposit
 * Received → Move Deposit to Trading Account (Transfer Asset, custody → main trading, Client
 * Transfer ID `deposit-<deposit order ID>`), polling every second (60 "every minute" crons).
 *
 * 20 deposits arrive one after another, each once the previous one's execution has finished, so
 * every poll that sees one sees one: 8 before a graceful stop of n8n, the 9th created pending
 * before the stop and made successful while n8n is down, 11 after the start on the same user
 * folder. Read back through n8n's REST API: 20 executions, one deposit each, in order, none
 * repeated, none lost; the sandbox's ledger: 20 transfers of exactly the deposited quantities.
 * Then a manual run of the example (Fetch Test Event: the newest deposit) moves nothing again: the
 * transfer is found by its Client Transfer ID.
 */
import { setTimeout as sleep } from 'timers/promises';

import { DEMO_ACCOUNTS } from '../../sandbox';
import {
	DEPOSIT_EXAMPLES,
	findNode,
	loadAnyExample,
	type Workflow,
} from '../../tools/n8n/examples';
import { leakedSecrets, setUpN8nWithSandbox, type E2eFixture } from '../../tools/n8n/fixture';
import { stopN8nGracefully } from '../../tools/n8n/graceful';
import { getNodeItems } from '../../tools/n8n/run-data';
import { startN8n, type N8nInstance } from '../../tools/n8n/server';
import { describeE2E } from '../support/describe-e2e';

const ex = DEPOSIT_EXAMPLES.depositReceivedTransfer;
const DEPOSITS_PATH = '/api/v1/account/depositOrders';

/** The example, polling every second: n8n refuses a schedule under a minute, so 60 crons. */
function everySecond(): Workflow {
	const workflow = loadAnyExample('depositReceivedTransfer');
	findNode(workflow, ex.trigger).parameters.pollTimes = {
		item: Array.from({ length: 60 }, (_, second) => ({
			mode: 'custom',
			cronExpression: `${second} * * * * *`,
		})),
	};
	return workflow;
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
		await sleep(100);
	}
}

describeE2E('Deposit Received in a started n8n: 20 deposits, a restart, 20 executions', () => {
	let fx: E2eFixture;
	let n8n: N8nInstance | undefined;
	let cookie: string;
	const logs: string[] = [];

	beforeAll(async () => {
		fx = await setUpN8nWithSandbox({ prefix: 'n8n-e2e-deposits-', workflows: [everySecond()] });
		n8n = await startN8n(fx.env);
		cookie = await n8n.login();
	});

	afterAll(async () => {
		if (n8n) {
			logs.push(n8n.logs());
			await n8n.stop();
		}
		if (fx) expect(leakedSecrets(logs.join('\n'), fx.secrets)).toEqual([]);
		await fx?.cleanup();
	});

	const executions = (count: number) =>
		n8n!.waitForExecutions(cookie, ex.id, count, { mode: 'trigger', timeoutMs: 60_000 });

	test('each deposit once, in order, across a restart of n8n; a re-run moves nothing twice', async () => {
		const sb = fx.sb;
		sb.reset();
		// Before activation: remembered by the first poll, never emitted.
		const before = sb.wallet.deposit({ coin: 'USDT', quantity: '999' });
		const requestsBefore = sb.ledger.requests.length;
		await n8n!.activateWorkflow(cookie, ex.id);
		await waitFor(
			() =>
				sb.ledger.requests.slice(requestsBefore).some((r) => r.path === DEPOSITS_PATH)
					? true
					: undefined,
			30_000,
			'the first poll',
		);
		await sleep(1500);

		const deposits: Array<{ id: string; quantity: string }> = [];
		const arrive = async (quantity: string) => {
			const made = sb.wallet.deposit({ coin: 'USDT', quantity });
			deposits.push({ id: made.depositOrderId, quantity });
			await executions(deposits.length);
		};
		for (let i = 1; i <= 8; i++) await arrive(`${i}.25000000`);

		// The 9th is created pending before the stop; a poll sees it and emits nothing.
		const pending = sb.wallet.deposit({ coin: 'USDT', quantity: '9.5', status: 12 });
		const seenAt = sb.ledger.requests.length;
		await waitFor(
			() =>
				sb.ledger.requests.slice(seenAt).some((r) => r.path === DEPOSITS_PATH) ? true : undefined,
			10_000,
			'a poll that sees the pending deposit',
		);
		const stopped = await stopN8nGracefully(n8n!);
		logs.push(n8n!.logs());
		expect(stopped.graceful).toBe(true);
		n8n = undefined;
		// While n8n is down, the pending deposit succeeds.
		sb.wallet.setDepositStatus(pending.depositOrderId, 4);
		deposits.push({ id: pending.depositOrderId, quantity: '9.5' });

		n8n = await startN8n(fx.env);
		cookie = await n8n.login();
		await executions(9);
		for (let i = 10; i <= 20; i++) await arrive(`${i}.00000001`);
		await sleep(3000);
		await n8n.deactivateWorkflow(cookie, ex.id);

		const all = await executions(20);
		all.sort((a, b) => Number(a.id) - Number(b.id));
		expect(all).toHaveLength(20);
		expect(all.every((exec) => exec.status === 'success')).toBe(true);
		const emitted = all.map((exec) =>
			getNodeItems({ data: exec.data! }, ex.trigger).map((item) => String(item.depositOrderId)),
		);
		expect(emitted).toEqual(deposits.map((d) => [d.id]));
		expect(emitted.flat()).not.toContain(before.depositOrderId);
		const moved = all.map((exec) => getNodeItems({ data: exec.data! }, ex.transfer)[0]);
		expect(moved.map((item) => item.outcome)).toEqual(deposits.map(() => 'placed'));

		// The exchange's own record: one transfer per deposit, exactly its quantity, custody → trading.
		const transfers = sb.ledger.transfers.filter((t) => t.clientOrderId.startsWith('deposit-'));
		expect(
			transfers.map((t) => [t.clientOrderId, t.quantity, t.fromAccountId, t.toAccountId]),
		).toEqual(
			deposits.map((d) => [
				`deposit-${d.id}`,
				d.quantity.replace(/0+$/, '').replace(/\.$/, ''),
				DEMO_ACCOUNTS.custody,
				DEMO_ACCOUNTS.mainTrading,
			]),
		);

		// A run of the newest deposit again (Fetch Test Event): found by its Client Transfer ID.
		const transfersBefore = sb.ledger.transfers.length;
		const again = await n8n.runWorkflowFromTrigger(cookie, ex.id, ex.trigger);
		expect(again.status).toBe('success');
		expect(getNodeItems({ data: again.data! }, ex.trigger)[0].depositOrderId).toBe(deposits[19].id);
		expect(getNodeItems({ data: again.data! }, ex.transfer)[0]).toEqual(
			expect.objectContaining({ outcome: 'placed', alreadyPlaced: true }),
		);
		expect(sb.ledger.transfers.length).toBe(transfersBefore);
		expect(sb.rateLimitStats()).toEqual({ rateLimited: 0, intoSuspension: 0 });
	});
});
