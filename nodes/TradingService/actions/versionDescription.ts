import {
	NodeConnectionTypes,
	type INodeTypeBaseDescription,
	type INodeTypeDescription,
	type INodePropertyOptions,
} from 'n8n-workflow';

import type { NodeVersion } from '../descriptions/pickers';
import * as account from '../account';
import * as futures from '../futures';
import * as market from '../market';
import * as order from '../orders';
import * as transfers from '../transfers';
import * as wallet from '../wallet';

const RESOURCE_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Account', value: 'account' },
	{ name: 'Futures', value: 'futures' },
	{ name: 'Market', value: 'market' },
	{ name: 'Order', value: 'order' },
	{ name: 'Wallet', value: 'wallet' },
];

/** Resources version 1 does not offer: its forms stay as they were saved. */
const VERSION_2_ONLY = ['futures', 'wallet'];

/** The description of one version of the action node: its parameters, built per version. */
export function versionDescription(
	baseDescription: INodeTypeBaseDescription,
	version: NodeVersion,
): INodeTypeDescription {
	return {
		...baseDescription,
		version,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		defaults: { name: 'Trading Service' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'tradingServiceApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: RESOURCE_OPTIONS.filter(
					(option) => version === 2 || !VERSION_2_ONLY.includes(option.value as string),
				),
				default: 'account',
			},
			...account.description(version),
			...transfers.description(version),
			...market.description(version),
			...order.description(version),
			...(version === 2 ? futures.description(version) : []),
			...(version === 2 ? wallet.description() : []),
		],
	};
}
