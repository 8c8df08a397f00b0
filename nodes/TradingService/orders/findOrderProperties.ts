import type { INodeProperties } from 'n8n-workflow';

import { pickerField, type NodeVersion } from '../descriptions/pickers';

/**
 * Order ID and Client Order ID, for Get and Cancel: the order is named by exactly one of them
 * (checked when the node runs, so either may come from an expression or an AI agent).
 */
export function orderReferenceFields(version: NodeVersion): INodeProperties[] {
	const [orderId, clientOrderId] = ORDER_REFERENCE_FIELDS;
	return [
		pickerField(version, 'openOrders', orderId, {
			description:
				'The order, picked from your open orders, or its ID (the orderId field of an order). Give this or Client Order ID, not both.',
		}),
		clientOrderId,
	];
}

const ORDER_REFERENCE_FIELDS: INodeProperties[] = [
	{
		displayName: 'Order ID',
		name: 'orderId',
		type: 'string',
		default: '',
		placeholder: 'e.g. 1470000000000000123',
		description:
			'The numeric ID the service gave the order (the orderId field of an order, up to 20 digits, as text). Give this or Client Order ID, not both.',
	},
	{
		displayName: 'Client Order ID',
		name: 'clientOrderId',
		type: 'string',
		default: '',
		placeholder: 'e.g. row-42',
		description:
			'The client order ID the order was placed with (the clientOrderId field of an order). Give this or Order ID, not both.',
	},
];
