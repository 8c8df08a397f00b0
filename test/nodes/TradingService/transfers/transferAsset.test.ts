import { DEMO_ACCOUNTS, DEMO_KEYS } from '../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { errorOf, reportedOutcome } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

const TRANSFER = '/api/v1/account/assetTransfer';
const HISTORY = '/api/v1/account/balanceFlow';
/** The client order ID the node generates for the transfer of item `itemIndex` in run 0. */
const generatedTransferId = (itemIndex: number) => new RegExp(`^n8n-[0-9a-f]{24}-0-${itemIndex}$`);
/** The clientOrderId a request was sent with. */
const clientOrderIdOf = (request: { query: string }) =>
	/(?:^|&)clientOrderId=([^&]*)/.exec(request.query)?.[1];
/** The outcome an error reports (every error about a write carries one). */
const outcomeOf = (run: { error?: { context?: unknown } }) =>
	(run.error?.context as { outcome?: string } | undefined)?.outcome;
const sandbox = useSandbox({ rateLimit: false, requestRates: false });

const parameters = (overrides: Record<string, unknown> = {}) => ({
	resource: 'account',
	operation: 'transferAsset',
	fromAccountId: DEMO_ACCOUNTS.mainTrading,
	toAccountId: DEMO_ACCOUNTS.subTrading,
	coin: 'USDT',
	quantity: '12.345678901234567890',
	...overrides,
});

