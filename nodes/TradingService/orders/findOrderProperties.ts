import type { INodeProperties } from 'n8n-workflow';

import { pickerField, type NodeVersion } from '../descriptions/pickers';
import { inputError, oneOf } from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import { orderReference, type OrderReference } from './orderIds';

/**
 * How Get and Cancel name the order. Version 1: Order ID and Client Order ID side by side, exactly
 * one of them given (checked when the node runs, so either may come from an expression or an AI
 * agent). Version 2: Find Order By, then the one field it names, required.
 */
export function orderReferenceFields(version: NodeVersion): INodeProperties[] {
	const [orderId, clientOrderId] = ORDER_REFERENCE_FIELDS;
	if (version === 1) {
		return [
			pickerField(version, 'openOrders', orderId, {
				description:
					'The order, picked from your open orders, or its ID (the orderId field of an order). Give this or Client Order ID, not both.',
			}),
			clientOrderId,
		];
	}
	return [
		FIND_ORDER_BY,
		pickerField(
			version,
			'openOrders',
			{ ...orderId, required: true, displayOptions: { show: { findBy: ['orderId'] } } },
			{
				description:
					'The order: pick it from your open orders, or give its ID (the orderId field of an order)',
			},
		),
		{
			...clientOrderId,
			required: true,
			description:
				'The client order ID the order was placed with (the clientOrderId field of an order)',
			displayOptions: { show: { findBy: ['clientOrderId'] } },
		},
	];
}

const FIND_ORDER_BY: INodeProperties = {
	displayName: 'Find Order By',
	name: 'findBy',
	type: 'options',
	default: 'orderId',
	options: [
		{
			name: 'Order ID',
			value: 'orderId',
			description: 'The ID the exchange gave the order; pick it from your open orders',
		},
		{
			name: 'Client Order ID',
			value: 'clientOrderId',
			description: 'The client order ID the order was placed with (your own ID, e.g. a row ID)',
		},
	],
	description: 'Which of the order’s IDs to find it by',
};

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

/**
 * The order an item of Get or Cancel names, checked before any request. Version 2 reads only the
 * field Find Order By names: n8n drops the hidden one when it loads the node, and one left in a
 * workflow's JSON would be another order.
 */
export function readOrderReference(run: RunContext, itemIndex: number): OrderReference {
	const node = run.node;
	if (run.version === 1)
		return orderReference(
			node,
			run.parameter('orderId', itemIndex, ''),
			run.parameter('clientOrderId', itemIndex, ''),
			itemIndex,
		);
	const findBy = oneOf(
		node,
		'Find Order By',
		run.parameter('findBy', itemIndex, 'orderId'),
		['orderId', 'clientOrderId'] as const,
		itemIndex,
	);
	const value = run.parameter(findBy, itemIndex, '');
	if (value === undefined || value === null || value === '') {
		const [field, other, how] =
			findBy === 'orderId'
				? ['Order ID', 'Client Order ID', 'Pick the order from the list, or give its ID']
				: ['Client Order ID', 'Order ID', 'Give the client order ID the order was placed with'];
		throw inputError(
			node,
			field,
			'is empty',
			`${how}. To find the order by its ${other} instead, choose ${other} under Find Order By.`,
			itemIndex,
		);
	}
	return findBy === 'orderId'
		? orderReference(node, value, '', itemIndex)
		: orderReference(node, '', value, itemIndex);
}
