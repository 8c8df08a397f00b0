import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import { pickerField } from '../descriptions/pickers';
import { coin as coinValue, inputError } from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import { WALLET_ENDPOINTS } from './endpoints';

const properties: INodeProperties[] = [
	pickerField(2, 'coins', {
		displayName: 'Coin',
		name: 'coin',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. USDT',
		description: 'The coin to deposit',
	}),
	{
		displayName: 'Chain Type',
		name: 'chainType',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. ERC20',
		description:
			"The network the coin is sent on, as the exchange names it, e.g. ERC20 or TRC20 for USDT, BTC for BTC. A deposit on another network than the address's is lost.",
	},
	...parallelRequestsOnly(2),
];

export const description = (): INodeProperties[] =>
	updateDisplayOptions(
		{ show: { resource: ['wallet'], operation: ['getDepositAddress'] } },
		properties,
	);

/** The custody account's deposit address of one coin on one chain (both required by the exchange). */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const coin = coinValue(run.node, 'Coin', run.parameter('coin', itemIndex), itemIndex);
	const chainType = run.parameter('chainType', itemIndex, '');
	if (typeof chainType !== 'string' || !/^[A-Za-z0-9_()-]{1,32}$/.test(chainType)) {
		throw inputError(
			run.node,
			'Chain Type',
			`${JSON.stringify(chainType)} is not a chain type`,
			'Enter the network as the exchange names it, e.g. ERC20 or TRC20.',
			itemIndex,
		);
	}
	const answer = (await run.client.request(WALLET_ENDPOINTS.depositAddress, {
		qs: { coin, chainType },
		itemIndex,
	})) as IDataObject;
	return [{ coin, chainType, ...answer }];
}
