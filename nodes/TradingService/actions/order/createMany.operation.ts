import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type JsonObject,
} from 'n8n-workflow';

import { ENDPOINTS, ERROR_CODES, LIMITS, WEIGHTS } from '../../constants';
import {
	clientOrderIdPrefix,
	deriveClientOrderId,
	orderFieldProperties,
	parameterLabel,
	readOrderParameters,
	validateOrder,
	withIdempotentRetry,
	type OrderParams,
} from '../../helpers/orders';
import { inputError } from '../../helpers/validation';
import { serviceRequest, toNodeError } from '../../transport';
import { orderOptions, readOrderOptions, type OrderOptions } from './create.operation';

const showFor = { resource: ['order'], operation: ['createMany'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Input Mode',
		name: 'inputMode',
		type: 'options',
		default: 'items',
		options: [
			{
				name: 'Each Input Item Is One Order',
				value: 'items',
				description: 'Map the order fields from each item with expressions',
			},
			{
				name: 'JSON Array of Orders',
				value: 'json',
				description: 'Give the orders as a JSON array in one field (per input item)',
			},
		],
		description:
			'Orders are grouped by symbol and sent 20 per request; each order comes out as its own item',
		displayOptions: { show: showFor },
	},
	...orderFieldProperties({ ...showFor, inputMode: ['items'] }),
	{
		displayName: 'Orders (JSON)',
		name: 'ordersJson',
		type: 'json',
		required: true,
		default: '[\n  {\n    "symbol": "BTCUSDT",\n    "side": "BUY",\n    "type": "LIMIT",\n    "price": "50000",\n    "quantity": "0.01"\n  }\n]',
		description:
			'Array of orders with the fields symbol, side, type, quantity, amount, price, newClientOrderId, timeInForce, stpMode. Give decimals as strings.',
		displayOptions: { show: { ...showFor, inputMode: ['json'] } },
	},
	{
		...orderOptions,
		displayOptions: { show: showFor },
		options: [
			...(orderOptions.options ?? []),
			{
				displayName: 'Fail on Any Rejected Order',
				name: 'failOnRejected',
				type: 'boolean',
				default: false,
				description:
					'Whether to stop with an error as soon as a batch comes back with a rejected order, sending no further batches. Off: rejected orders come out as items with success set to false.',
			},
		],
	},
];

/** One order of the run, with where it came from. */
interface PendingOrder {
	itemIndex: number;
	/** Position among the orders of its item (JSON mode may give many). */
	orderIndex: number;
	order: OrderParams;
}

/** The per-order result entry of a batch response (spec §4.3). */
interface BatchResultEntry {
	code?: number | string;
	msg?: string;
	order?: IDataObject;
}

function readOrdersOfItem(context: IExecuteFunctions, itemIndex: number, inputMode: string): OrderParams[] {
	const node = context.getNode();
	if (inputMode === 'items') {
		const raw = readOrderParameters((name, fallback) => context.getNodeParameter(name, itemIndex, fallback));
		return [validateOrder(node, raw, parameterLabel, itemIndex)];
	}
	let value = context.getNodeParameter('ordersJson', itemIndex);
	if (typeof value === 'string') {
		try {
			value = JSON.parse(value);
		} catch (error) {
			throw inputError(node, 'Orders (JSON)', `is not valid JSON (${(error as Error).message})`, 'Enter a JSON array of order objects.', itemIndex);
		}
	}
	if (!Array.isArray(value)) {
		throw inputError(node, 'Orders (JSON)', 'is not an array', 'Wrap the orders in [ ... ], even a single one.', itemIndex);
	}
	return value.map((raw, orderIndex) => {
		if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
			throw inputError(node, `Orders (JSON)[${orderIndex}]`, 'is not an object', 'Each order is an object such as {"symbol": "BTCUSDT", ...}.', itemIndex);
		}
		return validateOrder(node, raw as IDataObject, (field) => `Orders (JSON)[${orderIndex}].${field}`, itemIndex);
	});
}

