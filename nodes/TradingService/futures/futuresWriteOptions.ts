import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { optionsCollection } from '../descriptions/common';
import { integerInRange, strictBoolean } from '../helpers/validation';
import type { RunContext } from '../run/runContext';

export const futuresTechnicalOptions: INodeProperties[] = [
	{
		displayName: 'Generate Client Order ID',
		name: 'generateClientOrderId',
		type: 'boolean',
		default: true,
		description:
			'Whether to give an order without a Client Order ID one derived from the execution, node and item, so that a retry cannot place it twice. Off: an order whose outcome is unknown is never retried.',
	},
	{
		displayName: 'Receive Window (Milliseconds)',
		name: 'recvWindow',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: LIMITS.maxRecvWindowMs },
		default: 5000,
		description: `How long after it is signed the exchange still accepts a request, in milliseconds (1 to ${LIMITS.maxRecvWindowMs})`,
	},
];

const GUARDRAILS: INodeProperties[] = [
	{
		displayName: 'Allowed Contracts',
		name: 'allowedContracts',
		type: 'string',
		default: '',
		placeholder: 'e.g. BTCUSDT-PERPETUAL, ETHUSDT-PERPETUAL',
		description:
			'The only contracts this node may place orders for, separated by commas. Empty: any contract.',
	},
	{
		displayName: 'Fit to Contract Rules',
		name: 'fitToContractRules',
		type: 'boolean',
		default: false,
		description:
			'Whether to round prices to the contract’s tick size (a BUY’s down, a SELL’s up; take profit down, stop loss up) and the base quantity down to its step size instead of refusing the order. The output item lists what was changed.',
	},
	{
		displayName: "If Contract Rules Can't Be Read",
		name: 'ifContractRulesUnreadable',
		type: 'options',
		default: 'refuse',
		options: [
			{
				name: 'Refuse the Order',
				value: 'refuse',
				description: 'Send nothing and fail with an error that says why',
			},
			{
				name: 'Send Without Checking',
				value: 'send',
				description:
					'Send the order unchecked against the contract rules (the guardrails still apply); the output item says so',
			},
		],
		description:
			'What to do when the contract’s rules (tick size, step size, limits) cannot be read before sending',
	},
	{
		displayName: 'Max Leverage',
		name: 'maxLeverage',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 5,
		description:
			'The highest leverage an order may have. An order that is not reduce-only must then give its Leverage.',
	},
	{
		displayName: 'Max Order Notional',
		name: 'maxOrderNotional',
		type: 'string',
		default: '',
		placeholder: 'e.g. 1000',
		description:
			'The most one order may be worth in the quote coin (e.g. USDT): Price × Quantity for limit orders, Quantity × the mark price for market and stop orders (a stop at its trigger price when higher), a quote quantity as given. Empty: no limit.',
	},
	{
		displayName: 'Max Order Quantity',
		name: 'maxOrderQuantity',
		type: 'string',
		default: '',
		placeholder: 'e.g. 0.5',
		description:
			'The largest quantity one order may have, in the base coin (e.g. BTC). An order by quote quantity is then refused: its base quantity is known only once the exchange values it. Empty: no limit.',
	},
	{
		displayName: 'Reduce Only Required',
		name: 'reduceOnlyRequired',
		type: 'boolean',
		default: false,
		description:
			'Whether this node may only reduce positions: an order that is not reduce-only is refused (for AI agents and kill switches)',
	},
];

/** The Guardrails collection; `only`: the guardrails an operation takes (default all). */
export function futuresGuardrails(only?: string[]): INodeProperties {
	return {
		displayName: 'Guardrails',
		name: 'guardrails',
		type: 'collection',
		placeholder: 'Add Guardrail',
		default: {},
		description:
			'Limits that refuse an order before anything is sent, and how it is fitted to the contract’s rules',
		options: GUARDRAILS.filter((one) => only === undefined || only.includes(one.name)),
	};
}

export function futuresOptions(options: INodeProperties[]): INodeProperties {
	return optionsCollection(
		[...options].sort((a, b) => a.displayName.localeCompare(b.displayName, 'en')),
	);
}

/** The Options checked: a malformed one refuses every order. */
export function checkFuturesOptions(
	run: RunContext,
	options: IDataObject,
	itemIndex: number,
): IDataObject {
	if ('generateClientOrderId' in options)
		strictBoolean(run.node, 'Generate Client Order ID', options.generateClientOrderId, itemIndex);
	if ('failOnRejected' in options)
		strictBoolean(run.node, 'Fail on Any Rejected Order', options.failOnRejected, itemIndex);
	if (options.recvWindow !== undefined)
		integerInRange(
			run.node,
			'Receive Window',
			options.recvWindow,
			1,
			LIMITS.maxRecvWindowMs,
			itemIndex,
		);
	return options;
}
