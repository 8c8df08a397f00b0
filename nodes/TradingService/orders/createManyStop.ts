import { NodeOperationError, type IDataObject, type INodeExecutionData } from 'n8n-workflow';

import { toNodeError } from '../transport';
import { errorItemJson, orderCounts, runReport, withRunReport } from '../writes/outcomes';
import { writeSessionOf } from '../writes/writeSession';
import type { RunContext } from '../run/runContext';
import type { Outputs } from './createManyInput';
import { refusedError } from './orderRules';
import type { PendingOrder } from './orderWrites';

// How a Create Many that stopped says so: the error, with what became of every item and order of
// the run (from the write ledger, once every batch in flight answered), and, under Continue On
// Fail, an item for every order besides the error's own.

type StopRun = Pick<RunContext, 'node' | 'continueOnFail'>;

/**
 * With Fail on Any Rejected Order: the error that stops the run after a batch with rejections. What
 * the run placed is added once the batches in flight answered: a count made now would miss them.
 */
export function rejectedOrdersError(
	run: StopRun,
	rejected: PendingOrder[],
	batchesLeft: number,
): NodeOperationError {
	const settled = rejected[0].settled;
	const entry = (settled?.outcome === 'rejected' ? settled.refusal.detail?.entry : undefined) as
		| IDataObject
		| undefined;
	return refusedError(
		run.node,
		`${rejected.length} order(s) were rejected: ${typeof entry?.msg === 'string' ? entry.msg : ''} (code ${String(entry?.code)})`,
		`Fail on Any Rejected Order is on, so no further batches were sent (${batchesLeft} left); those already in flight were answered.`,
		rejected[0].itemIndex,
	);
}

/**
 * The error that stopped a Create Many, with what became of every item and order of the run, read
 * from the ledger of every try once the batches in flight answered (the engine throws only then).
 */
export function stoppedRunError(
	run: RunContext,
	itemCount: number,
	error: unknown,
	orders: PendingOrder[] | undefined,
) {
	const nodeError = toNodeError(run.node, error);
	const report = runReport(writeSessionOf(run).ledger, itemCount);
	const heldBefore = report.placed.length + report.unknown.length > 0;
	if (itemCount < 2 && orders === undefined && !heldBefore) return nodeError;
	return withRunReport(nodeError, {
		...report,
		...(orders === undefined ? {} : { orders: orderCounts(orders) }),
	});
}

/** The item of an order the stopped run never settled: as the ledger holds it, else not sent. */
function unsettledItem(pending: PendingOrder, stopped: Error): INodeExecutionData {
	const { order } = pending.write;
	const held = pending.slot.held;
	const said: IDataObject =
		held === 'placed'
			? {
					outcome: 'placed',
					success: true,
					message: 'Placed: the node’s write record holds it placed',
				}
			: held === 'unknown'
				? {
						outcome: 'unknown',
						success: false,
						message: `Unknown outcome: it was sent and the run stopped (${stopped.message}) before its outcome was known`,
						howToCheck: `Check your open orders and trade history for ${order.symbol}${order.newClientOrderId ? ` (client order ID ${order.newClientOrderId})` : ''}`,
					}
				: {
						outcome: 'rejected',
						success: false,
						notSent: true,
						message: `Not sent: the run stopped before this order was sent (${stopped.message}). Running the node again sends it.`,
					};
	return {
		json: {
			...said,
			code: null,
			msg: '',
			order: null,
			symbol: order.symbol,
			clientOrderId: order.newClientOrderId ?? null,
			request: { ...order },
		},
		pairedItem: { item: pending.itemIndex },
	};
}

/**
 * Under Continue On Fail, what a stopped run gives: an item per order, as it settled or as the
 * ledger holds it, and the stopping error's item after the orders of the item it is about. Without
 * this n8n passes the input on unchanged and the orders placed go unreported.
 */
export function stoppedRunItems(
	outputs: Outputs,
	orders: PendingOrder[] | undefined,
	stopped: Error & { context?: IDataObject },
): INodeExecutionData[] {
	for (const pending of orders ?? []) {
		const slots = outputs[pending.itemIndex];
		if (slots[pending.write.orderIndex] === undefined)
			slots[pending.write.orderIndex] = unsettledItem(pending, stopped);
	}
	const named = Number(stopped.context?.itemIndex);
	const itemIndex = Number.isInteger(named) && named >= 0 && named < outputs.length ? named : 0;
	if (outputs.length > 0)
		outputs[itemIndex] = [
			...outputs[itemIndex].filter((item) => item !== undefined),
			{ json: errorItemJson(stopped), pairedItem: { item: itemIndex } },
		];
	return outputs.flat().filter((item) => item !== undefined);
}
