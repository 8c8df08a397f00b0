import {
	NodeConnectionTypes,
	type INodeTypeBaseDescription,
	type INodeTypeDescription,
} from 'n8n-workflow';

import type { NodeVersion } from '../descriptions/pickers';
import * as account from '../account';
import * as market from '../market';
import * as order from '../orders';

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
				options: [
					{ name: 'Account', value: 'account' },
					{ name: 'Market', value: 'market' },
					{ name: 'Order', value: 'order' },
				],
				default: 'account',
			},
			...account.description(version),
			...market.description(version),
			...order.description(version),
		],
	};
}
