/**
 * Running the Trading Service node against the sandbox and reading what a run reported: the
 * requests the sandbox saw during that run, the error of an item (Continue On Fail), the outcome a
 * write reports, and items grouped by the input item they answer.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { runTradingService, type NodeRun, type NodeRunOptions } from '../../tools/harness/node';
import type { LedgerRequest, Sandbox } from '../../sandbox';

/** The endpoints the node calls, as the sandbox's ledger records their paths. */
export const PATHS = {
	history: '/api/v1/account/balanceFlow',
	transfer: '/api/v1/account/assetTransfer',
	order: '/api/v1/spot/new/order',
	queryOrder: '/api/v1/spot/order',
	batch: '/api/v1/spot/batchOrders',
	// Node version 2's Create and Create Many (the unified endpoints).
	unifiedOrder: '/api/v1.1/spot/order',
	unifiedBatch: '/api/v1.1/spot/batchOrders',
	openOrders: '/api/v1/spot/openOrders',
	pastOrders: '/api/v1/spot/tradeOrders',
	time: '/api/v1/time',
	exchangeInfo: '/api/v1/exchangeInfo',
} as const;

export const HOUR = 3_600_000;

export interface CountedRun extends NodeRun {
	/** Requests the sandbox saw during this run (in order). */
	requests: LedgerRequest[];
}

/** Runs the node and returns, with the run, the requests the sandbox saw during it. */
export async function runCounting(sandbox: Sandbox, options: NodeRunOptions): Promise<CountedRun> {
	const before = sandbox.ledger.requests.length;
	const run = await runTradingService(sandbox, options);
	return { ...run, requests: sandbox.ledger.requests.slice(before) };
}

/** The error message an item carries (Continue On Fail), if any. */
export function errorOf(item: INodeExecutionData | undefined): string | undefined {
	const error = item?.json.error;
	return typeof error === 'string' ? error : undefined;
}

/** The outcome a run reports for a write: on its error if it failed, else on item `index`. */
export function reportedOutcome(
	run: { items: Array<{ json: Record<string, unknown> }>; error?: { context?: unknown } },
	index = 0,
): unknown {
	return run.error
		? (run.error.context as { outcome?: string } | undefined)?.outcome
		: run.items[index]?.json.outcome;
}

/** Output items grouped by the input item they are paired with. */
export function byInputItem(items: INodeExecutionData[]): Map<number, INodeExecutionData[]> {
	const grouped = new Map<number, INodeExecutionData[]>();
	for (const item of items) {
		const paired = Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem;
		const index = typeof paired === 'number' ? paired : (paired?.item ?? -1);
		const list = grouped.get(index) ?? [];
		list.push(item);
		grouped.set(index, list);
	}
	return grouped;
}
