import {
	NodeApiError,
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
	type JsonObject,
} from 'n8n-workflow';

import { DAY_MS, LIMITS } from '../../constants';
import { optionsCollection, returnAllAndLimit, sideFilter } from '../../descriptions/common';
import {
	inputError,
	integerInRange,
	oneOf,
	symbol as symbolValue,
	timestampMs,
} from '../../helpers/validation';
import { ENDPOINTS, type Endpoint } from '../../transport';
import type { RunContext } from '../runContext';

const properties: INodeProperties[] = [
	{
		displayName: 'Order State',
		name: 'orderState',
		type: 'options',
		default: 'open',
		options: [
			{
				name: 'Open',
				value: 'open',
				description: 'Orders still on the book: new or partially filled',
			},
			{
				name: 'Past',
				value: 'past',
				description: 'Filled and cancelled orders of the last 90 days',
			},
		],
		description: 'Whether to list the open orders or the past (filled or cancelled) orders',
	},
	{
		displayName: 'Symbol',
		name: 'symbol',
		type: 'string',
		default: '',
		placeholder: 'e.g. BTCUSDT',
		description:
			'Only orders of this trading pair (upper case, no separator). Leave empty for all symbols.',
	},
	...returnAllAndLimit(LIMITS.ordersPageSize),
	optionsCollection([
		sideFilter('Only buy orders or only sell orders'),
		{
			displayName: 'Start',
			name: 'startTime',
			type: 'dateTime',
			default: '',
			description: 'Past orders only: earliest creation time (inclusive), at most 90 days ago',
		},
		{
			displayName: 'End',
			name: 'endTime',
			type: 'dateTime',
			default: '',
			description: 'Past orders only: latest creation time (inclusive)',
		},
	]),
];

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['getMany'] } },
	properties,
);

interface GetManyOptions {
	side?: string;
	startTime?: unknown;
	endTime?: unknown;
}

/** Numeric comparison of two order IDs given as digit strings (64-bit: never as JS numbers). */
function olderThan(id: string, than: string): boolean {
	return BigInt(id) < BigInt(than);
}

/**
 * Open orders (GET /api/v1/spot/openOrders) or past orders (GET /api/v1/spot/tradeOrders), newest
 * first. Return All pages backwards: each next request asks for the orders older than the last one
 * received (fromOrderId, orderId), and a page that does not move back is refused rather than looped on.
 */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const node = run.node;
	const state = oneOf(
		node,
		'Order State',
		run.parameter('orderState', itemIndex, 'open'),
		['open', 'past'] as const,
		itemIndex,
	);
	const rawSymbol = run.parameter('symbol', itemIndex, '');
	const symbol = rawSymbol === '' ? undefined : symbolValue(node, 'Symbol', rawSymbol, itemIndex);
	const returnAll = run.parameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll
		? undefined
		: integerInRange(
				node,
				'Limit',
				run.parameter('limit', itemIndex, 50),
				1,
				LIMITS.ordersPageSize,
				itemIndex,
			);
	const options = run.options(itemIndex, (raw) => raw as GetManyOptions);
	const side = oneOf(
		node,
		'Side',
		options.side ?? 'BOTH',
		['BOTH', 'BUY', 'SELL'] as const,
		itemIndex,
	);

	const query: IDataObject = {};
	if (symbol !== undefined) query.symbol = symbol;
	if (side !== 'BOTH') query.side = side;
	if (state === 'past') {
		const start =
			options.startTime === undefined || options.startTime === ''
				? undefined
				: timestampMs(node, 'Start', options.startTime, itemIndex);
		const end =
			options.endTime === undefined || options.endTime === ''
				? undefined
				: timestampMs(node, 'End', options.endTime, itemIndex);
		if (start !== undefined && end !== undefined && start > end) {
			throw inputError(node, 'Start', 'is after End', 'Pick a Start before End.', itemIndex);
		}
		if (start !== undefined && start < Date.now() - LIMITS.pastOrdersDays * DAY_MS) {
			throw inputError(
				node,
				'Start',
				`is more than ${LIMITS.pastOrdersDays} days ago`,
				`The service keeps past orders for ${LIMITS.pastOrdersDays} days: pick a later Start.`,
				itemIndex,
			);
		}
		if (start !== undefined) query.startTime = start;
		if (end !== undefined) query.endTime = end;
	} else if (options.startTime || options.endTime) {
		throw inputError(
			node,
			options.startTime ? 'Start' : 'End',
			'applies to past orders only',
			'Set Order State to Past, or remove the option.',
			itemIndex,
		);
	}

	const endpoint = state === 'open' ? ENDPOINTS.openOrders : ENDPOINTS.tradeOrders;
	// The parameter that asks for orders older than a given ID differs between the two endpoints.
	const olderParameter = state === 'open' ? 'fromOrderId' : 'orderId';
	if (limit !== undefined) return await page(run, endpoint, { ...query, limit }, itemIndex);

	// Past orders come from all the key's accounts, merged: a short page is the last. Open orders
	// of a master key come from the main account and, only when it gave fewer than 500, from the sub
	// account after them (the family's rule): a page is the last only when shorter than that.
	const lastPageBelow = state === 'open' ? LIMITS.openOrdersMainAccountPage : LIMITS.ordersPageSize;
	const orders: IDataObject[] = [];
	let before: string | undefined;
	for (;;) {
		const qs: IDataObject = {
			...query,
			...(before === undefined ? {} : { [olderParameter]: before }),
			limit: LIMITS.ordersPageSize,
		};
		const received = await page(run, endpoint, qs, itemIndex);
		for (const order of received) {
			const id = String(order.orderId);
			if (before !== undefined && !olderThan(id, before)) {
				throw new NodeApiError(node, { orderId: id, before } as JsonObject, {
					message: 'The service answered a page of orders that is not older than the one before',
					description: `Order ${id} came after asking for orders older than ${before}; the node stopped rather than list orders twice. Try again, or use a Limit.`,
					itemIndex,
				});
			}
			orders.push(order);
		}
		if (received.length < lastPageBelow) return orders;
		before = String(received[received.length - 1].orderId);
	}
}

async function page(
	run: RunContext,
	endpoint: Endpoint,
	qs: IDataObject,
	itemIndex: number,
): Promise<IDataObject[]> {
	return (await run.client.request(endpoint, { qs, itemIndex })) as IDataObject[];
}
