import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { oneOf } from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import { FUTURES_ENDPOINTS } from './endpoints';
import { contractField, futuresReturnAllAndLimit, FUTURES_PAGE_SIZES } from './futuresFields';
import { optionalContract, requiredContract, wantedEntries } from './futuresParameters';
import { IdWalk, type IdPaging } from './idPages';

/** openOrders and historyOrders page by `fromOrderId`: "fromOrderId=1003 returns 1002 and 1001". */
export const ORDERS_PAGING: IdPaging = {
	what: 'orders',
	idField: 'orderId',
	cursor: 'fromOrderId',
	cursorReading: 'below',
	pageSize: FUTURES_PAGE_SIZES.orders,
};

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
	...futuresReturnAllAndLimit(),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['getOrders'] } }, [
		...properties(version),
		...parallelRequestsOnly(version),
	]);

/**
 * GET /api/v2/futures/openOrders (Open: one contract or all) or /api/v2/futures/historyOrders
 * (Past: one contract), newest first, one item per order with the service's fields, as Get Order
 * gives them. Up to 500 a request; Return All and a larger Limit page down by order ID.
 */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const node = run.node;
	const orderStatus = oneOf(
		node,
		'Order Status',
		run.parameter('orderStatus', itemIndex, 'open'),
		['open', 'past'],
		itemIndex,
	);
	const type = oneOf(
		node,
		'Order Type',
		run.parameter('orderType', itemIndex, 'LIMIT'),
		['LIMIT', 'STOP'],
		itemIndex,
	);
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
