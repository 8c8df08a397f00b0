/**
 * What the sandbox's own tests share besides the fixture (../support/sandbox.ts): the fixed clock,
 * the paths, the orders and transfers they send, and small helpers around TestClient.
 */
import { type HistoryRecord, type Sandbox } from '../../sandbox';
import { rawRequest, type TestClient } from '../../sandbox/testClient';

/** The fixed server clock of most files. */
export const T0 = 1_800_000_000_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

export const HISTORY = '/api/v1/account/balanceFlow';
export const TRANSFER = '/api/v1/account/assetTransfer';
export const ORDER = '/api/v1/spot/new/order';
export const BATCH = '/api/v1/spot/batchOrders';

/** Funding fees up to shortly after T0. */
export const historyQuery = { flowType: 32, startTime: 0, endTime: T0 + 10_000 };
/** 100 USDT from the main account to 10005. */
export const move = { fromAccountId: '10001', toAccountId: '10005', coin: 'USDT', quantity: '100' };

/** A small LIMIT BUY that rests: 0.01 BTC at 40000. */
export const limitBuy = {
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	quantity: '0.01',
	price: '40000',
};
export const limit = (id: string) => ({ ...limitBuy, newClientOrderId: id });

/** A resting LIMIT BUY of 0.5 BTC at 40000 (locks 20000 USDT), with a client order id if given. */
export const buy = (id?: string, extra: Record<string, string> = {}) => ({
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	quantity: '0.5',
	price: '40000',
	...(id ? { newClientOrderId: id } : {}),
	...extra,
});
/** A resting LIMIT SELL of 2 BTC at 60000. */
export const sell = (id?: string) => ({ ...buy(id), side: 'SELL', quantity: '2', price: '60000' });

/** `place(order, client = defaultClient())`: places an order that must be accepted. */
export const placeWith =
	(defaultClient: () => TestClient) =>
	async (o: Record<string, string>, c: TestClient = defaultClient()) => {
		const r = await c.order(o);
		expect(r.status).toBe(200);
		return r.json as { orderId: string; clientOrderId: string };
	};

/** `hist(flowType, client = defaultClient())`: the records of the last second up to T0. */
export const histWith =
	(defaultClient: () => TestClient) =>
	async (flowType: number, c: TestClient = defaultClient()) =>
		(await c.history({ flowType, startTime: T0 - 1000, endTime: T0, limit: 500 }))
			.json as HistoryRecord[];

/** The transfer records (flowType 51) of the 30 days up to T0 a client sees. */
export const transfers = (client: TestClient, accountType?: number) =>
	client.history({ flowType: 51, accountType, startTime: T0 - 30 * DAY, endTime: T0 + 1000 });

/** GET /api/v1/time, public. */
export const serverTime = (sandbox: Sandbox) =>
	rawRequest(sandbox.baseUrl, { method: 'GET', url: '/api/v1/time' });

/** Send a prepared request to an absolute URL (a naive client following a Location header). */
export function sendTo(
	url: string,
	r: { method: string; body?: string; headers?: Record<string, string> },
) {
	const u = new URL(url);
	return rawRequest(`${u.protocol}//${u.host}`, {
		method: r.method,
		url: u.pathname + u.search,
		body: r.body,
		headers: r.headers,
	});
}
