import { updateDisplayOptions, type IDataObject, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { accountId, coin, inputError, positiveDecimal } from '../../helpers/validation';
import { ENDPOINTS, serviceRequest } from '../../transport';

const properties: INodeProperties[] = [
	{
		displayName: 'From Account ID',
		name: 'fromAccountId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1470000000000000001',
		description: 'Numeric ID of the account to take the coin from (main trading, custody or sub trading account)',
	},
	{
		displayName: 'To Account ID',
		name: 'toAccountId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1470000000000000002',
		description: 'Numeric ID of the account to credit; must differ from From Account ID',
	},
	{
		displayName: 'Coin',
		name: 'coin',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. USDT',
	},
	{
		displayName: 'Quantity',
		name: 'quantity',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 100.5',
		description: 'Amount of the coin to move, as a decimal string; sent exactly as entered',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['account'], operation: ['transferAsset'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const from = accountId(node, 'From Account ID', this.getNodeParameter('fromAccountId', itemIndex), itemIndex);
	const to = accountId(node, 'To Account ID', this.getNodeParameter('toAccountId', itemIndex), itemIndex);
	if (from === to) {
		throw inputError(node, 'To Account ID', 'is the same as From Account ID', 'Pick two different accounts.', itemIndex);
	}
	const transferCoin = coin(node, 'Coin', this.getNodeParameter('coin', itemIndex), itemIndex);
	const quantity = positiveDecimal(node, 'Quantity', this.getNodeParameter('quantity', itemIndex), itemIndex);

	// The spec sends transfer parameters in the query string.
	const response = await serviceRequest.call(this, ENDPOINTS.assetTransfer, {
		qs: { fromAccountId: from, toAccountId: to, coin: transferCoin, quantity },
		itemIndex,
	});
	return [response as IDataObject];
}
