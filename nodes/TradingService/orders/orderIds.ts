import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

import { ERROR_CODES, LIMITS } from '../constants';
import { inScope, type AccountScope } from '../helpers/accountScope';
import { pickerField, type NodeVersion } from '../descriptions/pickers';
import { inputError, oneOf } from '../helpers/validation';
import { isServiceRejection, toNodeError, type ServiceClient } from '../transport';
import type { RunContext } from '../run/runContext';
import { ORDER_ENDPOINTS } from './endpoints';

// How Get and Cancel name an order, and the order IDs and client order IDs given to Get, Cancel and
// Cancel Many, checked before any request. Order IDs are 64-bit numbers: they stay strings, and a
// JS number that may have lost digits is refused rather than sent wrong.

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

/** The order named by Order ID or Client Order ID: exactly one of them must be given. */
export function orderReference(
	node: INode,
	rawOrderId: unknown,
	rawClientOrderId: unknown,
	itemIndex?: number,
): OrderReference {
	const refuse = (field: string, problem: string, fix: string) =>
		inputError(node, field, problem, fix, itemIndex);
	const given = (value: unknown) => value !== undefined && value !== null && value !== '';
	const [hasOrderId, hasClientOrderId] = [given(rawOrderId), given(rawClientOrderId)];
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
	const tooLong =
		typeof rawClientOrderId === 'string' && rawClientOrderId.length > LIMITS.clientOrderIdLength;
	if (typeof rawClientOrderId !== 'string' || tooLong || !CLIENT_ORDER_ID.test(rawClientOrderId)) {
		throw refuse(
			'Client Order ID',
			tooLong
				? `is ${rawClientOrderId.length} characters long`
				: `${JSON.stringify(rawClientOrderId)} is not a client order ID`,
			`Use the client order ID the order was placed with: 1 to ${LIMITS.clientOrderIdLength} printable characters without spaces.`,
		);
	}
	return { clientOrderId: rawClientOrderId };
}

/**
 * How Get and Cancel name the order. Version 1: Order ID and Client Order ID side by side, exactly
 * one of them given (checked when the node runs, so either may come from an expression or an AI
 * agent). Version 2: Find Order By, then the one field it names, required.
 */
export function orderReferenceFields(version: NodeVersion): INodeProperties[] {
	const [orderId, clientOrderId] = ORDER_REFERENCE_FIELDS;
	if (version === 1) {
		return [
			pickerField(version, 'openOrders', orderId, {
				description:
					'The order, picked from your open orders, or its ID (the orderId field of an order). Give this or Client Order ID, not both.',
			}),
			clientOrderId,
		];
	}
	return [
		FIND_ORDER_BY,
		pickerField(
			version,
			'openOrders',
			{ ...orderId, required: true, displayOptions: { show: { findBy: ['orderId'] } } },
			{
				description:
					'The order: pick it from your open orders, or give its ID (the orderId field of an order)',
			},
		),
		{
			...clientOrderId,
			required: true,
			description:
				'The client order ID the order was placed with (the clientOrderId field of an order)',
			displayOptions: { show: { findBy: ['clientOrderId'] } },
		},
	];
}

const FIND_ORDER_BY: INodeProperties = {
	displayName: 'Find Order By',
	name: 'findBy',
	type: 'options',
	default: 'orderId',
	options: [
		{
			name: 'Order ID',
			value: 'orderId',
			description: 'The ID the exchange gave the order; pick it from your open orders',
		},
		{
			name: 'Client Order ID',
			value: 'clientOrderId',
			description: 'The client order ID the order was placed with (your own ID, e.g. a row ID)',
		},
	],
	description: 'Which of the order’s IDs to find it by',
};

const ORDER_REFERENCE_FIELDS: INodeProperties[] = [
	{
		displayName: 'Order ID',
		name: 'orderId',
		type: 'string',
		default: '',
		placeholder: 'e.g. 1470000000000000123',
		description:
			'The numeric ID the service gave the order (the orderId field of an order, up to 20 digits, as text). Give this or Client Order ID, not both.',
	},
	{
		displayName: 'Client Order ID',
		name: 'clientOrderId',
		type: 'string',
		default: '',
		placeholder: 'e.g. row-42',
		description:
			'The client order ID the order was placed with (the clientOrderId field of an order). Give this or Order ID, not both.',
	},
];

/**
 * The order an item of Get or Cancel names, checked before any request. Version 2 reads only the
 * field Find Order By names: n8n drops the hidden one when it loads the node, and one left in a
 * workflow's JSON would be another order.
 */
export function readOrderReference(run: RunContext, itemIndex: number): OrderReference {
	const node = run.node;
	const read = (name: string, fallback: unknown = '') => run.parameter(name, itemIndex, fallback);
	if (run.version === 1)
		return orderReference(node, read('orderId'), read('clientOrderId'), itemIndex);
	const ways = ['orderId', 'clientOrderId'] as const;
	const findBy = oneOf(node, 'Find Order By', read('findBy', 'orderId'), ways, itemIndex);
	const value = read(findBy);
	if (value === undefined || value === null || value === '') {
		const [field, other, how] =
			findBy === 'orderId'
				? ['Order ID', 'Client Order ID', 'Pick the order from the list, or give its ID']
				: ['Client Order ID', 'Order ID', 'Give the client order ID the order was placed with'];
		throw inputError(
			node,
			field,
			'is empty',
			`${how}. To find the order by its ${other} instead, choose ${other} under Find Order By.`,
			itemIndex,
		);
	}
	return findBy === 'orderId'
		? orderReference(node, value, '', itemIndex)
		: orderReference(node, '', value, itemIndex);
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

export function lookupQuery(
	reference: OrderReference,
): { orderId: string } | { origClientOrderId: string } {
	return 'orderId' in reference
		? { orderId: reference.orderId }
		: { origClientOrderId: reference.clientOrderId };
}

interface OrderFinder {
	readonly node: INode;
	readonly client: ServiceClient;
	account(itemIndex: number): Promise<AccountScope>;
}

/**
 * The order a reference names; undefined when the service has none. A client order ID is unique
 * per account only, so it is looked up in the item's account (docs/safety.md "One account").
 * `urgent`: a lookup that settles an unknown write goes before the key's waiting reads.
 */
export async function findOrder(
	run: OrderFinder,
	reference: OrderReference,
	itemIndex: number,
	urgent = false,
): Promise<IDataObject | undefined> {
	const scope = 'orderId' in reference ? undefined : await run.account(itemIndex);
	try {
		const order = (await run.client.request(ORDER_ENDPOINTS.queryOrder, {
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
