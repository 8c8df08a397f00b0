import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
} from 'n8n-workflow';

import { router } from '../actions/router';
import { versionDescription } from '../actions/versionDescription';

/** Version 1: symbols, coins and IDs typed as text. Kept as it was, so saved workflows run unchanged. */
export class TradingServiceV1 implements INodeType {
	description: INodeTypeDescription;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = versionDescription(baseDescription, 1);
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
