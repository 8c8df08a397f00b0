import { DEMO_ACCOUNTS, DEMO_KEYS } from '../../../../sandbox';
import { forgetServices } from '../../../../nodes/TradingService/transport/pacing';
import { forgetClientTransfers } from '../../../../nodes/TradingService/transfers/transferKeys';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { useSandbox } from '../../../support/sandbox';

// Client Transfer ID (version 2): the user's ID names one transfer for good; the history is read
// by it before anything is sent, so a workflow run twice moves the money once.

const TRANSFER = '/api/v1/account/assetTransfer';
const HISTORY = '/api/v1/account/balanceFlow';
const sandbox = useSandbox({ rateLimit: false, requestRates: false });

const transfer = (clientTransferId: unknown, quantity = '25') => ({
	node: { typeVersion: 2 },
	parameters: {
		resource: 'account',
		operation: 'transferAsset',
		fromAccountId: DEMO_ACCOUNTS.custody,
		toAccountId: DEMO_ACCOUNTS.mainTrading,
		coin: 'USDT',
		quantity,
		options: { clientTransferId },
	},
});
const outcomeOf = (run: { error?: { context?: unknown } }) =>
	(run.error?.context as { outcome?: string } | undefined)?.outcome;
const clientOrderIdOf = (request: { query: string }) =>
	/(?:^|&)clientOrderId=([^&]*)/.exec(request.query)?.[1];

