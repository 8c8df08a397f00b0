import type { INodeProperties } from 'n8n-workflow';

import type { Operations } from '../run/node.type';
import * as getDepositAddress from './getDepositAddress.operation';
import * as getDeposits from './getDeposits.operation';
import * as getWithdrawals from './getWithdrawals.operation';

/** The Wallet resource (version 2): reads only; the node makes no withdrawal. */
export const operations = {
	getDeposits: { mode: 'perItem', writes: false, execute: getDeposits.execute },
	getWithdrawals: { mode: 'perItem', writes: false, execute: getWithdrawals.execute },
	getDepositAddress: { mode: 'perItem', writes: false, execute: getDepositAddress.execute },
} satisfies Operations;

export function description(): INodeProperties[] {
	return [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: ['wallet'] } },
			options: [
				{
					name: 'Get Deposit Address',
					value: 'getDepositAddress',
					description: "Get the custody account's deposit address of a coin on one network",
					action: 'Get a deposit address',
				},
				{
					name: 'Get Deposits',
					value: 'getDeposits',
					description:
						'List deposits by time range, coin and status: quantity, address, transaction ID, status in plain words',
					action: 'Get deposits',
				},
				{
					name: 'Get Withdrawals',
					value: 'getWithdrawals',
					description:
						'List withdrawals by time range, coin and status: quantity, fee, amount received, status in plain words',
					action: 'Get withdrawals',
				},
			],
			default: 'getDeposits',
		},
		...getDeposits.description(),
		...getWithdrawals.description(),
		...getDepositAddress.description(),
	];
}
