/**
 * What the tests of the futures cancels and position writes share: orders placed over the
 * sandbox's own write routes (signed, as any client would), a LONG position to reduce, and the
 * requests a run sent by method.
 */
import { DEMO_KEYS, type LedgerRequest, type Sandbox } from '../../../../sandbox';
import { TestClient } from '../../../../sandbox/testClient';
import { BTC } from './support';

export const WRITE_PATHS = {
	order: '/api/v2/futures/order',
	cancelOrders: '/api/v2/futures/cancelOrders',
	openOrders: '/api/v2/futures/openOrders',
	historyOrders: '/api/v2/futures/historyOrders',
	tradingStop: '/api/v2/futures/position/trading-stop',
	leverage: '/api/v2/futures/leverage',
	positions: '/api/v2/futures/positions',
} as const;

/** The mark price the tests fix BTC at: limit BUYs below it rest, BUY stops above it wait. */
export const MARK = '60000';

export type FuturesOrderJson = Record<string, unknown> & { orderId: string; status: string };

/** POST /api/v2/futures/order with `params` (query string), as the master key; throws on a refusal. */
export async function placeFutures(
	sandbox: Sandbox,
	params: Record<string, string>,
): Promise<FuturesOrderJson> {
	const client = new TestClient(sandbox.baseUrl, DEMO_KEYS.master, () => sandbox.now());
	const answer = await client.call({ method: 'POST', path: WRITE_PATHS.order, query: params });
	if (answer.status !== 200) throw new Error(`placing ${JSON.stringify(params)}: ${answer.text}`);
	return JSON.parse(answer.text) as FuturesOrderJson;
}

/** A resting BUY LIMIT of BTC below the mark. */
export const restingLimit = (sandbox: Sandbox, extra: Record<string, string> = {}) =>
	placeFutures(sandbox, {
		symbol: BTC,
		side: 'BUY',
		type: 'LIMIT',
		price: '50000',
		baseQty: '0.001',
		...extra,
	});

/** A waiting BUY STOP of BTC above the mark (stop-market). */
export const waitingStop = (sandbox: Sandbox, extra: Record<string, string> = {}) =>
	placeFutures(sandbox, {
		symbol: BTC,
		side: 'BUY',
		type: 'STOP',
		stopPrice: '70000',
		baseQty: '0.001',
		...extra,
	});

/** Fixes the BTC mark and opens a LONG of `quantity` BTC (a filled BUY). */
export function openLong(sandbox: Sandbox, quantity = '0.01'): void {
	sandbox.futures.setMarkPrice(BTC, MARK);
	sandbox.futures.fill({ symbol: BTC, side: 'BUY', quantity, price: MARK });
}

/** The requests of a run (or of the ledger since `since`) to `path` with `method`. */
export function sent(
	requests: LedgerRequest[],
	path: string,
	method: 'GET' | 'POST' | 'DELETE',
): LedgerRequest[] {
	return requests.filter((request) => request.path === path && request.method === method);
}

/** The query of a request, read. */
export const queryOf = (request: LedgerRequest) => new URLSearchParams(request.query);
