/**
 * The futures catch-up's reader (stream/futuresCatchUp.ts) on fixed REST answers, for what the
 * sandbox cannot stage: a fill listed between two reads of its order, and a fill whose order the
 * exchange will not show (0211). The answers are the futures lists' shapes (docs/api.md); the
 * client is a stand-in that answers by path, one page each.
 */
import type { IDataObject, INode } from 'n8n-workflow';

import type { Activation } from '../../../../nodes/TradingService/stream/activation';
import type { Emitter } from '../../../../nodes/TradingService/stream/emitter';
import type { StreamEvent } from '../../../../nodes/TradingService/stream/events';
import { catchUpFuturesOrders } from '../../../../nodes/TradingService/stream/futuresCatchUp';
import { emptyStreamState } from '../../../../nodes/TradingService/stream/streamState';
import { rejectionError } from '../../../../nodes/TradingService/transport/errors';

const BTC = 'BTCUSDT-PERPETUAL';
const SINCE = 1764159990000;
const NODE = {
	id: 'n',
	name: 'Trigger',
	type: 't',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
} as INode;

function order(orderId: string, fields: Record<string, unknown>): IDataObject {
	return {
		time: '1764150000000',
		orderId,
		clientOrderId: '',
		symbol: BTC,
		price: '50000',
		side: 'BUY',
		orderType: 'limit',
		reduceOnly: false,
		leverage: '5',
		originalBaseQty: '10',
		executedBaseQty: '0',
		executedQuoteQty: '0',
		avgPrice: '0',
		status: 'NEW',
		isLiquidationOrder: false,
		liquidationType: '',
		...fields,
	};
}

function fill(tradeId: string, orderId: string, quantity: string, time: string): IDataObject {
	return {
		time,
		tradeId,
		orderId,
		symbol: BTC,
		price: '50000',
		quantity,
		commissionAsset: 'USDT',
		commission: '0.1',
		type: 'limit',
		side: 'BUY',
		isMaker: true,
	};
}

type Answers = {
	/** The lists' answers, by path and `type` (orders) at each call of that list. */
	list: (path: string, type: string | undefined, call: number) => IDataObject[];
	/** GET /api/v2/futures/order by ID, at each call for it. */
	byId: (orderId: string, call: number) => IDataObject;
};

/** A catch-up of the futures order events on `answers`; what it emitted, logged and asked. */
async function catchUp(answers: Answers, followed: Record<string, string> = {}) {
	const requests: string[] = [];
	const calls = new Map<string, number>();
	const count = (key: string) => {
		calls.set(key, (calls.get(key) ?? 0) + 1);
		return calls.get(key)!;
	};
	const request = async (endpoint: { path: string }, options: { qs: IDataObject }) => {
		const { qs } = options;
		requests.push(`${endpoint.path} ${String(qs.orderId ?? qs.type ?? qs.symbol)}`);
		if (endpoint.path === '/api/v2/futures/order')
			return answers.byId(String(qs.orderId), count(`order ${String(qs.orderId)}`));
		const type = qs.type === undefined ? undefined : String(qs.type);
		return answers.list(endpoint.path, type, count(`${endpoint.path} ${type}`));
	};
	const client = {
		request,
		async requestAllPages(
			endpoint: { path: string },
			pager: { next: () => { qs: IDataObject } | undefined; take: (page: unknown) => void },
		) {
			for (let next = pager.next(); next !== undefined; next = pager.next())
				pager.take(await request(endpoint, next));
		},
	};
	const logs: string[] = [];
	const state = { ...emptyStreamState(), futuresOpen: { ...followed }, futuresSince: 0 };
	const activation = {
		node: NODE,
		client,
		clock: { now: () => SINCE + 60_000, random: Math.random },
		settings: { kinds: new Set(['futuresOrderFilled', 'futuresOrderPartiallyFilled']) },
		state,
		futuresContracts: [BTC],
		log: {
			info: (message: string) => logs.push(`info: ${message}`),
			warn: (message: string) => logs.push(`warn: ${message}`),
			error: (message: string) => logs.push(`error: ${message}`),
		},
	} as unknown as Activation;
	const handled: StreamEvent[] = [];
	const emitter = {
		keep: () => true,
		handle: (event: StreamEvent) => handled.push(event),
	} as unknown as Emitter;
	const complete = await catchUpFuturesOrders(activation, emitter, SINCE);
	const events = handled.map((event) =>
		event.channel === 'order' ? `${event.id} ${event.status} ${event.executedQuantity}` : event.id,
	);
	return { events, logs, requests, complete, state };
}

