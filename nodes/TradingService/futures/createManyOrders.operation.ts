import {
	NodeOperationError,
	updateDisplayOptions,
	type IDataObject,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import type { NodeVersion } from '../descriptions/pickers';
import type { RunContext } from '../run/runContext';
import { toNodeError } from '../transport';
import { settleWrites } from '../writes/engine';
import {
	errorItemJson,
	orderCounts,
	runReport,
	withOutcome,
	withRunReport,
} from '../writes/outcomes';
import { writeSessionOf } from '../writes/writeSession';
import { childIds } from './createOrder.operation';
import { readFuturesGuardrails, type FuturesGuardrails } from './futuresGuardrails';
import { readFuturesOrders, type Outputs } from './futuresManyInput';
import {
	futuresOrderKind,
	replayedFuturesOrder,
	type PendingFuturesOrder,
} from './futuresOrderWrites';
import {
	checkFuturesOptions,
	futuresGuardrails,
	futuresOptions,
	futuresTechnicalOptions,
} from './futuresWriteOptions';

const showFor = { resource: ['futures'], operation: ['createManyOrders'] };

export const description = (_version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: showFor }, [
		{
			displayName: 'Input Mode',
			name: 'inputMode',
			type: 'options',
			default: 'items',
			options: [
				{
					name: 'Each Input Item Is One Order',
					value: 'items',
					description:
						'Each item’s own fields are the order: symbol, side, type, baseQty or quoteQty, price, stopPrice, and optional leverage, reduceOnly, timeInForce, stpMode, clientOrderId, tpTriggerPrice, tpTriggerBy, tpLimitPrice, slTriggerPrice, slTriggerBy, slLimitPrice',
				},
				{
					name: 'JSON Array of Orders',
					value: 'json',
					description: 'Give the orders as a JSON array in one field (per input item)',
				},
			],
			description:
				'Orders are grouped by contract, side and type and sent 20 per request (3 for STOP orders); each order comes out as its own item, paired with its input item',
		},
		{
			displayName: 'Orders (JSON)',
			name: 'ordersJson',
			type: 'json',
			required: true,
			default:
				'[\n  {\n    "symbol": "BTCUSDT-PERPETUAL",\n    "side": "BUY",\n    "type": "LIMIT",\n    "price": "60000",\n    "baseQty": "0.01"\n  }\n]',
			description:
				'A JSON array of orders with the fields of Each Input Item Is One Order. Give decimals as strings, e.g. "0.01".',
			displayOptions: { show: { inputMode: ['json'] } },
		},
		futuresGuardrails(),
		futuresOptions([
			...futuresTechnicalOptions,
			{
				displayName: 'Fail on Any Rejected Order',
				name: 'failOnRejected',
				type: 'boolean',
				default: false,
				description:
					'Whether to stop with an error as soon as a batch comes back with a rejected order, sending no further batches. Off: rejected orders come out as items with success set to false.',
			},
		]),
	]);

interface Sending {
	outputs: Outputs;
	orders?: PendingFuturesOrder[];
}

/** However the run ends, every order is reported. */
export async function execute(
	run: RunContext,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const sending: Sending = { outputs: items.map(() => []) };
	try {
		return await placeAll(run, items, sending);
	} catch (error) {
		const stopped = withRunReport(toNodeError(run.node, error), {
			...runReport(writeSessionOf(run).ledger, items.length),
			...(sending.orders === undefined ? {} : { orders: orderCounts(sending.orders) }),
		});
		if (!run.continueOnFail) throw stopped;
		for (const pending of sending.orders ?? []) {
			const slots = sending.outputs[pending.itemIndex];
			slots[pending.write.orderIndex] ??= unsettledItem(pending, stopped);
		}
		return [
			...sending.outputs.flat().filter((item) => item !== undefined),
			{ json: errorItemJson(stopped), pairedItem: { item: 0 } },
		];
	}
}

