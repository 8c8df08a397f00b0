import { NodeApiError } from 'n8n-workflow';

import { WriteLedger, fingerprint } from '../../../../nodes/TradingService/writes/ledger';
import {
	pendingTransfer,
	transferKind,
	type TransferWrite,
} from '../../../../nodes/TradingService/writes/transfers';
import { offline } from '../../../support/fixedNode';

// The transfer kind of the write engine: one request per transfer, nothing to look it up by
// (fixed vectors). What a re-run of the node does with a transfer it left unknown or refused is
// asserted through the node in actions/account/transferAsset.test.ts.

const TRANSFER = '/api/v1/account/assetTransfer';

const write = (quantity = '5'): TransferWrite => ({
	qs: { fromAccountId: '10001', toAccountId: '20001', coin: 'USDT', quantity },
});

describe('transferKind', () => {
	const kind = transferKind(offline);

	it('sends each transfer alone, its parameters in the query of POST assetTransfer', () => {
		const ledger = new WriteLedger({}, 0);
		const pending = [
			pendingTransfer(ledger, '0', write('1'), 0),
			pendingTransfer(ledger, '1', write('2'), 1),
		];
		expect(kind.groups(pending)).toEqual([[pending[0]], [pending[1]]]);
		const { endpoint, request } = kind.request([pending[1]]);
		expect([endpoint.method, endpoint.path]).toEqual(['POST', TRANSFER]);
		expect(request).toEqual({ qs: write('2').qs, itemIndex: 1 });
		// A copy: the request never changes what the ledger fingerprinted.
		expect(request.qs).not.toBe(pending[1].write.qs);
	});

	it('success: true is placed, with the answer', () => {
		const [pending] = [pendingTransfer(new WriteLedger({}, 0), '0', write(), 0)];
		const answer = { success: true, timestamp: 1700000000000, clientOrderId: '', orderId: '17' };
		expect(kind.read(answer, [pending])).toEqual([{ kind: 'placed', result: answer }]);
	});

	it('success: false is a refusal naming the transfer: nothing was moved', () => {
		const [pending] = [pendingTransfer(new WriteLedger({}, 0), '0', write(), 2)];
		const [verdict] = kind.read({ success: false }, [pending]);
		expect(verdict.kind).toBe('rejected');
		const error = (verdict as { refusal: { error: NodeApiError } }).refusal.error;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('The service refused the transfer of 5 USDT from 10001 to 20001');
		expect(error.description).toBe(
			'It answered success: false, so nothing was moved. Check the accounts, the coin and the balance, then run again.',
		);
		expect(error.context.itemIndex).toBe(2);
	});

	it('has nothing to look it up by: unknown, without a request', async () => {
		expect(kind.whyNoLookup(write())).toBe('a transfer has nothing to look it up by');
		await expect(
			kind.lookup(pendingTransfer(new WriteLedger({}, 0), '0', write(), 0)),
		).resolves.toEqual({
			kind: 'unknown',
			reason: 'a transfer has nothing to look it up by',
		});
	});

	it('names the transfer and says to check the transfer history', () => {
		expect(kind.wording(write())).toEqual({
			what: 'transfer of 5 USDT from 10001 to 20001',
			howToCheck:
				'Check the transfer history (Trading Service > Get Transaction History, Flow Type: Transfer Between Accounts) or the account balances',
		});
	});

	it('the ledger keeps only the small scalar fields of the answer', () => {
		expect(
			kind.stored({
				success: true,
				timestamp: 1700000000000,
				orderId: '1700000000000000065',
				note: 'x'.repeat(65),
				nested: { a: 1 },
				list: [1],
			}),
		).toEqual({ success: true, timestamp: 1700000000000, orderId: '1700000000000000065' });
	});

	it('the ledger slot is keyed by the transfer itself: another quantity is another write', () => {
		const context = {};
		pendingTransfer(new WriteLedger(context, 0), '0', write('5'), 0).slot.record({
			outcome: 'placed',
		});
		expect(pendingTransfer(new WriteLedger(context, 0), '0', write('5'), 0).slot.recorded).toEqual(
			expect.objectContaining({ outcome: 'placed' }),
		);
		expect(
			pendingTransfer(new WriteLedger(context, 0), '0', write('6'), 0).slot.recorded,
		).toBeUndefined();
		expect(fingerprint('assetTransfer', write('5').qs)).not.toBe(
			fingerprint('assetTransfer', write('6').qs),
		);
	});
});
