import type { INodeProperties } from 'n8n-workflow';

import type { NodeVersion } from '../descriptions/pickers';
import type { Operations } from '../run/node.type';
import * as cancel from './cancel.operation';
import * as cancelMany from './cancelMany.operation';
import * as create from './create.operation';
import * as createMany from './createMany.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';

export const operations = {
	cancel: { mode: 'perItem', writes: true, execute: cancel.execute },
	cancelMany: { mode: 'perItem', writes: true, execute: cancelMany.execute },
	create: { mode: 'perItem', writes: true, execute: create.execute, checkItems: create.checkItems },
	createMany: { mode: 'allItems', writes: true, execute: createMany.execute },
	get: { mode: 'perItem', writes: false, execute: get.execute },
	getMany: { mode: 'perItem', writes: false, execute: getMany.execute },
} satisfies Operations;

export function description(version: NodeVersion): INodeProperties[] {
	return [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: ['order'] } },
			options: [
				{
					name: 'Cancel',
					value: 'cancel',
					description:
						'Cancel one open order, given its Order ID or its Client Order ID. An order already filled or cancelled gives an item with outcome "rejected" and the reason.',
					action: 'Cancel an order',
				},
				{
					name: 'Cancel Many',
					value: 'cancelMany',
					description:
						'Cancel every open order of one symbol (one summary item), or the orders of a list of order IDs (one item per ID, each with its outcome)',
					action: 'Cancel many orders',
				},
				{
					name: 'Create',
					value: 'create',
					description: 'Place one spot order',
					action: 'Create an order',
				},
				{
					name: 'Create Many',
					value: 'createMany',
					description: 'Place many orders, 20 per request, one output item per order',
					action: 'Create many orders',
				},
				{
					name: 'Get',
					value: 'get',
					description:
						'Get one order with its status, filled quantity and prices, given its Order ID or its Client Order ID',
					action: 'Get an order',
				},
				{
					name: 'Get Many',
					value: 'getMany',
					description:
						'List open orders (or past filled and cancelled orders), optionally of one symbol, newest first: one item per order with its orderId, status and creation time',
					action: 'Get many orders',
				},
			],
			default: 'create',
		},
		...create.description(version),
		...createMany.description(version),
		...get.description(version),
		...getMany.description(version),
		...cancel.description(version),
		...cancelMany.description(version),
	];
}