describe('Account > Transfer Asset', () => {
	it('moves the exact decimal quantity, sent in the query string, and emits the response', async () => {
		const fromBefore = sandbox().getBalance(DEMO_ACCOUNTS.mainTrading, 'USDT');
		const run = await runTradingService(sandbox(), { parameters: parameters() });
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(1);
		// The family's answer: success, the transfer's ID as orderId (a 64-bit ID, kept a string), a time.
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			success: true,
			orderId: expect.stringMatching(/^\d{19}$/),
			clientOrderId: expect.stringMatching(generatedTransferId(0)),
		});
		expect(run.items[0].json.orderId).toBe(sandbox().ledger.transfers[0]?.id);
		expect(sandbox().ledger.transfers).toEqual([
			expect.objectContaining({
				fromAccountId: DEMO_ACCOUNTS.mainTrading,
				toAccountId: DEMO_ACCOUNTS.subTrading,
				coin: 'USDT',
				quantity: '12.34567890123456789',
			}),
		]);
		const [request] = requestsTo(sandbox(), TRANSFER);
		expect(request.method).toBe('POST');
		expect(request.body).toBe('');
		expect(request.query).toMatch(
			/^fromAccountId=10001&toAccountId=20001&coin=USDT&quantity=12\.345678901234567890&clientOrderId=n8n-[0-9a-f]{24}-0-0&recvWindow=5000&timestamp=\d+&signature=/,
		);
		expect(sandbox().getBalance(DEMO_ACCOUNTS.mainTrading, 'USDT')).not.toBe(fromBefore);
	});

	it('the transfer shows up in the history of both accounts (flow type 51)', async () => {
		await runTradingService(sandbox(), { parameters: parameters({ quantity: '3' }) });
		const now = Date.now();
		const history = await runTradingService(sandbox(), {
			parameters: {
				resource: 'account',
				operation: 'getHistory',
				flowType: 51,
				accountType: 1,
				startTime: new Date(now - 60_000).toISOString(),
				endTime: new Date(now + 1000).toISOString(),
			},
		});
		const changes = history.items.map((item) => [
			item.json.accountId,
			item.json.change,
			item.json.flowType,
		]);
		expect(changes).toEqual(
			expect.arrayContaining([
				[DEMO_ACCOUNTS.mainTrading, '-3', 'USER_ACCOUNT_TRANSFER'],
				[DEMO_ACCOUNTS.subTrading, '3', 'USER_ACCOUNT_TRANSFER'],
			]),
		);
		expect(new Set(history.items.map((item) => item.json.created)).size).toBe(1);
	});

	it.each([
		[{ fromAccountId: 'main' }, 'From Account ID'],
		[{ fromAccountId: '={{ "" }}' }, 'From Account ID'],
		[{ toAccountId: '123456789012345678901' }, 'To Account ID'],
		[{ toAccountId: DEMO_ACCOUNTS.mainTrading }, 'To Account ID'],
		[{ coin: '={{ "" }}' }, 'Coin'],
		[{ coin: 'US DT' }, 'Coin'],
		[{ quantity: '={{ "" }}' }, 'Quantity'],
		[{ quantity: '0' }, 'Quantity'],
		[{ quantity: '-1' }, 'Quantity'],
		[{ quantity: '1e-7' }, 'Quantity'],
		[{ quantity: '1,5' }, 'Quantity'],
		[{ quantity: ' 1' }, 'Quantity'],
		[{ quantity: 1e-7 }, 'Quantity'],
	])('refuses %p naming %s, before any request', async (overrides, field) => {
		const run = await runTradingService(sandbox(), { parameters: parameters(overrides) });
		expect(run.error?.message.startsWith(`${field}: `)).toBe(true);
		expect(run.error?.description).toBeTruthy();
		expect(sandbox().ledger.requests).toHaveLength(0);
	});

	it('an empty required field is refused by n8n itself, naming the parameter', async () => {
		await expect(
			runTradingService(sandbox(), { parameters: parameters({ coin: '' }) }),
		).rejects.toThrow('Parameter "Coin" is required');
		expect(sandbox().ledger.requests).toHaveLength(0);
	});

	it('accepts a quantity given as a plain JS number', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: parameters({ quantity: '={{ 2.5 }}' }),
		});
		expect(run.error).toBeUndefined();
		expect(sandbox().ledger.transfers[0].quantity).toBe('2.5');
	});

	it.each(['dropBefore', 'http500', 'unknownBefore'] as const)(
		'is never retried when the outcome is unknown and the history has no record of it (%s): the error says so and how to check',
		async (kind) => {
			sandbox().setFaults({ rules: [{ kind, times: 1, path: TRANSFER }] });
			const run = await runTradingService(sandbox(), { parameters: parameters({ quantity: '1' }) });
			expect(run.error?.message).toMatch(
				/^Unknown outcome: the transfer of 1 USDT from 10001 to 20001 may or may not have been executed \((?:[^;]+; then )?no transfer record with client order ID n8n-[0-9a-f]{24}-0-0 was found, which does not prove it was not executed/,
			);
			expect(run.error?.description).toMatch(
				/^Client order ID n8n-[0-9a-f]{24}-0-0\. The service did not confirm the transfer .*, so it was not sent again: .*Check the transfer history .*\(client order ID n8n-[0-9a-f]{24}-0-0\)/,
			);
			expect(outcomeOf(run)).toBe('unknown');
			expect(requestsTo(sandbox(), TRANSFER)).toHaveLength(1);
			expect(requestsTo(sandbox(), HISTORY)).toHaveLength(1);
			expect(sandbox().ledger.transfers).toHaveLength(0);
		},
	);

	it('is retried after a 429, which proves nothing was done, and placed once', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'rateLimit', times: 2, path: TRANSFER, retryAfterSeconds: 0 }],
		});
		const run = await runTradingService(sandbox(), { parameters: parameters({ quantity: '1' }) });
		expect(run.error).toBeUndefined();
		expect(requestsTo(sandbox(), TRANSFER).map((request) => request.status)).toEqual([
			429, 429, 200,
		]);
		expect(sandbox().ledger.transfers).toHaveLength(1);
	});

	it('a sub-account key may not transfer', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: parameters(),
			key: DEMO_KEYS.sub,
		});
		expect(run.error?.message).toBe('The API key is not allowed to do this');
		expect(outcomeOf(run)).toBe('rejected');
	});

	it('answered success: false: rejected, nothing moved, and sent again when n8n re-runs the node', async () => {
		sandbox().setFaults({ rules: [{ kind: 'transferSuccessFalse', times: 1, path: TRANSFER }] });
		const run = await runTradingService(sandbox(), {
			parameters: parameters({ quantity: '1' }),
			node: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', success: true });
		expect(requestsTo(sandbox(), TRANSFER)).toHaveLength(2);
		expect(sandbox().ledger.transfers).toHaveLength(1);
	});

	it('unknown, then n8n re-runs the node: looked up again on each try, never sent again', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropBefore', times: 1, path: TRANSFER }] });
		const run = await runTradingService(sandbox(), {
			parameters: parameters({ quantity: '1' }),
			node: { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
		});
		expect(run.error?.message).toMatch(
			/^Unknown outcome: the transfer of 1 USDT from 10001 to 20001 may or may not have been executed/,
		);
		expect(run.error?.description).toContain('Check the transfer history');
		expect(outcomeOf(run)).toBe('unknown');
		// The last try's report says where the unknown outcome came from.
		expect(run.error?.message).toMatch(
			/\(an earlier try of this node run sent it and got no answer, and no transfer record with client order ID/,
		);
		expect(requestsTo(sandbox(), TRANSFER)).toHaveLength(1);
		expect(requestsTo(sandbox(), HISTORY)).toHaveLength(3);
		expect(sandbox().ledger.transfers).toHaveLength(0);
	});

	it('with Continue On Fail, an error in item 0 makes n8n re-run the node: the placed transfer of item 1 is answered from the write ledger', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: parameters({ quantity: '={{ $json.quantity }}' }),
			inputItems: [{ json: { quantity: '99999999999' } }, { json: { quantity: '1' } }],
			node: { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
			continueOnFail: true,
		});
		expect(run.items.map((item) => item.json.outcome)).toEqual(['rejected', 'placed']);
		expect(run.items[1].json).toMatchObject({
			replayed: true,
			success: true,
			orderId: sandbox().ledger.transfers[0]?.id,
			clientOrderId: sandbox().ledger.transfers[0]?.clientOrderId,
		});
		// Item 0 (refused, it moved nothing) is sent on each of the 3 tries; item 1 once.
		expect(
			requestsTo(sandbox(), TRANSFER).map((request) => /quantity=([^&]+)/.exec(request.query)?.[1]),
		).toEqual(['99999999999', '1', '99999999999', '99999999999']);
		expect(sandbox().ledger.transfers).toHaveLength(1);
	});
});