const OPEN = '/api/v2/futures/openOrders';
const PAST = '/api/v2/futures/historyOrders';
const FILLS = '/api/v2/futures/userTrades';

describe('the futures catch-up on fixed answers', () => {
	it('a fill listed after its order was read: the order read again, the fills counted from the read that settles', async () => {
		// The reviewer's order: 10 ordered, 3 filled before the range, 4 in the gap (trade 41); the
		// open list reads it at 7; 3 more (trade 42) fill before the fill list is read.
		const { events, requests } = await catchUp({
			list: (path, type, call) => {
				if (path === OPEN && type === 'LIMIT' && call === 1)
					return [order('5', { status: 'PARTIALLY_FILLED', executedBaseQty: '7' })];
				if (path === PAST && type === 'LIMIT' && call === 2)
					return [order('5', { status: 'FILLED', executedBaseQty: '10' })];
				if (path === FILLS)
					return [fill('42', '5', '3', '1764160000200'), fill('41', '5', '4', '1764160000100')];
				return [];
			},
			byId: () => order('5', { status: 'FILLED', executedBaseQty: '10' }),
		});
		expect(events).toEqual(['futures-fill-41 PARTIALLY_FILLED 7', 'futures-fill-42 FILLED 10']);
		// One re-read of the order, then the lists once more.
		expect(requests.filter((line) => line.startsWith('/api/v2/futures/order '))).toEqual([
			'/api/v2/futures/order 5',
		]);
		expect(requests.filter((line) => line.startsWith(FILLS))).toHaveLength(2);
	});

	it('an order that keeps filling through every read: the catch-up fails (and is read again), nothing half counted', async () => {
		let executed = 7;
		await expect(
			catchUp({
				list: (path, type) => {
					if (path === OPEN && type === 'LIMIT')
						return [order('5', { status: 'PARTIALLY_FILLED', executedBaseQty: String(executed) })];
					if (path === FILLS) return [fill('41', '5', '1', '1764160000100')];
					return [];
				},
				byId: () => order('5', { status: 'PARTIALLY_FILLED', executedBaseQty: String(++executed) }),
			}),
		).rejects.toThrow('futures order(s) 5 kept filling while the catch-up read them');
	});

	it('a fill whose order cannot be read (0211): not emitted, and the log says so, not "last seen open"', async () => {
		const missing = rejectionError(
			NODE,
			{ code: '0211', msg: 'Order not found', httpStatus: 400 },
			undefined,
		);
		const { events, logs, complete, state } = await catchUp(
			{
				list: (path) => (path === FILLS ? [fill('61', '6', '0.5', '1764160000100')] : []),
				byId: (orderId) => {
					if (orderId === '6' || orderId === '7') throw missing;
					return order(orderId, {});
				},
			},
			{ '7': `${BTC}|LIMIT` },
		);
		expect(events).toEqual([]);
		expect(logs).toEqual([
			'info: futures order 7, last seen open, is not on the exchange; no longer followed',
			expect.stringMatching(
				/^warn: futures fill 61 of order 6 not emitted: its order cannot be read/,
			),
		]);
		expect(state.futuresOpen).toEqual({});
		expect(complete).toBe(true);
	});

	it('a fill whose order lookup failed otherwise: left, and the catch-up says it is not complete', async () => {
		const { events, complete, logs } = await catchUp({
			list: (path) => (path === FILLS ? [fill('71', '8', '0.5', '1764160000100')] : []),
			byId: () => {
				throw new Error('socket hang up');
			},
		});
		expect(events).toEqual([]);
		expect(complete).toBe(false);
		expect(logs.some((line) => line.includes('left for the next catch-up'))).toBe(true);
	});
});
