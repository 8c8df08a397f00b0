import {
	NodeOperationError,
	type AllEntities,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

import { inLanes } from '../helpers/lanes';
import { toNodeError } from '../transport';
import { errorItemJson, runReport, withRunReport, writeError } from '../writes/outcomes';
import { finishWriteSession, writeSessionOf } from '../writes/writeSession';
import * as account from '../account';
import * as futures from '../futures';
import * as market from '../market';
import type { Operation, PerItemOperation } from '../run/node.type';
import * as order from '../orders';
import * as transfers from '../transfers';
import * as wallet from '../wallet';
import { RunContext, parallelRequests, rateLimitWaitMs } from '../run/runContext';

/** The node's resources and their operations: each room's, Transfer Asset listed under Account. */
export const OPERATIONS = {
	account: { ...account.operations, ...transfers.operations },
	futures: futures.operations,
	market: market.operations,
	order: order.operations,
	wallet: wallet.operations,
} satisfies Record<string, Record<string, Operation>>;

type NodeMap = { [R in keyof typeof OPERATIONS]: keyof (typeof OPERATIONS)[R] & string };
type TradingServiceType = AllEntities<NodeMap>;

/**
 * Builds the run's context, then runs the chosen operation: once per item, up to Parallel Requests
 * items at once, pairing every output item with the input item it came from, in input order; or
 * once for all items (Create Many, which batches the orders of different items and pairs its
 * output itself).
 *
 * Without Continue On Fail the first failure stops the run: no item is started after it, the items
 * in flight finish (a write sent is never abandoned: its outcome goes into the ledger), and the
 * error of a write says what became of the other items (writes/outcomes.ts).
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const run = new RunContext(this);
	const chosen = chosenOperation(run);
	try {
		return await routeItems(run, chosen, this.getInputData());
	} finally {
		// Saved with the context when the node ends: a run that follows knows its ledger is whole.
		// A read never opens the write side.
		if (chosen.writes) finishWriteSession(run);
	}
}

/** The operation the node's Resource and Operation name. */
function chosenOperation(run: RunContext): Operation {
	const { resource, operation } = {
		resource: run.functions.getNodeParameter('resource', 0),
		operation: run.functions.getNodeParameter('operation', 0),
	} as TradingServiceType;
	return (
		(OPERATIONS[resource] as Record<string, Operation> | undefined)?.[operation] ?? {
			mode: 'perItem',
			writes: false,
			execute: async () => {
				throw new NodeOperationError(
					run.node,
					`The operation "${operation}" of "${resource}" is not supported`,
				);
			},
		}
	);
}

async function routeItems(
	run: RunContext,
	chosen: Operation,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	// Checked before anything is sent (the client reads it again at its first request).
	try {
		rateLimitWaitMs(run);
	} catch (error) {
		const failure = chosen.writes ? writeError(run.node, error) : toNodeError(run.node, error);
		if (!run.continueOnFail) throw failure;
		// Nothing was sent: under Continue On Fail every item says so, rather than n8n passing the
		// input on as if the node had run.
		const json = errorItemJson(failure);
		return [items.map((_, item) => ({ json: { ...json }, pairedItem: { item } }))];
	}
	if (chosen.mode === 'allItems') return [await chosen.execute(run, items)];
	return [pairedItems(await eachItem(run, chosen, items))];
}

/**
 * Runs a per-item operation on every item, up to Parallel Requests at once: each item's records,
 * or its error under Continue On Fail. Without it, the first failure is thrown once the items in
 * flight have finished.
 */
async function eachItem(
	run: RunContext,
	chosen: PerItemOperation,
	items: INodeExecutionData[],
): Promise<Array<IDataObject[] | Error>> {
	const failure = (error: unknown) =>
		chosen.writes ? writeError(run.node, error) : toNodeError(run.node, error);
	// The item the error is about (Create fails every item with the first refused one's error).
	const stopWith = (error: ReturnType<typeof failure>, itemIndex: number) =>
		chosen.writes && items.length > 1
			? withRunReport(
					error,
					runReport(
						writeSessionOf(run).ledger,
						items.length,
						Number(error.context.itemIndex ?? itemIndex),
					),
				)
			: error;
	let parallel = 1;
	try {
		if (!chosen.oneAtATime && items.length > 1) parallel = parallelRequests(run);
	} catch (error) {
		throw failure(error);
	}
	const precheckErrors = chosen.checkItems?.(run, items.length) ?? new Map<number, Error>();
	if (!run.continueOnFail && precheckErrors.size > 0) {
		// Before anything is sent in this try: one bad item stops the run.
		const [[itemIndex, first]] = precheckErrors.entries();
		throw stopWith(failure(first), itemIndex);
	}

	const results: Array<IDataObject[] | Error> = new Array(items.length);
	let stop: { itemIndex: number; error: ReturnType<typeof failure> } | undefined;
	await inLanes(
		items.length,
		parallel,
		async (itemIndex) => {
			try {
				const precheckError = precheckErrors.get(itemIndex);
				if (precheckError !== undefined) throw precheckError;
				results[itemIndex] = await chosen.execute(run, itemIndex);
			} catch (caught) {
				const error = failure(caught);
				if (run.continueOnFail) results[itemIndex] = error;
				else stop ??= { itemIndex, error };
			}
		},
		// A write item refused for its input stops the run before the next write leaves; a read sent
		// meanwhile costs nothing, so reads open every lane at once.
		{ stopped: () => stop !== undefined, staggered: chosen.writes },
	);
	if (stop !== undefined) throw stopWith(stop.error, stop.itemIndex);
	return results;
}

/** Every item's records (or error item) paired with the input item it came from, in input order. */
function pairedItems(results: Array<IDataObject[] | Error>): INodeExecutionData[] {
	const returnData: INodeExecutionData[] = [];
	for (const [itemIndex, result] of results.entries()) {
		// The items of one input share its pairedItem object: it is never changed.
		const pairedItem = { item: itemIndex };
		if (result instanceof Error) {
			returnData.push({ json: errorItemJson(result), pairedItem });
			continue;
		}
		// One push per record: spreading 100,000+ records into push() overflows the call stack.
		for (const record of result) returnData.push({ json: record, pairedItem });
	}
	return returnData;
}
