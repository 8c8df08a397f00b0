import type { INodeProperties } from 'n8n-workflow';

/** The node's versions: 1 takes symbols, coins and IDs as typed text; 2 offers pickers for them. */
export type NodeVersion = 1 | 2;

interface PickerSpec {
	searchListMethod: string;
	/** What the By ID mode takes. */
	placeholder: string;
	regex: string;
	errorMessage: string;
}

const ACCOUNT_ID = {
	placeholder: 'e.g. 1470000000000000001',
	regex: '^[0-9]{1,20}$',
	errorMessage: 'An account ID is a number of up to 20 digits',
};

/** Each list is served by one list search of methods/listSearch.ts. */
const PICKERS = {
	symbols: {
		searchListMethod: 'searchSymbols',
		placeholder: 'e.g. BTCUSDT',
		regex: '^[A-Z0-9]+$',
		errorMessage: 'A symbol is upper-case letters and digits, without separator, e.g. BTCUSDT',
	},
	contracts: {
		searchListMethod: 'searchContracts',
		placeholder: 'e.g. BTCUSDT-PERPETUAL',
		regex: '^[A-Z0-9]+-PERPETUAL$',
		errorMessage:
			'A futures contract is upper-case letters and digits ending in -PERPETUAL, e.g. BTCUSDT-PERPETUAL',
	},
	coins: {
		searchListMethod: 'searchCoins',
		placeholder: 'e.g. USDT',
		regex: '^[A-Z0-9]+$',
		errorMessage: 'A coin is upper-case letters and digits, e.g. USDT',
	},
	accounts: { searchListMethod: 'searchAccounts', ...ACCOUNT_ID },
	tradingAccounts: { searchListMethod: 'searchTradingAccounts', ...ACCOUNT_ID },
	openOrders: {
		searchListMethod: 'searchOpenOrders',
		placeholder: 'e.g. 1470000000000000123',
		regex: '^[0-9]{1,20}$',
		errorMessage: 'An order ID is a number of up to 20 digits',
	},
} satisfies Record<string, PickerSpec>;

export type PickerList = keyof typeof PICKERS;

/**
 * Typed text in version 1, a picker (From List / By ID) in version 2, under the same name: an
 * operation reads both alike (RunContext.parameter gives the value a picker holds).
 */
export function pickerField(
	version: NodeVersion,
	list: PickerList,
	field: INodeProperties,
	pickerChanges: Partial<INodeProperties> = {},
): INodeProperties {
	if (version === 1) return field;
	const { placeholder: _typedExample, ...rest } = field;
	const spec = PICKERS[list];
	return {
		...rest,
		...pickerChanges,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: spec.searchListMethod, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: spec.placeholder,
				validation: [
					{ type: 'regex', properties: { regex: spec.regex, errorMessage: spec.errorMessage } },
				],
			},
		],
	};
}
