import {
	NodeOperationError,
	updateDisplayOptions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { orderFields, orderOptions, readOrderParameters } from '../../descriptions/order';
import { autoMapLabel, autoMappedOrder } from '../../helpers/autoMap';
import { toBatches } from '../../helpers/batching';
import { deriveClientOrderId } from '../../helpers/clientOrderIds';
import { duplicateClientOrderIdError, parameterLabel, validateOrder, type OrderParams } from '../../helpers/orderRules';
import { inputError } from '../../helpers/validation';
import { ENDPOINTS, outcomeOf, serviceRequest, toNodeError, withOutcome, type WriteOutcome, type WriteTrace } from '../../transport';
import { fingerprint, type LedgerSlot } from '../../transport/ledger';
import { reconcileOrder } from '../../transport/reconcile';
import { errorItemJson } from '../router';
import { readBatchResults, type BatchResultEntry, type EntryVerdict } from './batchResults';
import { generatedIdPrefix, itemParameter, readOrderOptions, runLedger, runNode, type OrderOptions } from './context';
import { checkGuardrails } from '../../helpers/guardrails';
import { markInFlight, orderUnknownError, replayedOrder, storedOrderResult, unknownEntry } from './outcomes';

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
				{
					name: "Map Each Item's Fields Automatically",
					value: 'autoMap',
					description:
						'Each input item is one order, read from its fields named symbol, side, type, price, quantity, amount, timeInForce, newClientOrderId, stpMode; other fields are ignored',
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

/** One order of the run, with where it came from and what is known of its outcome. */
interface PendingOrder {
	itemIndex: number;
	/** Position among the orders of its item (JSON mode may give many). */
	orderIndex: number;
	order: OrderParams;
	slot: LedgerSlot;
	/** When its attempts may have reached the service (all attempts, in this run and earlier tries). */
	trace: WriteTrace;
	/** Whether an attempt may have been executed: it is then looked up before it is sent again. */
	maybeExecuted: boolean;
	/** Whether it was sent again after a lookup proved it was not executed (once per run at most). */
	resent: boolean;
}

/** One slot list per input item: output comes in input order whatever the batching. */
type Outputs = INodeExecutionData[][];

/** Step 1, read: the raw orders of one item, from its parameters, its own fields or its JSON array. */
function readOrdersOfItem(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	itemIndex: number,
): Array<{ raw: IDataObject; label: (field: string) => string }> {
	const node = runNode(context);
	const inputMode = itemParameter(context, 'inputMode', itemIndex, 'items') as string;
	if (inputMode === 'items') {
		return [{ raw: readOrderParameters((name, fallback) => itemParameter(context, name, itemIndex, fallback)), label: parameterLabel }];
	}
	if (inputMode === 'autoMap') {
		return [{ raw: autoMappedOrder(node, items[itemIndex].json, itemIndex), label: autoMapLabel(itemIndex) }];
	}
	let value = itemParameter(context, 'ordersJson', itemIndex);
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
 * with its ledger slot and a client order ID unless generation is off; a bad item fails the run,
 * or becomes an error item with Continue On Fail.
 */
function validateAll(context: IExecuteFunctions, items: INodeExecutionData[], options: OrderOptions, outputs: Outputs): PendingOrder[] {
	const node = runNode(context);
	const idPrefix = generatedIdPrefix.call(context);
	const ledger = runLedger(context);
	const pending: PendingOrder[] = [];
	const itemOfClientId = new Map<string, number>();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const orders = readOrdersOfItem(context, items, itemIndex).map(({ raw, label }) => {
				const order = validateOrder(node, raw, label, itemIndex);
				checkGuardrails(node, order, options.guardrails ?? {}, label, itemIndex);
				return order;
			});
			const ofItem = orders.map((order, orderIndex): PendingOrder => {
				const slot = ledger.slot(`${itemIndex}.${orderIndex}`, fingerprint('newOrder', order));
				if (order.newClientOrderId === undefined && options.generateClientOrderId !== false) {
					order.newClientOrderId = deriveClientOrderId(idPrefix, itemIndex, orderIndex, slot.version);
				}
				const id = order.newClientOrderId;
				if (id !== undefined) {
					const firstItem = itemOfClientId.get(id);
					if (firstItem !== undefined) throw duplicateClientOrderIdError(node, id, firstItem, itemIndex);
					itemOfClientId.set(id, itemIndex);
				}
				const entry = slot.entry;
				return {
					itemIndex,
					orderIndex,
					order,
					slot,
					trace: entry === undefined ? {} : { firstSentAt: entry.s, acceptableUntil: entry.u },
					maybeExecuted: entry?.o === 'unknown',
					resent: false,
				};
			});
			pending.push(...ofItem);
		} catch (error) {
			const nodeError = withOutcome(toNodeError(node, error), 'rejected');
			if (!context.continueOnFail()) throw nodeError;
			outputs[itemIndex].push({ json: errorItemJson(nodeError), pairedItem: { item: itemIndex } });
		}
	}
	return pending;
}

/** An output item of one order. */
function orderItem(pending: PendingOrder, json: IDataObject): INodeExecutionData {
	return {
		json: { ...json, symbol: pending.order.symbol, clientOrderId: pending.order.newClientOrderId ?? (json.order as IDataObject | null)?.clientOrderId ?? null },
		pairedItem: { item: pending.itemIndex },
	};
}

function placedJson(order: IDataObject, entry: BatchResultEntry | undefined, alreadyPlaced: boolean): IDataObject {
	const json: IDataObject = { outcome: 'placed', success: true, code: (entry?.code ?? null) as IDataObject[string], msg: typeof entry?.msg === 'string' ? entry.msg : '', order };
	if (alreadyPlaced) json.alreadyPlaced = true;
	return json;
}

/** An error as the item of one order: the order it is about, so it can be checked. */
function orderErrorItem(pending: PendingOrder, error: Error & { description?: string | null }): INodeExecutionData {
	return orderItem(pending, { ...errorItemJson(error), success: false, request: { ...pending.order } });
}

/** What the run does with the orders whose outcome it settled. */
class Settlement {
	/** Orders proven not executed and to be sent once more. */
	readonly resend: PendingOrder[] = [];
	/** Orders the service refused in their batch entry (Fail on Any Rejected Order looks at them). */
	readonly rejected: Array<{ pending: PendingOrder; entry: BatchResultEntry }> = [];

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly outputs: Outputs,
	) {}

	private put(pending: PendingOrder, item: INodeExecutionData): void {
		this.outputs[pending.itemIndex][pending.orderIndex] = item;
	}

	placed(pending: PendingOrder, order: IDataObject, entry: BatchResultEntry | undefined, alreadyPlaced = false): void {
		pending.slot.record({ o: 'placed', r: storedOrderResult(order) });
		this.put(pending, orderItem(pending, placedJson(order, entry, alreadyPlaced)));
	}

	/** A refusal in the order's batch entry: nothing executed; an item with success false. */
	rejectedEntry(pending: PendingOrder, entry: BatchResultEntry): void {
		pending.slot.forget();
		this.rejected.push({ pending, entry });
		this.put(pending, orderItem(pending, { outcome: 'rejected', success: false, code: entry.code as IDataObject[string], msg: typeof entry.msg === 'string' ? entry.msg : '', order: null }));
	}

	/** An error about the order (the whole batch refused, or its outcome unknown). */
	failed(pending: PendingOrder, error: Error, outcome: WriteOutcome): void {
		if (outcome === 'rejected') pending.slot.forget();
		else pending.slot.record(unknownEntry(pending.trace));
		const nodeError = withOutcome(toNodeError(this.context.getNode(), error), outcome);
		if (!this.context.continueOnFail()) throw nodeError;
		this.put(pending, orderErrorItem(pending, nodeError));
	}

	unknown(pending: PendingOrder, reason: string): void {
		this.failed(pending, orderUnknownError(this.context, pending.order, reason, pending.itemIndex), 'unknown');
	}

	/**
	 * An order that may have been executed: looked up by its client order ID. Proven not executed,
	 * it is sent once more (once per run); otherwise placed or unknown.
	 */
	async reconcile(pending: PendingOrder, reason: string, duplicateAnswered = false): Promise<void> {
		pending.maybeExecuted = pending.maybeExecuted || !duplicateAnswered;
		if (pending.order.newClientOrderId === undefined) return this.unknown(pending, `${reason}; it has no client order ID to look it up by`);
		const settled = await reconcileOrder.call(this.context, pending.order, pending.trace, pending.itemIndex, duplicateAnswered);
		if (settled.kind === 'placed') return this.placed(pending, settled.order, undefined, settled.alreadyPlaced);
		if (settled.kind === 'unknown') {
			if (duplicateAnswered && !pending.maybeExecuted) {
				// Only this one attempt was sent, and the service refused it: nothing was executed.
				return this.failed(
					pending,
					withOutcome(
						new NodeOperationError(this.context.getNode(), 'An open order already uses this client order ID', {
							description: `The service refused order ${pending.order.newClientOrderId} as a duplicate, and ${settled.reason}. This request placed nothing.`,
							itemIndex: pending.itemIndex,
						}),
						'rejected',
					),
					'rejected',
				);
			}
			return this.unknown(pending, settled.reason);
		}
		if (pending.resent) return this.unknown(pending, 'it was not found after it was sent again, and is not sent a third time in this run');
		pending.resent = true;
		this.resend.push(pending);
	}

	/** Step 5, map: what the batch answer says about each order of the batch. */
	async mapAnswer(batch: PendingOrder[], verdicts: EntryVerdict[]): Promise<void> {
		for (const [position, verdict] of verdicts.entries()) {
			const pending = batch[position];
			switch (verdict.kind) {
				case 'placed':
					this.placed(pending, verdict.order, verdict.entry);
					break;
				case 'rejected':
					this.rejectedEntry(pending, verdict.entry);
					break;
				case 'duplicate':
					await this.reconcile(pending, 'the service answered that its client order ID is in use', true);
					break;
				case 'unknown':
					await this.reconcile(pending, verdict.reason);
					break;
			}
		}
	}
}

