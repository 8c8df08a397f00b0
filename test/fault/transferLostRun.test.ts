/**
 * Transfers after a lost run (issue 39, defects 5 and 7), through real n8n-core against the
 * sandbox. A run a crash cut short is, in-process, a run whose node context (its write ledger) the
 * next run does not get: the next run carries the execution context n8n established (a
 * re-delivery: the same execution, late; a retry: mode `retry`, lostRunOf).
 *
 * - A history that lists a transfer late (behaviour `transferHistoryLagMs`): the lookup waits for
 *   it as long as the node allows the history, and a refusal of the generated client order ID as
 *   already used is the lost run's transfer: `placed`, `alreadyPlaced`, never `rejected`.
 * - A late run without any sign of a lost run sends its transfer also when its key may not read
 *   the history; a retry (a sign of one) does not, and its error names the permission to add.
 */
import type { IDataObject } from 'n8n-workflow';

import { DEMO_ACCOUNTS, DEMO_KEYS } from '../../sandbox';
import { requestsTo, runTradingService, type NodeRun } from '../../tools/harness/node';
import { forgetServices } from '../../nodes/TradingService/transport/pacing';
import { PATHS } from '../support/runs';
import { useSandbox } from '../support/sandbox';

const { transfer: TRANSFER, history: HISTORY } = PATHS;
const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'lenient' });

const RETRY_ON_FAIL = { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 };
const BY_REFUSAL = 'the exchange refused the client order ID as already used';

const parameters = (quantity = '7.5'): IDataObject => ({
	resource: 'account',
	operation: 'transferAsset',
	fromAccountId: DEMO_ACCOUNTS.mainTrading,
	toAccountId: DEMO_ACCOUNTS.subTrading,
	coin: 'USDT',
	quantity,
});

/** The execution context of an execution n8n established `agoMs` ago (a re-delivered one is late). */
const establishedAgo = (agoMs: number): IDataObject => ({
	version: 1,
	establishedAt: Date.now() - agoMs,
	source: 'webhook',
});

/** The lost run: it made its transfer, and its ledger died with its process. */
async function lostRun(runtimeData?: IDataObject): Promise<NodeRun> {
	const lost = await runTradingService(sandbox(), { parameters: parameters(), runtimeData });
	expect(lost.items[0].json.outcome).toBe('placed');
	expect(sandbox().ledger.transfers).toHaveLength(1);
	// The process is gone, and with it its pacing.
	forgetServices();
	return lost;
}

describe('defect 5: the lost run’s transfer, listed late by the history, is never reported rejected', () => {
	it('re-delivered (late) run, history a minute late: the refused client order ID is the lost run’s transfer, placed, once', async () => {
		sandbox().setBehaviour({ transferHistoryLagMs: 60_000 });
		const runtimeData = establishedAgo(30_000);
		const lost = await lostRun(runtimeData);
		const since = sandbox().ledger.requests.length;
		const again = await runTradingService(sandbox(), {
			parameters: parameters(),
			runtimeData,
			continueOnFail: true,
			node: RETRY_ON_FAIL,
		});
		expect(again.error).toBeUndefined();
		expect(again.items).toHaveLength(1);
		expect(again.items[0].json).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			clientOrderId: lost.items[0].json.clientOrderId,
			foundBy: BY_REFUSAL,
		});
		expect(JSON.stringify(again.items[0].json)).not.toMatch(/moved nothing|rejected/);
		expect(sandbox().ledger.transfers).toHaveLength(1);
		// One attempt, refused: nothing moved by this run.
		expect(requestsTo(sandbox(), TRANSFER, since)).toHaveLength(1);
	});

	it('retry, history a minute late: waits out the receive window and the history, then the refusal says the lost run made it: placed', async () => {
		sandbox().setBehaviour({ transferHistoryLagMs: 60_000 });
		const lost = await lostRun();
		const since = sandbox().ledger.requests.length;
		const again = await runTradingService(sandbox(), {
			parameters: parameters(),
			lostRunOf: lost,
			mode: 'retry',
			continueOnFail: true,
		});
		expect(again.items[0].json).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			clientOrderId: lost.items[0].json.clientOrderId,
			foundBy: BY_REFUSAL,
		});
		expect(sandbox().ledger.transfers).toHaveLength(1);
		// The history was read again while the node allows it to lag, before anything was sent.
		expect(requestsTo(sandbox(), HISTORY, since).length).toBeGreaterThan(2);
	}, 60_000);

	it('retry, history 12 s late: the lookup waits for it and finds the transfer; nothing is sent', async () => {
		sandbox().setBehaviour({ transferHistoryLagMs: 12_000 });
		const lost = await lostRun();
		const since = sandbox().ledger.requests.length;
		const again = await runTradingService(sandbox(), {
			parameters: parameters(),
			lostRunOf: lost,
			mode: 'retry',
			continueOnFail: true,
		});
		expect(again.items[0].json).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			confirmedByLookup: true,
			clientOrderId: lost.items[0].json.clientOrderId,
			orderId: sandbox().ledger.transfers[0].id,
		});
		expect(requestsTo(sandbox(), TRANSFER, since)).toEqual([]);
		expect(sandbox().ledger.transfers).toHaveLength(1);
	}, 60_000);
});

