import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { NodeVersion } from '../descriptions/pickers';
import type { Operations } from '../run/node.type';
import * as getAccounts from './getAccounts.operation';
import * as getBalances from './getBalances.operation';
import * as getHistory from './getHistory.operation';
import * as getTrades from './getTrades.operation';

/** Transfer Asset is listed here and lives in transfers/ (actions/ joins them). */
export const operations = {
	getAccounts: { mode: 'perItem', writes: false, execute: getAccounts.execute },
	getBalances: { mode: 'perItem', writes: false, execute: getBalances.execute },
	getHistory: { mode: 'perItem', writes: false, execute: getHistory.execute },
	getTrades: { mode: 'perItem', writes: false, execute: getTrades.execute },
} satisfies Operations;

/** Operations version 1 does not offer: it keeps the parameters it was saved with. */
const VERSION_2_ONLY = ['getAccounts', 'getTrades'];

const OPERATION_OPTIONS: INodePropertyOptions[] = [
	{
		name: 'Get Accounts',
		value: 'getAccounts',
		description:
			'List the accounts this API key can use: main trading, custody, sub trading and others, one item each with its ID and kind',
		action: 'Get accounts',
	},
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
		name: 'Get Trades',
		value: 'getTrades',
		description:
			'List your fills: the price, quantity, fee and fee coin each order actually traded at, by time range and symbol',
		action: 'Get trades',
	},
	{
		name: 'Transfer Asset',
		value: 'transferAsset',
		description: 'Move a coin between the main trading, custody and sub trading accounts',
		action: 'Transfer an asset between accounts',
	},
];

export function description(version: NodeVersion): INodeProperties[] {
	return [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: ['account'] } },
			options: OPERATION_OPTIONS.filter(
				(option) => version === 2 || !VERSION_2_ONLY.includes(option.value as string),
			),
			default: 'getHistory',
		},
		...(version === 2 ? getAccounts.description(version) : []),
		...getBalances.description(version),
		...getHistory.description(version),
		...(version === 2 ? getTrades.description(version) : []),
	];
}
