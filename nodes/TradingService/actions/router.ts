import { NodeOperationError, type IDataObject, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import { toNodeError } from '../transport';

import * as account from './account';
import * as order from './order';

type PerItemOperation = (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject[]>;

const perItemOperations: Record<string, Record<string, PerItemOperation>> = {
	account: {
		getHistory: account.getHistory.execute,
		transferAsset: account.transferAsset.execute,
	},
	order: {
		create: order.create.execute,
	},
};

/**
 * Walks the input items, runs the chosen operation for each and pairs every output item with the
 * input item it came from. Create Many is the exception: it needs all items at once to batch
 * their orders, and pairs its output itself.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;

	if (resource === 'order' && operation === 'createMany') {
		return [await order.createMany.executeAll.call(this, items)];
	}

	const execute = perItemOperations[resource]?.[operation];
	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			if (execute === undefined) {
				throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`);
			}
			const records = await execute.call(this, itemIndex);
			// One push per record: spreading 100,000+ records into push() overflows the call stack.
			// The items of one input share its pairedItem object: it is never changed.
			const pairedItem = { item: itemIndex };
			for (const record of records) returnData.push({ json: record, pairedItem });
		} catch (error) {
			if (this.continueOnFail()) {
				const { message, description } = error as Error & { description?: string | null };
				returnData.push({ json: { error: message, description: description ?? undefined }, pairedItem: { item: itemIndex } });
				continue;
			}
			throw toNodeError(this.getNode(), error);
		}
	}
	return [returnData];
}
