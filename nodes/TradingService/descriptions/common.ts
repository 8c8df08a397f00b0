import type { INodeProperties } from 'n8n-workflow';

import { pickerField, type NodeVersion } from './pickers';

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

/** Version 1 always waits. */
export function waitAfterRateLimitOption(version: NodeVersion): INodeProperties[] {
	if (version < 2) return [];
	return [
		{
			displayName: 'Wait After a Rate Limit',
			name: 'waitAfterRateLimit',
			type: 'boolean',
			default: true,
			description:
				'Whether the run waits when the exchange answers a rate limit (HTTP 429) and then goes on by itself. The exchange suspends the API key for a minute; the node sends nothing with it until then (sending more gets the server’s IP address banned). Off: the run stops at once and reports what was placed and what was not sent. The node keeps to the credential’s request rates, so this happens only when something else uses the key too.',
		},
	];
}

/**
 * Wait After a Rate Limit and Parallel Requests (version 2; version 1 sends one request after the
 * other). `unit`: what one request carries ("item", "batch of up to 20 orders").
 */
export function parallelRequestsOption(version: NodeVersion, unit: string): INodeProperties[] {
	if (version < 2) return [];
	return [
		...waitAfterRateLimitOption(version),
		{
			displayName: 'Parallel Requests',
			name: 'parallelRequests',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 200, numberPrecision: 0 },
			// n8n's lint reads defaults as literals: this is LIMITS.defaultParallelRequests.
			default: 50,
			description: `How many requests the node keeps in flight at once, one per ${unit}. More is faster when the exchange is far away; 1 sends one after the other. Whatever this says, requests leave no faster than the credential’s request rates. Output items keep their order. Read once per run, from the first item.`,
		},
	];
}

/** For operations with no other option. */
export function parallelRequestsOnly(version: NodeVersion): INodeProperties[] {
	return version < 2 ? [] : [optionsCollection(parallelRequestsOption(version, 'item'))];
}

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

/** Which trading account an operation or trigger acts on (helpers/accountScope.ts). */
export function accountOption(version: NodeVersion, what: string): INodeProperties[] {
	if (version < 2) return [];
	return [
		pickerField(version, 'tradingAccounts', {
			displayName: 'Account',
			name: 'account',
			type: 'string',
			default: '',
			description: `Trading account ${what}. Empty: the API key’s own trading account (a master key’s main one). A master key can pick one of its sub accounts.`,
		}),
	];
}
