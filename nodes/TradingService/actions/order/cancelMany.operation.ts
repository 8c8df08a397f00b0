import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../../constants';
import { optionsCollection, sideFilter } from '../../descriptions/common';
import { orderIdList } from '../../helpers/orderIds';
import { oneOf, symbol as symbolValue } from '../../helpers/validation';
import { ENDPOINTS, unexpectedResponseError } from '../../transport';
import { cancelKind, pendingCancel, type PendingCancel } from '../../writes/cancels';
import { settleWrites } from '../../writes/engine';
import { outcomeUnknownError, withOutcome } from '../../writes/outcomes';
import type { RunContext } from '../runContext';

const properties: INodeProperties[] = [
	{
		displayName: 'Cancel By',
		name: 'cancelBy',
		type: 'options',
		default: 'symbol',
		options: [
			{
				name: 'Symbol',
				value: 'symbol',
				description: 'Cancel every open order of one trading pair',
			},
			{ name: 'Order IDs', value: 'ids', description: 'Cancel the orders in a list of order IDs' },
		],
		description:
			'Whether to cancel all open orders of a symbol, or the orders of a list of order IDs',
	},
	{
		displayName: 'Symbol',
		name: 'symbol',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. BTCUSDT',
		description: 'Trading pair whose open orders to cancel, upper case without separator',
		displayOptions: { show: { cancelBy: ['symbol'] } },
	},
	{
		displayName: 'Order IDs',
		name: 'orderIds',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1470000000000000123, 1470000000000000124',
		description:
			'Order IDs to cancel (the orderId field of orders), separated by commas, or a list from an expression. Sent 100 per request; one output item per ID.',
		displayOptions: { show: { cancelBy: ['ids'] } },
	},
	{
		...optionsCollection([
			sideFilter('Cancel only the buy orders or only the sell orders of the symbol'),
		]),
		displayOptions: { show: { cancelBy: ['symbol'] } },
	},
];

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['cancelMany'] } },
	properties,
);

/** Rounds of cancel-by-symbol before the node stops: 200 orders each. */
const MAX_SYMBOL_ROUNDS = 100;

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const node = run.node;
	const cancelBy = oneOf(
		node,
		'Cancel By',
		run.parameter('cancelBy', itemIndex, 'symbol'),
		['symbol', 'ids'] as const,
		itemIndex,
	);
	if (cancelBy === 'symbol') {
		const symbol = symbolValue(node, 'Symbol', run.parameter('symbol', itemIndex, ''), itemIndex);
		const { side = 'BOTH' } = run.options(itemIndex, (options) => options as { side?: string });
		oneOf(node, 'Side', side, ['BOTH', 'BUY', 'SELL'] as const, itemIndex);
		return [await cancelBySymbol(run, symbol, side === 'BOTH' ? undefined : side, itemIndex)];
	}
	const ids = orderIdList(node, 'Order IDs', run.parameter('orderIds', itemIndex, ''), itemIndex);
	return await cancelByIds(run, ids, itemIndex);
}

/**
 * DELETE /api/v1/spot/openOrders cancels at most 200 orders per request and answers the ID of the
 * last one it cancelled ("0" when none): the node asks again until nothing is left to cancel. An
 * answer without lastOrderId (some of the family's servers answer only `success`) ends it at once.
 * Sending it again is harmless (it cancels what is open), so the item's outcome is the last
 * request's. One summary item, as the service answers no per-order results.
 */
