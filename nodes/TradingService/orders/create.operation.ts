import {
	NodeOperationError,
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
} from 'n8n-workflow';

import { parallelRequestsOption } from '../descriptions/common';
import { orderGuardrails, orderOptions } from './orderOptionProperties';
import { clientOrderIdParameter, orderFields, readOrderParameters } from './orderProperties';
import { checkGuardrails, readOrderOptions, type OrderOptions } from './orderOptions';
import {
	duplicateClientOrderIdError,
	parameterLabel,
	validateOrder,
	type OrderParams,
} from './orderRules';
import { inputError } from '../helpers/validation';
import { TIME_IN_FORCE_BY_TYPE, type OrderType } from '../constants';
import { settleWrites } from '../writes/engine';
import { replayedOrder } from './orderLookups';
import { orderKind, pendingOrder, type PendingOrder } from './orderWrites';
import { withOutcome } from '../writes/outcomes';
import type { RunContext } from '../run/runContext';
import type { NodeVersion } from '../descriptions/pickers';
import { checkOrdersAgainstSymbolRules, type CheckedOrder, type OrderToCheck } from './symbolRules';
import { writeSessionOf } from '../writes/writeSession';
import { ORDER_ENDPOINTS } from './endpoints';

const testOnlyOption: INodeProperties = {
	displayName: 'Test Only',
	name: 'testOnly',
	type: 'boolean',
	default: false,
	description:
		'Whether to only have the exchange check the order (fields, symbol, balance), through its order-test endpoint, without placing it. Use it to try a workflow before it goes live. Takes true or false only (an expression must give a boolean); MARKET orders by Amount cannot be tested.',
};

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['order'], operation: ['create'] } }, [
		...orderFields(version),
		...orderGuardrails(version),
		orderOptions(version, [testOnlyOption, ...parallelRequestsOption(version, 'item')]),
	]);

/**
 * Checked before the first order is sent: two items with the same Client Order ID would be one
 * order to the service (it refuses an ID an open order holds), so the second would come out as the
 * first. Returns the error of each item that repeats an earlier item's ID.
 */
export function checkItems(run: RunContext, itemCount: number): Map<number, Error> {
	const errors = new Map<number, Error>();
	const itemOfClientId = new Map<string, number>();
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		let id: unknown;
		try {
			id = run.parameter(clientOrderIdParameter(run.version), itemIndex, '');
		} catch {
			continue; // the item's own validation names the problem
		}
		if (typeof id !== 'string' || id === '') continue;
		const firstItem = itemOfClientId.get(id);
		if (firstItem === undefined) itemOfClientId.set(id, itemIndex);
		else errors.set(itemIndex, duplicateClientOrderIdError(run.node, id, firstItem, itemIndex));
	}
	return errors;
}

/**
 * Test Only: the exchange checks the order (fields, symbol, balance, client order ID) through
 * POST /api/v1/spot/orderTest and places nothing. Not a write: nothing can be executed, so the item
 * carries no outcome, and a refusal is the exchange's error as for a real order.
 */
async function testOrder(
	run: RunContext,
	order: OrderParams,
	options: OrderOptions,
	itemIndex: number,
	report: IDataObject,
): Promise<IDataObject> {
	const qs: IDataObject = { ...order };
	if (options.recvWindow !== undefined) qs.recvWindow = options.recvWindow;
	const request = run.client.request(ORDER_ENDPOINTS.orderTest, { qs, itemIndex });
	const answer = (await request) as IDataObject;
	const { newClientOrderId, ...sent } = order;
	return {
		testOnly: true,
		valid: true,
		placed: false,
		message:
			'The exchange accepted this order as valid. Nothing was placed: turn off Test Only to place it.',
		...sent,
		...(newClientOrderId === undefined ? {} : { clientOrderId: newClientOrderId }),
		...(Object.keys(answer).length > 0 ? { response: answer } : {}),
		...report,
	};
}

function createdItem(run: RunContext, pending: PendingOrder): IDataObject {
	const settled = pending.settled!;
	if (settled.outcome === 'placed') {
		if (settled.via === 'ledger')
			return {
				...replayedOrder(pending.write.order, settled.result),
				...(settled.alreadyPlaced ? { alreadyPlaced: true } : {}),
			};
		return settled.alreadyPlaced
			? { outcome: 'placed', alreadyPlaced: true, ...settled.result }
			: { outcome: 'placed', ...settled.result };
	}
	if (settled.outcome === 'unknown') throw settled.error;
	const refused =
		settled.refusal.error ??
		new NodeOperationError(run.node, 'The service refused the order', {
			itemIndex: pending.itemIndex,
		});
	throw withOutcome(refused, 'rejected');
}

