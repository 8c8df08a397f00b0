import {
	NodeApiError,
	updateDisplayOptions,
	type IDataObject,
	type INode,
	type INodeProperties,
	type JsonObject,
} from 'n8n-workflow';

import { optionsCollection, parallelRequestsOption } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { oneOf, strictBoolean } from '../helpers/validation';
import { orderId } from '../orders/orderIds';
import type { RunContext } from '../run/runContext';
import { settleWrites } from '../writes/engine';
import { withOutcome } from '../writes/outcomes';
import { writeSessionOf } from '../writes/writeSession';
import { readBeforeCancelFailed, type NotCancelledDetail } from './futuresCancelLookups';
import { readFuturesGuardrails } from './futuresGuardrails';
import {
	futuresCancelKind,
	futuresCancelledJson,
	notCancelledJson,
	pendingFuturesCancel,
} from './futuresCancelWrites';
import {
	readFuturesClientOrderId,
	requireOwnFuturesAccount,
	type FuturesOrderReference,
	type FuturesOrderType,
} from './futuresOrderFind';
import { contractGuardrails } from './positionWrites';

/** Order Type: the cancel must name LIMIT or STOP; Find Automatically looks the order up first. */
const cancelOrderTypeField: INodeProperties = {
	displayName: 'Order Type',
	name: 'orderType',
	type: 'options',
	default: 'find',
	options: [
		{
			name: 'Find Automatically',
			value: 'find',
			description: 'Look the order up first (one more request) and cancel it as the type it has',
		},
		{ name: 'Limit', value: 'LIMIT', description: 'A limit, limit maker or market order' },
		{ name: 'Stop', value: 'STOP', description: 'A stop (trigger) order' },
	],
	description:
		'The kind of order: the exchange cancels a futures order only when told whether it is a limit or a stop order',
};

const properties = (version: NodeVersion): INodeProperties[] => [
	{
		displayName: 'Cancel By',
		name: 'cancelBy',
		type: 'options',
		default: 'orderId',
		options: [
			{ name: 'Order ID', value: 'orderId', description: 'The ID the exchange gave the order' },
			{
				name: 'Client Order ID',
				value: 'clientOrderId',
				description: 'The client order ID of an open order',
			},
		],
		description: 'Which of the order’s IDs names it',
	},
	{
		displayName: 'Order ID',
		name: 'orderId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 2131349653745568000',
		description: 'The orderId of the futures order: up to 20 digits, as text',
		displayOptions: { show: { cancelBy: ['orderId'] } },
	},
	{
		displayName: 'Client Order ID',
		name: 'clientOrderId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. signal-42',
		description:
			'The clientOrderId of the open futures order (the exchange keeps it unique among open orders only)',
		displayOptions: { show: { cancelBy: ['clientOrderId'] } },
	},
	cancelOrderTypeField,
	contractGuardrails(false),
	optionsCollection([
		...parallelRequestsOption(version, 'item'),
		{
			displayName: 'Fail If Order Not Open',
			name: 'failIfNotOpen',
			type: 'boolean',
			default: false,
			description:
				'Whether to stop with an error when the order is already filled or cancelled. Off: the node outputs an item with outcome "rejected" and the reason, and the workflow goes on.',
		},
	]),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions(
		{ show: { resource: ['futures'], operation: ['cancelOrder'] } },
		properties(version),
	);

function readReference(run: RunContext, itemIndex: number): FuturesOrderReference {
	const node = run.node;
	const by = run.parameter('cancelBy', itemIndex, 'orderId');
	const cancelBy = oneOf(node, 'Cancel By', by, ['orderId', 'clientOrderId'] as const, itemIndex);
	if (cancelBy === 'orderId')
		return {
			orderId: orderId(node, 'Order ID', run.parameter('orderId', itemIndex, ''), itemIndex),
		};
	return readFuturesClientOrderId(node, run.parameter('clientOrderId', itemIndex, ''), itemIndex);
}

/** Undefined for Find Automatically. */
function readCancelType(run: RunContext, itemIndex: number): FuturesOrderType | undefined {
	const raw = run.parameter('orderType', itemIndex, 'find');
	const type = oneOf(run.node, 'Order Type', raw, ['find', 'LIMIT', 'STOP'] as const, itemIndex);
	return type === 'find' ? undefined : type;
}

/** An order the service does not know, or one no longer open with Fail If Order Not Open: an error. */
function notOpenError(
	node: INode,
	reference: FuturesOrderReference,
	detail: NotCancelledDetail,
	said: { code?: string; msg?: string },
	itemIndex: number,
): NodeApiError {
	const field = 'orderId' in reference ? 'Order ID' : 'Client Order ID';
	const named = 'orderId' in reference ? reference.orderId : reference.clientOrderId;
	const serviceSaid = said.code
		? `The service said: "${said.msg ?? ''}" (code ${said.code}). `
		: '';
	const error = new NodeApiError(
		node,
		{ code: said.code ?? '', msg: said.msg ?? '' } as JsonObject,
		{
			message: `${field}: could not cancel futures order ${named}: ${detail.text}`,
			description:
				detail.reason === 'notFound'
					? `${serviceSaid}Check the ${field}: it must name a futures order of this API key's account. Nothing was cancelled.`
					: `${serviceSaid}Nothing was cancelled. Turn off Fail If Order Not Open to get an item instead of an error.`,
			itemIndex,
		},
	);
	return withOutcome(error, 'rejected');
}

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const reference = readReference(run, itemIndex);
	const type = readCancelType(run, itemIndex);
	const { failIfNotOpen } = run.options(itemIndex, (options) => ({
		failIfNotOpen: Object.prototype.hasOwnProperty.call(options, 'failIfNotOpen')
			? strictBoolean(run.node, 'Fail If Order Not Open', options.failIfNotOpen, itemIndex)
			: false,
	}));
	// Allowed Contracts: the order is looked up first, and one of another contract is not cancelled.
	const { allowedContracts } = readFuturesGuardrails(run, itemIndex);
	await requireOwnFuturesAccount(run, 'Cancel Order', itemIndex).catch((error: unknown) => {
		throw readBeforeCancelFailed(writeSessionOf(run), error, 'reading the key’s accounts');
	});
	const writes = writeSessionOf(run);
	const pending = pendingFuturesCancel(
		writes.ledger,
		String(itemIndex),
		reference,
		type,
		itemIndex,
	);
	await settleWrites(writes, futuresCancelKind(writes, allowedContracts), [pending]);
	const settled = pending.settled!;
	if (settled.outcome === 'placed')
		return [
			{
				...futuresCancelledJson(settled, pending.write),
				...(reference as IDataObject),
				...settled.result,
			},
		];
	if (settled.outcome === 'unknown') throw settled.error;
	const { refusal } = settled;
	if (refusal.error !== undefined) throw withOutcome(refusal.error, 'rejected');
	const detail = refusal.detail as NotCancelledDetail;
	if (detail.reason === 'notFound' || failIfNotOpen)
		throw notOpenError(run.node, reference, detail, refusal, itemIndex);
	return [{ ...notCancelledJson(refusal), ...(reference as IDataObject) }];
}
