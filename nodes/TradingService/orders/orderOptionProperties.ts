import type { INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { optionsCollection } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { clientOrderIdField, selfTradePreventionField } from './orderProperties';

/** Options shared by Create and Create Many, the guardrails among them (checked in orderOptions.ts). */
const orderOptionsList: INodeProperties[] = [
	{
		displayName: 'Allowed Symbols',
		name: 'allowedSymbols',
		type: 'string',
		default: '',
		placeholder: 'e.g. BTCUSDT, ETHUSDT',
		description:
			'Guardrail: the only symbols this node may place orders for, separated by commas. An order for any other symbol is refused before anything is sent. Empty: any symbol.',
	},
	{
		displayName: 'Fit to Symbol Rules',
		name: 'fitToSymbolRules',
		type: 'boolean',
		default: false,
		description:
			'Whether to round price to the tick (buy down, sell up) and quantity down to the step instead of refusing the order. A MARKET order’s Amount is rounded down to its step too. What rounding cannot fix (a quantity that rounds to zero or below the minimum, too small an order value) is still refused; the output item lists what was changed.',
	},
	{
		displayName: 'Generate Client Order ID',
		name: 'generateClientOrderId',
		type: 'boolean',
		default: true,
		description:
			'Whether to give an order without a Client Order ID one derived from the execution, node and item, so that a retry within this execution cannot place it twice. Off: an order whose outcome is unknown is never retried.',
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
			'What to do when the exchange’s symbol rules (tick size, step size, minimums) cannot be read before the order is sent',
	},
	{
		displayName: 'Max Order Amount',
		name: 'maxOrderAmount',
		type: 'string',
		default: '',
		placeholder: 'e.g. 1000',
		description:
			'Guardrail: the most one order may be worth in the quote coin (Price × Quantity, or a MARKET order’s Amount), as a decimal. A larger order is refused before anything is sent; a MARKET order by Quantity is refused too, as its price is unknown until it trades. Empty: no limit; an expression that gives nothing is refused.',
	},
	{
		displayName: 'Max Order Quantity',
		name: 'maxOrderQuantity',
		type: 'string',
		default: '',
		placeholder: 'e.g. 0.5',
		description:
			'Guardrail: the largest Quantity (base coin) one order may have, as a decimal. A larger order is refused before anything is sent; a MARKET order by Amount is refused too, as its quantity is unknown until it trades. Empty: no limit; an expression that gives nothing is refused.',
	},
	{
		displayName: 'Receive Window',
		name: 'recvWindow',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: LIMITS.maxRecvWindowMs },
		// n8n's lint reads defaults as literals: this is LIMITS.defaultRecvWindowMs.
		default: 5000,
		description: 'Overrides the credential’s receive window for these requests',
	},
];

/**
 * The Options of Create and Create Many. Version 2 adds the order's advanced fields, Client Order
 * ID and Self-Trade Prevention; `extra` are the operation's own options.
 */
export function orderOptions(version: NodeVersion, extra: INodeProperties[] = []): INodeProperties {
	const options = [
		...orderOptionsList,
		...(version === 2 ? [clientOrderIdField, selfTradePreventionField] : []),
		...extra,
	];
	return optionsCollection(
		options.sort((a, b) => a.displayName.localeCompare(b.displayName, 'en')),
	);
}