async function placeAll(
	run: RunContext,
	items: INodeExecutionData[],
	sending: Sending,
): Promise<INodeExecutionData[]> {
	let options: IDataObject = {};
	let guardrails: FuturesGuardrails = {};
	if (items.length > 0) {
		try {
			options = run.options(0, (raw) => checkFuturesOptions(run, raw, 0));
			guardrails = readFuturesGuardrails(run, 0);
		} catch (error) {
			throw withOutcome(toNodeError(run.node, error), 'rejected');
		}
	}
	const { outputs } = sending;
	const generate = options.generateClientOrderId !== false;
	const { pending, reports } = await readFuturesOrders(run, items, guardrails, generate, outputs);
	sending.orders = pending;
	const session = writeSessionOf(run);
	const kind = futuresOrderKind(session, {
		endpoint: 'batch',
		recvWindow: options.recvWindow as number | undefined,
	});
	await settleWrites(session, kind, pending, {
		onSettled: (one) => {
			const item = settledItem(run, one);
			item.json = { ...item.json, ...reports.get(one) };
			outputs[one.itemIndex][one.write.orderIndex] = item;
		},
		afterRequest: (batch, left) => {
			const rejected = batch.filter((one) => refusingEntry(one) !== undefined);
			if (options.failOnRejected !== true || rejected.length === 0) return;
			const entry = refusingEntry(rejected[0])!;
			throw withOutcome(
				new NodeOperationError(
					run.node,
					`${rejected.length} order(s) were rejected: ${String(entry.msg ?? '')} (code ${String(entry.code)})`,
					{
						description: `Fail on Any Rejected Order is on, so no further batches were sent (${left} left).`,
						itemIndex: rejected[0].itemIndex,
					},
				),
				'rejected',
			);
		},
	});
	return outputs.flat().filter((item) => item !== undefined);
}

/** The batch entry that refused an order, when the refusal came from its entry alone. */
function refusingEntry(pending: PendingFuturesOrder): IDataObject | undefined {
	const settled = pending.settled;
	if (settled?.outcome !== 'rejected' || settled.refusal.error !== undefined) return undefined;
	return settled.refusal.detail?.entry as IDataObject | undefined;
}

function orderItem(pending: PendingFuturesOrder, json: IDataObject): INodeExecutionData {
	const { order } = pending.write;
	return {
		json: {
			...json,
			symbol: order.symbol,
			clientOrderId:
				order.clientOrderId ?? (json.order as IDataObject | null)?.clientOrderId ?? null,
			...childIds(pending),
		},
		pairedItem: { item: pending.itemIndex },
	};
}

/** Placed (with the order) or rejected by its own entry (success false); otherwise the error. */
function settledItem(run: RunContext, pending: PendingFuturesOrder): INodeExecutionData {
	const settled = pending.settled!;
	if (settled.outcome === 'placed') {
		const entry = settled.entry;
		const order =
			settled.via === 'ledger'
				? replayedFuturesOrder(pending.write, settled.result)
				: settled.result;
		return orderItem(pending, {
			outcome: 'placed',
			success: true,
			code: (entry?.code ?? null) as IDataObject[string],
			msg: typeof entry?.msg === 'string' ? entry.msg : '',
			order,
			...(settled.alreadyPlaced ? { alreadyPlaced: true } : {}),
			...(settled.via === 'ledger' ? { replayed: true } : {}),
		});
	}
	const entry = refusingEntry(pending);
	if (entry !== undefined)
		return orderItem(pending, {
			outcome: 'rejected',
			success: false,
			code: (entry.code ?? null) as IDataObject[string],
			msg: typeof entry.msg === 'string' ? entry.msg : '',
			order: null,
		});
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

/** An order the stopped run never settled: as the ledger holds it, else not sent. */
function unsettledItem(pending: PendingFuturesOrder, stopped: Error): INodeExecutionData {
	const held = pending.slot.held;
	const said: IDataObject =
		held === 'placed'
			? {
					outcome: 'placed',
					success: true,
					message: 'Placed: the node’s write record holds it placed',
				}
			: held === 'unknown'
				? {
						outcome: 'unknown',
						success: false,
						message: `Unknown outcome: it was sent and the run stopped (${stopped.message}) before its outcome was known`,
					}
				: {
						outcome: 'rejected',
						success: false,
						notSent: true,
						message: `Not sent: the run stopped before this order was sent (${stopped.message}). Running the node again sends it.`,
					};
	return orderItem(pending, {
		...said,
		code: null,
		msg: '',
		order: null,
		request: { ...pending.write.order },
	});
}
