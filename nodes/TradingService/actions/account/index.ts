import type { INodeProperties } from 'n8n-workflow';

import type { OperationsOf } from '../node.type';
import * as getBalances from './getBalances.operation';
import * as getHistory from './getHistory.operation';
import * as transferAsset from './transferAsset.operation';

export const operations: OperationsOf<'account'> = {
	getBalances: { mode: 'perItem', writes: false, execute: getBalances.execute },
	getHistory: { mode: 'perItem', writes: false, execute: getHistory.execute },
	transferAsset: { mode: 'perItem', writes: true, execute: transferAsset.execute },
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['account'] } },
		options: [
			{
				name: 'Get Balances',
				value: 'getBalances',
				description:
					'Get the trading account balances: one item per coin with its free, locked (held by open orders) and total quantity',
				action: 'Get account balances',
			},
			{
				name: 'Get Transaction History',
				value: 'getHistory',
				description:
					'List ledger records: trades, fees, funding fees, transfers, deposits, withdrawals',
				action: 'Get transaction history',
			},
			{
				name: 'Transfer Asset',
				value: 'transferAsset',
				description: 'Move a coin between the main trading, custody and sub trading accounts',
				action: 'Transfer an asset between accounts',
			},
		],
		default: 'getHistory',
	},
	...getBalances.description,
	...getHistory.description,
	...transferAsset.description,
];
