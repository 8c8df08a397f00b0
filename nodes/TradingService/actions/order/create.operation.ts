import { updateDisplayOptions, type IDataObject, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { orderFields, orderOptions, readOrderParameters } from '../../descriptions/order';
import { deriveClientOrderId } from '../../helpers/clientOrderIds';
import { duplicateClientOrderIdError, parameterLabel, validateOrder } from '../../helpers/orderRules';
import { fingerprint } from '../../transport/ledger';
import { generatedIdPrefix, itemParameter, readOrderOptions, runLedger, runNode } from './context';
import { placeSingleOrder } from './placeOrder';
import { testOrder } from './testOrder';
import { checkGuardrails } from '../../helpers/guardrails';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['create'] } },
	[
		...orderFields,
		{
			...orderOptions,
			options: [
				...(orderOptions.options ?? []),
				{
					displayName: 'Test Only',
					name: 'testOnly',
					type: 'boolean',
					default: false,
					description:
						'Whether to only have the exchange check the order (fields, symbol, balance), through its order-test endpoint, without placing it. Use it to try a workflow before it goes live.',
				},
			],
		},
	],
);

/**
 * Checked before the first order is sent: two items with the same Client Order ID would be one
 * order to the service (it refuses an ID an open order holds), so the second would come out as the
 * first. Returns the error of each item that repeats an earlier item's ID.
 */
export function checkItems(this: IExecuteFunctions, itemCount: number): Map<number, Error> {
	const errors = new Map<number, Error>();
	const itemOfClientId = new Map<string, number>();
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		let id: unknown;
		try {
			id = itemParameter(this, 'newClientOrderId', itemIndex, '');
		} catch {
			continue; // the item's own validation names the problem
		}
		if (typeof id !== 'string' || id === '') continue;
		const firstItem = itemOfClientId.get(id);
		if (firstItem === undefined) itemOfClientId.set(id, itemIndex);
		else errors.set(itemIndex, duplicateClientOrderIdError(runNode(this), id, firstItem, itemIndex));
	}
	return errors;
}

/**
 * One order per item. What does not depend on the item is read once per node run (context.ts):
 * parameters and options without expressions, the generated ID prefix, the write ledger. An
 * option or field given as an expression is evaluated for each item, as before.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = runNode(this);
	const options = readOrderOptions.call(this, itemIndex);
	const raw = readOrderParameters((name, fallback) => itemParameter(this, name, itemIndex, fallback));
	const order = validateOrder(node, raw, parameterLabel, itemIndex);
	checkGuardrails(node, order, options.guardrails ?? {}, parameterLabel, itemIndex);
	if (options.testOnly === true) {
		// Nothing is placed, so no ledger slot and no generated client order ID.
		const testQs: IDataObject = { ...order };
		if (options.recvWindow !== undefined) testQs.recvWindow = options.recvWindow;
		return [await testOrder.call(this, order, testQs, itemIndex)];
	}
	// The fingerprint is of the order as the user gave it: a generated ID is derived from the slot.
	const slot = runLedger(this).slot(String(itemIndex), fingerprint('newOrder', order));
	if (order.newClientOrderId === undefined && options.generateClientOrderId !== false) {
		order.newClientOrderId = deriveClientOrderId(generatedIdPrefix.call(this), itemIndex, 0, slot.version);
	}
	const qs: IDataObject = { ...order };
	if (options.recvWindow !== undefined) qs.recvWindow = options.recvWindow;
	return [await placeSingleOrder.call(this, order, qs, slot, itemIndex)];
}
