/**
 * Deposit Received (version 2) through n8n-core's real poll path against the sandbox: the baseline
 * at activation, each successful deposit once and oldest first, a deposit that succeeds polls after
 * it was created (older than the late window), a restart from the static data n8n saved at the last
 * emit, the Coin filter, Fetch Test Event, and every read a query of the deposit list.
 */
import { mock } from 'jest-mock-extended';
import { PollContext } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';

import { TradingServiceTrigger } from '../../../../nodes/TradingService/TradingServiceTrigger.node';
import {
	MAX_HELD_DEPOSITS,
	MAX_REMEMBERED_DEPOSITS,
} from '../../../../nodes/TradingService/trigger/deposits';
import { WALLET_ENDPOINTS } from '../../../../nodes/TradingService/wallet/endpoints';
import { DEMO_ACCOUNTS, type Sandbox } from '../../../../sandbox';
import { runTradingService } from '../../../../tools/harness/node';
import { DEPOSIT_EXAMPLES, findNode, loadAnyExample } from '../../../../tools/n8n/examples';
import { useSandbox } from '../../../support/sandbox';
import { pollCounting, triggerRunner } from '../../../support/trigger';

const DEPOSITS = '/api/v1/account/depositOrders';
const HOUR = 60 * 60 * 1000;
const sandbox = useSandbox({ rateLimit: false, requestRates: false });

const runner = (s: Sandbox, parameters: IDataObject = {}, staticData?: IDataObject) =>
	triggerRunner(s, {
		typeVersion: 2,
		parameters: { event: 'depositReceived', ...parameters },
		staticData,
	});

async function poll(active: ReturnType<typeof runner>, mode: 'trigger' | 'manual' = 'trigger') {
	const outcome = await pollCounting(sandbox(), active, mode);
	if (mode === 'trigger') expect(outcome.error).toBeUndefined();
	return { ...outcome, orderIds: outcome.items.map((item) => String(item.json.depositOrderId)) };
}

const deposit = (quantity: string, extra: { status?: number; time?: number; coin?: string } = {}) =>
	sandbox().wallet.deposit({ coin: extra.coin ?? 'USDT', quantity, ...extra }).depositOrderId;

/** What the trigger logs as warnings (n8n's logger, which the node reaches through its context). */
function warnings(): string[] {
	const logged: string[] = [];
	const logger = mock<PollContext['logger']>();
	logger.warn.mockImplementation((message: string) => void logged.push(message));
	jest.spyOn(PollContext.prototype, 'logger', 'get').mockReturnValue(logger);
	return logged;
}

afterEach(() => jest.restoreAllMocks());

