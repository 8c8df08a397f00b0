import type { IDataObject } from 'n8n-workflow';

import { fingerprint, WriteLedger } from '../../../../nodes/TradingService/writes/ledger';
import { pendingWrite, recordUnknown } from '../../../../nodes/TradingService/writes/engine';

// A pending write and its ledger slot, without the engine: what an earlier try of the node run
// left in the ledger comes with the write, and an unknown outcome is recorded with its window.

const order = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '10', quantity: '0.01' };

function slotOf(nodeContext: IDataObject, slot = '0') {
	return new WriteLedger(nodeContext, 0).slot(slot, fingerprint('newOrder', order));
}

describe('pendingWrite', () => {
	it('a write never sent before: empty window, not looked up, not re-sent', () => {
		const pending = pendingWrite(slotOf({}), order, 4);
		expect(pending).toMatchObject({
			write: order,
			itemIndex: 4,
			window: {},
			maybeExecuted: false,
			resent: false,
		});
		expect(pending.settled).toBeUndefined();
	});

	it('a write an earlier try left unknown: its window, and it may have been executed', () => {
		const nodeContext: IDataObject = {};
		slotOf(nodeContext).record({ outcome: 'unknown', firstSentAt: 1000, acceptableUntil: 67000 });
		const pending = pendingWrite(slotOf(nodeContext), order, 0);
		expect(pending.window).toEqual({ firstSentAt: 1000, acceptableUntil: 67000 });
		expect(pending.maybeExecuted).toBe(true);
	});

	it('a write an earlier try placed: not unknown, and the slot still holds the result', () => {
		const nodeContext: IDataObject = {};
		slotOf(nodeContext).record({ outcome: 'placed', result: { orderId: '7' } });
		const pending = pendingWrite(slotOf(nodeContext), order, 0);
		expect(pending.maybeExecuted).toBe(false);
		expect(pending.slot.recorded).toMatchObject({ outcome: 'placed', result: { orderId: '7' } });
	});
});

describe('recordUnknown', () => {
	it('records the write unknown with the window of its attempts', () => {
		const nodeContext: IDataObject = {};
		const pending = pendingWrite(slotOf(nodeContext), order, 0);
		pending.window.firstSentAt = 5000;
		pending.window.acceptableUntil = 71000;
		recordUnknown(pending);
		expect(slotOf(nodeContext).recorded).toEqual({
			outcome: 'unknown',
			firstSentAt: 5000,
			acceptableUntil: 71000,
		});
	});

	it('a window not known yet is recorded as now, so a re-run still looks the write up', () => {
		const nodeContext: IDataObject = {};
		const before = Date.now();
		recordUnknown(pendingWrite(slotOf(nodeContext), order, 0));
		const recorded = slotOf(nodeContext).recorded!;
		expect(recorded.outcome).toBe('unknown');
		expect(recorded.firstSentAt).toBeGreaterThanOrEqual(before);
		expect(recorded.firstSentAt).toBeLessThanOrEqual(Date.now());
		expect(recorded.acceptableUntil).toBe(recorded.firstSentAt);
		expect(pendingWrite(slotOf(nodeContext), order, 0).maybeExecuted).toBe(true);
	});
});
