import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { ENDPOINTS, ERROR_CODES, LIMITS } from '../../constants';
import {
	clientOrderIdPrefix,
	deriveClientOrderId,
	orderFieldProperties,
	parameterLabel,
	readOrderParameters,
	validateOrder,
	withIdempotentRetry,
} from '../../helpers/orders';
import { integerInRange } from '../../helpers/validation';
import { isServiceRejection, serviceRequest, toNodeError } from '../../transport';

const showFor = { resource: ['order'], operation: ['create'] };

export const orderOptions: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Generate Client Order ID',
			name: 'generateClientOrderId',
			type: 'boolean',
			default: true,
			description:
				'Whether to give an order without a Client Order ID one derived from the execution, node and item, so that a retry within this execution cannot place it twice. Off: an order whose outcome is unknown is never retried.',
		},
		{
			displayName: 'Receive Window (Ms)',
			name: 'recvWindow',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: LIMITS.maxRecvWindowMs },
			default: 5000,
			description: 'Overrides the credential’s receive window for these requests',
		},
	],
};

export const description: INodeProperties[] = [
	...orderFieldProperties(showFor),
	{ ...orderOptions, displayOptions: { show: showFor } },
];

export interface OrderOptions {
	generateClientOrderId?: boolean;
	recvWindow?: number;
}

export function readOrderOptions(this: IExecuteFunctions, itemIndex: number): OrderOptions {
	const options = this.getNodeParameter('options', itemIndex, {}) as OrderOptions;
	if (options.recvWindow !== undefined) {
		integerInRange(this.getNode(), 'Receive Window (Ms)', options.recvWindow, 1, LIMITS.maxRecvWindowMs, itemIndex);
	}
	return options;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const options = readOrderOptions.call(this, itemIndex);
	const raw = readOrderParameters((name, fallback) => this.getNodeParameter(name, itemIndex, fallback));
	const order = validateOrder(node, raw, parameterLabel, itemIndex);
	if (order.newClientOrderId === undefined && options.generateClientOrderId !== false) {
		order.newClientOrderId = deriveClientOrderId(clientOrderIdPrefix(this), itemIndex, 0);
	}

	const qs: IDataObject = { ...order };
	if (options.recvWindow !== undefined) qs.recvWindow = options.recvWindow;
	try {
		const placed = await withIdempotentRetry(node, order.newClientOrderId !== undefined, async () =>
			serviceRequest.call(this, {
				method: 'POST',
				path: ENDPOINTS.newOrder,
				qs,
				kind: 'write',
				itemIndex,
				writeName: `${order.side} ${order.type} order for ${order.symbol}`,
				howToCheck: `Check your open orders and trade history for ${order.symbol}${order.newClientOrderId ? ` (client order ID ${order.newClientOrderId})` : ''}`,
			}),
		);
		return [placed as IDataObject];
	} catch (error) {
		// The ID was used before: this order (or one with the same business key) is already placed.
		if (isServiceRejection(error, ERROR_CODES.duplicateClientOrderId)) {
			return [
				{
					alreadyPlaced: true,
					clientOrderId: order.newClientOrderId,
					symbol: order.symbol,
					code: error.rejection.code,
					msg: error.rejection.msg,
				},
			];
		}
		throw toNodeError(node, error);
	}
}
