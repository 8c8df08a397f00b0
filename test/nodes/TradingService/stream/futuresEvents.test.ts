/**
 * The futures order events read from fixed messages and fixed REST answers: the stream's
 * contractExecutionReport (futures51 contract) and the futures lists as docs/api.md gives them.
 * One fill has one ID both ways (its trade ID); an order's final state has one ID both ways (order,
 * status, filled quantity).
 */
import type { IDataObject } from 'n8n-workflow';

import {
	itemOf,
	kindOf,
	type OrderChange,
	type StreamEvent,
	type StreamEventKind,
} from '../../../../nodes/TradingService/stream/events';
import {
	futuresEventsOf,
	ordersToSettle,
} from '../../../../nodes/TradingService/stream/futuresOrders';
import { eventsOfMessage } from '../../../../nodes/TradingService/stream/messages';

/** A contractExecutionReport as the contract gives it: a taker fill completing a LIMIT BUY. */
const report = {
	e: 'contractExecutionReport',
	E: '1764160000123',
	s: 'BTCUSDT-PERPETUAL',
	c: 'n8n-abc-0',
	S: 'BUY',
	o: 'LIMIT',
	f: 'GTC',
	q: '0.010',
	p: '50000.1',
	X: 'FILLED',
	i: '2000000000000000001',
	l: '0.004',
	z: '0.010',
	L: '50000.1',
	n: '0.12',
	N: 'USDT',
	T: '1764160000120',
	t: '3000000000000000009',
	m: false,
	O: '1764160000000',
	Z: '500.001',
	C: false,
	v: '5',
	lo: false,
	lt: '',
};

const kinds = (...chosen: StreamEventKind[]) => new Set(chosen);

function readOne(message: Record<string, unknown>): StreamEvent {
	const { events, skipped } = eventsOfMessage([message], 1764160000200);
	expect(skipped).toBe(0);
	expect(events).toHaveLength(1);
	return events[0];
}

describe('futures events: the stream report', () => {
	it('a fill: its trade ID is its event ID; the item has the contract fields', () => {
		const event = readOne(report);
		expect(event).toMatchObject({
			channel: 'order',
			id: 'futures-fill-3000000000000000009',
			market: 'contract',
			status: 'FILLED',
			executedQuantity: '0.010',
			reduceOnly: false,
			leverage: '5',
			isLiquidation: false,
		});
		const kind = kindOf(event, kinds('futuresOrderFilled'));
		expect(kind).toBe('futuresOrderFilled');
		const item = itemOf(event, kind!);
		expect(item).toMatchObject({
			event: 'futuresOrderFilled',
			eventId: 'futures-fill-3000000000000000009',
			source: 'stream',
			market: 'contract',
			eventTime: '1764160000123',
			orderId: '2000000000000000001',
			clientOrderId: 'n8n-abc-0',
			symbol: 'BTCUSDT-PERPETUAL',
			side: 'BUY',
			orderType: 'LIMIT',
			status: 'FILLED',
			price: '50000.1',
			quantity: '0.010',
			executedQuantity: '0.010',
			cumulativeQuoteQuantity: '500.001',
			orderTime: '1764160000000',
			lastFill: {
				quantity: '0.004',
				price: '50000.1',
				fee: '0.12',
				feeCoin: 'USDT',
				tradeId: '3000000000000000009',
				isMaker: false,
			},
			reduceOnly: false,
			leverage: '5',
			isLiquidation: false,
		});
		expect(item.liquidationType).toBeUndefined();
		expect(item.raw).toBe(report);
	});

	it('each status to its kind: limit and stop words, and nothing for a resting order', () => {
		const all = kinds(
			'futuresOrderFilled',
			'futuresOrderPartiallyFilled',
			'futuresOrderCanceled',
			'futuresLiquidation',
		);
		const noFill = { l: '0', L: '0', n: '0', t: '' };
		const cases: Array<[Record<string, unknown>, StreamEventKind | undefined, string]> = [
			[
				{ X: 'PARTIALLY_FILLED', z: '0.004' },
				'futuresOrderPartiallyFilled',
				'futures-fill-3000000000000000009',
			],
			[
				{ X: 'CANCELED', z: '0', ...noFill },
				'futuresOrderCanceled',
				'order-2000000000000000001-CANCELED-0',
			],
			[
				{ X: 'PARTIALLY_CANCELED', z: '0.004', ...noFill },
				'futuresOrderCanceled',
				'order-2000000000000000001-PARTIALLY_CANCELED-0.004',
			],
			// A stop's trigger fills nothing: the order it places fills (the polling twin's rule).
			[
				{ o: 'STOP', X: 'ORDER_FILLED', z: '0', ...noFill },
				undefined,
				'order-2000000000000000001-ORDER_FILLED-0',
			],
			[
				{ o: 'STOP', X: 'ORDER_CANCELED', z: '0', ...noFill },
				'futuresOrderCanceled',
				'order-2000000000000000001-ORDER_CANCELED-0',
			],
			[{ X: 'NEW', z: '0', ...noFill }, undefined, 'order-2000000000000000001-NEW-0'],
			[
				{ o: 'STOP', X: 'ORDER_NEW', z: '0', ...noFill },
				undefined,
				'order-2000000000000000001-ORDER_NEW-0',
			],
		];
		for (const [fields, kind, id] of cases) {
			const event = readOne({ ...report, ...fields });
			expect([event.id, kindOf(event, all)]).toEqual([id, kind]);
		}
	});

	it('a liquidation order fill is a Liquidation when chosen, else a fill event', () => {
		const liquidation = readOne({
			...report,
			S: 'SELL',
			C: true,
			lo: true,
			lt: 'LIQUIDATION_TAKER',
			c: '',
		});
		expect(liquidation).toMatchObject({
			isLiquidation: true,
			liquidationType: 'LIQUIDATION_TAKER',
		});
		expect(kindOf(liquidation, kinds('futuresLiquidation', 'futuresOrderFilled'))).toBe(
			'futuresLiquidation',
		);
		expect(kindOf(liquidation, kinds('futuresOrderFilled'))).toBe('futuresOrderFilled');
		expect(kindOf(liquidation, kinds('futuresOrderCanceled'))).toBeUndefined();
		// A liquidation order's report without a fill is no Liquidation.
		const rests = readOne({ ...report, X: 'NEW', z: '0', l: '0', t: '', lo: true });
		expect(kindOf(rests, kinds('futuresLiquidation'))).toBeUndefined();
	});

	it('the spot kinds still cover contract reports; the futures kinds never a spot report', () => {
		const event = readOne(report);
		expect(kindOf(event, kinds('orderFilled'))).toBe('orderFilled');
		expect(kindOf(event, kinds('orderFilled', 'futuresOrderFilled'))).toBe('futuresOrderFilled');
		const spot = readOne({ ...report, e: 'executionReport', s: 'BTCUSDT', t: undefined, d: '77' });
		expect(spot).toMatchObject({ market: 'spot', id: 'order-2000000000000000001-FILLED-0.01' });
		expect(kindOf(spot, kinds('futuresOrderFilled', 'futuresLiquidation'))).toBeUndefined();
	});
});

