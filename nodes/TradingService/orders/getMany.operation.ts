import {
	NodeApiError,
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
	type JsonObject,
} from 'n8n-workflow';

import { DAY_MS, LIMITS } from '../constants';
import {
	accountOption,
	optionsCollection,
	parallelRequestsOption,
	returnAllAndLimit,
	sideFilter,
} from '../descriptions/common';
import { locatorValue } from '../helpers/locator';
import {
	inputError,
	integerInRange,
	oneOf,
	strictBoolean,
	timestampMs,
} from '../helpers/validation';
import { ENDPOINTS, type Endpoint } from '../transport';
import type { RunContext } from '../run/runContext';
import { optionalSymbol } from '../run/symbolParameter';
import { pickerField, type NodeVersion } from '../descriptions/pickers';

const properties = (version: NodeVersion): INodeProperties[] => [
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
	pickerField(version, 'symbols', {
		displayName: 'Symbol',
		name: 'symbol',
		type: 'string',
		default: '',
		placeholder: 'e.g. BTCUSDT',
		description:
			'Only orders of this trading pair (upper case, no separator). Leave empty for all symbols.',
	}),
	...returnAllAndLimit(LIMITS.ordersPageSize),
	optionsCollection([
		...parallelRequestsOption(version, 'item'),
		...accountOption(version, 'whose orders to list'),
		...(version < 2
			? []
			: [
					{
						displayName: 'All Trading Accounts',
						name: 'allAccounts',
						type: 'boolean' as const,
						default: false,
						description:
							'Whether to list the orders of every trading account the API key sees: a master key’s sub accounts too, each order with its accountId. Off: only the Account option’s account (empty: the key’s own).',
					},
				]),
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

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions(
		{ show: { resource: ['order'], operation: ['getMany'] } },
		properties(version),
	);

interface GetManyOptions {
	side?: string;
	account?: unknown;
	allAccounts?: unknown;
	startTime?: unknown;
	endTime?: unknown;
}

/** Numeric comparison of two order IDs given as digit strings (64-bit: never as JS numbers). */
function olderThan(id: string, than: string): boolean {
	return BigInt(id) < BigInt(than);
}

/** Account type of a spot trading account, the main one's and a sub account's alike (spec §2.3). */
const SPOT_TRADING_ACCOUNT_TYPE = 1;

/** Where Return All reads its pages: one page of a list (optionally of one account), and the key's trading accounts. */
export interface OrderPages {
	page(qs: { accountId?: string; fromOrderId?: string }): Promise<IDataObject[]>;
	/** The key's trading accounts (type 1: the main one and the sub accounts'), in the service's order. */
	tradingAccounts(): Promise<string[]>;
	/** The error when the service answers a page that would list an order twice. */
	fail(problem: string, detail: IDataObject): Error;
}

/**
 * Every order of a list (open or past orders), as the UAE documentation describes a master key's
 * list: without `accountId` the main trading account's orders come first and the sub accounts'
 * follow only when the main account has fewer than 500 (`mainBelow`), each account's newest first,
 * each account with its own order IDs. A page that mixes accounts cannot be continued from its last
 * ID: that ID is one account's and says nothing about another's (paging by it listed the main
 * account's orders again, or skipped a sub account's). So only the first page is read without
 * `accountId`; a page shorter than 500 holds everything. Otherwise each account is read to its end
 * on its own, by `accountId` and `fromOrderId` (its oldest order so far): the last account the first
 * page reached when that page was full, then the trading accounts the first page may have hidden
 * (it showed one account only, or was full), learned from GET /api/v1/account/type. Orders come
 * out in the service's order, each once; a page that would repeat one stops the node instead.
 */
export async function everyOrder(
	source: OrderPages,
	pageSize: number,
	mainBelow: number,
): Promise<IDataObject[]> {
	const orders: IDataObject[] = [];
	const listed = new Set<string>();
	const accounts: string[] = [];
	const oldest = new Map<string, string>();
	const take = (order: IDataObject) => {
		const id = String(order.orderId);
		const account = order.accountId === undefined ? '' : String(order.accountId);
		// An order is known by its account and its ID: each account numbers its own orders.
		const key = `${account}/${id}`;
		if (listed.has(key))
			throw source.fail(`Order ${id} was listed twice`, { orderId: id, accountId: account });
		listed.add(key);
		orders.push(order);
		if (!accounts.includes(account)) accounts.push(account);
		const before = oldest.get(account);
		if (before === undefined || olderThan(id, before)) oldest.set(account, id);
	};

	const first = await source.page({});
	first.forEach(take);
	if (first.length < mainBelow) return orders;

	// Every account the first page moved past was listed to its end; the last one only when the
	// page was not full.
	const toRead: string[] = first.length >= pageSize ? [accounts[accounts.length - 1]] : [];
	if (accounts.length === 1 || first.length >= pageSize) {
		for (const account of await source.tradingAccounts()) {
			if (!accounts.includes(account)) {
				accounts.push(account);
				toRead.push(account);
			}
		}
	}
	for (const account of toRead) {
		for (;;) {
			const from = oldest.get(account);
			const qs = {
				...(account === '' ? {} : { accountId: account }),
				...(from === undefined ? {} : { fromOrderId: from }),
			};
			const received = await source.page(qs);
			for (const order of received) {
				const id = String(order.orderId);
				if (order.accountId !== undefined && account !== '' && String(order.accountId) !== account)
					throw source.fail(
						`Order ${id} of account ${String(order.accountId)} came in a page of account ${account}`,
						{
							orderId: id,
							accountId: account,
						},
					);
				if (from !== undefined && !olderThan(id, from))
					throw source.fail(`Order ${id} came after asking for orders older than ${from}`, {
						orderId: id,
						fromOrderId: from,
					});
				take(order);
			}
			if (received.length < pageSize) break;
		}
	}
	return orders;
}

/**
 * Open orders (GET /api/v1/spot/openOrders) or past orders (GET /api/v1/spot/tradeOrders), in the
 * service's order (each account newest first). With a Limit: one request. Return All: everyOrder.
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
	const symbol = optionalSymbol(run, itemIndex);
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

	// Version 2 lists one account unless asked for all; version 1 lists every account the key sees.
	const allAccounts =
		run.version < 2 ||
		(options.allAccounts !== undefined &&
			strictBoolean(node, 'All Trading Accounts', options.allAccounts, itemIndex));
	if (allAccounts && run.version >= 2 && locatorValue(options.account ?? '') !== '')
		throw inputError(
			node,
			'Account',
			'is set while All Trading Accounts is on',
			'Remove the Account option to list every account, or turn All Trading Accounts off.',
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
	const account = allAccounts ? undefined : (await run.account(itemIndex)).accountId;
	if (account !== undefined) query.accountId = account;
	if (limit !== undefined) return await page(run, endpoint, { ...query, limit }, itemIndex);

	return await everyOrder(
		{
			// One account: every page names it, and it is the only account to read to its end.
			page: async (paging) =>
				await page(
					run,
					endpoint,
					{
						...query,
						...paging,
						...(account === undefined ? {} : { accountId: account }),
						limit: LIMITS.ordersPageSize,
					},
					itemIndex,
				),
			tradingAccounts: async () => {
				if (account !== undefined) return [account];
				const accounts = (await run.client.request(ENDPOINTS.accountTypes, {
					itemIndex,
				})) as IDataObject[];
				return accounts
					.filter((account) => Number(account.accountType) === SPOT_TRADING_ACCOUNT_TYPE)
					.map((account) => String(account.accountId));
			},
			fail: (problem, detail) =>
				new NodeApiError(node, detail as JsonObject, {
					message: 'The service answered a page of orders that would list an order twice',
					description: `${problem}; the node stopped rather than list orders twice or skip some. Try again, or use a Limit.`,
					itemIndex,
				}),
		},
		LIMITS.ordersPageSize,
		LIMITS.openOrdersMainAccountPage,
	);
}

async function page(
	run: RunContext,
	endpoint: Endpoint,
	qs: IDataObject,
	itemIndex: number,
): Promise<IDataObject[]> {
	return (await run.client.request(endpoint, { qs, itemIndex })) as IDataObject[];
}