/** Step 4, send: one batch request, its trace kept by every order of the batch. */
async function sendBatch(context: IExecuteFunctions, batch: PendingOrder[], options: OrderOptions): Promise<{ result: unknown[] }> {
	const qs: IDataObject = {};
	if (options.recvWindow !== undefined) qs.recvWindow = options.recvWindow;
	const trace: WriteTrace = {};
	for (const pending of batch) markInFlight(pending.slot, pending.trace);
	try {
		return (await serviceRequest.call(context, ENDPOINTS.batchOrders, {
			qs,
			body: batch.map((entry) => entry.order),
			itemIndex: batch[0].itemIndex,
			trace,
		})) as { result: unknown[] };
	} finally {
		for (const pending of batch) {
			pending.trace.firstSentAt = Math.min(pending.trace.firstSentAt ?? Infinity, trace.firstSentAt ?? Infinity);
			pending.trace.acceptableUntil = Math.max(pending.trace.acceptableUntil ?? 0, trace.acceptableUntil ?? 0);
			pending.slot.record(unknownEntry(pending.trace));
		}
	}
}

/** With Fail on Any Rejected Order: the error that stops the run after a batch with rejections. */
function rejectedOrdersError(
	context: IExecuteFunctions,
	rejected: Settlement['rejected'],
	placedSoFar: number,
	batchesLeft: number,
): NodeOperationError {
	const { pending, entry } = rejected[0];
	return withOutcome(
		new NodeOperationError(
			context.getNode(),
			`${rejected.length} order(s) were rejected: ${typeof entry.msg === 'string' ? entry.msg : ''} (code ${String(entry.code)})`,
			{
				description: `Fail on Any Rejected Order is on, so no further batches were sent (${batchesLeft} left). ${placedSoFar} order(s) were placed before this point; check your open orders.`,
				itemIndex: pending.itemIndex,
			},
		),
		'rejected',
	);
}

