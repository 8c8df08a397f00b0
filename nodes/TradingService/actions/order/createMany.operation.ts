import {
	NodeOperationError,
	updateDisplayOptions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { ERROR_CODES } from '../../constants';
import { orderFields, orderOptions, readOrderParameters } from '../../descriptions/order';
import { toBatches } from '../../helpers/batching';
import { deriveClientOrderId } from '../../helpers/clientOrderIds';
import { parameterLabel, validateOrder, type OrderParams } from '../../helpers/orderRules';
import { inputError } from '../../helpers/validation';
import { ENDPOINTS, serviceRequest, toNodeError } from '../../transport';
import { generatedIdPrefix, readOrderOptions, type OrderOptions } from './context';

const showFor = { resource: ['order'], operation: ['createMany'] };

export const description: INodeProperties[] = [
	...updateDisplayOptions({ show: showFor }, [
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
			description: 'Orders are grouped by symbol and sent 20 per request; each order comes out as its own item',
		},
	]),
	...updateDisplayOptions({ show: { ...showFor, inputMode: ['items'] } }, orderFields),
	...updateDisplayOptions({ show: { ...showFor, inputMode: ['json'] } }, [
		{
			displayName: 'Orders (JSON)',
			name: 'ordersJson',
			type: 'json',
			required: true,
			default:
				'[\n  {\n    "symbol": "BTCUSDT",\n    "side": "BUY",\n    "type": "LIMIT",\n    "price": "50000",\n    "quantity": "0.01"\n  }\n]',
			description:
				'Array of orders with the fields symbol, side, type, quantity, amount, price, newClientOrderId, timeInForce, stpMode. Give decimals as strings.',
		},
	]),
	...updateDisplayOptions({ show: showFor }, [
		{
			...orderOptions,
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
	]),
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

/** One slot list per input item: output comes in input order whatever the batching. */
type Outputs = INodeExecutionData[][];

/** Step 1, read: the raw orders of one item, from its parameters or its JSON array. */
function readOrdersOfItem(context: IExecuteFunctions, itemIndex: number): Array<{ raw: IDataObject; label: (field: string) => string }> {
	const node = context.getNode();
	const inputMode = context.getNodeParameter('inputMode', itemIndex, 'items') as string;
	if (inputMode === 'items') {
		return [{ raw: readOrderParameters((name, fallback) => context.getNodeParameter(name, itemIndex, fallback)), label: parameterLabel }];
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
		return { raw: raw as IDataObject, label: (field: string) => `Orders (JSON)[${orderIndex}].${field}` };
	});
}

/**
 * Steps 1 and 2, read and validate every item before the first request: the orders to send, each
 * with a client order ID unless generation is off; a bad item fails the run, or becomes an error
 * item with Continue On Fail.
 */
function validateAll(context: IExecuteFunctions, itemCount: number, options: OrderOptions, outputs: Outputs): PendingOrder[] {
	const node = context.getNode();
	const idPrefix = generatedIdPrefix.call(context);
	const pending: PendingOrder[] = [];
	const itemOfClientId = new Map<string, number>();
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		try {
			const orders = readOrdersOfItem(context, itemIndex).map(({ raw, label }) => validateOrder(node, raw, label, itemIndex));
			orders.forEach((order, orderIndex) => {
				if (order.newClientOrderId === undefined && options.generateClientOrderId !== false) {
					order.newClientOrderId = deriveClientOrderId(idPrefix, itemIndex, orderIndex);
				}
				const id = order.newClientOrderId;
				if (id === undefined) return;
				const firstItem = itemOfClientId.get(id);
				if (firstItem !== undefined) {
					throw inputError(
						node,
						'Client Order ID',
						`"${id}" is used by more than one order (items ${firstItem} and ${itemIndex})`,
						'Give every order its own client order ID: the service refuses an ID it has seen.',
						itemIndex,
					);
				}
				itemOfClientId.set(id, itemIndex);
			});
			orders.forEach((order, orderIndex) => pending.push({ itemIndex, orderIndex, order }));
		} catch (error) {
			if (!context.continueOnFail()) throw toNodeError(node, error);
			outputs[itemIndex].push(errorItem(error as Error, itemIndex));
		}
	}
	return pending;
}

/** Step 4, send: one batch request; its per-order results, in the batch's order. */
async function sendBatch(context: IExecuteFunctions, batch: PendingOrder[], options: OrderOptions): Promise<BatchResultEntry[]> {
	const qs: IDataObject = {};
	if (options.recvWindow !== undefined) qs.recvWindow = options.recvWindow;
	const response = (await serviceRequest.call(context, ENDPOINTS.batchOrders, {
		qs,
		body: batch.map((entry) => entry.order),
		itemIndex: batch[0].itemIndex,
	})) as { result: BatchResultEntry[] };
	return response.result;
}

function isPlacedOrDuplicate(entry: BatchResultEntry): boolean {
	const code = String(entry.code ?? 0);
	return code === '0' || code === ERROR_CODES.duplicateClientOrderId;
}

/** Step 5, map: one output item per order. */
function resultItem(pending: PendingOrder, entry: BatchResultEntry): INodeExecutionData {
	const code = entry.code ?? 0;
	const duplicate = String(code) === ERROR_CODES.duplicateClientOrderId;
	const json: IDataObject = {
		success: isPlacedOrDuplicate(entry),
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

/** With Fail on Any Rejected Order: the error that stops the run after a batch with rejections. */
function rejectedOrdersError(
	context: IExecuteFunctions,
	batch: PendingOrder[],
	entries: BatchResultEntry[],
	placedSoFar: number,
	batchesLeft: number,
): NodeOperationError | undefined {
	const rejected = batch.filter((_, position) => !isPlacedOrDuplicate(entries[position]));
	if (rejected.length === 0) return undefined;
	const first = entries[batch.indexOf(rejected[0])];
	return new NodeOperationError(
		context.getNode(),
		`${rejected.length} order(s) were rejected: ${first.msg ?? ''} (code ${String(first.code)})`,
		{
			description: `Fail on Any Rejected Order is on, so no further batches were sent (${batchesLeft} left). ${placedSoFar} order(s) were placed before this point; check your open orders.`,
			itemIndex: rejected[0].itemIndex,
		},
	);
}

/**
 * Create Many handles all input items at once, so orders of different items share batches:
 * read → validate → batch → send → map.
 */
export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const outputs: Outputs = items.map(() => []);
	// The options apply to the whole run: batches mix items, so one item's options cannot apply to
	// one batch only.
	const options: OrderOptions = items.length > 0 ? readOrderOptions.call(this, 0) : {};
	const batches = toBatches(validateAll(this, items.length, options, outputs));

	for (let batchIndex = 0; batchIndex < batches.length; batchIndex++) {
		const batch = batches[batchIndex];
		let entries: BatchResultEntry[];
		try {
			entries = await sendBatch(this, batch, options);
		} catch (error) {
			if (!this.continueOnFail()) throw toNodeError(this.getNode(), error);
			for (const entry of batch) outputs[entry.itemIndex][entry.orderIndex] = errorItem(error as Error, entry.itemIndex, entry.order);
			continue;
		}
		batch.forEach((entry, position) => {
			outputs[entry.itemIndex][entry.orderIndex] = resultItem(entry, entries[position]);
		});
		if (options.failOnRejected === true) {
			const placedSoFar = outputs.flat().filter((item) => item.json.success === true).length;
			const error = rejectedOrdersError(this, batch, entries, placedSoFar, batches.length - batchIndex - 1);
			if (error !== undefined) throw error;
		}
	}
	return outputs.flat().filter((item) => item !== undefined);
}
