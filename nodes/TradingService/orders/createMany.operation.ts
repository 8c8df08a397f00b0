import {
	updateDisplayOptions,
	type IDataObject,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { parallelRequestsOption } from '../descriptions/common';
import { orderFields, orderOptions, readOrderParameters } from './orderProperties';
import { autoMapLabel, autoMappedOrder } from './autoMap';
import { checkGuardrails, checkOrderOptions, type OrderOptions } from './orderOptions';
import { duplicateClientOrderIdError, parameterLabel, validateOrder } from './orderRules';
import { inputError } from '../helpers/validation';
import { parseJsonKeepingDigits, toNodeError } from '../transport';
import { settleWrites } from '../writes/engine';
import { orderKind, pendingOrder, type PendingOrder } from './orderWrites';
import { withOutcome } from '../writes/outcomes';
import { orderCounts, runReport, withRunReport } from '../writes/runReport';
import { errorItemJson } from '../actions/errorItems';
import { parallelRequests } from '../actions/parallelRequests';
import type { RunContext } from '../actions/runContext';
import type { NodeVersion } from '../descriptions/pickers';
import { ORDER_FIELDS } from './orderRules';
import { refusingEntry, rejectedOrdersError, settledItem } from './createManyItems';
import {
	checkOrdersAgainstSymbolRules,
	type CheckedOrder,
	type OrderToCheck,
} from './symbolRulesCheck';
import { writeRun } from '../writes/writeRun';

const showFor = { resource: ['order'], operation: ['createMany'] };

export const description = (version: NodeVersion): INodeProperties[] => [
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
						'Each input item is one order, read from its fields named symbol, side, type, price, quantity, amount, timeInForce, newClientOrderId, stpMode; other fields are ignored, but a near miss (Price, "newClientOrderId ", clientOrderId) is refused',
				},
			],
			description:
				'Orders are grouped by symbol and sent 20 per request; each order comes out as its own item',
		},
	]),
	...(version === 2
		? updateDisplayOptions({ show: { ...showFor, inputMode: ['autoMap'] } }, [
				{
					displayName: `Each input item is one order, read from its fields ${ORDER_FIELDS.join(', ')}. Other fields are ignored, but a near miss (Price, "newClientOrderId ", clientOrderId) is refused.`,
					name: 'autoMapNotice',
					type: 'notice',
					default: '',
				},
			])
		: []),
	...updateDisplayOptions({ show: { ...showFor, inputMode: ['items'] } }, orderFields(version)),
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
	...updateDisplayOptions({ show: showFor }, [createManyOptions(version)]),
];

/**
 * Options that belong to one order: in the JSON and auto-map modes each order carries its own, so
 * they show in the item mode only (and n8n drops a hidden option's value when it loads the node).
 */
const PER_ORDER_OPTIONS = ['newClientOrderId', 'stpMode'];

function createManyOptions(version: NodeVersion): INodeProperties {
	const collection = orderOptions(version, [
		{
			displayName: 'Fail on Any Rejected Order',
			name: 'failOnRejected',
			type: 'boolean',
			default: false,
			description:
				'Whether to stop with an error as soon as a batch comes back with a rejected order, sending no further batches. Off: rejected orders come out as items with success set to false.',
		},
		...parallelRequestsOption(version, 'batch of up to 20 orders'),
	]);
	return {
		...collection,
		options: (collection.options as INodeProperties[]).map((option) =>
			PER_ORDER_OPTIONS.includes(option.name)
				? { ...option, displayOptions: { show: { '/inputMode': ['items'] } } }
				: option,
		),
	};
}

/** One slot list per input item: output comes in input order whatever the batching. */
type Outputs = INodeExecutionData[][];

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

/**
 * Steps 1 and 2, read and validate every item before the first request: the orders to send, each
 * checked against the guardrails and its symbol's rules (read once for all items) and fitted when
 * Fit to Symbol Rules is on, with its ledger slot and a client order ID unless generation is off.
 * A bad item fails the run, or becomes an error item with Continue On Fail.
 */
