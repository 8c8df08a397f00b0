import { NodeApiError, NodeOperationError, type IDataObject } from 'n8n-workflow';

import { WriteLedger, fingerprint } from '../../../../nodes/TradingService/writes/ledger';
import { HISTORY_LAG_MS } from '../../../../nodes/TradingService/transfers/transferHistory';
import {
	FOUND_BY_REFUSAL,
	pendingTransfer,
	transferClientOrderId,
	transferKind,
	type TransferParams,
} from '../../../../nodes/TradingService/transfers/transferWrites';
import type { EngineSession } from '../../../../nodes/TradingService/writes/engine';
import type { LostRun } from '../../../../nodes/TradingService/writes/writeSession';
import { rejectionError } from '../../../../nodes/TradingService/transport/errors';
import { node, offline } from '../../../support/fixedNode';

// The transfer kind of the write engine: one request per transfer, a generated client order ID,
// and the lookup by that ID in the transfer history (fixed vectors: a client that answers a fixed
// list). What a node run does with them against the sandbox is asserted through the node in
// transfers/transferAsset.test.ts.

const TRANSFER = '/api/v1/account/assetTransfer';
const PREFIX = 'n8n-0123456789abcdef01234567-0';

const params = (quantity = '5'): TransferParams => ({
	fromAccountId: '10001',
	toAccountId: '20001',
	coin: 'USDT',
	quantity,
});

const pending = (quantity = '5', itemIndex = 0, context: IDataObject = {}) =>
	pendingTransfer(
		new WriteLedger(context, 0),
		String(itemIndex),
		params(quantity),
		itemIndex,
		PREFIX,
	);

/** A run whose client answers every history request with `records` and keeps what was asked. */
function runAnswering(records: unknown[] | Error) {
	const asked: IDataObject[] = [];
	const run = {
		node,
		client: {
			request: async (endpoint: { path: string }, request: { qs: IDataObject }) => {
				asked.push({ path: endpoint.path, ...request.qs });
				if (records instanceof Error) throw records;
				return records;
			},
		},
	} as unknown as EngineSession;
	return { run, asked };
}

const record = (overrides: IDataObject = {}): IDataObject => ({
	id: '1',
	accountId: '10001',
	coin: 'USDT',
	flowTypeValue: 51,
	change: '-5',
	created: '1700000000000',
	orderId: '1700000000000000065',
	clientOrderId: `${PREFIX}-0`,
	...overrides,
});

