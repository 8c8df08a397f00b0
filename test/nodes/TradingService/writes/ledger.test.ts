import type { IDataObject } from 'n8n-workflow';

import { fingerprint, WriteLedger } from '../../../../nodes/TradingService/writes/ledger';

// The write ledger on its own: what a re-run of the node (same context object, as n8n keeps it
// across Retry On Fail and a retried execution) reads back.

/** A ledger over a node's execution context, for one run index of the node. */
function ledgerOf(nodeContext: IDataObject, runIndex = 0): WriteLedger {
	return new WriteLedger(nodeContext, runIndex);
}

const order = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '10', quantity: '0.01' };

describe('write ledger', () => {
	it('a fingerprint ignores key order and undefined fields, and changes with any value', () => {
		expect(fingerprint('newOrder', order)).toBe(
			fingerprint('newOrder', {
				quantity: '0.01',
				price: '10',
				type: 'LIMIT',
				side: 'BUY',
				symbol: 'BTCUSDT',
				amount: undefined,
			}),
		);
		expect(fingerprint('newOrder', order)).not.toBe(
			fingerprint('newOrder', { ...order, price: '10.0' }),
		);
		expect(fingerprint('newOrder', order)).not.toBe(fingerprint('assetTransfer', order));
	});

	it('a re-run reads what the earlier run recorded, in the same slot and version', () => {
		const nodeContext: IDataObject = {};
		const first = ledgerOf(nodeContext).slot('0', fingerprint('newOrder', order));
		expect(first.recorded).toBeUndefined();
		expect(first.version).toBe(0);
		first.record({ outcome: 'unknown', firstSentAt: 1, acceptableUntil: 2 });
		const again = ledgerOf(nodeContext).slot('0', fingerprint('newOrder', order));
		expect(again.recorded).toEqual({ outcome: 'unknown', firstSentAt: 1, acceptableUntil: 2 });
		// Version 0 stays 0, so a generated client order ID is the one sent before.
		expect(again.version).toBe(0);
		again.record({ outcome: 'placed', result: { orderId: '1' } });
		// Stored under one-letter keys: the context is saved with every execution.
		expect(nodeContext).toEqual({
			writeLedger: {
				'0': { '0': { [fingerprint('newOrder', order)]: { o: 'placed', r: { orderId: '1' } } } },
			},
		});
		expect(ledgerOf(nodeContext).slot('0', fingerprint('newOrder', order)).recorded).toEqual({
			outcome: 'placed',
			result: { orderId: '1' },
		});
	});

	it('a changed request in the same slot is a new write with the next version; each keeps its own', () => {
		const nodeContext: IDataObject = {};
		ledgerOf(nodeContext)
			.slot('0', fingerprint('newOrder', order))
			.record({ outcome: 'unknown', firstSentAt: 1, acceptableUntil: 2 });
		const changed = ledgerOf(nodeContext).slot(
			'0',
			fingerprint('newOrder', { ...order, price: '11' }),
		);
		expect(changed.recorded).toBeUndefined();
		expect(changed.version).toBe(1);
		changed.record({ outcome: 'placed' });
		const reread = ledgerOf(nodeContext);
		expect(reread.slot('0', fingerprint('newOrder', { ...order, price: '11' })).version).toBe(1);
		expect(reread.slot('0', fingerprint('newOrder', order)).version).toBe(0);
	});

	it('a forgotten (rejected) write is sent as new; other items and other runs of the node are apart', () => {
		const nodeContext: IDataObject = {};
		const slot = ledgerOf(nodeContext).slot('0', fingerprint('newOrder', order));
		slot.record({ outcome: 'unknown', firstSentAt: 1, acceptableUntil: 2 });
		slot.forget();
		expect(
			ledgerOf(nodeContext).slot('0', fingerprint('newOrder', order)).recorded,
		).toBeUndefined();
		ledgerOf(nodeContext).slot('0', fingerprint('newOrder', order)).record({ outcome: 'placed' });
		expect(
			ledgerOf(nodeContext).slot('1', fingerprint('newOrder', order)).recorded,
		).toBeUndefined();
		expect(
			ledgerOf(nodeContext, 1).slot('0', fingerprint('newOrder', order)).recorded,
		).toBeUndefined();
		expect(ledgerOf(nodeContext, 0).slot('0', fingerprint('newOrder', order)).recorded).toEqual({
			outcome: 'placed',
		});
	});

	it('a slot holds what this try recorded, while recorded keeps what the earlier try left', () => {
		const nodeContext: IDataObject = {};
		ledgerOf(nodeContext).slot('0', fingerprint('newOrder', order)).record({ outcome: 'placed' });
		const slot = ledgerOf(nodeContext).slot('0', fingerprint('newOrder', order));
		slot.forget();
		expect([slot.recorded?.outcome, slot.held]).toEqual(['placed', undefined]);
		slot.record({ outcome: 'unknown', firstSentAt: 1, acceptableUntil: 2 });
		expect([slot.recorded?.outcome, slot.held]).toEqual(['placed', 'unknown']);
	});

	it('each item’s outcome, also of writes in a slot its name does not give (Cancel Many by symbol): the item is kept with the record', () => {
		const nodeContext: IDataObject = {};
		const cancel = (slot: string, itemIndex?: number) =>
			ledgerOf(nodeContext).slot(slot, fingerprint('cancelOrder', { orderId: slot }), itemIndex);
		cancel('0.1', 0).record({ outcome: 'unknown', firstSentAt: 1, acceptableUntil: 2 });
		cancel('symbol 10001 BTCUSDT BOTH', undefined).record({ outcome: 'unknown' });
		cancel('symbol 10001 BTCUSDT BOTH.17', 2).record({
			outcome: 'placed',
			result: { orderId: '17' },
		});
		cancel('symbol 10001 ETHUSDT BOTH.18', 3).record({ outcome: 'unknown' });
		expect([...ledgerOf(nodeContext).itemOutcomes()].sort()).toEqual([
			[0, 'unknown'],
			[2, 'placed'],
			[3, 'unknown'],
		]);
		expect(ledgerOf(nodeContext).placedRecords()).toEqual([
			{ itemIndex: 2, result: { orderId: '17' } },
		]);
		// Kept only where the slot's name does not give it.
		const run = (nodeContext.writeLedger as IDataObject)['0'] as Record<string, IDataObject>;
		expect(Object.values(run['0.1'])).toEqual([{ o: 'unknown', s: 1, u: 2 }]);
		expect(Object.values(run['symbol 10001 BTCUSDT BOTH.17'])).toEqual([
			{ o: 'placed', r: { orderId: '17' }, i: 2 },
		]);
	});
});
