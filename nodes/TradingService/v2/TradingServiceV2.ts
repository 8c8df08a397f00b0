import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
} from 'n8n-workflow';

import { router } from '../actions/router';
import { versionDescription } from '../actions/versionDescription';
import * as listSearch from '../methods/listSearch';

/**
 * Version 2: pickers (From List / By ID) for symbols, coins, accounts and orders, Get Accounts and
 * Get Trades, and order forms that show only what the order type takes.
 */
export class TradingServiceV2 implements INodeType {
	description: INodeTypeDescription;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = versionDescription(baseDescription, 2);
	}

	methods = { listSearch };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
