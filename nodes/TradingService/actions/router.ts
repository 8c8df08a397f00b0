import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import { toNodeError } from '../transport';
import * as account from './account';
import { errorItemJson, writeError } from './errorItems';
import * as market from './market';
import type { Operation, Resource, TradingServiceType } from './node.type';
import * as order from './order';
import { RunContext } from './runContext';

const OPERATIONS: { [R in Resource]: Record<string, Operation> } = {
	account: account.operations,
	market: market.operations,
	order: order.operations,
};

/**
 * Builds the run's context, then runs the chosen operation: once per item, pairing every output
 * item with the input item it came from, or once for all items (Create Many, which batches the
 * orders of different items and pairs its output itself).
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const { resource, operation } = {
		resource: this.getNodeParameter('resource', 0),
		operation: this.getNodeParameter('operation', 0),
	} as TradingServiceType;
	const run = new RunContext(this);
	const chosen: Operation | undefined = OPERATIONS[resource]?.[operation];

	if (chosen?.mode === 'allItems') return [await chosen.execute(run, items)];

	const failure = (error: unknown) =>
		chosen?.writes ? writeError(run.node, error) : toNodeError(run.node, error);
	const precheckErrors = chosen?.checkItems?.(run, items.length) ?? new Map<number, Error>();
	if (!run.continueOnFail && precheckErrors.size > 0) {
		// Before anything is sent: one bad item stops the run with nothing executed.
		const [first] = precheckErrors.values();
		throw failure(first);
	}
	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			if (chosen === undefined) {
				throw new NodeOperationError(
					run.node,
					`The operation "${operation}" of "${resource}" is not supported`,
				);
			}
			const precheckError = precheckErrors.get(itemIndex);
			if (precheckError !== undefined) throw precheckError;
			const records = await chosen.execute(run, itemIndex);
			// One push per record: spreading 100,000+ records into push() overflows the call stack.
			// The items of one input share its pairedItem object: it is never changed.
			const pairedItem = { item: itemIndex };
			for (const record of records) returnData.push({ json: record, pairedItem });
		} catch (caught) {
			const error = failure(caught);
			if (run.continueOnFail) {
				returnData.push({ json: errorItemJson(error), pairedItem: { item: itemIndex } });
				continue;
			}
			throw error;
		}
	}
	return [returnData];
}
