import type { Endpoint } from '../transport';
import { ACCOUNT_TRADE_TEXT_FIELDS } from '../transport/textFields';

/** The account reads (spec §4.1, UAE documentation "Account"): each signed; weights in docs/api.md §4. */
export const ACCOUNT_ENDPOINTS = {
	history: {
		method: 'GET',
		path: '/api/v1/account/balanceFlow',
		weight: 5,
		answer: {
			is: 'list',
			has: { id: 'string', created: 'digits' },
			otherwise:
				'The service answered the history request with something other than a list of records',
		},
	},
	/** Balances of the key's trading account. */
	balances: {
		method: 'GET',
		path: '/api/v1/account',
		weight: 5,
		answer: {
			is: 'object',
			has: { balances: 'objects' },
			otherwise: 'The service answered the balances request without a list of balances',
		},
	},
	/** The key's fills, newest first, with fee and fee coin (UAE documentation). */
	trades: {
		method: 'GET',
		path: '/api/v1/account/trades',
		weight: 5,
		textFields: ACCOUNT_TRADE_TEXT_FIELDS,
		answer: {
			is: 'list',
			has: { id: 'present' },
			otherwise: 'The service answered the trade list with something other than a list of trades',
		},
	},
} as const satisfies Record<string, Endpoint>;
