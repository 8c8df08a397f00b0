import {
	NodeApiError,
	NodeOperationError,
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
	type JsonObject,
} from 'n8n-workflow';

import { accountOption, optionsCollection, parallelRequestsOption } from '../descriptions/common';
import { orderReferenceFields, readOrderReference } from './findOrderProperties';
import { describeReference, findOrder, type OrderReference } from './orderIds';
import { strictBoolean } from '../helpers/validation';
import { toNodeError } from '../transport';
import { cancelledJson } from './cancelItems';
import { cancelKind, pendingCancel, type PendingCancel } from './cancelWrites';
import { settleWrites } from '../writes/engine';
import type { Refusal } from '../writes/pendingWrite';
import { withOutcome } from '../writes/outcomes';
import type { RunContext } from '../run/runContext';
import type { NodeVersion } from '../descriptions/pickers';
import { writeRun } from '../writes/writeRun';

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
	const { reason, text, order } = refusal.detail as {
		reason: string;
		text: string;
		order?: IDataObject;
	};
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
 * The order to cancel, as the cancel names it. A client order ID is unique per account only, and
 * the cancel endpoint takes no account: when the key sees other trading accounts (a master key with
 * sub accounts) it could cancel a sub account's order holding the same ID. So the ID is looked up
 * in the run's account first and the order cancelled by its order ID; none there is an error, and
 * nothing is sent.
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
		throw withOutcome(
			new NodeOperationError(
				run.node,
				`Client Order ID: account ${scope.accountId} has no order with client order ID ${reference.clientOrderId}`,
				{
					description:
						'Nothing was cancelled. The API key sees more than one trading account, so a client order ID is cancelled only in the account of the Account option (empty: the key’s own). Pick the account the order belongs to, or cancel by Order ID.',
					itemIndex,
				},
			),
			'rejected',
		);
	return { orderId: String(order.orderId) };
}

/**
 * Cancels one order (DELETE /api/v1/spot/order), settled by the write engine. Answered: placed
 * (cancelled) or rejected. An order already filled or cancelled is an item saying so (or an error
 * with Fail If Order Not Open). An unknown outcome (no answer, 5xx, -1147) is settled by looking the
 * order up; when the lookup proves the cancel was not applied and the order is still open, the
 * cancel is sent once more. A re-run of the node (Retry On Fail, a retried execution) answers a
 * cancel it already made from the write ledger, and looks up one it left unknown.
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
	const writes = writeRun(run);
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
