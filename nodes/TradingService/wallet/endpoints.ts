import type { Endpoint } from '../transport';

/** The wallet's decimals and IDs, kept as the text the service sent. */
export const WALLET_TEXT_FIELDS: ReadonlySet<string> = new Set([
	...['depositOrderId', 'id', 'clientOrderId', 'accountId', 'time', 'walletHandleTime'],
	...['quantity', 'arriveQuantity', 'fee', 'minQuantity'],
]);

/**
 * The wallet reads, each signed, read permission, a query (docs/api.md, Wallet): deposit history
 * (hashkeypro-apidoc "Get Deposit History": weight 5), withdrawal records and the deposit address
 * (the family's "Withdrawal records", weight 5, and "Deposit Address", weight 1).
 */
export const WALLET_ENDPOINTS = {
	deposits: {
		method: 'GET',
		path: '/api/v1/account/depositOrders',
		weight: 5,
		textFields: WALLET_TEXT_FIELDS,
		answer: {
			is: 'list',
			has: { depositOrderId: 'present', time: 'digits' },
			otherwise:
				'The service answered the deposit history with something other than a list of deposits',
		},
	},
	withdrawals: {
		method: 'GET',
		path: '/api/v1/account/withdrawOrders',
		weight: 5,
		textFields: WALLET_TEXT_FIELDS,
		answer: {
			is: 'list',
			has: { id: 'present', time: 'digits' },
			otherwise:
				'The service answered the withdrawal records with something other than a list of withdrawals',
		},
	},
	depositAddress: {
		method: 'GET',
		path: '/api/v1/account/deposit/address',
		weight: 1,
		textFields: WALLET_TEXT_FIELDS,
		answer: {
			is: 'object',
			has: { address: 'string' },
			otherwise: 'The service answered the deposit address request without an address',
		},
	},
} as const satisfies Record<string, Endpoint>;