describe('Account > Transfer Asset, Client Transfer ID', () => {
	it('is sent as the client order ID after a history read; a second execution finds it and moves nothing', async () => {
		const first = await runTradingService(sandbox(), transfer('deposit-D578755281141776384'));
		expect(first.error).toBeUndefined();
		expect(first.items[0].json).toMatchObject({
			outcome: 'placed',
			clientOrderId: 'deposit-D578755281141776384',
		});
		expect(first.items[0].json.alreadyPlaced).toBeUndefined();
		const [sent] = requestsTo(sandbox(), TRANSFER);
		expect(clientOrderIdOf(sent)).toBe('deposit-D578755281141776384');
		// Read before the send: the history request precedes the transfer.
		const historyReads = requestsTo(sandbox(), HISTORY);
		expect(historyReads).toHaveLength(1);
		expect(historyReads[0].query).toContain('clientOrderId=deposit-D578755281141776384');

		// Another n8n process (a queue worker) knows nothing of the first: the history answers.
		forgetClientTransfers();
		const second = await runTradingService(sandbox(), transfer('deposit-D578755281141776384'));
		expect(second.error).toBeUndefined();
		expect(second.items[0].json).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			confirmedByLookup: true,
			clientOrderId: 'deposit-D578755281141776384',
			orderId: first.items[0].json.orderId,
		});
		expect(requestsTo(sandbox(), TRANSFER)).toHaveLength(1);
		expect(sandbox().ledger.transfers).toHaveLength(1);
	});

	it('another transfer under the ID: rejected, naming the ID, nothing sent', async () => {
		await runTradingService(sandbox(), transfer('payout-7', '25'));
		forgetClientTransfers();
		const other = await runTradingService(sandbox(), transfer('payout-7', '30'));
		expect(outcomeOf(other)).toBe('rejected');
		expect(other.error?.message).toBe(
			'Client transfer ID payout-7 already belongs to another transfer',
		);
		expect(other.error?.description).toMatch(/moves -?25.*Nothing was sent/);
		expect(requestsTo(sandbox(), TRANSFER)).toHaveLength(1);
	});

	it('a history that cannot be read: rejected, nothing sent, says why', async () => {
		sandbox().setBehaviour({ historyRefusedKeys: [DEMO_KEYS.master.apiKey] });
		const run = await runTradingService(sandbox(), transfer('payout-8'));
		expect(outcomeOf(run)).toBe('rejected');
		expect(run.error?.message).toBe(
			'Could not check whether client transfer ID payout-8 was already used',
		);
		expect(run.error?.description).toMatch(
			/permission to read the account history.*nothing was sent/,
		);
		expect(requestsTo(sandbox(), TRANSFER)).toHaveLength(0);
	});

	it.each([
		['with a space', 'a b', /"a b" is not a valid client transfer ID/],
		['65 characters', 'x'.repeat(65), /is 65 characters long/],
		['an object', { id: 1 }, /is not a valid client transfer ID/],
	])('%s: refused before any request, naming the field', async (_what, value, problem) => {
		const run = await runTradingService(sandbox(), transfer(value));
		expect(run.error?.message).toMatch(/Client Transfer ID/);
		expect(`${run.error?.message} ${run.error?.description}`).toMatch(problem);
		expect(requestsTo(sandbox(), TRANSFER)).toHaveLength(0);
		expect(requestsTo(sandbox(), HISTORY)).toHaveLength(0);
	});

	it('two items with the same ID in one run: the second is the first transfer, not a second one', async () => {
		const run = await runTradingService(sandbox(), {
			...transfer('='.concat('{{ "same-key" }}')),
			inputItems: [{ json: {} }, { json: {} }],
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(['placed', 'placed']);
		expect(run.items[1].json.alreadyPlaced).toBe(true);
		expect(sandbox().ledger.transfers).toHaveLength(1);
	});

	it('a retried execution after a crash finds the crashed run’s transfer by the ID: placed, not sent again', async () => {
		const lost = await runTradingService(sandbox(), transfer('crash-safe-1'));
		expect(lost.items[0].json.outcome).toBe('placed');
		// The process is gone, and with it what it remembered.
		forgetServices();
		forgetClientTransfers();
		const since = sandbox().ledger.requests.length;
		const again = await runTradingService(sandbox(), {
			...transfer('crash-safe-1'),
			lostRunOf: lost,
			mode: 'retry',
		});
		expect(again.items[0].json).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			clientOrderId: 'crash-safe-1',
			orderId: lost.items[0].json.orderId,
			confirmedByLookup: true,
		});
		expect(requestsTo(sandbox(), TRANSFER, since)).toHaveLength(0);
		expect(sandbox().ledger.transfers).toHaveLength(1);
	}, 30_000);

	it('an exchange that takes a reused ID and a history that lists late: a re-run moments later is answered by what this process sent, never sent again', async () => {
		sandbox().setBehaviour({ transferReusedIds: 'accept', transferHistoryLagMs: 60_000 });
		const first = await runTradingService(sandbox(), transfer('late-listed-1'));
		expect(first.items[0].json.outcome).toBe('placed');
		const again = await runTradingService(sandbox(), transfer('late-listed-1'));
		expect(again.error).toBeUndefined();
		expect(again.items[0].json).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			clientOrderId: 'late-listed-1',
			orderId: first.items[0].json.orderId,
			foundBy: 'this n8n process sent it under this Client Transfer ID moments before',
		});
		const other = await runTradingService(sandbox(), transfer('late-listed-1', '26'));
		expect(outcomeOf(other)).toBe('rejected');
		expect(other.error?.message).toBe(
			'Client transfer ID late-listed-1 already belongs to another transfer',
		);
		expect(sandbox().ledger.transfers).toHaveLength(1);
	});

	it('a record under the ID moving the other way, or between other accounts, is not this transfer', async () => {
		// The same coin and quantity back: custody -> trading under the key, then trading -> custody.
		await runTradingService(sandbox(), transfer('direction-1'));
		forgetClientTransfers();
		const back = await runTradingService(sandbox(), {
			...transfer('direction-1'),
			parameters: {
				...transfer('direction-1').parameters,
				fromAccountId: DEMO_ACCOUNTS.mainTrading,
				toAccountId: DEMO_ACCOUNTS.custody,
			},
		});
		expect(outcomeOf(back)).toBe('rejected');
		expect(back.error?.message).toBe(
			'Client transfer ID direction-1 already belongs to another transfer',
		);
		expect(sandbox().ledger.transfers).toHaveLength(1);
	});
});
