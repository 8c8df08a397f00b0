import type { INodeProperties } from 'n8n-workflow';

import type { NodeVersion } from '../descriptions/pickers';
import type { Operations } from '../run/node.type';
import * as get24hTicker from './get24hTicker.operation';
import * as getCandles from './getCandles.operation';
import * as getOrderBook from './getOrderBook.operation';
import * as getPrice from './getPrice.operation';
import * as getRecentTrades from './getRecentTrades.operation';
import * as getSymbolRules from './getSymbolRules.operation';

export const operations = {
	get24hTicker: { mode: 'perItem', writes: false, execute: get24hTicker.execute },
	getCandles: { mode: 'perItem', writes: false, execute: getCandles.execute },
	getOrderBook: { mode: 'perItem', writes: false, execute: getOrderBook.execute },
	getPrice: { mode: 'perItem', writes: false, execute: getPrice.execute },
	getRecentTrades: { mode: 'perItem', writes: false, execute: getRecentTrades.execute },
	getSymbolRules: { mode: 'perItem', writes: false, execute: getSymbolRules.execute },
} satisfies Operations;

export function description(version: NodeVersion): INodeProperties[] {
	return [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: ['market'] } },
			options: [
				{
					name: 'Get 24h Ticker',
					value: 'get24hTicker',
					description:
						'Get the last 24 hours of one trading pair or of all: last, open, high and low price, best bid and ask, volume, and the price change and change percent since the open',
					action: 'Get the 24h ticker of a trading pair',
				},
				{
					name: 'Get Candles',
					value: 'getCandles',
					description:
						'Get candles (OHLCV klines) of one trading pair for an interval such as 1h or 1d: one item per candle, earliest first, with open, high, low and close price and volume; Return All reads a whole time range',
					action: 'Get candles of a trading pair',
				},
				{
					name: 'Get Order Book',
					value: 'getOrderBook',
					description:
						'Get the order book of one trading pair: the best bids and asks with their price and quantity, and the best bid and ask price',
					action: 'Get the order book of a trading pair',
				},
				{
					name: 'Get Price',
					value: 'getPrice',
					description:
						'Get the latest trade price of one trading pair, or of every trading pair when Symbol is empty',
					action: 'Get the latest price of a trading pair',
				},
				{
					name: 'Get Recent Trades',
					value: 'getRecentTrades',
					description:
						'Get the latest public trades of one trading pair, oldest first: time, price, quantity and whether the buyer was the maker',
					action: 'Get recent trades of a trading pair',
				},
				{
					name: 'Get Symbol Rules',
					value: 'getSymbolRules',
					description:
						'Get the trading rules of one trading pair or of all: status, tick size, step size, minimum and maximum quantity, minimum notional and order amounts, price bands',
					action: 'Get the trading rules of a trading pair',
				},
			],
			default: 'getPrice',
		},
		...getPrice.description(version),
		...get24hTicker.description(version),
		...getOrderBook.description(version),
		...getCandles.description(version),
		...getRecentTrades.description(version),
		...getSymbolRules.description(version),
	];
}
