/**
 * What the tests of the futures order writes (Create Order, Create Many Orders, Close Position)
 * share: the orders the sandbox's futures book holds, and the requests a run sent by method.
 */
import type { Sandbox } from '../../../../sandbox';
import type { FuturesOrder } from '../../../../sandbox/types';

export const ORDER_PATH = '/api/v2/futures/order';
export const BATCH_PATH = '/api/v2/futures/batchOrders';
export const POSITIONS_PATH = '/api/v2/futures/positions';

/** Every futures order of the master key's contract account, oldest first (the answer shape). */
export function bookOrders(sandbox: Sandbox): FuturesOrder[] {
	return sandbox.futures.orders();
}

/** The requests of a run to `path` with `method`, their queries read. */
export function queries(
	requests: Array<{ path: string; method: string; query: string }>,
	path: string,
	method: string,
): URLSearchParams[] {
	return requests
		.filter((request) => request.path === path && request.method === method)
		.map((request) => new URLSearchParams(request.query));
}
