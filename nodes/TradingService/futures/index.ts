import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { NodeVersion } from '../descriptions/pickers';
import type { Operations } from '../run/node.type';
import { futuresRead as read } from './contracts';
import * as createOrder from './createOrder.operation';
import * as createManyOrders from './createManyOrders.operation';
import * as cancelOrder from './cancelOrder.operation';
import * as cancelManyOrders from './cancelManyOrders.operation';
import * as setPositionTpSl from './setPositionTpSl.operation';
import * as setLeverage from './setLeverage.operation';
import * as closePosition from './closePosition.operation';
import * as getBalance from './getBalance.operation';
import * as getCommissionRate from './getCommissionRate.operation';
import * as getFundingFees from './getFundingFees.operation';
import * as getFundingRate from './getFundingRate.operation';
import * as getFundingRateHistory from './getFundingRateHistory.operation';
import * as getLeverage from './getLeverage.operation';
import * as getOrder from './getOrder.operation';
import * as getOrders from './getOrders.operation';
import * as getPositions from './getPositions.operation';
import * as getTrades from './getTrades.operation';

export const operations = {
	createOrder: { mode: 'perItem', writes: true, execute: createOrder.execute },
	createManyOrders: { mode: 'allItems', writes: true, execute: createManyOrders.execute },
	cancelOrder: { mode: 'perItem', writes: true, execute: cancelOrder.execute },
	cancelManyOrders: { mode: 'perItem', writes: true, execute: cancelManyOrders.execute },
	setPositionTpSl: { mode: 'perItem', writes: true, execute: setPositionTpSl.execute },
	setLeverage: { mode: 'perItem', writes: true, execute: setLeverage.execute },
	closePosition: { mode: 'perItem', writes: true, execute: closePosition.execute },
	getPositions: read(getPositions.execute),
	getBalance: read(getBalance.execute),
	getFundingRate: read(getFundingRate.execute),
	getFundingRateHistory: read(getFundingRateHistory.execute),
	getFundingFees: read(getFundingFees.execute),
	getOrders: read(getOrders.execute),
	getOrder: read(getOrder.execute),
	getTrades: read(getTrades.execute),
	getLeverage: read(getLeverage.execute),
	getCommissionRate: read(getCommissionRate.execute),
} satisfies Operations;

const OPERATION_OPTIONS: INodePropertyOptions[] = [
	{
		name: 'Cancel Many Orders',
		value: 'cancelManyOrders',
		description:
			'Cancel every open futures order of one contract or of every contract (both sides, limit and stop), or the orders of a list of order IDs',
		action: 'Cancel many futures orders',
	},
	{
		name: 'Cancel Order',
		value: 'cancelOrder',
		description:
			'Cancel one open futures order, given its Order ID or its Client Order ID; the node finds whether it is a limit or a stop order',
		action: 'Cancel a futures order',
	},
	{
		name: 'Close Position',
		value: 'closePosition',
		description: 'Close a LONG position, whole or in part, with a reduce-only market order',
		action: 'Close a futures position',
	},
	{
		name: 'Create Many Orders',
		value: 'createManyOrders',
		description:
			'Place many futures orders, batched by contract, side and type (20 per request, 3 for stop orders), one output item per order',
		action: 'Create many futures orders',
	},
	{
		name: 'Create Order',
		value: 'createOrder',
		description:
			'Place one futures order: limit, market, limit maker or stop, with optional take-profit and stop-loss',
		action: 'Create a futures order',
	},
	{
		name: 'Get Balance',
		value: 'getBalance',
		description:
			'Get the futures account balance: one item per asset with its balance and available balance',
		action: 'Get the futures balance',
	},
	{
		name: 'Get Commission Rate',
		value: 'getCommissionRate',
		description:
			'Get your maker and taker fee rates for one contract, as fractions (0.0006 is 0.06%)',
		action: 'Get the futures commission rate',
	},
	{
		name: 'Get Funding Fees',
		value: 'getFundingFees',
		description:
			'List the funding fees charged or paid in a time range, per contract or for all: rate, position size, mark price and fee (negative: paid)',
		action: 'Get futures funding fees',
	},
	{
		name: 'Get Funding Rate',
		value: 'getFundingRate',
		description:
			'Get the funding rate of the period now running and when it is settled, for one contract or all; the rate is a fraction (0.0001 is 0.01%)',
		action: 'Get the futures funding rate',
	},
	{
		name: 'Get Funding Rate History',
		value: 'getFundingRateHistory',
		description: 'List the funding rates settled for one contract, newest first',
		action: 'Get the futures funding rate history',
	},
	{
		name: 'Get Leverage',
		value: 'getLeverage',
		description: 'Get the leverage and margin type (cross or isolated) of one contract',
		action: 'Get the futures leverage',
	},
	{
		name: 'Get Order',
		value: 'getOrder',
		description: 'Get one futures order by its order ID or client order ID',
		action: 'Get a futures order',
	},
	{
		name: 'Get Orders',
		value: 'getOrders',
		description: 'List open or past futures orders, limit or stop, newest first',
		action: 'Get futures orders',
	},
	{
		name: 'Get Positions',
		value: 'getPositions',
		description:
			'Get the open positions, of one contract or all: size, average and mark price, liquidation price, margin, unrealized and realized PnL',
		action: 'Get futures positions',
	},
	{
		name: 'Get Trades',
		value: 'getTrades',
		description:
			'List your futures fills of one contract, newest first: price, quantity, fee and realized PnL',
		action: 'Get futures trades',
	},
	{
		name: 'Set Leverage',
		value: 'setLeverage',
		description: 'Set the leverage of one contract for the orders that follow',
		action: 'Set the futures leverage',
	},
	{
		name: 'Set Position TP/SL',
		value: 'setPositionTpSl',
		description: 'Set the take-profit and stop-loss of a LONG position',
		action: "Set a position's take-profit and stop-loss",
	},
];

/** The resource's operations and their parameters (version 2 only: versionDescription.ts). */
export function description(version: NodeVersion): INodeProperties[] {
	return [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: ['futures'] } },
			options: OPERATION_OPTIONS,
			default: 'getPositions',
		},
		...createOrder.description(version),
		...createManyOrders.description(version),
		...cancelOrder.description(version),
		...cancelManyOrders.description(version),
		...setPositionTpSl.description(version),
		...setLeverage.description(version),
		...closePosition.description(version),
		...getPositions.description(version),
		...getBalance.description(version),
		...getFundingRate.description(version),
		...getFundingRateHistory.description(version),
		...getFundingFees.description(version),
		...getOrders.description(version),
		...getOrder.description(version),
		...getTrades.description(version),
		...getLeverage.description(version),
		...getCommissionRate.description(version),
	];
}
