import { DEMO_KEYS, type DemoKey, type OrderView, type Sandbox } from '../../sandbox';
import { TestClient } from '../../sandbox/testClient';

/**
 * Resting LIMIT BUY orders placed straight on the sandbox (batches of 20), as set-up for the order
 * read and cancel tests: tiny, so that a thousand of them lock little. Returns their order IDs,
 * oldest first.
 */
export async function placeRestingOrders(
	sandbox: Sandbox,
	count: number,
	{
		symbol = 'BTCUSDT',
		key = DEMO_KEYS.master,
		price = '1',
		quantity = '0.001',
	}: { symbol?: string; key?: DemoKey; price?: string; quantity?: string } = {},
): Promise<string[]> {
	const client = new TestClient(sandbox.baseUrl, key, () => sandbox.now());
	const before = sandbox.ledger.orders.length;
	for (let start = 0; start < count; start += 20) {
		const batch = Array.from({ length: Math.min(20, count - start) }, () => ({
			symbol,
			side: 'BUY',
			type: 'LIMIT',
			timeInForce: 'GTC',
			price,
			quantity,
		}));
		const answer = await client.batch(batch);
		if (answer.status !== 200)
			throw new Error(`placing resting orders failed: ${answer.status} ${answer.text}`);
	}
	const placed = sandbox.ledger.orders.slice(before).map((order) => order.orderId);
	if (placed.length !== count)
		throw new Error(`placed ${placed.length} of ${count} resting orders`);
	return placed;
}

/** An open order to seed at an age: BTCUSDT BUY of the master key's account unless said. */
export interface AgedOrder {
	ageMs: number;
	symbol?: string;
	side?: 'BUY' | 'SELL';
	partlyFilled?: boolean;
	key?: DemoKey;
}

const DAY_MS = 24 * 3_600_000;

/**
 * Seeds open orders of the order examples at the given ages (oldest first, as IDs grow with time),
 * each with its own quantity. `stale`: older than a day, what the examples cancel.
 */
export function seedAgedOrders(
	sandbox: Sandbox,
	orders: AgedOrder[],
): Array<OrderView & { stale: boolean }> {
	const now = sandbox.now();
	return [...orders]
		.sort((a, b) => b.ageMs - a.ageMs)
		.map((o, i) => {
			const symbol = o.symbol ?? 'BTCUSDT';
			const side = o.side ?? 'BUY';
			const price = {
				BTCUSDT: side === 'BUY' ? '45000' : '55000',
				ETHUSDT: side === 'BUY' ? '2800' : '3200',
				SOLUSDT: '140',
			}[symbol]!;
			const seeded = sandbox.seedOpenOrder({
				symbol,
				side,
				price,
				quantity: symbol === 'BTCUSDT' ? `0.0${i + 1}` : `0.${i + 1}`,
				time: now - o.ageMs,
				...(o.key === undefined ? {} : { key: o.key }),
			});
			const view = o.partlyFilled
				? sandbox.fillOrder(seeded.orderId, symbol === 'BTCUSDT' ? '0.001' : '0.01')
				: seeded;
			return { ...view, stale: o.ageMs > DAY_MS };
		});
}