/**
 * Create Many handles all input items at once, so orders of different items share batches:
 * read → validate → (orders the ledger knows: answered from it, or looked up) → batch → send → map
 * (entries by client order ID; unknown ones looked up) → orders proven not executed sent once more.
 */
export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const outputs: Outputs = items.map(() => []);
	// The options apply to the whole run: batches mix items, so one item's options cannot apply to
	// one batch only.
	const options: OrderOptions = items.length > 0 ? readOrderOptions.call(this, 0) : {};
	const settlement = new Settlement(this, outputs);

	// What an earlier try of this run (n8n's Retry On Fail, a retried execution) left in the ledger.
	let toSend: PendingOrder[] = [];
	for (const pending of validateAll(this, items, options, outputs)) {
		const entry = pending.slot.entry;
		if (entry?.o === 'placed') {
			outputs[pending.itemIndex][pending.orderIndex] = orderItem(pending, { ...placedJson(replayedOrder(pending.order, entry), undefined, false), replayed: true });
		} else if (pending.maybeExecuted) {
			await settlement.reconcile(pending, 'an earlier try of this node run sent it and got no answer');
		} else {
			toSend.push(pending);
		}
	}
	toSend.push(...settlement.resend.splice(0));

	// Round 1 sends the orders; round 2 the ones proven not executed after an unknown outcome.
	for (let round = 0; round < 2 && toSend.length > 0; round++) {
		const batches = toBatches(toSend);
		for (let batchIndex = 0; batchIndex < batches.length; batchIndex++) {
			const batch = batches[batchIndex];
			let answer: { result: unknown[] } | undefined;
			try {
				answer = await sendBatch(this, batch, options);
			} catch (error) {
				const outcome = outcomeOf(error) ?? 'unknown';
				for (const pending of batch) {
					// Without a client order ID there is nothing to look up: the batch's own error says what to check.
					if (outcome === 'unknown' && pending.order.newClientOrderId !== undefined) await settlement.reconcile(pending, (error as Error).message);
					else settlement.failed(pending, error as Error, outcome);
				}
				continue;
			}
			const before = settlement.rejected.length;
			await settlement.mapAnswer(batch, readBatchResults(batch.map((pending) => pending.order), answer.result));
			if (options.failOnRejected === true && settlement.rejected.length > before) {
				const placedSoFar = outputs.flat().filter((item) => item?.json.success === true).length;
				throw rejectedOrdersError(this, settlement.rejected.slice(before), placedSoFar, batches.length - batchIndex - 1);
			}
		}
		toSend = settlement.resend.splice(0);
	}
	return outputs.flat().filter((item) => item !== undefined);
}
