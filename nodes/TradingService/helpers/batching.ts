import { LIMITS } from '../constants';

/**
 * Groups orders by symbol (first appearance first) and cuts each group into batches of 20: a batch
 * request takes one symbol and at most 20 orders (spec §4.3).
 */
export function toBatches<T extends { order: { symbol: string } }>(orders: T[]): T[][] {
	const bySymbol = new Map<string, T[]>();
	for (const entry of orders) {
		const group = bySymbol.get(entry.order.symbol);
		if (group) group.push(entry);
		else bySymbol.set(entry.order.symbol, [entry]);
	}
	const batches: T[][] = [];
	for (const group of bySymbol.values()) {
		for (let start = 0; start < group.length; start += LIMITS.ordersPerBatch) {
			batches.push(group.slice(start, start + LIMITS.ordersPerBatch));
		}
	}
	return batches;
}
