import { updateDisplayOptions, type IDataObject, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../../constants';
import { optionsCollection, sideFilter } from '../../descriptions/common';
import { orderIdList } from '../../helpers/orderIds';
import { oneOf, symbol as symbolValue } from '../../helpers/validation';
import { ENDPOINTS, outcomeOf, serviceRequest, toNodeError, type WriteTrace } from '../../transport';
import { confirmCancel, notOpenReason } from './cancelOutcome';

const properties: INodeProperties[] = [
	{
		displayName: 'Cancel By',
		name: 'cancelBy',
		type: 'options',
		default: 'symbol',
		options: [
			{ name: 'Symbol', value: 'symbol', description: 'Cancel every open order of one trading pair' },
			{ name: 'Order IDs', value: 'ids', description: 'Cancel the orders in a list of order IDs' },
		],
		description: 'Whether to cancel all open orders of a symbol, or the orders of a list of order IDs',
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

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['order'], operation: ['cancelMany'] } }, properties);

/** Rounds of cancel-by-symbol before the node stops: 200 orders each. */
const MAX_SYMBOL_ROUNDS = 100;

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const cancelBy = oneOf(node, 'Cancel By', this.getNodeParameter('cancelBy', itemIndex, 'symbol'), ['symbol', 'ids'] as const, itemIndex);
	if (cancelBy === 'symbol') {
		const symbol = symbolValue(node, 'Symbol', this.getNodeParameter('symbol', itemIndex, ''), itemIndex);
		const { side = 'BOTH' } = this.getNodeParameter('options', itemIndex, {}) as { side?: string };
		oneOf(node, 'Side', side, ['BOTH', 'BUY', 'SELL'] as const, itemIndex);
		return [await cancelBySymbol.call(this, symbol, side === 'BOTH' ? undefined : side, itemIndex)];
	}
	const ids = orderIdList(node, 'Order IDs', this.getNodeParameter('orderIds', itemIndex, ''), itemIndex);
	return await cancelByIds.call(this, ids, itemIndex);
}

/**
 * DELETE /api/v1/spot/openOrders cancels at most 200 orders per request and answers the ID of the
 * last one it cancelled ("0" when none): the node asks again until nothing is left to cancel. An
 * answer without lastOrderId (some of the family's servers answer only `success`) ends it at once.
 * Sending it again is harmless (it cancels what is open), so the item's outcome is the last
 * request's. One summary item, as the service answers no per-order results.
 */
async function cancelBySymbol(this: IExecuteFunctions, symbol: string, side: string | undefined, itemIndex: number): Promise<IDataObject> {
	const qs: IDataObject = { symbol, ...(side === undefined ? {} : { side }), limit: LIMITS.cancelOpenOrdersPerRequest };
	let answer: IDataObject = {};
	let lastCancelled: string | undefined;
	let requests = 0;
	for (;;) {
		answer = (await serviceRequest.call(this, ENDPOINTS.cancelOpenOrders, { qs, itemIndex })) as IDataObject;
		requests++;
		const lastOrderId = answer.lastOrderId;
		if (typeof lastOrderId !== 'string' && typeof lastOrderId !== 'number') break;
		if (/^0*$/.test(String(lastOrderId))) break;
		lastCancelled = String(lastOrderId);
		if (requests >= MAX_SYMBOL_ROUNDS) break;
	}
	const summary: IDataObject = { outcome: 'placed', symbol, ...(side === undefined ? {} : { side }), ...answer, requests };
	if (lastCancelled !== undefined) summary.lastOrderId = lastCancelled;
	if (requests >= MAX_SYMBOL_ROUNDS) summary.moreMayRemain = true;
	return summary;
}

/**
 * DELETE /api/v1/spot/cancelOrderByIds, 100 IDs per request. The answer lists only the IDs it did
 * not cancel, each with a code; every other ID was cancelled. A request whose outcome is unknown is
 * settled ID by ID with a lookup (Order › Get). The first request's rejection is the node's error
 * (nothing was cancelled); a later request's gives its IDs items saying why, since earlier IDs were.
 */
async function cancelByIds(this: IExecuteFunctions, ids: string[], itemIndex: number): Promise<IDataObject[]> {
	const items: IDataObject[] = [];
	for (let start = 0; start < ids.length; start += LIMITS.cancelIdsPerRequest) {
		const chunk = ids.slice(start, start + LIMITS.cancelIdsPerRequest);
		const trace: WriteTrace = {};
		let answer: IDataObject;
		try {
			answer = (await serviceRequest.call(this, ENDPOINTS.cancelOrderByIds, { qs: { ids: chunk.join(',') }, itemIndex, trace })) as IDataObject;
		} catch (caught) {
			const error = toNodeError(this.getNode(), caught);
			if (outcomeOf(error) === 'unknown') {
				for (const orderId of chunk) items.push(await confirmedItem.call(this, orderId, trace, itemIndex));
				continue;
			}
			if (start === 0) throw error;
			for (const orderId of chunk) {
				items.push({ orderId, outcome: 'rejected', cancelled: false, reason: 'requestRefused', message: `Not cancelled: ${error.message}` });
			}
			continue;
		}
		const failures = new Map<string, IDataObject>();
		for (const entry of (answer.result ?? []) as IDataObject[]) {
			if (entry !== null && typeof entry === 'object') failures.set(String(entry.orderId), entry);
		}
		for (const orderId of chunk) {
			const failure = failures.get(orderId);
			if (failure === undefined) {
				items.push({ orderId, outcome: 'placed', cancelled: true });
				continue;
			}
			const notOpen = notOpenReason(failure.code);
			items.push({
				orderId,
				outcome: 'rejected',
				cancelled: false,
				reason: notOpen?.reason ?? 'refused',
				message: `Not cancelled: ${notOpen?.text ?? `the service refused with code ${String(failure.code)}`}`,
				code: String(failure.code),
			});
		}
	}
	return items;
}

/** The item of one ID of a request whose outcome is unknown, after looking the order up. */
async function confirmedItem(this: IExecuteFunctions, orderId: string, trace: WriteTrace, itemIndex: number): Promise<IDataObject> {
	const confirmed = await confirmCancel.call(this, { orderId }, trace, itemIndex);
	if (confirmed.kind === 'cancelled') return { orderId, outcome: 'placed', cancelled: true, confirmedByLookup: true, status: confirmed.order.status };
	if (confirmed.kind === 'notCancelled') {
		const notOpen = confirmed.notOpen;
		return {
			orderId,
			outcome: 'rejected',
			cancelled: false,
			confirmedByLookup: true,
			reason: notOpen?.reason ?? 'stillOpen',
			message: `Not cancelled: ${notOpen?.text ?? 'the order is still open; the cancel request was not applied'}`,
			...(confirmed.order.status === undefined ? {} : { status: confirmed.order.status }),
		};
	}
	return {
		orderId,
		outcome: 'unknown',
		cancelled: null,
		message: `Unknown outcome: the cancel request got no usable answer and ${confirmed.reason}`,
		// The same advice as for a single cancel: the endpoint table owns the wording.
		howToCheck: ENDPOINTS.cancelOrder.write.describe({ qs: { orderId } }).howToCheck,
	};
}