describe('n8n Retry On Fail never moves funds twice', () => {
	// Retry On Fail re-runs the whole node, every item, after an error in any item. A transfer that
	// was sent (committed but unanswered, or done for an earlier item) must not be sent again on the
	// next try: the write ledger answers it, so each transfer moves funds once, whatever n8n retries.
	const RETRY_ON_FAIL = { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 };

	it('a transfer committed but unanswered: exactly one transfer, found by its client order ID', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: TRANSFER }] });
		const run = await runTradingService(sandbox(), {
			parameters: parameters({ quantity: '1.5' }),
			node: RETRY_ON_FAIL,
		});
		expect(sandbox().ledger.transfers).toHaveLength(1);
		expect(run.error).toBeUndefined();
		expect(reportedOutcome(run)).toBe('placed');
	});

	it('a transfer committed but unanswered, on a key that may not read the history: exactly one transfer, reported unknown', async () => {
		sandbox().setBehaviour({ historyRefusedKeys: [DEMO_KEYS.master.apiKey] });
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: TRANSFER }] });
		const run = await runTradingService(sandbox(), {
			parameters: parameters({ quantity: '1.5' }),
			node: RETRY_ON_FAIL,
		});
		expect(sandbox().ledger.transfers).toHaveLength(1);
		expect(run.error?.message).toMatch(/^Unknown outcome/);
		expect(reportedOutcome(run)).toBe('unknown');
	});

	it('two transfers, item 1 refused (balance): item 0 moves once, not once per try', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: parameters({ quantity: '={{ $json.quantity }}' }),
			inputItems: [{ json: { quantity: '2' } }, { json: { quantity: '99999999999' } }],
			node: RETRY_ON_FAIL,
		});
		expect(run.error?.message).toBe('The account balance is too low for this request');
		expect(sandbox().ledger.transfers).toHaveLength(1);
	});

	it('with Continue On Fail, item 0 failing makes n8n re-run the node: item 1 still moves once', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: parameters({ quantity: '={{ $json.quantity }}' }),
			inputItems: [{ json: { quantity: '99999999999' } }, { json: { quantity: '3' } }],
			node: RETRY_ON_FAIL,
			continueOnFail: true,
		});
		expect(sandbox().ledger.transfers).toHaveLength(1);
		expect(errorOf(run.items[0])).toBe('The account balance is too low for this request');
		expect(run.items[0].json.outcome).toBe('rejected');
		expect(run.items[1].json.outcome).toBe('placed');
	});
});

describe('what a transfer answer means: refused or unknown', () => {
	// An answer that says the service timed out may come after the transfer was executed: reporting
	// it as a refusal would invite sending it again, so it is an unknown outcome. An answer with HTTP
	// 2xx but success: false is a refusal, not a success.
	it('a transfer answered -1007 (timeout) and executed: found by its client order ID, placed, not "rejected"', async () => {
		sandbox().setFaults({ rules: [{ kind: 'unknownAfter', times: 1, path: TRANSFER }] });
		const run = await runTradingService(sandbox(), { parameters: parameters({ quantity: '4' }) });
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', confirmedByLookup: true });
		expect(sandbox().ledger.transfers).toHaveLength(1);
	});

	it('a transfer answered -1007 (timeout) and not executed: unknown, not "rejected"', async () => {
		sandbox().setFaults({ rules: [{ kind: 'unknownBefore', times: 1, path: TRANSFER }] });
		const run = await runTradingService(sandbox(), { parameters: parameters({ quantity: '4' }) });
		expect(run.error?.message).toMatch(/^Unknown outcome/);
		expect(reportedOutcome(run)).toBe('unknown');
		expect(sandbox().ledger.transfers).toHaveLength(0);
	});

	it('a 2xx {"success": false} transfer answer: rejected, not a success', async () => {
		sandbox().setFaults({ rules: [{ kind: 'transferSuccessFalse', times: 1, path: TRANSFER }] });
		const run = await runTradingService(sandbox(), {
			parameters: parameters({ quantity: '1.5' }),
			continueOnFail: true,
		});
		expect(errorOf(run.items[0])).toMatch(/refused/);
		expect(run.items[0].json.outcome).toBe('rejected');
	});
});

