import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { inputError } from '../helpers/validation';
import { parseJsonKeepingDigits, toNodeError } from '../transport';
import { withOutcome } from '../writes/outcomes';
import { writeRun } from '../writes/writeRun';
import { errorItemJson } from '../run/errorItems';
import type { RunContext } from '../run/runContext';
import { autoMapLabel, autoMappedOrder } from './autoMap';
import { readOrderParameters } from './orderProperties';
import type { OrderOptions } from './orderOptions';
import { duplicateClientOrderIdError, parameterLabel, validateOrder } from './orderRules';
import { pendingOrder, type PendingOrder } from './orderWrites';
import {
	checkGuardrails,
	checkOrdersAgainstSymbolRules,
	type CheckedOrder,
	type OrderToCheck,
} from './symbolRulesCheck';

// The input of Create Many: each item's orders read (its parameters, its own fields or a JSON
// array), validated, and checked against the guardrails and the symbol rules before anything is sent.

/** One slot list per input item: output comes in input order whatever the batching. */
export type Outputs = INodeExecutionData[][];

/** Step 1, read: the raw orders of one item, from its parameters, its own fields or its JSON array. */
function readOrdersOfItem(
	run: RunContext,
	items: INodeExecutionData[],
	itemIndex: number,
): Array<{ raw: IDataObject; label: (field: string) => string }> {
	const node = run.node;
	const inputMode = run.parameter('inputMode', itemIndex, 'items') as string;
	if (inputMode === 'items') {
		return [
			{
				raw: readOrderParameters(
					(name, fallback) => run.parameter(name, itemIndex, fallback),
					run.version,
				),
				label: parameterLabel,
			},
		];
	}
	if (inputMode === 'autoMap') {
		return [
			{
				raw: autoMappedOrder(node, items[itemIndex].json, itemIndex),
				label: autoMapLabel(itemIndex),
			},
		];
	}
	let value = run.parameter('ordersJson', itemIndex);
	if (typeof value === 'string') value = parseOrdersJson(run, value, itemIndex);
	if (!Array.isArray(value)) {
		throw inputError(
			node,
			'Orders (JSON)',
			'is not an array',
			'Wrap the orders in [ ... ], even a single one.',
			itemIndex,
		);
	}
	return value.map((raw, orderIndex) => {
		if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
			throw inputError(
				node,
				`Orders (JSON)[${orderIndex}]`,
				'is not an object',
				'Each order is an object such as {"symbol": "BTCUSDT", ...}.',
				itemIndex,
			);
		}
		return {
			raw: raw as IDataObject,
			label: (field: string) => `Orders (JSON)[${orderIndex}].${field}`,
		};
	});
}

/**
 * The text of Orders (JSON), parsed keeping every digit (the transport's exact parser): a number a
 * double cannot hold (0.123456789012345678, an integer beyond 2^53) comes back as its literal text
 * and is sent as typed, where JSON.parse would send 0.12345678901234568, another order.
 */
function parseOrdersJson(run: RunContext, text: string, itemIndex: number): unknown {
	try {
		return parseJsonKeepingDigits(text);
	} catch (error) {
		throw inputError(
			run.node,
			'Orders (JSON)',
			`is not valid JSON (${(error as Error).message})`,
			'Enter a JSON array of order objects.',
			itemIndex,
		);
	}
}

/** An order read, validated and within the guardrails, with where it stands among its item's. */
type ReadOrder = OrderToCheck & { orderIndex: number };

/**
 * Steps 1 and 2, read and validate every item before the first request: the orders to send, each
 * checked against the guardrails and its symbol's rules (read once for all items) and fitted when
 * Fit to Symbol Rules is on, with its ledger slot and a client order ID unless generation is off.
 * A bad item fails the run, or becomes an error item with Continue On Fail.
 */
