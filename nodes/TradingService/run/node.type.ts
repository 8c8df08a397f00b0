import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { RunContext } from './runContext';

/** An operation run once per input item; the router pairs each output item with its input. */
export interface PerItemOperation {
	mode: 'perItem';
	/** Whether it writes (orders, cancels, transfers): every item and error it produces carries an outcome. */
	writes: boolean;
	/** Whether items go one after the other whatever Parallel Requests says (transfers: one per second). */
	oneAtATime?: boolean;
	execute(run: RunContext, itemIndex: number): Promise<IDataObject[]>;
	/** Checks across all items, before the first item is run: the error of each item that fails them. */
	checkItems?(run: RunContext, itemCount: number): Map<number, Error>;
}

/**
 * An operation that takes all input items at once (Create Many batches the orders of different
 * items), pairing each output item with its input itself. It handles its own errors per item.
 */
export interface AllItemsOperation {
	mode: 'allItems';
	/** Create Many, the one such operation, writes. */
	writes: true;
	execute(run: RunContext, items: INodeExecutionData[]): Promise<INodeExecutionData[]>;
}

export type Operation = PerItemOperation | AllItemsOperation;

/**
 * The operations of one room, by the names its description offers: the router's contract with the
 * operation files (actions/router.ts joins the rooms into the node's resource → operation map).
 */
export type Operations = Record<string, Operation>;
