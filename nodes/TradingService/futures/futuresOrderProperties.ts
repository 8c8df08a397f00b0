import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { NodeVersion } from '../descriptions/pickers';
import type { RunContext } from '../run/runContext';
import { contractField } from './contracts';

const TRIGGER_BY = [
	{
		name: 'Last Price',
		value: 'CONTRACT_PRICE',
		description: 'The contract’s last traded price (service default)',
	},
	{ name: 'Mark Price', value: 'MARK_PRICE' },
];

/** The order's own advanced fields, under Options. */
export const futuresOrderOptionList: INodeProperties[] = [
	{
		displayName: 'Client Order ID',
		name: 'clientOrderId',
		type: 'string',
		default: '',
		placeholder: 'e.g. signal-42',
		description:
			'Your ID for the order (letters, digits and . : / _ -, up to 100 characters; up to 97 with take profit or stop loss, whose orders the node names after it, ending -tp and -sl). Put a business key here (e.g. an alert ID): before sending, the node looks the ID up and, if an order holds it (open or not), reports that order and sends nothing. Leave empty to let the node generate one.',
	},
	{
		displayName: 'Leverage',
		name: 'leverage',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 1,
		description:
			'The order’s leverage, a whole number of at least 1; the exchange refuses more than the contract allows. Not set: the contract’s current leverage.',
	},
	{
		displayName: 'Reduce Only',
		name: 'reduceOnly',
		type: 'boolean',
		default: false,
		description: 'Whether the order may only reduce your LONG position, never open or increase one',
	},
	{
		displayName: 'Self-Trade Prevention',
		name: 'stpMode',
		type: 'options',
		default: 'EXPIRE_TAKER',
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
	{
		displayName: 'Stop Loss Limit Price',
		name: 'stopLossLimitPrice',
		type: 'string',
		default: '',
		description: 'Makes the stop loss a LIMIT order at this price. Empty: a MARKET order.',
	},
	{
		displayName: 'Stop Loss Price',
		name: 'stopLossPrice',
		type: 'string',
		default: '',
		placeholder: 'e.g. 58000',
		description:
			'Places a stop loss when the order fills: a reduce-only SELL of the filled quantity, triggered at or below this price. Opening BUY orders only; below the order’s price.',
	},
	{
		displayName: 'Stop Loss Trigger By',
		name: 'stopLossTriggerBy',
		type: 'options',
		default: 'CONTRACT_PRICE',
		options: TRIGGER_BY,
		description: 'Which price triggers the stop loss',
	},
	{
		displayName: 'Take Profit Limit Price',
		name: 'takeProfitLimitPrice',
		type: 'string',
		default: '',
		description: 'Makes the take profit a LIMIT order at this price. Empty: a MARKET order.',
	},
	{
		displayName: 'Take Profit Price',
		name: 'takeProfitPrice',
		type: 'string',
		default: '',
		placeholder: 'e.g. 65000',
		description:
			'Places a take profit when the order fills: a reduce-only SELL of the filled quantity, triggered at or above this price. Opening BUY orders only; above the order’s price.',
	},
	{
		displayName: 'Take Profit Trigger By',
		name: 'takeProfitTriggerBy',
		type: 'options',
		default: 'CONTRACT_PRICE',
		options: TRIGGER_BY,
		description: 'Which price triggers the take profit',
	},
	{
		displayName: 'Time In Force',
		name: 'timeInForce',
		type: 'options',
		default: 'GTC',
		options: [
			{ name: 'Good Till Cancelled (GTC)', value: 'GTC' },
			{ name: 'Fill or Kill (FOK)', value: 'FOK' },
			{ name: 'Immediate or Cancel (IOC)', value: 'IOC' },
			{ name: 'Limit Maker', value: 'LIMIT_MAKER' },
		],
		description: 'How long the order stays on the book. MARKET orders are IOC.',
	},
];

const SIDE_AND_TYPE: INodeProperties[] = [
	{
		displayName: 'Side',
		name: 'side',
		type: 'options',
		default: 'BUY',
		options: [
			{ name: 'Buy', value: 'BUY', description: 'Open or increase a LONG position' },
			{
				name: 'Sell',
				value: 'SELL',
				description: 'Reduce the LONG position (only LONG positions are supported)',
			},
		],
	},
	{
		displayName: 'Order Type',
		name: 'orderType',
		type: 'options',
		default: 'LIMIT',
		options: [
			{ name: 'Limit', value: 'LIMIT', description: 'Rests on the book at Price' },
			{
				name: 'Limit Maker',
				value: 'LIMIT_MAKER',
				description: 'A limit order refused if it would trade at once',
			},
			{ name: 'Market', value: 'MARKET', description: 'Trades at once (IOC)' },
			{
				name: 'Stop',
				value: 'STOP',
				description:
					'Placed when the mark price reaches Stop Price: a limit order at Price, or a market order without one',
			},
		],
	},
];

export function createOrderFields(version: NodeVersion): INodeProperties[] {
	return [
		contractField(version, 'to trade'),
		...SIDE_AND_TYPE,
		{
			displayName: 'Quantity In',
			name: 'quantityIn',
			type: 'options',
			default: 'base',
			options: [
				{ name: 'Base Coin', value: 'base', description: 'E.g. 0.01 BTC.' },
				{
					name: 'Quote Coin',
					value: 'quote',
					description:
						'E.g. 100 USDT, turned into a base quantity by the exchange at the mark price.',
				},
			],
		},
		{
			displayName: 'Quantity',
			name: 'quantity',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. 0.01',
			description: 'The order size, in the coin Quantity In names, as a decimal',
		},
		{
			displayName: 'Price',
			name: 'price',
			type: 'string',
			default: '',
			placeholder: 'e.g. 60000.5',
			description:
				'The limit price in the quote coin. Required for Limit and Limit Maker; for Stop, makes it a stop-limit order.',
			displayOptions: { show: { orderType: ['LIMIT', 'LIMIT_MAKER', 'STOP'] } },
		},
		{
			displayName: 'Stop Price',
			name: 'stopPrice',
			type: 'string',

			default: '',
			placeholder: 'e.g. 62000',
			description:
				'The mark price that triggers the order: a BUY when the mark price rises to it, a SELL when it falls to it',
			displayOptions: { show: { orderType: ['STOP'] } },
		},
	];
}

const OPTION_FIELDS: Record<string, string> = {
	leverage: 'leverage',
	reduceOnly: 'reduceOnly',
	timeInForce: 'timeInForce',
	stpMode: 'stpMode',
	clientOrderId: 'clientOrderId',
	takeProfitPrice: 'tpTriggerPrice',
	takeProfitTriggerBy: 'tpTriggerBy',
	takeProfitLimitPrice: 'tpLimitPrice',
	stopLossPrice: 'slTriggerPrice',
	stopLossTriggerBy: 'slTriggerBy',
	stopLossLimitPrice: 'slLimitPrice',
};

export function readCreateOrder(
	run: RunContext,
	itemIndex: number,
	options: IDataObject,
): IDataObject {
	const read = (name: string) => run.parameter(name, itemIndex, '');
	const type = read('orderType');
	const raw: IDataObject = {
		symbol: read('symbol') as string,
		side: read('side') as string,
		type: type as string,
		[read('quantityIn') === 'quote' ? 'quoteQty' : 'baseQty']: read('quantity') as string,
	};
	if (type === 'LIMIT' || type === 'LIMIT_MAKER' || type === 'STOP')
		raw.price = read('price') as string;
	if (type === 'STOP') raw.stopPrice = read('stopPrice') as string;
	for (const [option, field] of Object.entries(OPTION_FIELDS))
		if (options[option] !== undefined && options[option] !== '') raw[field] = options[option];
	return raw;
}

const LABELS: Record<string, string> = {
	symbol: 'Symbol',
	side: 'Side',
	type: 'Order Type',
	baseQty: 'Quantity',
	quoteQty: 'Quantity',
	price: 'Price',
	stopPrice: 'Stop Price',
	leverage: 'Leverage',
	reduceOnly: 'Reduce Only',
	timeInForce: 'Time In Force',
	stpMode: 'Self-Trade Prevention',
	clientOrderId: 'Client Order ID',
	tpTriggerPrice: 'Take Profit Price',
	tpTriggerBy: 'Take Profit Trigger By',
	tpLimitPrice: 'Take Profit Limit Price',
	slTriggerPrice: 'Stop Loss Price',
	slTriggerBy: 'Stop Loss Trigger By',
	slLimitPrice: 'Stop Loss Limit Price',
};

export function futuresParameterLabel(field: string): string {
	return LABELS[field] ?? field;
}
