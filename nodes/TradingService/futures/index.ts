import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { NodeVersion } from '../descriptions/pickers';
import type { Operations } from '../run/node.type';
import { futuresRead as read } from './contracts';
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