async function readAll(
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
	const toCheck: Array<OrderToCheck & { orderIndex: number }> = [];
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

	// An item is sent whole or not at all: one of its orders refused refuses the item. Unless an
	// earlier try of this node run already sent some of them (Retry On Fail, a retried execution):
	// those are settled from the ledger, and only the refused order is refused, as an item of its
	// own with success false, so that an order placed then is never reported as rejected.
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

	const idPrefix = options.generateClientOrderId === false ? undefined : writeRun(run).idPrefix;
	const pending: PendingOrder[] = [];
	const reports = new Map<PendingOrder, IDataObject>();
	for (const [itemIndex, orders] of [...ofItem.entries()].sort(([a], [b]) => a - b)) {
		for (const { order, given, report, orderIndex } of orders) {
			const one = pendingOrder(
				writeRun(run).ledger,
				`${itemIndex}.${orderIndex}`,
				order,
				itemIndex,
				orderIndex,
				idPrefix,
				given,
			);
			if (Object.keys(report).length > 0) reports.set(one, report);
			pending.push(one);
		}
	}
	return { pending, reports };
}

/**
 * Create Many handles all input items at once, so orders of different items share batches:
 * read → validate → the write engine (ledger, batches of 20 by symbol, answers matched by client
 * order ID, unknown outcomes looked up, orders proven not executed sent once more).
 */
export async function execute(
	run: RunContext,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const sending: Sending = {};
	try {
		return await placeAll(run, items, sending);
	} catch (error) {
		// What became of every item and order, from the ledger of every try, read once the
		// batches in flight answered (the engine throws only then). An item's orders go in
		// several batches, so the item the error is about is listed too.
		const nodeError = toNodeError(run.node, error);
		const report = runReport(writeRun(run).ledger, items.length);
		const heldBefore = report.placed.length + report.unknown.length > 0;
		if (items.length < 2 && sending.orders === undefined && !heldBefore) throw nodeError;
		throw withRunReport(nodeError, {
			...report,
			...(sending.orders === undefined ? {} : { orders: orderCounts(sending.orders) }),
		});
	}
}

/** The orders handed to the write engine, once the run got that far. */
interface Sending {
	orders?: PendingOrder[];
}

async function placeAll(
	run: RunContext,
	items: INodeExecutionData[],
	sending: Sending,
): Promise<INodeExecutionData[]> {
	const outputs: Outputs = items.map(() => []);
	// The options apply to the whole run: batches mix items, so one item's options cannot apply to
	// one batch only.
	let options: OrderOptions = { guardrails: {} };
	let parallel = 1;
	if (items.length > 0) {
		try {
			options = run.options(0, (raw) => checkOrderOptions(run.node, raw, 0));
			parallel = parallelRequests(run);
		} catch (error) {
			throw withOutcome(toNodeError(run.node, error), 'rejected');
		}
	}
	const { pending, reports } = await readAll(run, items, options, outputs);
	sending.orders = pending;
	await settleWrites(
		writeRun(run),
		orderKind(writeRun(run), { endpoint: 'batch', recvWindow: options.recvWindow }),
		pending,
		{
			parallel,
			onSettled: (one) => {
				const item = settledItem(run, one);
				const report = reports.get(one);
				if (report !== undefined) item.json = { ...item.json, ...report };
				outputs[one.itemIndex][one.write.orderIndex] = item;
			},
			afterRequest: (batch, batchesLeft) => {
				if (options.failOnRejected !== true) return;
				const rejected = batch.filter((one) => refusingEntry(one) !== undefined);
				if (rejected.length === 0) return;
				// What the run placed is counted once the batches in flight answered (execute).
				throw rejectedOrdersError(run, rejected, batchesLeft);
			},
		},
	);
	return outputs.flat().filter((item) => item !== undefined);
}
