import {
	itemOf,
	kindOf,
	type StreamEvent,
	type StreamEventKind,
} from '../../../../nodes/TradingService/stream/events';
import { eventsOfMessage } from '../../../../nodes/TradingService/stream/messages';
import { orderChangeOfOrder } from '../../../../nodes/TradingService/stream/restOrders';

/** An executionReport as the exchange family documents it: every number a string. */
const report = {
	e: 'executionReport',
	E: '1764160000123',
	s: 'BTCUSDT',
	c: 'n8n-abc-0-0-0',
	S: 'BUY',
	o: 'LIMIT',
	f: 'GTC',
	q: '0.50000000',
	p: '50000.10',
	X: 'FILLED',
	i: '1891234567890123456',
	l: '0.20000000',
	z: '0.50000000',
	L: '50000.10',
	n: '0.0002',
	N: 'BTC',
	u: true,
	w: false,
	m: true,
	O: '1764160000000',
	Z: '25000.05',
	C: false,
	v: '0',
	d: '1891234567890999999',
	r: '0',
	V: '50000.10',
	P: '0',
	reqAmt: '0',
	lo: false,
	lt: '',
};

const kinds = (...chosen: StreamEventKind[]) => new Set(chosen);

describe('stream events', () => {
	it('reads every event of an array message; ticketInfo and unknown events add nothing', () => {
		const { events, skipped } = eventsOfMessage(
			[
				report,
				{ e: 'ticketInfo', T: '1', o: report.i },
				{
					e: 'outboundAccountInfo',
					E: '1764160000124',
					B: [
						{ a: 'BTC', f: '1.2', l: '0' },
						{ a: 'USDT', f: '10', l: '5.5' },
					],
				},
			],
			1,
		);
		expect(skipped).toBe(0);
		expect(events.map((event) => event.id)).toEqual([
			'order-1891234567890123456-FILLED-0.5',
			'balance-spot-1764160000124-BTC-1.2-0',
			'balance-spot-1764160000124-USDT-10-5.5',
		]);
	});

	it('keeps 64-bit IDs and decimals exactly as the exchange sent them', () => {
		const [event] = eventsOfMessage([report], 1).events;
		const item = itemOf(event, 'orderFilled');
		expect(item).toMatchObject({
			event: 'orderFilled',
			eventId: 'order-1891234567890123456-FILLED-0.5',
			source: 'stream',
			market: 'spot',
			eventTime: '1764160000123',
			orderId: '1891234567890123456',
			clientOrderId: 'n8n-abc-0-0-0',
			symbol: 'BTCUSDT',
			side: 'BUY',
			orderType: 'LIMIT',
			status: 'FILLED',
			price: '50000.10',
			quantity: '0.50000000',
			executedQuantity: '0.50000000',
			cumulativeQuoteQuantity: '25000.05',
			averagePrice: '50000.10',
			orderTime: '1764160000000',
			lastFill: {
				quantity: '0.20000000',
				price: '50000.10',
				fee: '0.0002',
				feeCoin: 'BTC',
				tradeId: '1891234567890999999',
				isMaker: true,
			},
		});
		expect(item.raw).toEqual(report);
	});

	it('gives an order change the same ID on the stream and in a REST catch-up', () => {
		const [streamed] = eventsOfMessage([report], 1).events;
		const read = orderChangeOfOrder(
			{
				orderId: '1891234567890123456',
				symbol: 'BTCUSDT',
				status: 'FILLED',
				executedQty: '0.5',
				origQty: '0.5',
				updateTime: '1764160000123',
			},
			2,
		);
		expect(read?.id).toBe(streamed.id);
		expect(read?.source).toBe('catchUp');
	});

	it('skips an order event that lacks what its ID is made of', () => {
		const { events, skipped } = eventsOfMessage(
			[
				{ ...report, i: undefined },
				{ ...report, X: '' },
			],
			1,
		);
		expect(events).toEqual([]);
		expect(skipped).toBe(2);
	});

	it.each([
		['FILLED', kinds('orderFilled'), 'orderFilled'],
		['FILLED', kinds('orderUpdated'), 'orderUpdated'],
		['FILLED', kinds('orderFilled', 'orderUpdated'), 'orderFilled'],
		['PARTIALLY_FILLED', kinds('orderFilled'), undefined],
		['PARTIALLY_FILLED', kinds('orderPartiallyFilled'), 'orderPartiallyFilled'],
		['CANCELED', kinds('orderCancelled'), 'orderCancelled'],
		['PARTIALLY_CANCELED', kinds('orderCancelled'), 'orderCancelled'],
		['EXPIRED', kinds('orderCancelled'), 'orderCancelled'],
		['NEW', kinds('orderFilled', 'orderCancelled'), undefined],
		['NEW', kinds('orderUpdated'), 'orderUpdated'],
		['REJECTED', kinds('orderCancelled', 'orderUpdated'), 'orderUpdated'],
	])('an order %s is, of the chosen %p, %s', (status, chosen, kind) => {
		const [event] = eventsOfMessage([{ ...report, X: status }], 1).events;
		expect(kindOf(event, chosen)).toBe(kind);
	});

	it('a balance change is only Balance Changed', () => {
		const event = eventsOfMessage(
			[{ e: 'outboundAccountInfo', E: '5', B: [{ a: 'USDT', f: '1', l: '0' }] }],
			1,
		).events[0] as StreamEvent;
		expect(kindOf(event, kinds('orderUpdated'))).toBeUndefined();
		expect(itemOf(event, 'balanceChanged')).toEqual({
			event: 'balanceChanged',
			eventId: 'balance-spot-5-USDT-1-0',
			source: 'stream',
			market: 'spot',
			eventTime: '5',
			coin: 'USDT',
			free: '1',
			locked: '0',
			raw: { a: 'USDT', f: '1', l: '0' },
		});
	});
});