/** A futures order as the REST lists give it (docs/api.md "One order"). */
function order(fields: Record<string, unknown>): IDataObject {
	return {
		time: '1764160000000',
		orderId: '2000000000000000001',
		clientOrderId: 'n8n-abc-0',
		symbol: 'BTCUSDT-PERPETUAL',
		price: '50000.1',
		side: 'BUY',
		orderType: 'limit',
		reduceOnly: false,
		leverage: '5',
		originalBaseQty: '0.010',
		executedBaseQty: '0.010',
		executedQuoteQty: '500.001',
		avgPrice: '50000.1',
		status: 'FILLED',
		isLiquidationOrder: false,
		liquidationType: '',
		...fields,
	};
}

/** A futures fill as GET /api/v2/futures/userTrades gives it. */
function fill(tradeId: string, quantity: string, time: string, orderId = '2000000000000000001') {
	return {
		time,
		tradeId,
		orderId,
		symbol: 'BTCUSDT-PERPETUAL',
		price: '50000.1',
		quantity,
		commissionAsset: 'USDT',
		commission: '0.1',
		type: 'limit',
		side: 'BUY',
		isMaker: true,
	};
}

const SENT = 1764160009000;
const brief = (changes: OrderChange[]) =>
	changes.map((change) => [change.id, change.status, change.executedQuantity]);