describe('UAE rule: transfer client IDs', () => {
	it('each transfer carries a generated client order ID, shown in the item; the ID is the same on every try of the node run', async () => {
		sandbox().setFaults({ rules: [{ kind: 'transferSuccessFalse', times: 1, path: TRANSFER }] });
		const run = await runTradingService(sandbox(), {
			parameters: parameters({ quantity: '={{ $json.quantity }}' }),
			inputItems: [{ json: { quantity: '1' } }, { json: { quantity: '2' } }],
			node: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		});
		expect(run.error).toBeUndefined();
		const ids = run.items.map((item) => item.json.clientOrderId as string);
		expect(ids[0]).toMatch(generatedTransferId(0));
		expect(ids[1]).toMatch(generatedTransferId(1));
		expect(ids[0].length).toBeLessThanOrEqual(64);
		// Item 0 refused (success: false) on the first try, which stops it there, and sent again on
		// the second with the same ID; item 1 sent on the second try.
		expect(requestsTo(sandbox(), TRANSFER).map(clientOrderIdOf)).toEqual([ids[0], ids[0], ids[1]]);
		expect(
			sandbox()
				.ledger.transfers.map((transfer) => transfer.clientOrderId)
				.sort(),
		).toEqual([...ids].sort());
		// Another execution of the same workflow generates other IDs.
		const other = await runTradingService(sandbox(), {
			parameters: parameters({ quantity: '1' }),
			executionId: 'another-execution',
		});
		expect(other.items[0].json.clientOrderId).toMatch(generatedTransferId(0));
		expect(other.items[0].json.clientOrderId).not.toBe(ids[0]);
	});

	it.each(['dropAfter', 'http503After', 'unknownAfter', 'answerHtml'] as const)(
		'executed but its answer lost (%s): found in the transfer history by its client order ID, placed, sent once',
		async (kind) => {
			sandbox().setFaults({ rules: [{ kind, times: 1, path: TRANSFER }] });
			const run = await runTradingService(sandbox(), { parameters: parameters({ quantity: '1' }) });
			expect(run.error).toBeUndefined();
			const [transfer] = sandbox().ledger.transfers;
			expect(run.items[0].json).toEqual({
				outcome: 'placed',
				confirmedByLookup: true,
				clientOrderId: transfer.clientOrderId,
				orderId: transfer.id,
				created: transfer.created,
			});
			expect(requestsTo(sandbox(), TRANSFER)).toHaveLength(1);
			const [lookup] = requestsTo(sandbox(), HISTORY);
			expect(lookup.query).toContain(`clientOrderId=${transfer.clientOrderId}`);
			expect(lookup.query).toContain('flowType=51');
			expect(sandbox().ledger.transfers).toHaveLength(1);
		},
	);

	it('when the history cannot be read (a key that may not read it), the unknown message names the permission to add and says the transfer is never sent again', async () => {
		sandbox().setBehaviour({ historyRefusedKeys: [DEMO_KEYS.master.apiKey] });
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: TRANSFER }] });
		const run = await runTradingService(sandbox(), { parameters: parameters({ quantity: '1' }) });
		expect(run.error?.message).toMatch(
			/^Unknown outcome: the transfer of 1 USDT from 10001 to 20001 may or may not have been executed \((?:[^;]+; then )?the API key may not read the account history \(.*\), so client order ID n8n-[0-9a-f]{24}-0-0 cannot be looked up: give the API key permission to read the account history \(fund statement\), which the node needs to find a transfer after a crash, and a transfer is never sent again without proof\)$/,
		);
		expect(outcomeOf(run)).toBe('unknown');
		expect(requestsTo(sandbox(), TRANSFER)).toHaveLength(1);
		expect(sandbox().ledger.transfers).toHaveLength(1);
	});
});