/** An item's order as it will be sent: validated, within the guardrails and the symbol rules. */
type PreparedOrder = CheckedOrder & { options: OrderOptions };

/** Validation and the guardrails of one item: its order and options, or the error refusing it. */
function readItem(
	run: RunContext,
	itemIndex: number,
): { order: OrderParams; options: OrderOptions } {
	const options = readOrderOptions(run, itemIndex);
	const raw = readOrderParameters(
		(name, value) => run.parameter(name, itemIndex, value),
		run.version,
	);
	const order = validateOrder(run.node, raw, parameterLabel, itemIndex, run.version === 2);
	checkGuardrails(run.node, order, options.guardrails, parameterLabel, itemIndex);
	// The order-test endpoint documents quantity and no amount (docs/api.md §4.12): an order by
	// Amount would be tested as something else, or refused for a reason the real order lacks.
	if (options.testOnly === true && order.amount !== undefined) {
		throw inputError(
			run.node,
			parameterLabel('amount'),
			'Test Only cannot test a MARKET order by Amount',
			'The exchange’s order-test endpoint takes a Quantity and no Amount, so nothing was sent. To test the order, give it a Quantity (in the base coin) instead; to place it by Amount, turn off Test Only.',
			itemIndex,
		);
	}
	// The order test takes the parameters of the v1 create (§4.4), which knows GTC only for LIMIT.
	if (
		options.testOnly === true &&
		order.timeInForce !== TIME_IN_FORCE_BY_TYPE[order.type as OrderType]
	) {
		throw inputError(
			run.node,
			parameterLabel('timeInForce'),
			`Test Only cannot test a ${order.type} order with time in force ${order.timeInForce}`,
			'The exchange’s order-test endpoint takes the parameters of the older create-order endpoint, which has no IOC or FOK for LIMIT orders, so nothing was sent. To test the order, use Good Till Cancelled (GTC); to place it, turn off Test Only.',
			itemIndex,
		);
	}
	return { order, options };
}

/**
 * Every item of the run checked before the first order is sent: validation, the guardrails, then
 * the symbol rules (read once for all items). Each item's prepared order or the error refusing it.
 */
async function prepareItems(run: RunContext): Promise<Map<number, PreparedOrder | Error>> {
	const prepared = new Map<number, PreparedOrder | Error>();
	const toCheck: Array<OrderToCheck & { options: OrderOptions }> = [];
	const itemCount = run.functions.getInputData().length;
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		try {
			const { order, options } = readItem(run, itemIndex);
			toCheck.push({
				order,
				options,
				label: parameterLabel,
				itemIndex,
				recorded: writeSessionOf(run).ledger.holds(String(itemIndex)),
			});
		} catch (error) {
			prepared.set(itemIndex, error as Error);
		}
	}
	const checked = await checkOrdersAgainstSymbolRules(run, toCheck);
	checked.forEach((result, index) => {
		const { itemIndex, options } = toCheck[index];
		prepared.set(itemIndex, result instanceof Error ? result : { ...result, options });
	});
	return prepared;
}

/** The preparation of each run, made by its first item and awaited by all. */
const preparations = new WeakMap<RunContext, Promise<Map<number, PreparedOrder | Error>>>();

/**
 * One order per item, settled by the write engine as a batch of one. Every item is checked before
 * the first order is sent: without Continue On Fail one refused item stops the run, nothing sent.
 */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	let preparation = preparations.get(run);
	if (preparation === undefined) {
		preparation = prepareItems(run);
		preparations.set(run, preparation);
	}
	const prepared = await preparation;
	if (!run.continueOnFail) {
		// The first refused item's error, by item order, whichever item runs first.
		const refused = [...prepared.entries()]
			.filter((entry): entry is [number, Error] => entry[1] instanceof Error)
			.sort(([a], [b]) => a - b)[0];
		if (refused !== undefined) throw refused[1];
	}
	const mine = prepared.get(itemIndex);
	if (mine === undefined) throw new NodeOperationError(run.node, 'No such item', { itemIndex });
	if (mine instanceof Error) throw mine;
	const { order, given, options, report } = mine;
	// Nothing is placed, so no ledger slot and no generated client order ID.
	if (options.testOnly === true) return [await testOrder(run, order, options, itemIndex, report)];

	const writes = writeSessionOf(run);
	const idPrefix = options.generateClientOrderId === false ? undefined : writes.idPrefix;
	const slot = String(itemIndex);
	const pending = pendingOrder(writes.ledger, slot, order, itemIndex, 0, idPrefix, given);
	const unified = run.version === 2;
	const kind = orderKind(writes, { endpoint: 'single', unified, recvWindow: options.recvWindow });
	await settleWrites(writes, kind, [pending]);
	return [{ ...createdItem(run, pending), ...report }];
}