describe('defect 7: late is not lost', () => {
	it('a run 30 s late in its execution, no lost run, key without history permission: the transfer is sent, once, placed', async () => {
		sandbox().setBehaviour({ historyRefusedKeys: [DEMO_KEYS.master.apiKey] });
		const run = await runTradingService(sandbox(), {
			parameters: parameters(),
			runtimeData: establishedAgo(30_000),
			continueOnFail: true,
			node: RETRY_ON_FAIL,
		});
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', success: true });
		expect(run.items[0].json.alreadyPlaced).toBeUndefined();
		expect(sandbox().ledger.transfers).toHaveLength(1);
		expect(sandbox().ledger.transfers[0].clientOrderId).toBe(run.items[0].json.clientOrderId);

		// Run after run (new executions, each late): each sends its own transfer.
		const next = await runTradingService(sandbox(), {
			parameters: parameters(),
			runtimeData: establishedAgo(45_000),
			continueOnFail: true,
		});
		expect(next.items[0].json).toMatchObject({ outcome: 'placed', success: true });
		expect(sandbox().ledger.transfers).toHaveLength(2);
	});

	it('a re-delivered run whose lost run made the transfer, key without history permission: the refusal of the reused ID says so: placed, once', async () => {
		sandbox().setBehaviour({ historyRefusedKeys: [DEMO_KEYS.master.apiKey] });
		const runtimeData = establishedAgo(30_000);
		const lost = await lostRun(runtimeData);
		const again = await runTradingService(sandbox(), {
			parameters: parameters(),
			runtimeData,
			continueOnFail: true,
		});
		expect(again.items[0].json).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			clientOrderId: lost.items[0].json.clientOrderId,
			foundBy: BY_REFUSAL,
		});
		expect(sandbox().ledger.transfers).toHaveLength(1);
	});

	it('a retry (a sign of a lost run) whose key may not read the history: unknown, not sent, and the error names the permission to add', async () => {
		const lost = await lostRun();
		sandbox().setBehaviour({ historyRefusedKeys: [DEMO_KEYS.master.apiKey] });
		const since = sandbox().ledger.requests.length;
		const again = await runTradingService(sandbox(), {
			parameters: parameters(),
			lostRunOf: lost,
			mode: 'retry',
			continueOnFail: true,
		});
		expect(again.items[0].json.outcome).toBe('unknown');
		expect(JSON.stringify(again.items[0].json)).toMatch(
			/may not read the account history.*give the API key permission to read the account history/,
		);
		expect(requestsTo(sandbox(), TRANSFER, since)).toEqual([]);
		expect(sandbox().ledger.transfers).toHaveLength(1);
	}, 30_000);
});