describe('futures events: the catch-up', () => {
	it('an order created in the range: its fills counted from 0, the last one FILLED, no state event', () => {
		const records = new Map([
			['2000000000000000001', { order: order({}), list: 'LIMIT' as const, sentAt: SENT }],
		]);
		const fills = [fill('12', '0.006', '1764160000300'), fill('11', '0.004', '1764160000200')];
		const found = futuresEventsOf(fills, records, {
			since: 1764159990000,
			lastSeenOpen: new Set(),
		});
		expect(brief(found.changes)).toEqual([
			['futures-fill-11', 'PARTIALLY_FILLED', '0.004'],
			['futures-fill-12', 'FILLED', '0.01'],
		]);
		expect(found.changes[0]).toMatchObject({
			source: 'catchUp',
			market: 'contract',
			orderType: 'LIMIT',
			time: 1764160000200,
			lastFill: { quantity: '0.004', tradeId: '11', fee: '0.1', feeCoin: 'USDT', isMaker: true },
		});
		// The order's totals belong to its last fill only.
		expect(found.changes[0].cumulativeQuoteQuantity).toBeUndefined();
		expect(found.changes[1].cumulativeQuoteQuantity).toBe('500.001');
		expect(found.unchanged.map((change) => change.status)).toEqual(['FILLED']);
	});

	it('an older order: counted back from its filled quantity now; a followed cancel is news', () => {
		const older = order({
			time: '1764150000000',
			status: 'PARTIALLY_CANCELED',
			executedBaseQty: '0.007',
		});
		const records = new Map([
			['2000000000000000001', { order: older, list: 'LIMIT' as const, sentAt: SENT }],
		]);
		const found = futuresEventsOf([fill('21', '0.003', '1764160000500')], records, {
			since: 1764159990000,
			lastSeenOpen: new Set(['2000000000000000001']),
		});
		expect(brief(found.changes)).toEqual([
			['futures-fill-21', 'PARTIALLY_FILLED', '0.007'],
			['order-2000000000000000001-PARTIALLY_CANCELED-0.007', 'PARTIALLY_CANCELED', '0.007'],
		]);
		// The stream's report of the same cancel has the same ID.
		const pushed = readOne({ ...report, X: 'PARTIALLY_CANCELED', z: '0.0070', l: '0', t: '' });
		expect(pushed.id).toBe(found.changes[1].id);
	});

	it('open orders are kept, not emitted; an old final order nobody followed is nothing', () => {
		const records = new Map([
			[
				'1',
				{
					order: order({
						orderId: '1',
						status: 'NEW',
						executedBaseQty: '0',
						time: '1764150000000',
					}),
					list: 'LIMIT' as const,
					sentAt: SENT,
				},
			],
			[
				'2',
				{
					order: order({
						orderId: '2',
						orderType: 'stop',
						status: 'ORDER_NEW',
						executedBaseQty: '0',
						time: '1764150000000',
					}),
					list: 'STOP' as const,
					sentAt: SENT,
				},
			],
			[
				'3',
				{
					order: order({
						orderId: '3',
						status: 'CANCELED',
						executedBaseQty: '0',
						time: '1764150000000',
					}),
					list: 'LIMIT' as const,
					sentAt: SENT,
				},
			],
			[
				'4',
				{
					order: order({
						orderId: '4',
						orderType: 'stop',
						status: 'ORDER_FILLED',
						executedBaseQty: '0',
						time: '1764160000001',
					}),
					list: 'STOP' as const,
					sentAt: SENT,
				},
			],
		]);
		const found = futuresEventsOf([], records, {
			since: 1764159990000,
			lastSeenOpen: new Set(['1']),
		});
		expect(brief(found.changes)).toEqual([['order-4-ORDER_FILLED-0', 'ORDER_FILLED', '0']]);
		expect(found.unchanged.map((change) => [change.orderId, change.status])).toEqual([
			['1', 'NEW'],
			['2', 'ORDER_NEW'],
		]);
	});

	it('a liquidation order read over REST makes its fills Liquidation events', () => {
		const liquidation = order({
			orderId: '9',
			side: 'SELL',
			reduceOnly: true,
			isLiquidationOrder: true,
			liquidationType: 'LIQUIDATION_TAKER',
			time: '1764160000400',
		});
		const records = new Map([['9', { order: liquidation, list: 'LIMIT' as const, sentAt: SENT }]]);
		const found = futuresEventsOf([fill('31', '0.010', '1764160000450', '9')], records, {
			since: 1764159990000,
			lastSeenOpen: new Set(),
		});
		expect(found.changes).toHaveLength(1);
		expect(found.changes[0]).toMatchObject({
			id: 'futures-fill-31',
			isLiquidation: true,
			liquidationType: 'LIQUIDATION_TAKER',
		});
		expect(kindOf({ channel: 'order', ...found.changes[0] }, kinds('futuresLiquidation'))).toBe(
			'futuresLiquidation',
		);
	});
});

