import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { DEFAULT_STP_MODE, LIMITS } from '../constants';
import { optionsCollection } from './common';

/**
 * The order fields as node parameters, for Create and the item mode of Create Many. Price, Amount
 * and Time In Force show only for the types that take them. None of the type-dependent fields is
 * marked required, and each time-in-force has its own parameter: when Type is an expression
 * (mapped per item, or filled by an AI agent) n8n cannot tell which of them apply, so it shows
 * them all. The rules are checked per order when the node runs.
 */
export const orderFields: INodeProperties[] = [
	{
		displayName: 'Symbol',
		name: 'symbol',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. BTCUSDT',
		description: 'Trading pair, upper case without separator',
	},
	{
		displayName: 'Side',
		name: 'side',
		type: 'options',
		default: 'BUY',
		options: [
			{ name: 'Buy', value: 'BUY' },
			{ name: 'Sell', value: 'SELL' },
		],
	},
	{
		displayName: 'Type',
		name: 'type',
		type: 'options',
		default: 'LIMIT',
		options: [
			{
				name: 'Limit',
				value: 'LIMIT',
				description: 'Rests on the book at Price until filled (GTC)',
			},
			{
				name: 'Limit Maker',
				value: 'LIMIT_MAKER',
				description: 'A limit order that is rejected if it would trade at once',
			},
			{
				name: 'Market',
				value: 'MARKET',
				description: 'Trades at once at the best available price (IOC)',
			},
		],
	},
	{
		displayName: 'Price',
		name: 'price',
		type: 'string',
		default: '',
		placeholder: 'e.g. 50000.5',
		description:
			'Limit price in the quote coin, as a decimal string. Required for LIMIT and LIMIT_MAKER; not used by MARKET.',
		displayOptions: { show: { type: ['LIMIT', 'LIMIT_MAKER'] } },
	},
	{
		displayName: 'Quantity',
		name: 'quantity',
		type: 'string',
		default: '',
		placeholder: 'e.g. 0.01',
		description:
			'Order size in the base coin, as a decimal string. Required for LIMIT and LIMIT_MAKER; MARKET orders take Quantity or Amount.',
	},
	{
		displayName: 'Amount',
		name: 'amount',
		type: 'string',
		default: '',
		placeholder: 'e.g. 100',
		description:
			'Cash to spend in the quote coin, as a decimal string: MARKET orders only, instead of Quantity',
		displayOptions: { show: { type: ['MARKET'] } },
	},
	{
		displayName: 'Time In Force',
		name: 'timeInForceLimit',
		type: 'options',
		default: 'GTC',
		options: [{ name: 'Good Till Cancelled (GTC)', value: 'GTC' }],
		description: 'Limit and limit maker orders are good till cancelled',
		displayOptions: { show: { type: ['LIMIT', 'LIMIT_MAKER'] } },
	},
	{
		displayName: 'Time In Force (Market)',
		name: 'timeInForceMarket',
		type: 'options',
		default: 'IOC',
		options: [{ name: 'Immediate or Cancel (IOC)', value: 'IOC' }],
		description: 'Market orders are immediate or cancel',
		displayOptions: { show: { type: ['MARKET'] } },
	},
	{
		displayName: 'Client Order ID',
		name: 'newClientOrderId',
		type: 'string',
		default: '',
		description:
			'Your ID for the order, up to 255 characters. Put a business key here (e.g. a sheet row ID): before sending, the node looks the ID up and, if an order of the last 89 days holds it, reports that order (already placed) and sends nothing. The exchange itself refuses an ID only while its order is open. Leave empty to let the node generate one per execution.',
	},
	{
		displayName: 'Self-Trade Prevention',
		name: 'stpMode',
		type: 'options',
		default: DEFAULT_STP_MODE,
		options: [
			{
				name: 'Expire Taker',
				value: 'EXPIRE_TAKER',
				description: 'Cancel the incoming order (service default)',
			},
			{ name: 'Expire Maker', value: 'EXPIRE_MAKER', description: 'Cancel the resting order' },
		],
		description: 'What happens when the order would trade against your own order',
	},
];

/**
 * Reads the order fields of one item from the node parameters. Every field is read whatever the
 * type, so a value the type does not take is refused by `validateOrder`, never dropped.
 */
export function readOrderParameters(
	getParameter: (name: string, fallback: unknown) => unknown,
): IDataObject {
	const type = getParameter('type', 'LIMIT');
	return {
		symbol: getParameter('symbol', '') as string,
		side: getParameter('side', '') as string,
		type: type as string,
		timeInForce: getParameter(
			type === 'MARKET' ? 'timeInForceMarket' : 'timeInForceLimit',
			'',
		) as string,
		price: getParameter('price', '') as string,
		quantity: getParameter('quantity', '') as string,
		amount: getParameter('amount', '') as string,
		newClientOrderId: getParameter('newClientOrderId', '') as string,
		stpMode: getParameter('stpMode', DEFAULT_STP_MODE) as string,
	};
}

/** Options shared by Create and Create Many, the guardrails among them (helpers/guardrails.ts). */
export const orderOptions: INodeProperties = optionsCollection([
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
		displayName: 'Receive Window (Ms)',
		name: 'recvWindow',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: LIMITS.maxRecvWindowMs },
		// n8n's lint reads defaults as literals: this is LIMITS.defaultRecvWindowMs.
		default: 5000,
		description: 'Overrides the credential’s receive window for these requests',
	},
]);
