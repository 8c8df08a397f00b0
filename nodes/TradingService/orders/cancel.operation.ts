import {
	NodeApiError,
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
	type JsonObject,
} from 'n8n-workflow';

import { accountOption, optionsCollection, parallelRequestsOption } from '../descriptions/common';
import type { NotOpenDetail } from './cancelLookups';
import { refusedError } from './orderRules';
import {
	describeReference,
	findOrder,
	orderReferenceFields,
	readOrderReference,
	type OrderReference,
} from './orderIds';
import { strictBoolean } from '../helpers/validation';
import { toNodeError } from '../transport';
import { cancelKind, cancelledJson, pendingCancel, type PendingCancel } from './cancelWrites';
import { settleWrites, type Refusal } from '../writes/engine';
import { withOutcome } from '../writes/outcomes';
import type { RunContext } from '../run/runContext';
import type { NodeVersion } from '../descriptions/pickers';
import { writeSessionOf } from '../writes/writeSession';

const properties = (version: NodeVersion): INodeProperties[] => [
	...orderReferenceFields(version),
	optionsCollection([
		...parallelRequestsOption(version, 'item'),
		...accountOption(version, 'a client order ID is cancelled in'),
		{
			displayName: 'Fail If Order Not Open',
			name: 'failIfNotOpen',
			type: 'boolean',
			default: false,
			description:
				'Whether to stop with an error when the order is already filled or cancelled. Off: the node outputs an item with outcome "rejected" and the reason, and the workflow goes on.',
		},
	]),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions(
		{ show: { resource: ['order'], operation: ['cancel'] } },
		properties(version),
	);

/**
 * The item (or error) for an order that is no longer open: a rejection reported as data, without
 * `error`; an error for an order the service does not know, or with Fail If Order Not Open.
 */
function notOpenItem(
	run: RunContext,
	pending: PendingCancel,
	refusal: Refusal,
	failIfNotOpen: boolean,
): IDataObject {
	const { reference } = pending.write;
	const { reason, text, order } = refusal.detail as NotOpenDetail;
	const code = refusal.code ?? '';
	const said = refusal.msg ?? '';
	if (reason === 'notFound' || failIfNotOpen) {
		const field = 'orderId' in reference ? 'Order ID' : 'Client Order ID';
		const error = new NodeApiError(run.node, { code, msg: said } as JsonObject, {
			message: `${field}: could not cancel ${describeReference(reference)}: ${text}`,
			description:
				reason === 'notFound'
					? `The service said: "${said}" (code ${code}). Check the ${field}: it must be an open order of this API key's own account. Nothing was cancelled.`
					: `The service said: "${said}" (code ${code}). Nothing was cancelled. Turn off Fail If Order Not Open to get an item instead of an error.`,
			itemIndex: pending.itemIndex,
		});
		throw withOutcome(error, 'rejected');
	}
	return {
		outcome: 'rejected',
		cancelled: false,
		reason,
		message: `Not cancelled: ${text}`,
		code,
		serviceMessage: said,
		...(reference as IDataObject),
		...(order ?? {}),
	};
}

/**
 * The order to cancel, as the request names it: the cancel endpoint takes no account, so for a key
 * that sees several trading accounts a client order ID is first looked up in the run's account and
 * the order cancelled by its order ID (docs/safety.md "One account"); none there is an error.
 */
async function inOwnAccount(
	run: RunContext,
	reference: OrderReference,
	itemIndex: number,
): Promise<OrderReference> {
	if ('orderId' in reference) return reference;
	const scope = await run.account(itemIndex);
	if (!scope.shared) return reference;
	let order: IDataObject | undefined;
	try {
		order = await findOrder(run, reference, itemIndex);
	} catch (error) {
		throw withOutcome(toNodeError(run.node, error), 'rejected');
	}
	if (order === undefined || order.orderId === undefined)
		throw refusedError(
			run.node,
			`Client Order ID: account ${scope.accountId} has no order with client order ID ${reference.clientOrderId}`,
			'Nothing was cancelled. The API key sees more than one trading account, so a client order ID is cancelled only in the account of the Account option (empty: the key’s own). Pick the account the order belongs to, or cancel by Order ID.',
			itemIndex,
		);
	return { orderId: String(order.orderId) };
}

/**
 * Cancels one order, settled by the write engine (docs/operations.md Cancel): an order already
 * filled or cancelled is an item saying so (an error with Fail If Order Not Open).
 */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const reference: OrderReference = readOrderReference(run, itemIndex);
	// Whether an order already closed stops the workflow: true or false only, like every boolean of
	// a write (an expression giving "true" or 1 is refused, not read as off).
	const { failIfNotOpen } = run.options(itemIndex, (options) => ({
		failIfNotOpen: Object.prototype.hasOwnProperty.call(options, 'failIfNotOpen')
			? strictBoolean(run.node, 'Fail If Order Not Open', options.failIfNotOpen, itemIndex)
			: false,
	}));
	const writes = writeSessionOf(run);
	const pending = pendingCancel(writes.ledger, String(itemIndex), reference, itemIndex);
	// A cancel an earlier try of this run recorded is settled from the ledger or by its lookup,
	// never by a fresh resolution whose failure would read as "nothing was cancelled".
	if (pending.slot.recorded === undefined) {
		const sendAs = await inOwnAccount(run, reference, itemIndex);
		if (sendAs !== reference) pending.write.sendAs = sendAs;
	}
	await settleWrites(writes, cancelKind(writes, 'single'), [pending]);
	const settled = pending.settled!;
	switch (settled.outcome) {
		case 'placed':
			return [{ ...cancelledJson(settled), ...settled.result }];
		case 'rejected':
			if (settled.refusal.error !== undefined) throw withOutcome(settled.refusal.error, 'rejected');
			return [notOpenItem(run, pending, settled.refusal, failIfNotOpen)];
		case 'unknown':
			throw settled.error;
	}
}