/** Groups orders by symbol (first appearance first) and cuts each group into batches of 20. */
export function toBatches<T extends { order: OrderParams }>(orders: T[]): T[][] {
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

function resultItem(pending: PendingOrder, entry: BatchResultEntry): INodeExecutionData {
	const code = entry.code ?? 0;
	const duplicate = String(code) === ERROR_CODES.duplicateClientOrderId;
	const json: IDataObject = {
		success: String(code) === '0' || duplicate,
		code,
		msg: entry.msg ?? '',
		order: entry.order ?? null,
		symbol: pending.order.symbol,
		clientOrderId: pending.order.newClientOrderId ?? entry.order?.clientOrderId ?? null,
	};
	// The service refuses a client order ID it has seen: this order was placed before (by an
	// earlier attempt of this execution, or under the same business key) and not placed again.
	if (duplicate) json.alreadyPlaced = true;
	return { json, pairedItem: { item: pending.itemIndex } };
}

/** An error as an item; for an order of a failed batch, the order it is about, so it can be checked. */
function errorItem(error: Error & { description?: string | null }, itemIndex: number, order?: OrderParams): INodeExecutionData {
	const json: IDataObject = { error: error.message, description: error.description ?? undefined };
	if (order !== undefined) {
		json.success = false;
		json.symbol = order.symbol;
		json.clientOrderId = order.newClientOrderId ?? null;
		json.request = { ...order };
	}
	return { json, pairedItem: { item: itemIndex } };
}

/** Create Many handles all input items at once: orders of different items share batches. */
export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const continueOnFail = this.continueOnFail();
	// One slot per order, per input item: output comes in input order whatever the batching.
	const outputs: INodeExecutionData[][] = items.map(() => []);
	const pending: PendingOrder[] = [];
	const options: OrderOptions = items.length > 0 ? readOrderOptions.call(this, 0) : {};
	const failOnRejected = (this.getNodeParameter('options', 0, {}) as IDataObject).failOnRejected === true;

	// Everything is validated before the first request.
	const idPrefix = clientOrderIdPrefix(this);
	const seenClientIds = new Map<string, number>();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const inputMode = this.getNodeParameter('inputMode', itemIndex, 'items') as string;
			const orders = readOrdersOfItem(this, itemIndex, inputMode);
			orders.forEach((order, orderIndex) => {
				if (order.newClientOrderId === undefined && options.generateClientOrderId !== false) {
					order.newClientOrderId = deriveClientOrderId(idPrefix, itemIndex, orderIndex);
				}
				const id = order.newClientOrderId;
				if (id !== undefined) {
					const firstItem = seenClientIds.get(id);
					if (firstItem !== undefined) {
						throw inputError(
							node,
							'Client Order ID',
							`"${id}" is used by more than one order (items ${firstItem} and ${itemIndex})`,
							'Give every order its own client order ID: the service refuses an ID it has seen.',
							itemIndex,
						);
					}
					seenClientIds.set(id, itemIndex);
				}
			});
			orders.forEach((order, orderIndex) => pending.push({ itemIndex, orderIndex, order }));
		} catch (error) {
			if (!continueOnFail) throw toNodeError(node, error);
			outputs[itemIndex].push(errorItem(error as Error, itemIndex));
		}
	}

	const qs: IDataObject = {};
	if (options.recvWindow !== undefined) qs.recvWindow = options.recvWindow;
	const batches = toBatches(pending);
	for (let batchIndex = 0; batchIndex < batches.length; batchIndex++) {
		const batch = batches[batchIndex];
		const itemIndex = batch[0].itemIndex;
		const clientIds = batch.map((entry) => entry.order.newClientOrderId);
		let entries: BatchResultEntry[];
		try {
			const response = (await withIdempotentRetry(
				node,
				clientIds.every((id) => id !== undefined),
				async () =>
					serviceRequest.call(this, {
						method: 'POST',
						path: ENDPOINTS.batchOrders,
						qs,
						body: batch.map((entry) => entry.order),
						kind: 'write',
						weight: WEIGHTS.batchOrders,
						itemIndex,
						writeName: `batch of ${batch.length} ${batch[0].order.symbol} orders`,
						howToCheck: `Check your open orders and trade history for ${batch[0].order.symbol}`,
					}),
			)) as { result?: unknown };
			if (!Array.isArray(response?.result) || response.result.length !== batch.length) {
				throw new NodeApiError(node, { response: JSON.stringify(response)?.slice(0, 300) ?? '' } as JsonObject, {
					message: `The service answered a batch of ${batch.length} orders with ${Array.isArray(response?.result) ? response.result.length : 'no'} results`,
					description: `Results cannot be matched to orders. Check open orders for ${batch[0].order.symbol} before running again.`,
					itemIndex,
				});
			}
			entries = response.result as BatchResultEntry[];
		} catch (error) {
			if (!continueOnFail) throw toNodeError(node, error);
			for (const entry of batch) {
				outputs[entry.itemIndex][entry.orderIndex] = errorItem(error as Error, entry.itemIndex, entry.order);
			}
			continue;
		}

		batch.forEach((entry, position) => {
			outputs[entry.itemIndex][entry.orderIndex] = resultItem(entry, entries[position]);
		});

		const rejected = batch.filter((_, position) => {
			const code = String(entries[position].code ?? 0);
			return code !== '0' && code !== ERROR_CODES.duplicateClientOrderId;
		});
		if (failOnRejected && rejected.length > 0) {
			const placed = outputs.flat().filter((item) => item.json.success === true).length;
			const first = entries[batch.indexOf(rejected[0])];
			throw new NodeOperationError(
				node,
				`${rejected.length} order(s) were rejected: ${first.msg ?? ''} (code ${String(first.code)})`,
				{
					description: `Fail on Any Rejected Order is on, so no further batches were sent (${batches.length - batchIndex - 1} left). ${placed} order(s) were placed before this point; check your open orders.`,
					itemIndex: rejected[0].itemIndex,
				},
			);
		}
	}
	return outputs.flat().filter((item) => item !== undefined);
}