describe('Deposit Received', () => {
	it('is an event of version 2 only, named in the subtitle; Account Type and Direction hidden for it', () => {
		const { description } = new TradingServiceTrigger();
		const events = description.properties.filter((property) => property.name === 'event');
		const values = (index: number) =>
			(events[index].options as Array<{ value: unknown }>).map((option) => option.value);
		expect(values(0)).not.toContain('depositReceived');
		expect(values(1)).toContain('depositReceived');
		expect(description.subtitle).toContain('"depositReceived":"Deposit Received"');
		const accountType = description.properties.find((property) => property.name === 'accountType');
		expect(accountType?.displayOptions?.hide?.event).toContain('depositReceived');
	});

	it('remembers what exists at activation, then emits each successful deposit once, oldest first', async () => {
		deposit('1', { time: Date.now() - HOUR });
		const active = runner(sandbox());
		expect((await poll(active)).emitted).toBeNull();
		const a = deposit('2.000000000000000001', { time: Date.now() - 2000 });
		const b = deposit('3', { time: Date.now() - 1000 });
		deposit('4', { status: 3 });
		const fired = await poll(active);
		expect(fired.orderIds).toEqual([a, b]);
		expect(fired.items[0].json).toEqual(
			expect.objectContaining({
				quantity: '2.000000000000000001',
				status: 4,
				statusCode: '4',
				statusText: 'successful',
				coin: 'USDT',
			}),
		);
		expect((await poll(active)).emitted).toBeNull();
		// One request a poll, the deposit list, signed, a query.
		expect(fired.requests.map((request) => request.path)).toEqual([DEPOSITS]);
		expect('rateClass' in WALLET_ENDPOINTS.deposits).toBe(false);
	});

	it('emits a deposit when it succeeds, hours after it was created, once; a failed one is not', async () => {
		const pendingAtActivation = deposit('5', { status: 1, time: Date.now() - 3 * HOUR });
		const active = runner(sandbox());
		await poll(active);
		const later = deposit('6', { status: 12, time: Date.now() - 2 * HOUR });
		const failing = deposit('7', { status: 12, time: Date.now() - 2 * HOUR });
		expect((await poll(active)).emitted).toBeNull();
		sandbox().wallet.setDepositStatus(later, 8);
		sandbox().wallet.setDepositStatus(failing, 3);
		expect((await poll(active)).emitted).toBeNull();
		sandbox().wallet.setDepositStatus(later, 4);
		expect((await poll(active)).orderIds).toEqual([later]);
		sandbox().wallet.setDepositStatus(pendingAtActivation, 4);
		expect((await poll(active)).orderIds).toEqual([pendingAtActivation]);
		expect((await poll(active)).emitted).toBeNull();
	});

	it('across a restart from the static data saved at the last emit: nothing twice, nothing lost', async () => {
		const first = runner(sandbox());
		await poll(first);
		const a = deposit('1');
		expect((await poll(first)).orderIds).toEqual([a]);
		const saved = first.savedStaticData();
		// Polls after the save that emit nothing are not saved by n8n.
		const pending = deposit('2', { status: 12 });
		expect((await poll(first)).emitted).toBeNull();
		const b = deposit('3');
		sandbox().wallet.setDepositStatus(pending, 4);
		const restarted = runner(sandbox(), {}, saved);
		expect((await poll(restarted)).orderIds).toEqual([pending, b]);
		expect((await poll(restarted)).emitted).toBeNull();
	});

	it('follows one coin with Filters › Coin; refuses Filters › Symbol', async () => {
		const active = runner(sandbox(), {
			filters: { coin: { __rl: true, mode: 'list', value: 'BTC' } },
		});
		await poll(active);
		deposit('1');
		const btc = deposit('0.1', { coin: 'BTC' });
		expect((await poll(active)).orderIds).toEqual([btc]);
		const symbol = await pollCounting(
			sandbox(),
			runner(sandbox(), { filters: { symbol: 'BTCUSDT' } }),
		);
		expect(symbol.error?.message).toMatch(/Symbol: does not apply to Deposit Received/);
		expect(symbol.requests).toHaveLength(0);
	});

	it('Fetch Test Event: the newest successful deposit, or says there is none', async () => {
		const none = await poll(runner(sandbox()), 'manual');
		expect(none.error?.message).toMatch(/No successful deposit in the last 30 days/);
		const older = deposit('1', { time: Date.now() - 2000 });
		deposit('2', { status: 12, time: Date.now() - 1000 });
		const test = await poll(runner(sandbox()), 'manual');
		expect(test.orderIds).toEqual([older]);
	});

	it('a list served earliest first (behaviour walletOrder): Fetch Test Event the newest, polls oldest first', async () => {
		sandbox().setBehaviour({ walletOrder: 'ascending' });
		deposit('1', { time: Date.now() - 3000 });
		const newest = deposit('2', { time: Date.now() - 2000 });
		deposit('3', { status: 12, time: Date.now() - 1000 });
		expect((await poll(runner(sandbox()), 'manual')).orderIds).toEqual([newest]);
		const active = runner(sandbox());
		await poll(active);
		const a = deposit('4', { time: Date.now() - 500 });
		const b = deposit('5');
		expect((await poll(active)).orderIds).toEqual([a, b]);
	});

	it('more than 1,000 deposits in one millisecond: reads what the list returns, says so, and later deposits still fire', async () => {
		const logged = warnings();
		const active = runner(sandbox());
		await poll(active);
		const crowded = Date.now() - 5000;
		for (let i = 0; i < 1001; i++) deposit('1', { time: crowded });
		const later = deposit('2', { time: crowded + 1 });
		const fired = await poll(active);
		expect(fired.orderIds).toHaveLength(1001);
		expect(fired.orderIds.at(-1)).toBe(later);
		expect(logged).toEqual([expect.stringContaining(`share the millisecond ${crowded}`)]);
		const next = deposit('3');
		expect((await poll(active)).orderIds).toEqual([next]);
		expect(logged).toHaveLength(1);
	});

	it(`remembers more than ${MAX_REMEMBERED_DEPOSITS} deposits rather than forget an older pending one`, async () => {
		const pending = deposit('1', { status: 12, time: Date.now() - 2 * HOUR });
		const base = Date.now() - HOUR;
		for (let i = 0; i <= MAX_REMEMBERED_DEPOSITS; i++) deposit('2', { time: base + i });
		const active = runner(sandbox());
		await poll(active);
		sandbox().wallet.setDepositStatus(pending, 4);
		expect((await poll(active)).orderIds).toEqual([pending]);
		expect((await poll(active)).emitted).toBeNull();
	});

	it(`beyond ${MAX_HELD_DEPOSITS} deposits lets the oldest pending one go, naming it in a warning`, async () => {
		const logged = warnings();
		const pending = deposit('1', { status: 12, time: Date.now() - 2 * HOUR });
		const base = Date.now() - HOUR;
		for (let i = 0; i < MAX_HELD_DEPOSITS; i++) deposit('2', { time: base + i });
		const active = runner(sandbox());
		await poll(active);
		expect(logged).toEqual([
			expect.stringMatching(new RegExp(`no longer watching 1 deposits.*${pending}`)),
		]);
		sandbox().wallet.setDepositStatus(pending, 4);
		expect((await poll(active)).emitted).toBeNull();
	});
});

describe('the deposit-received-transfer example', () => {
	it("its transfer node moves a deposit's exact quantity from custody to trading once, however often it runs", async () => {
		const workflow = loadAnyExample('depositReceivedTransfer');
		const transfer = findNode(workflow, DEPOSIT_EXAMPLES.depositReceivedTransfer.transfer);
		sandbox().wallet.deposit({ coin: 'USDT', quantity: '12.50000000' });
		const fired = await poll(runner(sandbox()), 'manual');
		const runTransfer = () =>
			runTradingService(sandbox(), {
				parameters: transfer.parameters as IDataObject,
				node: { typeVersion: transfer.typeVersion },
				inputItems: fired.items.map((item) => ({ json: item.json })),
			});
		const first = await runTransfer();
		expect(first.error).toBeUndefined();
		expect(first.items[0].json).toEqual(expect.objectContaining({ outcome: 'placed' }));
		const again = await runTransfer();
		expect(again.items[0].json).toEqual(
			expect.objectContaining({ outcome: 'placed', alreadyPlaced: true }),
		);
		expect(
			sandbox().ledger.transfers.map((t) => [
				t.clientOrderId,
				t.quantity,
				t.fromAccountId,
				t.toAccountId,
			]),
		).toEqual([
			[`deposit-${fired.orderIds[0]}`, '12.5', DEMO_ACCOUNTS.custody, DEMO_ACCOUNTS.mainTrading],
		]);
	});
});
