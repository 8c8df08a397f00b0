import { NodeApiError, NodeOperationError, type INode, type JsonObject } from 'n8n-workflow';

import {
	refusingEntry,
	settledItem,
} from '../../../../nodes/TradingService/orders/createMany.operation';
import { rejectedOrdersError } from '../../../../nodes/TradingService/orders/createManyStop';
import type { OrderParams } from '../../../../nodes/TradingService/orders/orderRules';
import { fingerprint, WriteLedger } from '../../../../nodes/TradingService/writes/ledger';
import type { PendingOrder } from '../../../../nodes/TradingService/orders/orderWrites';
import { pendingWrite, type Settled } from '../../../../nodes/TradingService/writes/engine';
import { node as fixedNode } from '../../../support/fixedNode';

// What each order of Create Many comes out as once it is settled, from fixed settled writes:
// no request is sent. (Create Many end to end, against the sandbox: createMany.test.ts.)

const node: INode = { ...fixedNode, id: 'create-many' };

const order: OrderParams = {
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	timeInForce: 'GTC',
	price: '50000',
	quantity: '0.01',
	stpMode: 'EXPIRE_TAKER',
	newClientOrderId: 'n8n-a-0-2-1',
};

function settledOrder(settled: Settled, itemIndex = 2, sent: OrderParams = order): PendingOrder {
	const slot = new WriteLedger({}, 0).slot(`${itemIndex}.1`, fingerprint('newOrder', sent));
	const pending = pendingWrite(slot, { order: sent, orderIndex: 1, businessKey: false }, itemIndex);
	pending.settled = settled;
	return pending;
}

const run = { node, continueOnFail: false };
const continuing = { node, continueOnFail: true };

const placedResult = {
	orderId: '1470000000000000001',
	status: 'NEW',
	clientOrderId: 'n8n-a-0-2-1',
};
const entryRefusal: Settled = {
	outcome: 'rejected',
	refusal: {
		code: '-2010',
		msg: 'Insufficient balance',
		detail: { entry: { code: '-2010', msg: 'Insufficient balance' } },
	},
};

describe('settledItem', () => {
	it('placed by its batch answer: the order with its entry code, paired with its item', () => {
		const item = settledItem(
			run,
			settledOrder({
				outcome: 'placed',
				result: placedResult,
				via: 'answer',
				alreadyPlaced: false,
				entry: { code: '0', msg: 'ok' },
			}),
		);
		expect(item).toEqual({
			json: {
				outcome: 'placed',
				success: true,
				code: '0',
				msg: 'ok',
				order: placedResult,
				symbol: 'BTCUSDT',
				clientOrderId: 'n8n-a-0-2-1',
			},
			pairedItem: { item: 2 },
		});
	});

	it('placed, found by a lookup: marked already placed, no entry code', () => {
		const item = settledItem(
			run,
			settledOrder({ outcome: 'placed', result: placedResult, via: 'lookup', alreadyPlaced: true }),
		);
		expect(item.json).toMatchObject({ code: null, msg: '', alreadyPlaced: true, success: true });
	});

	it('placed by an earlier try: answered from the ledger, replayed', () => {
		const item = settledItem(
			run,
			settledOrder({
				outcome: 'placed',
				result: { orderId: '9', status: 'NEW' },
				via: 'ledger',
				alreadyPlaced: false,
			}),
		);
		expect(item.json).toMatchObject({
			outcome: 'placed',
			success: true,
			replayed: true,
			symbol: 'BTCUSDT',
			clientOrderId: 'n8n-a-0-2-1',
			order: { orderId: '9', replayed: true, price: '50000', clientOrderId: 'n8n-a-0-2-1' },
		});
	});

	it('without a client order ID of its own, the item takes the one the service gave', () => {
		const withoutId: OrderParams = { ...order, newClientOrderId: undefined };
		const item = settledItem(
			run,
			settledOrder(
				{ outcome: 'placed', result: placedResult, via: 'answer', alreadyPlaced: false },
				0,
				withoutId,
			),
		);
		expect(item.json.clientOrderId).toBe('n8n-a-0-2-1');
	});

	it('refused in its own batch entry: an item with success false, not an error', () => {
		const item = settledItem(run, settledOrder(entryRefusal));
		expect(item.json).toEqual({
			outcome: 'rejected',
			success: false,
			code: '-2010',
			msg: 'Insufficient balance',
			order: null,
			symbol: 'BTCUSDT',
			clientOrderId: 'n8n-a-0-2-1',
		});
	});

	it('the whole batch refused: an error marked rejected, or an error item with Continue On Fail', () => {
		const refused = settledOrder({
			outcome: 'rejected',
			refusal: {
				error: new NodeApiError(node, { code: '-1021' } as JsonObject, {
					message: 'Timestamp outside the receive window',
				}),
			},
		});
		expect(() => settledItem(run, refused)).toThrow('Timestamp outside the receive window');
		const item = settledItem(continuing, refused);
		expect(item.json).toMatchObject({
			error: 'Timestamp outside the receive window',
			outcome: 'rejected',
			success: false,
			request: order,
			symbol: 'BTCUSDT',
		});
		expect(item.pairedItem).toEqual({ item: 2 });
	});

	it('refused without an error or entry: the service refused the order', () => {
		expect(() => settledItem(run, settledOrder({ outcome: 'rejected', refusal: {} }))).toThrow(
			'The service refused the order',
		);
	});

	it('unknown: its own error, outcome unknown', () => {
		const error = new NodeOperationError(node, 'The order may have been placed');
		error.context.outcome = 'unknown';
		const unknown = settledOrder({ outcome: 'unknown', reason: 'no answer', error });
		expect(() => settledItem(run, unknown)).toThrow(error);
		expect(settledItem(continuing, unknown).json).toMatchObject({
			error: 'The order may have been placed',
			outcome: 'unknown',
			success: false,
		});
	});
});

describe('refusingEntry', () => {
	it('is the entry of an order refused on its own, and nothing otherwise', () => {
		expect(refusingEntry(settledOrder(entryRefusal))).toEqual({
			code: '-2010',
			msg: 'Insufficient balance',
		});
		expect(
			refusingEntry(
				settledOrder({
					outcome: 'rejected',
					refusal: { error: new NodeOperationError(node, 'refused'), detail: { entry: {} } },
				}),
			),
		).toBeUndefined();
		expect(
			refusingEntry(
				settledOrder({ outcome: 'placed', result: {}, via: 'answer', alreadyPlaced: false }),
			),
		).toBeUndefined();
	});
});

describe('rejectedOrdersError', () => {
	it('names the first refusal, how many and how many batches were not sent (what was placed is counted once the batches in flight answered)', () => {
		const error = rejectedOrdersError(
			run,
			[settledOrder(entryRefusal, 3), settledOrder(entryRefusal, 4)],
			2,
		);
		expect(error.message).toBe('2 order(s) were rejected: Insufficient balance (code -2010)');
		expect(error.description).toBe(
			'Fail on Any Rejected Order is on, so no further batches were sent (2 left); those already in flight were answered. Outcome: rejected (nothing was executed).',
		);
		expect(error.context).toMatchObject({ itemIndex: 3, outcome: 'rejected' });
	});
});
