import type { INodeProperties } from 'n8n-workflow';

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
