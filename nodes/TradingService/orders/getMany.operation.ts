import {
	NodeApiError,
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
	type JsonObject,
} from 'n8n-workflow';

import { DAY_MS, LIMITS } from '../constants';
import { isTradingAccount } from '../helpers/accountScope';
import {
	accountOption,
	optionsCollection,
	parallelRequestsOption,
	returnAllAndLimit,
	sideFilter,
} from '../descriptions/common';
import {
	inputError,
	limitParameter,
	returnAllParameter,
	locatorValue,
	oneOf,
	strictBoolean,
	timestampMs,
} from '../helpers/validation';
import { optionalSymbol, type RunContext } from '../run/runContext';
import { pickerField, type NodeVersion } from '../descriptions/pickers';
import { ORDER_ENDPOINTS } from './endpoints';

const allAccountsOption: INodeProperties = {
	displayName: 'All Trading Accounts',
	name: 'allAccounts',
	type: 'boolean',
	default: false,
	description:
		'Whether to list the orders of every trading account the API key sees: a master key’s sub accounts too, each order with its accountId. Off: only the Account option’s account (empty: the key’s own).',
};

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
		...(version < 2 ? [] : [allAccountsOption]),
		sideFilter('Only buy orders or only sell orders'),
		{
			displayName: 'Start',
			name: 'startTime',
			type: 'dateTime',
			default: '',
			description:
				'Past orders only: earliest creation time (inclusive), at most 90 days ago. A time without a time zone is read in the n8n server’s time zone.',
		},
		{
			displayName: 'End',
			name: 'endTime',
			type: 'dateTime',
			default: '',
			description:
				'Past orders only: latest creation time (inclusive). A time without a time zone is read in the n8n server’s time zone.',
		},
	]),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions(
		{ show: { resource: ['order'], operation: ['getMany'] } },
		properties(version),
	);

function pastRange(run: RunContext, options: IDataObject, itemIndex: number): IDataObject {
	const node = run.node;
	const time = (label: string, value: unknown) =>
		value === undefined || value === '' ? undefined : timestampMs(node, label, value, itemIndex);
	const start = time('Start', options.startTime);
	const end = time('End', options.endTime);
	if (start !== undefined && end !== undefined && start > end)
		throw inputError(node, 'Start', 'is after End', 'Pick a Start before End.', itemIndex);
	if (start !== undefined && start < Date.now() - LIMITS.pastOrdersDays * DAY_MS) {
		throw inputError(
			node,
			'Start',
			`is more than ${LIMITS.pastOrdersDays} days ago`,
			`The service keeps past orders for ${LIMITS.pastOrdersDays} days: pick a later Start.`,
			itemIndex,
		);
	}
	return {
		...(start === undefined ? {} : { startTime: start }),
		...(end === undefined ? {} : { endTime: end }),
	};
}

function readQuery(
	run: RunContext,
	state: 'open' | 'past',
	symbol: string | undefined,
	itemIndex: number,
): { query: IDataObject; allAccounts: boolean } {
	const node = run.node;
	const options = run.options(itemIndex, (raw) => raw);
	const sides = ['BOTH', 'BUY', 'SELL'] as const;
	const side = oneOf(node, 'Side', options.side ?? 'BOTH', sides, itemIndex);
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
	if (state === 'open' && (options.startTime || options.endTime))
		throw inputError(
			node,
			options.startTime ? 'Start' : 'End',
			'applies to past orders only',
			'Set Order State to Past, or remove the option.',
			itemIndex,
		);
	return {
		query: {
			...(symbol === undefined ? {} : { symbol }),
			...(side === 'BOTH' ? {} : { side }),
			...(state === 'past' ? pastRange(run, options, itemIndex) : {}),
		},
		allAccounts,
	};
}

/** Open or past orders in the service's order (each account newest first); Return All: everyOrder. */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const node = run.node;
	const orderState = run.parameter('orderState', itemIndex, 'open');
	const state = oneOf(node, 'Order State', orderState, ['open', 'past'] as const, itemIndex);
	const symbol = optionalSymbol(run, itemIndex);
	const returnAll = returnAllParameter(run, itemIndex);
	const limit = returnAll ? undefined : limitParameter(run, itemIndex, LIMITS.ordersPageSize);
	const { query, allAccounts } = readQuery(run, state, symbol, itemIndex);
	const endpoint = state === 'open' ? ORDER_ENDPOINTS.openOrders : ORDER_ENDPOINTS.tradeOrders;
	const account = allAccounts ? undefined : (await run.account(itemIndex)).accountId;
	if (account !== undefined) query.accountId = account;
	const page = async (qs: IDataObject) =>
		(await run.client.request(endpoint, { qs: { ...query, ...qs }, itemIndex })) as IDataObject[];
	if (limit !== undefined) return await page({ limit });
	return await everyOrder(
		{
			// One account: every page names it, and it is the only account to read to its end.
			page: async (paging) =>
				await page({
					...paging,
					...(account === undefined ? {} : { accountId: account }),
					limit: LIMITS.ordersPageSize,
				}),
			tradingAccounts: async () => {
				if (account !== undefined) return [account];
				const accounts = await run.keyAccounts(itemIndex);
				return accounts.filter(isTradingAccount).map((account) => String(account.accountId));
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

/** Numeric comparison of two order IDs given as digit strings (64-bit: never as JS numbers). */
function olderThan(id: string, than: string): boolean {
	return BigInt(id) < BigInt(than);
}

/** Where Return All reads its pages: one page of a list (optionally of one account), and the key's trading accounts. */
interface OrderPages {
	page(qs: { accountId?: string; fromOrderId?: string }): Promise<IDataObject[]>;
	/** The key's trading accounts (type 1: the main one and the sub accounts'), in the service's order. */
	tradingAccounts(): Promise<string[]>;
	/** The error when the service answers a page that would list an order twice. */
	fail(problem: string, detail: IDataObject): Error;
}

/**
 * Every order of a list (open or past orders; docs/operations.md Get Many). Without `accountId` a
 * master key's list gives the main account's orders first and the sub accounts' only when the main
 * has fewer than `mainBelow`, each account numbering its own orders: a page that mixes accounts
 * cannot be continued from its last ID. So only the first page is read without `accountId` (short,
 * it holds everything); else each account is read to its end on its own (`fromOrderId`): the last
 * one the first page reached, then those it may have hidden (GET /api/v1/account/type). A page that
 * would repeat an order stops the node.
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
						{ orderId: id, accountId: account },
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
