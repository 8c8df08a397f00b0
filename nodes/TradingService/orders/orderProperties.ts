import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { DEFAULT_STP_MODE } from '../constants';
import { pickerField, type NodeVersion } from '../descriptions/pickers';

/** Your ID for the order: a business key the node looks up before it sends. */
export const clientOrderIdField: INodeProperties = {
	displayName: 'Client Order ID',
	name: 'newClientOrderId',
	type: 'string',
	default: '',
	description:
		'Your ID for the order, up to 255 characters. Put a business key here (e.g. a sheet row ID): before sending, the node looks the ID up and, if an order of the last 89 days holds it, reports that order (already placed) and sends nothing. The exchange itself refuses an ID only while its order is open. Leave empty to let the node generate one per execution.',
};

/** What happens when the order would trade against your own. */
export const selfTradePreventionField: INodeProperties = {
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
};

/**
 * The order fields of Create and Create Many's item mode, version 1. None of the type-dependent
 * fields is required, and each time in force has its own parameter: when Type is an expression n8n
 * cannot tell which apply, so it shows them all. The rules are checked when the node runs.
 */
const orderFieldsV1: INodeProperties[] = [
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
			'Limit price in the quote coin per base coin (e.g. USDT per BTC for BTCUSDT), as a decimal string. Required for LIMIT and LIMIT_MAKER; not used by MARKET.',
		displayOptions: { show: { type: ['LIMIT', 'LIMIT_MAKER'] } },
	},
	{
		displayName: 'Quantity',
		name: 'quantity',
		type: 'string',
		default: '',
		placeholder: 'e.g. 0.01',
		description:
			'Order size in the base coin (e.g. BTC for BTCUSDT), as a decimal string. Required for LIMIT and LIMIT_MAKER; MARKET orders take Quantity or Amount.',
	},
	{
		displayName: 'Amount',
		name: 'amount',
		type: 'string',
		default: '',
		placeholder: 'e.g. 100',
		description:
			'Cash amount in the quote coin (e.g. USDT for BTCUSDT), as a decimal string: MARKET orders only, instead of Quantity',
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
	clientOrderIdField,
	selfTradePreventionField,
];

const [, sideField, typeField, priceField, quantityFieldV1, amountFieldV1] = orderFieldsV1;

/**
 * Version 2's order fields: the symbol from a picker, and only what the chosen type takes (a MARKET
 * order asks whether it is by Quantity or by Amount, on either side). Time In Force is asked of a
 * LIMIT order only: the unified endpoint gives LIMIT_MAKER GTC and MARKET IOC, nothing else.
 */
const orderFieldsV2: INodeProperties[] = [
	pickerField(2, 'symbols', orderFieldsV1[0], {
		description: 'The trading pair to trade, e.g. BTCUSDT',
	}),
	sideField,
	typeField,
	{
		...priceField,
		description:
			'The limit price, in the quote coin per base coin (e.g. USDT per BTC for BTCUSDT), as a decimal',
	},
	{
		displayName: 'Time In Force',
		name: 'timeInForce',
		type: 'options',
		default: 'GTC',
		options: [
			{
				name: 'Fill or Kill (FOK)',
				value: 'FOK',
				description: 'Trades in full at once at Price or better, or is cancelled unfilled',
			},
			{
				name: 'Good Till Cancelled (GTC)',
				value: 'GTC',
				description: 'Rests on the book at Price until filled or cancelled',
			},
			{
				name: 'Immediate or Cancel (IOC)',
				value: 'IOC',
				description: 'Trades what it can at once at Price or better; the rest is cancelled',
			},
		],
		description: 'How long the limit order stays on the book',
		displayOptions: { show: { type: ['LIMIT'] } },
	},
	{
		displayName: 'Order By',
		name: 'marketOrderBy',
		type: 'options',
		default: 'quantity',
		options: [
			{
				name: 'Quantity',
				value: 'quantity',
				description: 'A quantity of the base coin, e.g. 0.01 BTC of BTCUSDT',
			},
			{
				name: 'Amount',
				value: 'amount',
				description:
					'An amount of the quote coin, e.g. 100 USDT of BTCUSDT: what a buy spends or a sell brings in',
			},
		],
		description: 'Whether this market order is sized by quantity or by amount',
		displayOptions: { show: { type: ['MARKET'] } },
	},
	{
		...quantityFieldV1,
		description: 'How much to buy or sell, in the base coin (e.g. BTC for BTCUSDT), as a decimal',
		displayOptions: { hide: { marketOrderBy: ['amount'] } },
	},
	{
		...amountFieldV1,
		description:
			'The order’s value in the quote coin (e.g. USDT for BTCUSDT), as a decimal: what a buy spends, or what a sell brings in',
		displayOptions: { show: { type: ['MARKET'], marketOrderBy: ['amount'] } },
	},
];

export function orderFields(version: NodeVersion): INodeProperties[] {
	return version === 1 ? orderFieldsV1 : orderFieldsV2;
}

/** Where a node version keeps the Client Order ID: a field of its own (1), or under Options (2). */
export function clientOrderIdParameter(version: NodeVersion): string {
	return version === 1 ? 'newClientOrderId' : 'options.newClientOrderId';
}

/**
 * Reads the order fields of one item from the node parameters. Every field is read whatever the
 * type, so a value the type does not take is refused by `validateOrder`, never dropped.
 */
export function readOrderParameters(
	getParameter: (name: string, fallback: unknown) => unknown,
	version: NodeVersion,
): IDataObject {
	const type = getParameter('type', 'LIMIT');
	const market = type === 'MARKET';
	const fixedTimeInForce = market ? 'IOC' : 'GTC'; // version 2 asks a LIMIT order only
	const text = (name: string, fallback = '') => getParameter(name, fallback) as string;
	return {
		symbol: text('symbol'),
		side: text('side'),
		type: type as string,
		timeInForce:
			version === 1
				? text(market ? 'timeInForceMarket' : 'timeInForceLimit')
				: type === 'LIMIT'
					? text('timeInForce', 'GTC')
					: fixedTimeInForce,
		price: text('price'),
		// Both are read whatever Order By says: a value the order does not take is refused, not dropped.
		quantity: text('quantity'),
		amount: text('amount'),
		newClientOrderId: text(clientOrderIdParameter(version)),
		stpMode: text(version === 2 ? 'options.stpMode' : 'stpMode', DEFAULT_STP_MODE),
	};
}
