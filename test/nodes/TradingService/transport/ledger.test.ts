import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { fingerprint, WriteLedger } from '../../../../nodes/TradingService/transport/ledger';

// The write ledger on its own: what a re-run of the node (same context object, as n8n keeps it
// across Retry On Fail and a retried execution) reads back.

/** The two things the ledger uses of the execute context: the node context and the run index. */
function contextOf(nodeContext: IDataObject, runIndex = 0): IExecuteFunctions {
	return {
		getContext: () => nodeContext,
		getWorkflowDataProxy: () => ({ $runIndex: runIndex }),
	} as unknown as IExecuteFunctions;
}

const order = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '10', quantity: '0.01' };

describe('write ledger', () => {
	it('a fingerprint ignores key order and undefined fields, and changes with any value', () => {
		expect(fingerprint('newOrder', order)).toBe(fingerprint('newOrder', { quantity: '0.01', price: '10', type: 'LIMIT', side: 'BUY', symbol: 'BTCUSDT', amount: undefined }));
		expect(fingerprint('newOrder', order)).not.toBe(fingerprint('newOrder', { ...order, price: '10.0' }));
		expect(fingerprint('newOrder', order)).not.toBe(fingerprint('assetTransfer', order));
	});

	it('a re-run reads what the earlier run recorded, in the same slot and version', () => {
		const nodeContext: IDataObject = {};
		const first = new WriteLedger(contextOf(nodeContext)).slot('0', fingerprint('newOrder', order));
		expect(first.entry).toBeUndefined();
		expect(first.version).toBe(0);
		first.record({ o: 'unknown', s: 1, u: 2 });
		const again = new WriteLedger(contextOf(nodeContext)).slot('0', fingerprint('newOrder', order));
		expect(again.entry).toEqual({ o: 'unknown', s: 1, u: 2 });
		// Version 0 stays 0, so a generated client order ID is the one sent before.
		expect(again.version).toBe(0);
		again.record({ o: 'placed', r: { orderId: '1' } });
		expect(new WriteLedger(contextOf(nodeContext)).slot('0', fingerprint('newOrder', order)).entry).toEqual({ o: 'placed', r: { orderId: '1' } });
	});

	it('a changed request in the same slot is a new write with the next version; each keeps its own', () => {
		const nodeContext: IDataObject = {};
		new WriteLedger(contextOf(nodeContext)).slot('0', fingerprint('newOrder', order)).record({ o: 'unknown', s: 1, u: 2 });
		const changed = new WriteLedger(contextOf(nodeContext)).slot('0', fingerprint('newOrder', { ...order, price: '11' }));
		expect(changed.entry).toBeUndefined();
		expect(changed.version).toBe(1);
		changed.record({ o: 'placed' });
		const reread = new WriteLedger(contextOf(nodeContext));
		expect(reread.slot('0', fingerprint('newOrder', { ...order, price: '11' })).version).toBe(1);
		expect(reread.slot('0', fingerprint('newOrder', order)).version).toBe(0);
	});

	it('a forgotten (rejected) write is sent as new; other items and other runs of the node are apart', () => {
		const nodeContext: IDataObject = {};
		const slot = new WriteLedger(contextOf(nodeContext)).slot('0', fingerprint('newOrder', order));
		slot.record({ o: 'unknown', s: 1, u: 2 });
		slot.forget();
		expect(new WriteLedger(contextOf(nodeContext)).slot('0', fingerprint('newOrder', order)).entry).toBeUndefined();
		new WriteLedger(contextOf(nodeContext)).slot('0', fingerprint('newOrder', order)).record({ o: 'placed' });
		expect(new WriteLedger(contextOf(nodeContext)).slot('1', fingerprint('newOrder', order)).entry).toBeUndefined();
		expect(new WriteLedger(contextOf(nodeContext, 1)).slot('0', fingerprint('newOrder', order)).entry).toBeUndefined();
		expect(new WriteLedger(contextOf(nodeContext, 0)).slot('0', fingerprint('newOrder', order)).entry).toEqual({ o: 'placed' });
	});
});
