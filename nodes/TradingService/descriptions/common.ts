import type { INodeProperties } from 'n8n-workflow';

import type { NodeVersion } from './pickers';

/** The "Options" collection every operation and the trigger put their optional settings in. */
export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options,
	};
}

/**
 * Parallel Requests, in every operation's Options but Transfer's (transfers go one per second),
 * from version 2 on: version 1 keeps its parameters and sends one request after the other.
 * `unit`: what one request carries ("item", "batch of up to 20 orders").
 */
export function parallelRequestsOption(version: NodeVersion, unit: string): INodeProperties[] {
	if (version < 2) return [];
	return [
		{
			displayName: 'Parallel Requests',
			name: 'parallelRequests',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 200, numberPrecision: 0 },
			// n8n's lint reads defaults as literals: this is LIMITS.defaultParallelRequests.
			default: 50,
			description: `How many requests the node keeps in flight at once, one per ${unit}. More is faster when the exchange is far away; 1 sends one after the other. Output items keep their order. Read once per run, from the first item.`,
		},
	];
}

/** An Options collection holding only Parallel Requests (version 2), for operations with no other option. */
export function parallelRequestsOnly(version: NodeVersion): INodeProperties[] {
	return version < 2 ? [] : [optionsCollection(parallelRequestsOption(version, 'item'))];
}

/** Return All and Limit, as every list operation shows them; `maxLimit` is the service's page size. */
export function returnAllAndLimit(maxLimit: number): INodeProperties[] {
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
			typeOptions: { minValue: 1, maxValue: maxLimit },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { returnAll: [false] } },
		},
	];
}

/** A side filter (both, buy or sell) for the operations that list or cancel open orders. */
export function sideFilter(description: string): INodeProperties {
	return {
		displayName: 'Side',
		name: 'side',
		type: 'options',
		default: 'BOTH',
		options: [
			{ name: 'Both', value: 'BOTH' },
			{ name: 'Buy', value: 'BUY' },
			{ name: 'Sell', value: 'SELL' },
		],
		description,
	};
}
