import { DEMO_KEYS, type DemoKey, type Sandbox } from '../../sandbox';
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
