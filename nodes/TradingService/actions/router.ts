import { NodeOperationError, type IDataObject, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import { outcomeOf, toNodeError, withOutcome } from '../transport';

import * as account from './account';
import * as order from './order';

type PerItemOperation = (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject[]>;

interface PerItem {
	execute: PerItemOperation;
	/** Whether it writes (orders, transfers): every item and error it produces carries an outcome. */
	writes: boolean;
	/** Checks across all items, before the first item is run: the error of each item that fails them. */
	checkItems?: (this: IExecuteFunctions, itemCount: number) => Map<number, Error>;
}

const perItemOperations: Record<string, Record<string, PerItem>> = {
	account: {
		getBalances: { execute: account.getBalances.execute, writes: false },
		getHistory: { execute: account.getHistory.execute, writes: false },
		transferAsset: { execute: account.transferAsset.execute, writes: true },
	},
	order: {
		create: { execute: order.create.execute, writes: true, checkItems: order.create.checkItems },
		get: { execute: order.get.execute, writes: false },
		getMany: { execute: order.getMany.execute, writes: false },
		cancel: { execute: order.cancel.execute, writes: true },
		cancelMany: { execute: order.cancelMany.execute, writes: true },
	},
};

/**
 * The error of a write as n8n gets it: an error the operation did not mark was thrown before its
 * request (bad input, a missing parameter), so nothing was executed.
 */
function writeError(context: IExecuteFunctions, error: unknown) {
	const nodeError = toNodeError(context.getNode(), error);
	return outcomeOf(nodeError) === undefined ? withOutcome(nodeError, 'rejected') : nodeError;
}

/** A Continue On Fail item for an error: its message, description and, for a write, its outcome. */
export function errorItemJson(error: Error & { description?: string | null }): IDataObject {
	const json: IDataObject = { error: error.message, description: error.description ?? undefined };
	const outcome = outcomeOf(error);
	if (outcome !== undefined) json.outcome = outcome;
	return json;
}

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

	const chosen = perItemOperations[resource]?.[operation];
	const precheckErrors = chosen?.checkItems?.call(this, items.length) ?? new Map<number, Error>();
	if (!this.continueOnFail() && precheckErrors.size > 0) {
		// Before anything is sent: one bad item stops the run with nothing executed.
		const [first] = precheckErrors.values();
		throw chosen?.writes ? writeError(this, first) : toNodeError(this.getNode(), first);
	}
	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			if (chosen === undefined) {
				throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`);
			}
			const precheckError = precheckErrors.get(itemIndex);
			if (precheckError !== undefined) throw precheckError;
			const records = await chosen.execute.call(this, itemIndex);
			// One push per record: spreading 100,000+ records into push() overflows the call stack.
			// The items of one input share its pairedItem object: it is never changed.
			const pairedItem = { item: itemIndex };
			for (const record of records) returnData.push({ json: record, pairedItem });
		} catch (caught) {
			const error = chosen?.writes ? writeError(this, caught) : toNodeError(this.getNode(), caught);
			if (this.continueOnFail()) {
				returnData.push({ json: errorItemJson(error), pairedItem: { item: itemIndex } });
				continue;
			}
			throw error;
		}
	}
	return [returnData];
}
