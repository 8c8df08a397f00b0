import type { IDataObject, INode } from 'n8n-workflow';

import { ERROR_CODES, LIMITS } from '../constants';
import { inScope, type AccountScope } from '../helpers/accountScope';
import { inputError } from '../helpers/validation';
import { ENDPOINTS, isServiceRejection, toNodeError, type ServiceClient } from '../transport';

/**
 * Order IDs and client order IDs given to Get, Cancel and Cancel Many, checked before any request.
 * Order IDs are 64-bit numbers: they stay strings, and a JS number that may have lost digits is
 * refused rather than sent wrong.
 */

const ORDER_ID = /^\d{1,20}$/;
const CLIENT_ORDER_ID = /^[\x21-\x7e]+$/;

/** One order, by the exchange's ID or by the client order ID it was placed with. */
export type OrderReference = { orderId: string } | { clientOrderId: string };

function orderIdText(value: unknown): unknown {
	if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value);
	return typeof value === 'string' ? value.trim() : value;
}

export function orderId(node: INode, field: string, value: unknown, itemIndex?: number): string {
	const text = orderIdText(value);
	if (typeof text !== 'string' || !ORDER_ID.test(text)) {
		const lostDigits = typeof value === 'number' && !Number.isSafeInteger(value);
		throw inputError(
			node,
			field,
			lostDigits
				? `${String(value)} is a number too large to be exact`
				: `${JSON.stringify(value) ?? 'nothing'} is not an order ID`,
			lostDigits
				? 'Order IDs have up to 20 digits, more than a JS number keeps: pass the ID as text, e.g. {{ String($json.orderId) }} where the service gave it as text.'
				: 'An order ID is the numeric ID the service gave the order, e.g. 1470000000000000123 (the orderId field of an order).',
			itemIndex,
		);
	}
	return text;
}

/**
 * The order named by Order ID or Client Order ID: exactly one of them must be given.
 */
export function orderReference(
	node: INode,
	rawOrderId: unknown,
	rawClientOrderId: unknown,
	itemIndex?: number,
): OrderReference {
	const refuse = (field: string, problem: string, fix: string) =>
		inputError(node, field, problem, fix, itemIndex);
	const hasOrderId = rawOrderId !== undefined && rawOrderId !== null && rawOrderId !== '';
	const hasClientOrderId =
		rawClientOrderId !== undefined && rawClientOrderId !== null && rawClientOrderId !== '';
	if (hasOrderId && hasClientOrderId) {
		throw refuse(
			'Order ID',
			'and Client Order ID are both set',
			'Give the order by Order ID or by Client Order ID, not both: clear one of them.',
		);
	}
	if (!hasOrderId && !hasClientOrderId) {
		throw refuse(
			'Order ID',
			'is empty, and so is Client Order ID',
			'Give the order’s Order ID (the orderId field of an order), or the Client Order ID it was placed with.',
		);
	}
	if (hasOrderId) return { orderId: orderId(node, 'Order ID', rawOrderId, itemIndex) };
	if (
		typeof rawClientOrderId !== 'string' ||
		rawClientOrderId.length > LIMITS.clientOrderIdLength ||
		!CLIENT_ORDER_ID.test(rawClientOrderId)
	) {
		throw refuse(
			'Client Order ID',
			typeof rawClientOrderId === 'string' && rawClientOrderId.length > LIMITS.clientOrderIdLength
				? `is ${rawClientOrderId.length} characters long`
				: `${JSON.stringify(rawClientOrderId)} is not a client order ID`,
			`Use the client order ID the order was placed with: 1 to ${LIMITS.clientOrderIdLength} printable characters without spaces.`,
		);
	}
	return { clientOrderId: rawClientOrderId };
}

/** How the user named the order, for messages: "order 123", "the order with client order ID abc". */
export function describeReference(reference: OrderReference): string {
	return 'orderId' in reference
		? `order ${reference.orderId}`
		: `the order with client order ID ${reference.clientOrderId}`;
}

/**
 * A list of order IDs: an array (from an expression), or text with the IDs separated by commas,
 * spaces or new lines. Repeated IDs are kept once, in their first place.
 */
export function orderIdList(
	node: INode,
	field: string,
	value: unknown,
	itemIndex?: number,
): string[] {
	const parts: unknown[] = Array.isArray(value)
		? value
		: typeof value === 'string'
			? value.split(/[\s,]+/).filter((part) => part !== '')
			: [value];
	if (parts.length === 0) {
		throw inputError(
			node,
			field,
			'is empty',
			'List the order IDs to cancel, separated by commas, e.g. 1470000000000000123, 1470000000000000124.',
			itemIndex,
		);
	}
	const ids = parts.map((part) => orderId(node, field, part, itemIndex));
	return [...new Set(ids)];
}

/** The reference as the query-order endpoint takes it (GET /api/v1/spot/order). */
export function lookupQuery(
	reference: OrderReference,
): { orderId: string } | { origClientOrderId: string } {
	return 'orderId' in reference
		? { orderId: reference.orderId }
		: { origClientOrderId: reference.clientOrderId };
}

/** What finding an order needs of the run: the node, the client, and the account of each item. */
interface OrderFinder {
	readonly node: INode;
	readonly client: ServiceClient;
	account(itemIndex: number): Promise<AccountScope>;
}

/**
 * The order a reference names (GET /api/v1/spot/order); undefined when the service has none. An
 * order ID names one order of the whole exchange; a client order ID is unique per account only, so
 * it is looked up in the item's account (helpers/accountScope.ts): a master key's sub account may
 * hold an order under the same client order ID, and that one is not the order meant. Any other
 * failure is thrown as a node error. `urgent`: a lookup that settles a write whose outcome is
 * unknown goes before the key's waiting reads (transport/endpoints.ts).
 */
export async function findOrder(
	run: OrderFinder,
	reference: OrderReference,
	itemIndex: number,
	urgent = false,
): Promise<IDataObject | undefined> {
	const scope = 'orderId' in reference ? undefined : await run.account(itemIndex);
	try {
		const order = (await run.client.request(ENDPOINTS.queryOrder, {
			qs: { ...lookupQuery(reference), ...(scope ? { accountId: scope.accountId } : {}) },
			itemIndex,
			...(urgent ? { urgent } : {}),
		})) as IDataObject;
		return scope === undefined || inScope(scope, order) ? order : undefined;
	} catch (error) {
		if (isServiceRejection(error, ERROR_CODES.orderNotFound)) return undefined;
		throw toNodeError(run.node, error);
	}
}