describe('transferKind', () => {
	const kind = transferKind(offline);

	it('sends each transfer alone, its parameters in the query of POST assetTransfer, the client order ID last', () => {
		const ledger = new WriteLedger({}, 0);
		const all = [
			pendingTransfer(ledger, '0', params('1'), 0, PREFIX),
			pendingTransfer(ledger, '1', params('2'), 1, PREFIX),
		];
		expect(kind.groups(all)).toEqual([[all[0]], [all[1]]]);
		const { endpoint, request } = kind.request([all[1]]);
		expect([endpoint.method, endpoint.path]).toEqual(['POST', TRANSFER]);
		expect(request).toEqual({ qs: { ...params('2'), clientOrderId: `${PREFIX}-1` }, itemIndex: 1 });
		expect(Object.keys(request.qs!).at(-1)).toBe('clientOrderId');
		// A copy: the request never changes what the ledger fingerprinted.
		expect(request.qs).not.toBe(all[1].write.qs);
	});

	it('UAE rule: transfer client IDs are derived like order IDs: run prefix, item, slot version; at most 64 characters', () => {
		expect(transferClientOrderId(PREFIX, 3, 0)).toBe(`${PREFIX}-3`);
		expect(transferClientOrderId(PREFIX, 3, 2)).toBe(`${PREFIX}-3-v2`);
		// The longest a real run makes: 24 hex digits of nonce, huge run and item indexes, a version.
		const longest = transferClientOrderId(
			`n8n-${'f'.repeat(24)}-${'9'.repeat(9)}`,
			999_999_999,
			999,
		);
		expect(longest.length).toBeLessThanOrEqual(64);
		// The same transfer on n8n's re-run (same ledger, same prefix) gets the same ID; a changed one a new one.
		const context = {};
		const first = pending('5', 0, context);
		first.slot.record({ outcome: 'unknown', firstSentAt: 1, acceptableUntil: 2 });
		expect(pending('5', 0, context).write.qs.clientOrderId).toBe(`${PREFIX}-0`);
		expect(pending('6', 0, context).write.qs.clientOrderId).toBe(`${PREFIX}-0-v1`);
		// A prefix that would make more than 64 characters: no ID (the exchange would refuse it).
		const long = pendingTransfer(new WriteLedger({}, 0), '0', params(), 0, 'p'.repeat(70));
		expect(long.write.qs.clientOrderId).toBeUndefined();
		expect(kind.whyNoLookup(long.write)).toBe('it has no client order ID to look it up by');
		expect(kind.whyNoLookup(pending().write)).toBeUndefined();
	});

	it('success: true is placed, with the answer; an empty echoed client order ID shows the one sent', () => {
		const answer = { success: true, timestamp: 1700000000000, clientOrderId: '', orderId: '17' };
		expect(kind.read(answer, [pending()])).toEqual([
			{ kind: 'placed', result: { ...answer, clientOrderId: `${PREFIX}-0` } },
		]);
		const echoed = { ...answer, clientOrderId: `${PREFIX}-0` };
		expect(kind.read(echoed, [pending()])).toEqual([{ kind: 'placed', result: echoed }]);
	});

	it('success: false is a refusal naming the transfer: nothing was moved', () => {
		const [verdict] = kind.read({ success: false }, [pending('5', 2)]);
		expect(verdict.kind).toBe('rejected');
		const error = (verdict as { refusal: { error: NodeApiError } }).refusal.error;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('The service refused the transfer of 5 USDT from 10001 to 20001');
		expect(error.description).toBe(
			'It answered success: false, so nothing was moved. Check the accounts, the coin and the balance, then run again.',
		);
		expect(error.context.itemIndex).toBe(2);
	});

	it('names the transfer and its client order ID, and says to check the transfer history', () => {
		expect(kind.wording(pending().write)).toEqual({
			what: 'transfer of 5 USDT from 10001 to 20001',
			howToCheck: `Check the transfer history (Trading Service > Get Transaction History, Flow Type: Transfer Between Accounts) or the account balances (client order ID ${PREFIX}-0)`,
		});
		expect(kind.unknownDetail(pending().write)).toBe(`Client order ID ${PREFIX}-0`);
	});

	it('the ledger keeps only the small scalar fields of the answer', () => {
		expect(
			kind.stored({
				success: true,
				timestamp: 1700000000000,
				orderId: '1700000000000000065',
				clientOrderId: `${PREFIX}-0`,
				note: 'x'.repeat(65),
				nested: { a: 1 },
				list: [1],
			}),
		).toEqual({
			success: true,
			timestamp: 1700000000000,
			orderId: '1700000000000000065',
			clientOrderId: `${PREFIX}-0`,
		});
	});

	it('the ledger slot is keyed by the transfer itself: another quantity is another write', () => {
		const context = {};
		pending('5', 0, context).slot.record({ outcome: 'placed' });
		expect(pending('5', 0, context).slot.recorded).toEqual(
			expect.objectContaining({ outcome: 'placed' }),
		);
		expect(pending('6', 0, context).slot.recorded).toBeUndefined();
		expect(fingerprint('assetTransfer', { ...params('5') })).not.toBe(
			fingerprint('assetTransfer', { ...params('6') }),
		);
	});
});

