import { NodeOperationError, type IDataObject, type INodeExecutionData } from 'n8n-workflow';

import { toNodeError } from '../transport';
import { replayedOrder, type PendingOrder } from './orderWrites';
import { withOutcome } from '../writes/outcomes';
import { errorItemJson } from '../run/errorItems';
import type { RunContext } from '../run/runContext';

/**
 * What each order of Create Many comes out as, once the write engine settled it: an item with
 * success true or false, or the error that stops the run.
 */

/** What these items use of the run. */
type ItemRun = Pick<RunContext, 'node' | 'continueOnFail'>;

/** An output item of one order. */
function orderItem(pending: PendingOrder, json: IDataObject): INodeExecutionData {
	const { order } = pending.write;
	return {
		json: {
			...json,
			symbol: order.symbol,
			clientOrderId:
				order.newClientOrderId ?? (json.order as IDataObject | null)?.clientOrderId ?? null,
		},
		pairedItem: { item: pending.itemIndex },
	};
}

function placedJson(
	order: IDataObject,
	entry: IDataObject | undefined,
	alreadyPlaced: boolean,
): IDataObject {
	const json: IDataObject = {
		outcome: 'placed',
		success: true,
		code: (entry?.code ?? null) as IDataObject[string],
		msg: typeof entry?.msg === 'string' ? entry.msg : '',
		order,
	};
	if (alreadyPlaced) json.alreadyPlaced = true;
	return json;
}

/** The batch entry that refused an order, when the refusal came from its entry alone. */
export function refusingEntry(pending: PendingOrder): IDataObject | undefined {
	const settled = pending.settled;
	if (settled?.outcome !== 'rejected' || settled.refusal.error !== undefined) return undefined;
	return settled.refusal.detail?.entry as IDataObject | undefined;
}

/**
 * The item of a settled order, or the error that stops the run. A refusal in the order's own batch
 * entry is an item with success false; the whole batch refused, or an unknown outcome, is an error
 * about the order (an item with Continue On Fail).
 */
export function settledItem(run: ItemRun, pending: PendingOrder): INodeExecutionData {
	const settled = pending.settled!;
	if (settled.outcome === 'placed') {
		if (settled.via === 'ledger')
			return orderItem(pending, {
				...placedJson(
					replayedOrder(pending.write.order, settled.result),
					undefined,
					settled.alreadyPlaced,
				),
				replayed: true,
			});
		return orderItem(pending, placedJson(settled.result, settled.entry, settled.alreadyPlaced));
	}
	const entry = refusingEntry(pending);
	if (entry !== undefined) {
		return orderItem(pending, {
			outcome: 'rejected',
			success: false,
			code: entry.code as IDataObject[string],
			msg: typeof entry.msg === 'string' ? entry.msg : '',
			order: null,
		});
	}
	const error =
		settled.outcome === 'unknown'
			? settled.error
			: withOutcome(
					toNodeError(
						run.node,
						settled.refusal.error ??
							new NodeOperationError(run.node, 'The service refused the order'),
					),
					'rejected',
				);
	if (!run.continueOnFail) throw error;
	return orderItem(pending, {
		...errorItemJson(error),
		success: false,
		request: { ...pending.write.order },
	});
}

/**
 * With Fail on Any Rejected Order: the error that stops the run after a batch with rejections.
 * Batches already in flight still answer; what the run placed is added once they did
 * (writes/runReport.ts), as a count made now would miss them.
 */
export function rejectedOrdersError(
	run: ItemRun,
	rejected: PendingOrder[],
	batchesLeft: number,
): NodeOperationError {
	const entry = refusingEntry(rejected[0])!;
	return withOutcome(
		new NodeOperationError(
			run.node,
			`${rejected.length} order(s) were rejected: ${typeof entry.msg === 'string' ? entry.msg : ''} (code ${String(entry.code)})`,
			{
				description: `Fail on Any Rejected Order is on, so no further batches were sent (${batchesLeft} left); those already in flight were answered.`,
				itemIndex: rejected[0].itemIndex,
			},
		),
		'rejected',
	);
}
