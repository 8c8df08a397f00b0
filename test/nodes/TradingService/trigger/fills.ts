/**
 * Shared by the Order Filled tests (the node's and the fault suite's): fills made the way an
 * exchange makes them (resting LIMIT orders placed over HTTP, then filled on the test's schedule),
 * and every fill the trade list holds, read from the sandbox.
 */
import type { AccountTrade, Sandbox } from '../../../../sandbox';
import { placeRestingOrders } from '../../../support/orders';

export const TRADES_PATH = '/api/v1/account/trades';

/** Resting LIMIT BUY orders of BTCUSDT (or `symbol`), quantity 0.001 each: their order IDs. */
export async function restingOrders(sandbox: Sandbox, count: number, symbol = 'BTCUSDT') {
	return await placeRestingOrders(sandbox, count, { symbol, quantity: '0.001' });
}

/**
 * Every fill of the master key's trading account, newest first: read from the sandbox itself, so
 * the check spends none of the key's request rate the trigger under test keeps to.
 */
export async function allFills(sandbox: Sandbox): Promise<AccountTrade[]> {
	return sandbox.fills();
}

/** Trade ids oldest first: by time, then by id as a number (no precision lost). */
export function oldestFirstIds(fills: AccountTrade[]): string[] {
	return [...fills]
		.sort(
			(a, b) =>
				Number(a.time) - Number(b.time) ||
				a.id.length - b.id.length ||
				(a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
		)
		.map((fill) => fill.id);
}
