import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import * as account from './actions/account';
import * as market from './actions/market';
import * as order from './actions/order';
import { router } from './actions/router';

export class TradingService implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Trading Service',
		name: 'tradingService',
		icon: { light: 'file:tradingService.svg', dark: 'file:tradingService.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Place, get, list and cancel spot orders, read prices, order books, candles and symbol rules, read balances and account history, and transfer assets on the Trading Service',
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
			...account.description,
			...market.description,
			...order.description,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
