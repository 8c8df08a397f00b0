import type { INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { optionsCollection } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { clientOrderIdField, selfTradePreventionField } from './orderProperties';

/**
 * The settings that change or refuse an order (checked in guardrails.ts): among the Options in
 * version 1, in their own Guardrails collection in version 2, under the same names.
 */
const guardrailList: INodeProperties[] = [
	{
		displayName: 'Allowed Symbols',
		name: 'allowedSymbols',
		type: 'string',
		default: '',
		placeholder: 'e.g. BTCUSDT, ETHUSDT',
		description:
			'The only symbols this node may place orders for, separated by commas. An order for any other symbol is refused before anything is sent. Empty: any symbol.',
	},
	{
		displayName: 'Fit to Symbol Rules',
		name: 'fitToSymbolRules',
		type: 'boolean',
		default: false,
		description:
			'Whether to round the price to the symbol’s tick size (a buy down, a sell up) and the quantity down to its step size instead of refusing the order. A market order’s Amount is rounded down to its step too. What rounding cannot fix (a quantity that rounds to zero or below the minimum, an order worth too little) is still refused; the output item lists what was changed.',
	},
	{
		displayName: "If Symbol Rules Can't Be Read",
		name: 'ifSymbolRulesUnreadable',
		type: 'options',
		default: 'refuse',
		options: [
			{
				name: 'Refuse the Order',
				value: 'refuse',
				description:
					'Send nothing and fail with an error that says why the rules could not be read',
			},
			{
				name: 'Send Without Checking',
				value: 'sendUnchecked',
				description:
					'Send the order unchecked (the exchange still refuses what breaks its rules); the output item says it was not checked and why',
			},
		],
		description:
			'What to do when the exchange’s symbol rules (tick size, step size, minimum order) cannot be read before the order is sent',
	},
	{
		displayName: 'Max Order Amount',
		name: 'maxOrderAmount',
		type: 'string',
		default: '',
		placeholder: 'e.g. 1000',
		description:
			'The most one order may be worth, in the quote coin (e.g. USDT for BTCUSDT): Price × Quantity, or a market order’s Amount. A larger order is refused before anything is sent; so is a market order by Quantity, whose price is unknown until it trades. Empty: no limit; an expression that gives nothing is refused.',
	},
	{
		displayName: 'Max Order Quantity',
		name: 'maxOrderQuantity',
		type: 'string',
		default: '',
		placeholder: 'e.g. 0.5',
		description:
			'The largest Quantity one order may have, in the base coin (e.g. BTC for BTCUSDT). A larger order is refused before anything is sent; so is a market order by Amount, whose quantity is unknown until it trades. Empty: no limit; an expression that gives nothing is refused.',
	},
];

const technicalOptionList: INodeProperties[] = [
	{
		displayName: 'Generate Client Order ID',
		name: 'generateClientOrderId',
		type: 'boolean',
		default: true,
		description:
			'Whether to give an order without a Client Order ID one derived from the execution, node and item, so that a retry within this execution cannot place it twice. Off: an order whose outcome is unknown is never retried.',
	},
	{
		displayName: 'Receive Window (Milliseconds)',
		name: 'recvWindow',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: LIMITS.maxRecvWindowMs },
		// n8n's lint reads defaults as literals: this is LIMITS.defaultRecvWindowMs.
		default: 5000,
		description: `How long after it is signed the exchange still accepts a request, in milliseconds (1 to ${LIMITS.maxRecvWindowMs}). Overrides the credential’s receive window for these requests.`,
	},
];

/**
 * Version 2's Options keep the five names, shown only when a node holds one there (a workflow built
 * while they were Options): n8n drops an option its collection does not list, and a limit dropped
 * would let any order through. Kept, it is refused before anything is sent (orderOptions.ts).
 */
const movedGuardrails: INodeProperties[] = guardrailList.map((guardrail) => ({
	...guardrail,
	displayName: `${guardrail.displayName} (Moved to Guardrails)`,
	description: `${guardrail.type === 'boolean' ? 'Whether to fit the order to the symbol’s rules: moved' : 'Moved'} to Guardrails. A node with it here does not run: remove it here and add it again under Guardrails (Add Guardrail), with the same value.`,
	displayOptions: { show: { [guardrail.name]: [{ _cnd: { exists: true } }] } },
}));

const byDisplayName = (a: INodeProperties, b: INodeProperties) =>
	a.displayName.localeCompare(b.displayName, 'en');

/**
 * The Options of Create and Create Many. Version 1 holds the guardrails too; version 2 holds the
 * technical options, the order's advanced fields (Client Order ID, Self-Trade Prevention) and
 * `extra`, the operation's own options.
 */
export function orderOptions(version: NodeVersion, extra: INodeProperties[] = []): INodeProperties {
	const orderFields = [clientOrderIdField, selfTradePreventionField];
	const options =
		version === 1
			? [...guardrailList, ...technicalOptionList, ...extra]
			: [...technicalOptionList, ...orderFields, ...extra, ...movedGuardrails];
	return optionsCollection(options.sort(byDisplayName));
}

/** Version 2's Guardrails: shown after the order fields, before the Options (none in version 1). */
export function orderGuardrails(version: NodeVersion): INodeProperties[] {
	if (version === 1) return [];
	return [
		{
			displayName: 'Guardrails',
			name: 'guardrails',
			type: 'collection',
			placeholder: 'Add Guardrail',
			default: {},
			description:
				'Limits that refuse an order before anything is sent, and how the order is fitted to the symbol’s rules',
			options: [...guardrailList].sort(byDisplayName),
		},
	];
}
