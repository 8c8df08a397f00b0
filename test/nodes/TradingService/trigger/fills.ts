/**
 * Shared by the Order Filled tests (the node's and the fault suite's): fills made the way an
 * exchange makes them (resting LIMIT orders placed over HTTP, then filled on the test's schedule),
 * and every fill the trade list holds, read through the sandbox's own signing client.
 */
import { DEMO_KEYS, type AccountTrade, type Sandbox } from '../../../../sandbox';
import { TestClient } from '../../../../sandbox/testClient';
import { placeRestingOrders } from '../../../support/orders';

export const TRADES_PATH = '/api/v1/account/trades';

/** Resting LIMIT BUY orders of BTCUSDT (or `symbol`), quantity 0.001 each: their order IDs. */
export async function restingOrders(sandbox: Sandbox, count: number, symbol = 'BTCUSDT') {
	return await placeRestingOrders(sandbox, count, { symbol, quantity: '0.001' });
}

/** Every fill of the master key's trading account, newest first (paged by `toId`). */
export async function allFills(sandbox: Sandbox): Promise<AccountTrade[]> {
	const client = new TestClient(sandbox.baseUrl, DEMO_KEYS.master, () => sandbox.now());
	const fills: AccountTrade[] = [];
	let toId: string | undefined;
	for (;;) {
		const answer = await client.trades({ limit: 1000, ...(toId === undefined ? {} : { toId }) });
		if (answer.status !== 200) throw new Error(`listing fills failed: ${answer.text}`);
		const page = answer.json as AccountTrade[];
		fills.push(...page);
		if (page.length < 1000) return fills;
		toId = page[page.length - 1].id;
	}
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
