import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as createMany from './createMany.operation';

export { create, createMany };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['order'] } },
		options: [
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
		],
		default: 'create',
	},
	...create.description,
	...createMany.description,
];
