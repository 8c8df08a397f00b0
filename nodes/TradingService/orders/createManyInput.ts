import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { inputError, numberMayHaveLostDigits } from '../helpers/validation';
import { parseJsonKeepingDigits, toNodeError } from '../transport';
import { errorItemJson, withOutcome } from '../writes/outcomes';
import { writeSessionOf } from '../writes/writeSession';
import type { RunContext } from '../run/runContext';
import { readOrderParameters } from './orderProperties';
import { checkGuardrails, type OrderOptions } from './orderOptions';
import {
	ORDER_FIELDS,
	duplicateClientOrderIdError,
	isOrderFieldAlias,
	orderFieldOf,
	parameterLabel,
	shownKey,
	validateOrder,
} from './orderRules';
import { pendingOrder, type PendingOrder } from './orderWrites';
import { checkOrdersAgainstSymbolRules, type CheckedOrder, type OrderToCheck } from './symbolRules';

// The input of Create Many: each item's orders read (its parameters, its own fields or a JSON
// array; docs/operations.md "Create Many"), validated, and checked against the guardrails and the
// symbol rules before anything is sent.

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
		const read = (name: string, fallback?: unknown) => run.parameter(name, itemIndex, fallback);
		return [{ raw: readOrderParameters(read, run.version), label: parameterLabel }];
	}
	if (inputMode === 'autoMap') {
		const raw = autoMappedOrder(node, items[itemIndex].json, itemIndex);
		return [{ raw, label: autoMapLabel(itemIndex) }];
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

// Map Each Item's Fields Automatically: the order fields read straight from an item's JSON, under
// the service's names. What is read is never changed: strings go on character for character, a
// number only when its own text is a plain decimal. A key that nearly names an order field is
// refused, never ignored (it would drop what it holds: a business key lost places the row again
// on the next run) and never mapped (which of two near names wins is the workflow author's to say).

const PLAIN_DECIMAL = /^-?\d+(?:\.\d+)?$/;

/** How an auto-mapped field is named in errors: the item and the field's own name. */
export function autoMapLabel(itemIndex: number): (field: string) => string {
	return (field) => `Item ${itemIndex}, field ${field}`;
}

function typeName(value: unknown): string {
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'object') return 'an object';
	return `a ${typeof value}`;
}

/** One auto-mapped field's value as the order rules read it: a string, or absent (undefined). */
function fieldValue(
	node: INode,
	field: string,
	value: unknown,
	itemIndex: number,
): string | undefined {
	const refuse = (problem: string, fix: string) =>
		inputError(node, autoMapLabel(itemIndex)(field), problem, fix, itemIndex);
	if (value === undefined || value === null) return undefined;
	if (typeof value === 'string') return value;
	if (typeof value === 'number') {
		const text = String(value);
		if (!Number.isFinite(value) || !PLAIN_DECIMAL.test(text)) {
			throw refuse(
				`the number ${text} is not a plain decimal`,
				`Give it as a string in the input item (e.g. "0.00000001" rather than 1e-8): a number such as 1e-8, 1e21, NaN or Infinity cannot be sent exactly.`,
			);
		}
		if (numberMayHaveLostDigits(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER) {
			throw refuse(
				`the number ${text} may have lost digits`,
				'Give it as a string in the input item (e.g. "0.123456789012345678"): a number of more than 15 significant digits is rounded before the node sees it (0.123456789012345678 arrives as 0.12345678901234568).',
			);
		}
		if (Math.abs(value) > Number.MAX_SAFE_INTEGER) {
			throw refuse(
				`the number ${text} is too large to be exact`,
				'Give it as a string in the input item: numbers above 9007199254740991 may already have lost digits.',
			);
		}
		return text;
	}
	throw refuse(
		`is ${typeName(value)}, not text or a number`,
		`Give each order field as a string (or a plain number for price, quantity and amount), e.g. "price": "50000.5".`,
	);
}

/** The order of one input item, from its JSON; an item without any order field is refused. */
export function autoMappedOrder(node: INode, json: IDataObject, itemIndex: number): IDataObject {
	const raw: IDataObject = {};
	let found = 0;
	for (const key of Object.keys(json)) {
		const field = orderFieldOf(key);
		if (field === undefined) continue; // not an order field: ignored
		if (field !== key) {
			const shown = shownKey(key);
			throw inputError(
				node,
				autoMapLabel(itemIndex)(shown),
				`is not an order field, but ${field} is`,
				isOrderFieldAlias(key)
					? `Rename it to ${field}: output items call it ${key}, but an order takes it as ${field}, and ${shown} would otherwise be ignored.`
					: `Rename it to ${field}: field names are read exactly, and ${shown} would otherwise be ignored.`,
				itemIndex,
			);
		}
		found++;
		const value = fieldValue(node, field, json[key], itemIndex);
		if (value !== undefined) raw[field] = value;
	}
	if (found === 0) {
		throw inputError(
			node,
			`Item ${itemIndex}`,
			'has none of the order fields',
			`Map Each Item's Fields Automatically reads these fields from each item, named exactly so: ${ORDER_FIELDS.join(', ')}. Rename the item's fields (e.g. with an Edit Fields node), or choose the input mode Each Input Item Is One Order and map them with expressions.`,
			itemIndex,
		);
	}
	return raw;
}

type ReadOrder = OrderToCheck & { orderIndex: number };

/**
 * Steps 1 and 2, every item read and checked before the first request: the orders to send, each
 * with its ledger slot and a client order ID unless generation is off. A bad item fails the run,
 * or becomes an error item with Continue On Fail.
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
				const order = validateOrder(run.node, raw, label, itemIndex, run.version === 2);
				checkGuardrails(run.node, order, options.guardrails, label, itemIndex);
				const recorded = writeSessionOf(run).ledger.holds(`${itemIndex}.${orderIndex}`);
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

function pendingOrders(
	run: RunContext,
	options: OrderOptions,
	ofItem: Map<number, Array<CheckedOrder & { orderIndex: number }>>,
): { pending: PendingOrder[]; reports: Map<PendingOrder, IDataObject> } {
	const writes = writeSessionOf(run);
	const prefix = options.generateClientOrderId === false ? undefined : writes.idPrefix;
	const pending: PendingOrder[] = [];
	const reports = new Map<PendingOrder, IDataObject>();
	for (const [itemIndex, orders] of [...ofItem.entries()].sort(([a], [b]) => a - b)) {
		for (const { order, given, report, orderIndex } of orders) {
			const one = pendingOrder(
				writes.ledger,
				`${itemIndex}.${orderIndex}`,
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