export async function readAll(
	run: RunContext,
	items: INodeExecutionData[],
	options: OrderOptions,
	outputs: Outputs,
): Promise<{ pending: PendingOrder[]; reports: Map<PendingOrder, IDataObject> }> {
	const refuse = (itemIndex: number, error: unknown) => {
		const nodeError = withOutcome(toNodeError(run.node, error), 'rejected');
		if (!run.continueOnFail) throw nodeError;
		outputs[itemIndex].push({ json: errorItemJson(nodeError), pairedItem: { item: itemIndex } });
	};
	const toCheck: ReadOrder[] = [];
	const itemOfClientId = new Map<string, number>();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const orders = readOrdersOfItem(run, items, itemIndex).map(({ raw, label }, orderIndex) => {
				const order = validateOrder(run.node, raw, label, itemIndex);
				checkGuardrails(run.node, order, options.guardrails, label, itemIndex);
				const recorded = writeRun(run).ledger.holds(`${itemIndex}.${orderIndex}`);
				return { order, label, itemIndex, orderIndex, options, recorded };
			});
			// Before the rules are read: like the rest of validation, it needs no request.
			for (const { order } of orders) {
				const id = order.newClientOrderId;
				if (id === undefined) continue;
				const firstItem = itemOfClientId.get(id);
				if (firstItem !== undefined)
					throw duplicateClientOrderIdError(run.node, id, firstItem, itemIndex);
				itemOfClientId.set(id, itemIndex);
			}
			toCheck.push(...orders);
		} catch (error) {
			refuse(itemIndex, error);
		}
	}
	const ofItem = await checkItems(run, toCheck, outputs, refuse);
	return pendingOrders(run, options, ofItem);
}

/**
 * The orders of each item that may be sent, after the symbol rules. An item is sent whole or not
 * at all: one of its orders refused refuses the item. Unless an earlier try of this node run
 * already sent some of them (Retry On Fail, a retried execution): those are settled from the
 * ledger, and only the refused order is refused, as an item of its own with success false, so
 * that an order placed then is never reported as rejected.
 */
async function checkItems(
	run: RunContext,
	toCheck: ReadOrder[],
	outputs: Outputs,
	refuse: (itemIndex: number, error: unknown) => void,
): Promise<Map<number, Array<CheckedOrder & { orderIndex: number }>>> {
	const checked = await checkOrdersAgainstSymbolRules(run, toCheck);
	const partlySent = new Set(toCheck.filter((one) => one.recorded).map((one) => one.itemIndex));
	const ofItem = new Map<number, Array<CheckedOrder & { orderIndex: number }>>();
	const refusedItems = new Set<number>();
	checked.forEach((result, index) => {
		const { itemIndex, orderIndex, order } = toCheck[index];
		if (refusedItems.has(itemIndex)) return;
		if (!(result instanceof Error)) {
			ofItem.set(itemIndex, [...(ofItem.get(itemIndex) ?? []), { ...result, orderIndex }]);
		} else if (partlySent.has(itemIndex)) {
			outputs[itemIndex][orderIndex] = {
				json: {
					...errorItemJson(result),
					success: false,
					symbol: order.symbol,
					clientOrderId: order.newClientOrderId ?? null,
					request: { ...order },
				},
				pairedItem: { item: itemIndex },
			};
		} else {
			refusedItems.add(itemIndex);
			ofItem.delete(itemIndex);
			refuse(itemIndex, result);
		}
	});
	return ofItem;
}

/** The orders to send, in input order, each with its ledger slot and its symbol rules report. */
function pendingOrders(
	run: RunContext,
	options: OrderOptions,
	ofItem: Map<number, Array<CheckedOrder & { orderIndex: number }>>,
): { pending: PendingOrder[]; reports: Map<PendingOrder, IDataObject> } {
	const writes = writeRun(run);
	const prefix = options.generateClientOrderId === false ? undefined : writes.idPrefix;
	const pending: PendingOrder[] = [];
	const reports = new Map<PendingOrder, IDataObject>();
	for (const [itemIndex, orders] of [...ofItem.entries()].sort(([a], [b]) => a - b)) {
		for (const { order, given, report, orderIndex } of orders) {
			const slotName = `${itemIndex}.${orderIndex}`;
			const one = pendingOrder(
				writes.ledger,
				slotName,
				order,
				itemIndex,
				orderIndex,
				prefix,
				given,
			);
			if (Object.keys(report).length > 0) reports.set(one, report);
			pending.push(one);
		}
	}
	return { pending, reports };
}