describe('UAE rule: transfer client IDs: an unknown transfer is looked up by its client order ID', () => {
	it('asks the transfer history (flow type 51) for the ID around its attempts; a record carrying it, for the coin, accounts and quantity sent, is proof', async () => {
		const { run, asked } = runAnswering([
			record(),
			record({ id: '2', accountId: '20001', change: '5' }),
		]);
		const write = pending();
		write.window.firstSentAt = 1_700_000_000_000;
		await expect(transferKind(run).lookup(write)).resolves.toEqual({
			kind: 'placed',
			result: {
				confirmedByLookup: true,
				clientOrderId: `${PREFIX}-0`,
				orderId: '1700000000000000065',
				created: '1700000000000',
			},
		});
		expect(asked).toEqual([
			{
				path: '/api/v1/account/balanceFlow',
				flowType: 51,
				startTime: String(1_700_000_000_000 - 60_000),
				endTime: expect.stringMatching(/^\d{13}$/),
				limit: 500,
				clientOrderId: `${PREFIX}-0`,
			},
		]);
	});

	it.each([
		[
			'no record',
			[],
			/no transfer record with client order ID .* was found, which does not prove it was not executed .*so it was not sent again/,
		],
		[
			'records without the field (a service whose records carry no client order ID)',
			[{ id: '1', accountId: '10001', change: '-5', created: '1' }],
			/the service's transfer records carry no client order ID, so it cannot be looked up by .*; a transfer is never sent again without proof/,
		],
		[
			'another ID only',
			[record({ clientOrderId: 'someone-else' })],
			/no transfer record with client order ID/,
		],
		[
			'the ID on another coin',
			[record({ coin: 'BTC' })],
			/carries client order ID .*, but its coin is BTC, so it is not the transfer sent; it was not sent again/,
		],
		['the ID on another account', [record({ accountId: '99' })], /but it is on account 99/],
		['the ID with another quantity', [record({ change: '-5.1' })], /but it moves -5\.1/],
		[
			'a refused lookup (a key that may not read the history)',
			new Error('The API key is not allowed to do this'),
			/looking it up in the transfer history by client order ID .* failed \(The API key is not allowed to do this\), and a transfer is never sent again without proof/,
		],
	])('stays unknown, never "not done" (so never re-sent): %s', async (_name, answer, reason) => {
		const { run } = runAnswering(answer as unknown[] | Error);
		const verdict = await transferKind(run).lookup(pending());
		expect(verdict.kind).toBe('unknown');
		expect((verdict as { reason: string }).reason).toMatch(reason);
	});

	it('a quantity written differently but equal ("5.000" for 5) is the same transfer', async () => {
		const { run } = runAnswering([record({ change: '-5.000' })]);
		await expect(transferKind(run).lookup(pending())).resolves.toMatchObject({ kind: 'placed' });
	});

	it('refused -1141 (the ID was used before): found in the history, it is this transfer, placed already; not found after a single attempt, the refusal stands', async () => {
		const duplicate = { error: new NodeApiError(node, { code: '-1141' }) };
		const found = runAnswering([record()]);
		await expect(transferKind(found.run).lookup(pending(), duplicate)).resolves.toMatchObject({
			kind: 'placed',
			alreadyPlaced: true,
		});
		const none = runAnswering([]);
		const verdict = await transferKind(none.run).lookup(pending(), duplicate);
		expect(verdict.kind).toBe('rejected');
		const error = (verdict as { refusal: { error: NodeOperationError } }).refusal.error;
		expect(error.message).toBe('Another transfer already used this client order ID');
		expect(error.description).toContain('This request moved nothing.');
		// After an earlier attempt whose outcome is unknown, it may be this very transfer: unknown.
		const earlier = pending();
		earlier.maybeExecuted = true;
		await expect(transferKind(none.run).lookup(earlier, duplicate)).resolves.toMatchObject({
			kind: 'unknown',
		});
	});
});

