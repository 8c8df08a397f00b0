import type { INodeProperties } from 'n8n-workflow';

import { pickerField, type NodeVersion } from '../descriptions/pickers';
import { FUNDING_RATE_PAGING } from './idPages';

/**
 * The page sizes of the futures lists (UAE documentation, "Futures Trading"): the most one request
 * returns. Limit reads as many pages as it needs.
 */
export const FUTURES_PAGE_SIZES = {
	historyFundingRate: FUNDING_RATE_PAGING.pageSize,
	historyFundingFees: 1000,
	orders: 500,
	userTrades: 1000,
} as const;

/** The most Limit takes on every futures list (more: turn on Return All). */
export const FUTURES_MAX_LIMIT = 5000;

/**
 * The Symbol field of a futures read: a contract picker (version 2). `required`: the read names
 * one contract; otherwise empty means every contract, as `emptyMeans` says.
 */
export function contractField(
	version: NodeVersion,
	what: string,
	emptyMeans?: string,
): INodeProperties {
	return pickerField(version, 'contracts', {
		displayName: 'Symbol',
		name: 'symbol',
		type: 'string',
		default: '',
		required: emptyMeans === undefined,
		placeholder: 'e.g. BTCUSDT-PERPETUAL',
		description:
			emptyMeans === undefined
				? `The futures contract ${what}, e.g. BTCUSDT-PERPETUAL`
				: `The futures contract ${what}, e.g. BTCUSDT-PERPETUAL. Leave empty for ${emptyMeans}.`,
	});
}

/**
 * Return All and Limit of a futures list. Limit may be more than one page: the node reads pages
 * until it has Limit entries or the list ends.
 */
export function futuresReturnAllAndLimit(): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: FUTURES_MAX_LIMIT },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { returnAll: [false] } },
		},
	];
}