async function cancelBySymbol(
	run: RunContext,
	symbol: string,
	side: string | undefined,
	itemIndex: number,
): Promise<IDataObject> {
	const qs: IDataObject = {
		symbol,
		...(side === undefined ? {} : { side }),
		limit: LIMITS.cancelOpenOrdersPerRequest,
	};
	const wording = {
		what: `cancel of the open ${symbol} orders`,
		howToCheck: `Check your open orders for ${symbol} (Trading Service > Order > Get Many)`,
	};
	let answer: IDataObject = {};
	let lastCancelled: string | undefined;
	let requests = 0;
	for (;;) {
		const attempt = await run.client.write(ENDPOINTS.cancelOpenOrders, { qs, itemIndex });
		if (attempt.kind === 'rejected') throw withOutcome(attempt.error, 'rejected');
		if (attempt.kind === 'unknown') {
			if (attempt.unusable === undefined)
				throw outcomeUnknownError(run.node, wording, attempt.reason, attempt.detail, itemIndex);
			throw withOutcome(
				unexpectedResponseError(
					run.node,
					attempt.unusable.problem,
					attempt.unusable.body,
					wording.howToCheck,
					itemIndex,
				),
				'unknown',
			);
		}
		answer = attempt.body as IDataObject;
		requests++;
		const lastOrderId = answer.lastOrderId;
		if (typeof lastOrderId !== 'string' && typeof lastOrderId !== 'number') break;
		if (/^0*$/.test(String(lastOrderId))) break;
		lastCancelled = String(lastOrderId);
		if (requests >= MAX_SYMBOL_ROUNDS) break;
	}
	const summary: IDataObject = {
		outcome: 'placed',
		symbol,
		...(side === undefined ? {} : { side }),
		...answer,
		requests,
	};
	if (lastCancelled !== undefined) summary.lastOrderId = lastCancelled;
	if (requests >= MAX_SYMBOL_ROUNDS) summary.moreMayRemain = true;
	return summary;
}

/** The item of one ID, once the engine settled its cancel. */
function cancelByIdItem(pending: PendingCancel): IDataObject {
	const orderId = 'orderId' in pending.write.reference ? pending.write.reference.orderId : '';
	const settled = pending.settled!;
	if (settled.outcome === 'placed') {
		if (settled.via === 'ledger')
			return { orderId, outcome: 'placed', cancelled: true, replayed: true };
		if (settled.via === 'lookup')
			return {
				orderId,
				outcome: 'placed',
				cancelled: true,
				confirmedByLookup: true,
				status: settled.result.status,
			};
		return { orderId, outcome: 'placed', cancelled: true };
	}
	if (settled.outcome === 'unknown') {
		return {
			orderId,
			outcome: 'unknown',
			cancelled: null,
			message: `Unknown outcome: the cancel request got no usable answer and ${settled.reason}`,
			// The same advice as for a single cancel: the cancel kind owns the wording.
			howToCheck: `Look up order ID ${orderId} (Trading Service > Order > Get) and check its status`,
		};
	}
	const { refusal } = settled;
	if (refusal.error !== undefined) {
		return {
			orderId,
			outcome: 'rejected',
			cancelled: false,
			reason: 'requestRefused',
			message: `Not cancelled: ${refusal.error.message}`,
		};
	}
	const { reason, text, order } = refusal.detail as {
		reason: string;
		text: string;
		order?: IDataObject;
	};
	if (order !== undefined) {
		return {
			orderId,
			outcome: 'rejected',
			cancelled: false,
			confirmedByLookup: true,
			reason,
			message: `Not cancelled: ${text}`,
			...(order.status === undefined ? {} : { status: order.status }),
		};
	}
	return {
		orderId,
		outcome: 'rejected',
		cancelled: false,
		reason,
		message: `Not cancelled: ${text}`,
		code: refusal.code,
	};
}

/**
 * DELETE /api/v1/spot/cancelOrderByIds, 100 IDs per request, settled by the write engine with the
 * ledger: a re-run of the node answers the IDs it cancelled from the ledger and sends none of them
 * again. The answer lists only the IDs it did not cancel, each with a code; every other ID was
 * cancelled. A request whose outcome is unknown is settled ID by ID with a lookup (Order › Get);
 * an ID still open once the cancel can no longer be applied is sent once more. The first request's
 * refusal is the node's error (nothing was cancelled); a later request's gives its IDs items saying
 * why, since earlier IDs were.
 */
async function cancelByIds(
	run: RunContext,
	ids: string[],
	itemIndex: number,
): Promise<IDataObject[]> {
	const pending = ids.map((orderId, position) =>
		pendingCancel(run.ledger, `${itemIndex}.${position}`, { orderId }, itemIndex),
	);
	let requests = 0;
	await settleWrites(run, cancelKind(run, 'byIds'), pending, {
		afterRequest: (group) => {
			requests++;
			const first = group[0].settled;
			if (requests > 1 || first?.outcome !== 'rejected' || first.refusal.error === undefined)
				return;
			if (pending.some((one) => one.settled?.outcome === 'placed')) return;
			throw withOutcome(first.refusal.error, 'rejected');
		},
	});
	return pending.map(cancelByIdItem);
}