describe('after a lost run (writes/writeSession.ts)', () => {
	const duplicate = { error: new NodeApiError(node, { code: '-1141' }) };
	const noPermission = () =>
		rejectionError(node, { code: '-1005', msg: 'No permission', httpStatus: 400 }, 0);
	const lostRun = (why: LostRun['why']): LostRun => ({ since: Date.now(), settledFrom: 0, why });
	/** A run after a lost one whose client answers the history with each of `answers` in turn (the last repeats). */
	function runAfterLostRun(why: LostRun['why'], ...answers: Array<unknown[] | Error>) {
		const asked: number[] = [];
		const run = {
			node,
			lostRun: lostRun(why),
			client: {
				request: async () => {
					asked.push(Date.now());
					const answer = answers[Math.min(asked.length, answers.length) - 1];
					if (answer instanceof Error) throw answer;
					return answer;
				},
			},
		} as unknown as EngineSession;
		return { run, asked };
	}

	it('refused -1141 and not (yet) in the history: the lost run’s transfer, placed, found by the refusal; never rejected', async () => {
		for (const why of ['retry', 'late'] as const)
			for (const history of [[], noPermission(), new Error('socket hang up')]) {
				const { run } = runAfterLostRun(why, history);
				await expect(transferKind(run).lookup(pending(), duplicate)).resolves.toEqual({
					kind: 'placed',
					alreadyPlaced: true,
					result: { clientOrderId: `${PREFIX}-0`, foundBy: FOUND_BY_REFUSAL },
				});
			}
	});

	it('refused -1141 and in the history: placed, confirmed by the record; a record with other values is another transfer the lost run made: unknown', async () => {
		const found = runAfterLostRun('late', [record()]);
		await expect(transferKind(found.run).lookup(pending(), duplicate)).resolves.toMatchObject({
			kind: 'placed',
			alreadyPlaced: true,
			result: { confirmedByLookup: true, orderId: '1700000000000000065' },
		});
		const other = runAfterLostRun('late', [record({ change: '-6' })]);
		const verdict = await transferKind(other.run).lookup(pending(), duplicate);
		expect(verdict.kind).toBe('unknown');
		expect((verdict as { reason: string }).reason).toMatch(
			/refused client order ID .* as already used, and .* it moves -6, .* another transfer for this item under this ID, so this one was not sent/,
		);
	});

	it('a late run with no sign of a lost run sends: a history it may not read, or that fails, is no sign; a record carrying the ID is', async () => {
		for (const history of [[], noPermission(), new Error('socket hang up')]) {
			const { run } = runAfterLostRun('late', history);
			await expect(transferKind(run).precheck!([pending()])).resolves.toEqual([undefined]);
		}
		const found = runAfterLostRun('late', [record()]);
		await expect(transferKind(found.run).precheck!([pending()])).resolves.toMatchObject([
			{ kind: 'placed', alreadyPlaced: true },
		]);
		const other = runAfterLostRun('late', [record({ coin: 'BTC' })]);
		await expect(transferKind(other.run).precheck!([pending()])).resolves.toMatchObject([
			{ kind: 'unknown' },
		]);
	});

	it('a retry whose key may not read the history: unknown, and the reason names the permission to add', async () => {
		const { run } = runAfterLostRun('retry', noPermission());
		const [verdict] = await transferKind(run).precheck!([pending()]);
		expect(verdict).toMatchObject({ kind: 'unknown' });
		expect((verdict as { reason: string }).reason).toMatch(
			/this is a retry .* the API key may not read the account history .* give the API key permission to read the account history \(fund statement\)/,
		);
	});

	describe('a retry waits for the history to list the transfer', () => {
		beforeEach(() => jest.useFakeTimers());
		afterEach(() => jest.useRealTimers());

		it('re-reads it while it lists nothing, until HISTORY_LAG_MS: found on a re-read, placed; never listed, sent after the wait', async () => {
			const late = runAfterLostRun('retry', [], [], [record()]);
			const found = transferKind(late.run).precheck!([pending()]);
			await jest.advanceTimersByTimeAsync(HISTORY_LAG_MS);
			await expect(found).resolves.toMatchObject([{ kind: 'placed', alreadyPlaced: true }]);
			expect(late.asked).toHaveLength(3);

			const never = runAfterLostRun('retry', []);
			const started = Date.now();
			const sent = transferKind(never.run).precheck!([pending()]);
			await jest.advanceTimersByTimeAsync(HISTORY_LAG_MS + 1000);
			await expect(sent).resolves.toEqual([undefined]);
			expect(never.asked.length).toBeGreaterThan(2);
			expect(never.asked[never.asked.length - 1] - started).toBe(HISTORY_LAG_MS);
		});

		it('a late run reads once: it is sent without waiting', async () => {
			const { run, asked } = runAfterLostRun('late', []);
			await expect(transferKind(run).precheck!([pending()])).resolves.toEqual([undefined]);
			expect(asked).toHaveLength(1);
		});
	});
});
