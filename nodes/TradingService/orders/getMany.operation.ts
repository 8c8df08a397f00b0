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
import { ENDPOINTS } from '../transport';
import type { RunContext } from '../run/runContext';
import { everyOrder } from './orderPages';
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

interface GetManyOptions {
	side?: string;
	account?: unknown;
	allAccounts?: unknown;
	startTime?: unknown;
	endTime?: unknown;
}

/** Account type of a spot trading account, the main one's and a sub account's alike (spec §2.3). */
const SPOT_TRADING_ACCOUNT_TYPE = 1;

/** Past orders only: the Start and End options as the query's time range, checked. */
function pastRange(run: RunContext, options: GetManyOptions, itemIndex: number): IDataObject {
	const node = run.node;
	const time = (label: string, value: unknown) =>
		value === undefined || value === '' ? undefined : timestampMs(node, label, value, itemIndex);
	const start = time('Start', options.startTime);
	const end = time('End', options.endTime);
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
	return {
		...(start === undefined ? {} : { startTime: start }),
		...(end === undefined ? {} : { endTime: end }),
	};
}

/** The query of one item (symbol, side, time range), and whether it lists every trading account. */
function readQuery(
	run: RunContext,
	state: 'open' | 'past',
	symbol: string | undefined,
	itemIndex: number,
): { query: IDataObject; allAccounts: boolean } {
	const node = run.node;
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
	if (state === 'open' && (options.startTime || options.endTime)) {
		throw inputError(
			node,
			options.startTime ? 'Start' : 'End',
			'applies to past orders only',
			'Set Order State to Past, or remove the option.',
			itemIndex,
		);
	}
	return {
		query: {
			...(symbol === undefined ? {} : { symbol }),
			...(side === 'BOTH' ? {} : { side }),
			...(state === 'past' ? pastRange(run, options, itemIndex) : {}),
		},
		allAccounts,
	};
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
	const { query, allAccounts } = readQuery(run, state, symbol, itemIndex);
	const endpoint = state === 'open' ? ENDPOINTS.openOrders : ENDPOINTS.tradeOrders;
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
