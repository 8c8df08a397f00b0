import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { inputError, oneOf } from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import { FUTURES_ENDPOINTS } from './endpoints';
import { readFuturesClientOrderId } from './futuresOrderFind';

const ORDER_ID = /^\d{1,20}$/;

const properties: INodeProperties[] = [
	{
		displayName: 'Find Order By',
		name: 'findBy',
		type: 'options',
		default: 'orderId',
		options: [
			{ name: 'Order ID', value: 'orderId', description: 'The ID the exchange gave the order' },
			{
				name: 'Client Order ID',
				value: 'clientOrderId',
				description: 'The client order ID the order was placed with',
			},
		],
		description: 'Which of the order’s IDs to look it up by',
	},
	{
		displayName: 'Order ID',
		name: 'orderId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 2131349653745568000',
		description: 'The orderId of the futures order: up to 20 digits, as text',
		displayOptions: { show: { findBy: ['orderId'] } },
	},
	{
		displayName: 'Client Order ID',
		name: 'clientOrderId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. hedge-42',
		description: 'The clientOrderId the futures order was placed with',
		displayOptions: { show: { findBy: ['clientOrderId'] } },
	},
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['getOrder'] } }, [
		...properties,
		...parallelRequestsOnly(version),
	]);

function orderQuery(run: RunContext, itemIndex: number): IDataObject {
	const node = run.node;
	const by = run.parameter('findBy', itemIndex, 'orderId');
	const findBy = oneOf(node, 'Find Order By', by, ['orderId', 'clientOrderId'], itemIndex);
	if (findBy === 'orderId') {
		const raw = run.parameter('orderId', itemIndex, '');
		const id = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
		if (typeof id === 'string' && ORDER_ID.test(id)) return { orderId: id };
		throw inputError(
			node,
			'Order ID',
			`${id === '' ? 'an empty value' : `"${String(id)}"`} is not an order ID`,
			'A futures order ID is up to 20 digits, e.g. 2131349653745568000: copy the orderId field of an order, as text.',
			itemIndex,
		);
	}
	return readFuturesClientOrderId(node, run.parameter('clientOrderId', itemIndex, ''), itemIndex);
}

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const qs = orderQuery(run, itemIndex);
	return [(await run.client.request(FUTURES_ENDPOINTS.order, { qs, itemIndex })) as IDataObject];
}
