import type { Endpoint } from '../transport';

export const TRANSFER_ENDPOINTS = {
	assetTransfer: {
		method: 'POST',
		path: '/api/v1/account/assetTransfer',
		weight: 1,
		// UAE documentation: "no more than once per second".
		minIntervalMs: 1000,
		writes: true,
		// `success: false` is a refusal (transferWrites.ts); anything but a boolean there says nothing.
		answer: {
			is: 'object',
			has: { success: 'boolean' },
			otherwise: 'The service answered the transfer with something other than a transfer result',
		},
	},
} as const satisfies Record<string, Endpoint>;
