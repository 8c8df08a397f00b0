import {
	NodeOperationError,
	updateDisplayOptions,
	type IDataObject,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { parallelRequestsOption } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { toNodeError } from '../transport';
import { settleWrites } from '../writes/engine';
import { errorItemJson, withOutcome } from '../writes/outcomes';
import { writeSessionOf } from '../writes/writeSession';
import { parallelRequests, type RunContext } from '../run/runContext';
import { readAll, type Outputs } from './createManyInput';
import { orderGuardrails, orderOptions } from './orderOptionProperties';
import { orderFields } from './orderProperties';
import { readOrderOptions, type OrderOptions } from './orderOptions';
import { replayedOrder } from './orderLookups';
import { rejectedOrdersError, stoppedRunError, stoppedRunItems } from './createManyStop';
import { orderKind, type PendingOrder } from './orderWrites';

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
						'Each input item (e.g. a sheet row) is one order, read from its own fields: symbol, side, type, price, quantity or amount, with no expression to write',
				},
			],
			description:
				'Orders are grouped by symbol and sent 20 per request; each order comes out as its own item',
		},
	]),
	...(version === 2
		? updateDisplayOptions({ show: { ...showFor, inputMode: ['autoMap'] } }, [
				{
					displayName:
						'Each input item (e.g. a sheet row) is one order. Name its fields exactly: symbol (e.g. BTCUSDT), side (BUY or SELL), type (LIMIT, LIMIT_MAKER or MARKET), price in the quote coin, and quantity in the base coin or, for a market order, amount in the quote coin. Optional: newClientOrderId (your own ID for the order), timeInForce, stpMode. Other fields are ignored. A field named almost right (Price, "quantity ", clientOrderId) stops the run before anything is sent: rename it, e.g. with an Edit Fields node.',
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
				'A JSON array of orders, each with symbol, side, type, and the price, quantity (base coin) or amount (quote coin) its type needs; optional: newClientOrderId, your own ID for the order. Give decimals as strings, e.g. "0.01".',
		},
	]),
	...updateDisplayOptions({ show: showFor }, [
		...orderGuardrails(version),
		createManyOptions(version),
	]),
];

// Options of one order: in the JSON and auto-map modes each order carries its own, so they show in
// the item mode only (and n8n drops a hidden option's value when it loads the node).
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

/**
 * Create Many handles all input items at once, so orders of different items share batches. However
 * the run ends, every order it placed is reported: a stopped run's error says what became of each
 * (createManyStop.ts), and under Continue On Fail the run gives an item per order besides the
 * error's (n8n would otherwise pass the input item on, hiding what was placed).
 */
export async function execute(
	run: RunContext,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const sending: Sending = { outputs: items.map(() => []) };
	try {
		return await placeAll(run, items, sending);
	} catch (error) {
		const stopped = stoppedRunError(run, items.length, error, sending.orders);
		if (!run.continueOnFail) throw stopped;
		return stoppedRunItems(sending.outputs, sending.orders, stopped);
	}
}

/** The output so far, and the orders handed to the write engine once the run got that far. */
interface Sending {
	outputs: Outputs;
	orders?: PendingOrder[];
}

async function placeAll(
	run: RunContext,
	items: INodeExecutionData[],
	sending: Sending,
): Promise<INodeExecutionData[]> {
	const { outputs } = sending;
	// The options apply to the whole run: batches mix items, so one item's options cannot apply to
	// one batch only.
	let options: OrderOptions = { guardrails: {} };
	let parallel = 1;
	if (items.length > 0) {
		try {
			options = readOrderOptions(run, 0);
			parallel = parallelRequests(run);
		} catch (error) {
			throw withOutcome(toNodeError(run.node, error), 'rejected');
		}
	}
	const { pending, reports } = await readAll(run, items, options, outputs);
	sending.orders = pending;
	await settleWrites(
		writeSessionOf(run),
		orderKind(writeSessionOf(run), {
			endpoint: 'batch',
			unified: run.version === 2,
			recvWindow: options.recvWindow,
		}),
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

// What each order comes out as, once the write engine settled it.

type ItemRun = Pick<RunContext, 'node' | 'continueOnFail'>;

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

/** Placed (with the order) or rejected (null) as the order's batch entry says; none from the ledger. */
function entryJson(
	entry: IDataObject | undefined,
	order: IDataObject | null,
	alreadyPlaced = false,
): IDataObject {
	return {
		outcome: order === null ? 'rejected' : 'placed',
		success: order !== null,
		code: (entry?.code ?? null) as IDataObject[string],
		msg: typeof entry?.msg === 'string' ? entry.msg : '',
		order,
		...(alreadyPlaced ? { alreadyPlaced: true } : {}),
	};
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
		if (settled.via === 'ledger') {
			const replayed = replayedOrder(pending.write.order, settled.result);
			const json = entryJson(undefined, replayed, settled.alreadyPlaced);
			return orderItem(pending, { ...json, replayed: true });
		}
		return orderItem(pending, entryJson(settled.entry, settled.result, settled.alreadyPlaced));
	}
	const entry = refusingEntry(pending);
	if (entry !== undefined) return orderItem(pending, entryJson(entry, null));
	const refusal = settled.outcome === 'unknown' ? undefined : settled.refusal.error;
	const error =
		settled.outcome === 'unknown'
			? settled.error
			: withOutcome(
					toNodeError(
						run.node,
						refusal ?? new NodeOperationError(run.node, 'The service refused the order'),
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
