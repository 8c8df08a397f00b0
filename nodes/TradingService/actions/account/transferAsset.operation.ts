import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { ENDPOINTS } from '../../constants';
import { accountId, coin, inputError, positiveDecimal } from '../../helpers/validation';
import { serviceRequest } from '../../transport';

const showFor = { resource: ['account'], operation: ['transferAsset'] };

export const description: INodeProperties[] = [
	{
		displayName: 'From Account ID',
		name: 'fromAccountId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1470000000000000001',
		description: 'Numeric ID of the account to take the coin from (main trading, custody or sub trading account)',
		displayOptions: { show: showFor },
	},
	{
		displayName: 'To Account ID',
		name: 'toAccountId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1470000000000000002',
		description: 'Numeric ID of the account to credit; must differ from From Account ID',
		displayOptions: { show: showFor },
	},
	{
		displayName: 'Coin',
		name: 'coin',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. USDT',
		displayOptions: { show: showFor },
	},
	{
		displayName: 'Quantity',
		name: 'quantity',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 100.5',
		description: 'Amount of the coin to move, as a decimal string; sent exactly as entered',
		displayOptions: { show: showFor },
	},
];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const from = accountId(node, 'From Account ID', this.getNodeParameter('fromAccountId', itemIndex), itemIndex);
	const to = accountId(node, 'To Account ID', this.getNodeParameter('toAccountId', itemIndex), itemIndex);
	if (from === to) {
		throw inputError(node, 'To Account ID', 'is the same as From Account ID', 'Pick two different accounts.', itemIndex);
	}
	const transferCoin = coin(node, 'Coin', this.getNodeParameter('coin', itemIndex), itemIndex);
	const quantity = positiveDecimal(node, 'Quantity', this.getNodeParameter('quantity', itemIndex), itemIndex);

	const response = await serviceRequest.call(this, {
		method: 'POST',
		path: ENDPOINTS.assetTransfer,
		// The spec sends transfer parameters in the query string.
		qs: { fromAccountId: from, toAccountId: to, coin: transferCoin, quantity },
		kind: 'write',
		itemIndex,
		writeName: `transfer of ${quantity} ${transferCoin} from ${from} to ${to}`,
		howToCheck:
			'Check the transfer history (Trading Service > Get Transaction History, Flow Type: Transfer Between Accounts) or the account balances',
	});
	return [response as IDataObject];
}
