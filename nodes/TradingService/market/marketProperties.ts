import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { KLINE_INTERVALS } from './candles';
import { pickerField, type NodeVersion } from '../descriptions/pickers';

/**
 * Parameters the Market operations share. Their descriptions are what an AI agent reads when the
 * node is a tool, so each says what to enter, in what form, and what leaving it empty does.
 */

/** Symbol of one trading pair, required (order book, candles, trades). */
export function requiredSymbolField(version: NodeVersion): INodeProperties {
	return pickerField(version, 'symbols', {
		displayName: 'Symbol',
		name: 'symbol',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. BTCUSDT',
		description:
			'Trading pair, base coin then quote coin in upper case without separator, e.g. BTCUSDT or ETHUSDT',
	});
}

/** Symbol of one trading pair, or empty for all (prices, tickers). */
export function optionalSymbolField(version: NodeVersion, what: string): INodeProperties {
	return pickerField(version, 'symbols', {
		displayName: 'Symbol',
		name: 'symbol',
		type: 'string',
		default: '',
		placeholder: 'e.g. BTCUSDT',
		description: `Trading pair, base coin then quote coin in upper case without separator, e.g. BTCUSDT. Leave empty to get ${what} of every trading pair.`,
	});
}

/** Limit of a list read in one request (recent trades): n8n's usual Limit, up to `max`. */
export function limitField(max: number): INodeProperties {
	return {
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: max },
		default: 50,
		description: 'Max number of results to return',
	};
}

/** Candle intervals, as the service names them (1m is a minute, 1M a calendar month). */
export const INTERVAL_OPTIONS: INodePropertyOptions[] = KLINE_INTERVALS.map((interval) => ({
	name: interval.name,
	value: interval.value,
}));

/** Instrument Type of the 24-hour ticker: the service's `instType`. */
export const INSTRUMENT_TYPE_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Spot', value: 'SPOT', description: 'Spot trading pairs only' },
	{ name: 'Futures', value: 'FUTURES', description: 'Futures contracts only' },
	{ name: 'Any', value: 'ANY', description: 'Spot trading pairs and futures contracts' },
];