describe('futures events: review fixes (fixed vectors)', () => {
	const SINCE = 1764159990000;
	const OLD = '1764150000000';
	/** The reviewer's order: 10 ordered, 3 filled before the range. */
	const ten = (fields: Record<string, unknown>) =>
		order({ time: OLD, originalBaseQty: '10', executedQuoteQty: '0', avgPrice: '0', ...fields });

	it('a fill made between the order read and the fill list: no event counted from the old read', () => {
		// 3 before, 4 in the gap, the order read (7), then 3 more (the fill list shows both fills).
		const read = ten({ status: 'PARTIALLY_FILLED', executedBaseQty: '7' });
		const records = new Map([
			['2000000000000000001', { order: read, list: 'LIMIT' as const, sentAt: SENT }],
		]);
		const fills = [fill('41', '4', '1764160000100'), fill('42', '3', '1764160000200')];
		expect(ordersToSettle(fills, records, SINCE)).toEqual(['2000000000000000001']);
		const reread = new Map([
			['2000000000000000001', ten({ status: 'FILLED', executedBaseQty: '10' })],
		]);
		const first = futuresEventsOf(fills, records, {
			since: SINCE,
			lastSeenOpen: new Set(),
			reread,
		});
		// Not PARTIALLY 4 and PARTIALLY 7 under the last fill's ID (it would swallow the FILLED push).
		expect(brief(first.changes)).toEqual([]);
		expect(first.unsettled).toEqual(['2000000000000000001']);
		// Read again, the order is final: the fills count back from 10.
		const again = new Map([
			[
				'2000000000000000001',
				{
					order: ten({ status: 'FILLED', executedBaseQty: '10' }),
					list: 'LIMIT' as const,
					sentAt: SENT,
				},
			],
		]);
		expect(ordersToSettle(fills, again, SINCE)).toEqual([]);
		expect(
			brief(futuresEventsOf(fills, again, { since: SINCE, lastSeenOpen: new Set() }).changes),
		).toEqual([
			['futures-fill-41', 'PARTIALLY_FILLED', '7'],
			['futures-fill-42', 'FILLED', '10'],
		]);
		// The order did not move between the reads: its fills count as read.
		const still = new Map([
			['2000000000000000001', ten({ status: 'PARTIALLY_FILLED', executedBaseQty: '7.0' })],
		]);
		const settled = futuresEventsOf(fills.slice(0, 1), records, {
			since: SINCE,
			lastSeenOpen: new Set(),
			reread: still,
		});
		expect(brief(settled.changes)).toEqual([['futures-fill-41', 'PARTIALLY_FILLED', '7']]);
		expect(settled.unsettled).toEqual([]);
	});

	it('a report naming its trade d: the fill list trade ID; with neither t nor d, the order state ID both ways', () => {
		const withD = readOne({ ...report, t: undefined, d: '3000000000000000009' });
		expect(withD.id).toBe('futures-fill-3000000000000000009');
		const bare = readOne({ ...report, t: undefined });
		expect(bare.id).toBe('order-2000000000000000001-FILLED-0.01');
		// The catch-up's event of the same fill carries that ID as its other name.
		const records = new Map([
			['2000000000000000001', { order: order({}), list: 'LIMIT' as const, sentAt: SENT }],
		]);
		const found = futuresEventsOf(
			[
				fill('3000000000000000008', '0.006', '1764160000100'),
				fill('3000000000000000009', '0.004', '1764160000120'),
			],
			records,
			{ since: 1764159990000, lastSeenOpen: new Set() },
		);
		expect(found.changes.map((change) => [change.id, change.otherId])).toEqual([
			['futures-fill-3000000000000000008', 'order-2000000000000000001-PARTIALLY_FILLED-0.006'],
			['futures-fill-3000000000000000009', bare.id],
		]);
		expect(withD.id).toBe(found.changes[1].id);
		// The other name is bookkeeping, not an item field.
		expect(itemOf(found.changes[1] as StreamEvent, 'futuresOrderFilled')).not.toHaveProperty(
			'otherId',
		);
	});

	it('a contract report naming an account is compared with the futures account, a spot report with the trading one', () => {
		const read = (message: Record<string, unknown>) =>
			eventsOfMessage([message], 1764160000200, '10001', '10003');
		expect(read({ ...report, a: '10003' })).toMatchObject({
			foreign: 0,
			events: [{ orderId: '2000000000000000001' }],
		});
		expect(read({ ...report, accountId: '10003' }).foreign).toBe(0);
		expect(read({ ...report, a: '10001' })).toMatchObject({ foreign: 1, events: [] });
		expect(read({ ...report, e: 'executionReport', s: 'BTCUSDT', a: '10003' }).foreign).toBe(1);
		expect(read({ ...report, e: 'executionReport', s: 'BTCUSDT', a: '10001' }).foreign).toBe(0);
	});
});
