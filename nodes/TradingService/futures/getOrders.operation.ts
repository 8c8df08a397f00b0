import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly, returnAllAndLimit } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { oneOf } from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import {
	contractField,
	FUTURES_MAX_LIMIT,
	optionalContract,
	requiredContract,
	wantedEntries,
} from './contracts';
import { FUTURES_ENDPOINTS } from './endpoints';
import { IdWalk, ORDERS_PAGING } from './idPages';

const shownFor = (orderStatus: string, field: INodeProperties): INodeProperties => ({
	...field,
	displayOptions: { show: { orderStatus: [orderStatus] } },
});

const properties = (version: NodeVersion): INodeProperties[] => [
	{
		displayName: 'Order Status',
		name: 'orderStatus',
		type: 'options',
		default: 'open',
		options: [
			{ name: 'Open', value: 'open', description: 'Orders still working (last 7 days)' },
			{
				name: 'Past',
				value: 'past',
				description: 'Filled, cancelled and rejected orders (last 90 days)',
			},
		],
		description: 'Open orders (still working) or past ones (filled, cancelled or rejected)',
	},
	{
		displayName: 'Order Type',
		name: 'orderType',
		type: 'options',
		default: 'LIMIT',
		options: [
			{ name: 'Limit', value: 'LIMIT', description: 'Limit and market orders' },
			{ name: 'Stop', value: 'STOP', description: 'Stop (trigger) orders' },
		],
		description: 'Which kind of order to list: the exchange lists each kind on its own',
	},
	shownFor('open', contractField(version, 'whose open orders to list', 'every contract')),
	shownFor('past', contractField(version, 'whose past orders to list')),
	...returnAllAndLimit(FUTURES_MAX_LIMIT),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['getOrders'] } }, [
		...properties(version),
		...parallelRequestsOnly(version),
	]);

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const node = run.node;
	const status = run.parameter('orderStatus', itemIndex, 'open');
	const orderStatus = oneOf(node, 'Order Status', status, ['open', 'past'], itemIndex);
	const orderType = run.parameter('orderType', itemIndex, 'LIMIT');
	const type = oneOf(node, 'Order Type', orderType, ['LIMIT', 'STOP'], itemIndex);
	const symbol =
		orderStatus === 'open' ? optionalContract(run, itemIndex) : requiredContract(run, itemIndex);
	const wanted = wantedEntries(run, itemIndex);
	const query: IDataObject = symbol === undefined ? { type } : { symbol, type };
	const walk = new IdWalk(node, ORDERS_PAGING, query, wanted, itemIndex);
	const endpoint =
		orderStatus === 'open' ? FUTURES_ENDPOINTS.openOrders : FUTURES_ENDPOINTS.historyOrders;
	await run.client.requestAllPages(endpoint, walk);
	return walk.entries;
}
