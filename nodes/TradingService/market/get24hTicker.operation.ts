import {
	NodeOperationError,
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
} from 'n8n-workflow';

import { optionsCollection, parallelRequestsOption } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { oneOf } from '../helpers/validation';
import { optionalSymbol, type RunContext } from '../run/runContext';
import { MARKET_ENDPOINTS } from './endpoints';
import {
	decimalText,
	integerOf,
	optionalSymbolField,
	priceChange,
	priceChangePercent,
	readSymbolEntries,
} from './marketReads';

const INSTRUMENT_TYPES = ['SPOT', 'FUTURES', 'ANY'] as const;

const properties = (version: NodeVersion): INodeProperties[] => [
	optionalSymbolField(version, 'the 24-hour ticker'),
	optionsCollection([
		...parallelRequestsOption(version, 'item'),
		{
			displayName: 'Instrument Type',
			name: 'instrumentType',
			type: 'options',
			default: 'SPOT',
			options: [
				{ name: 'Spot', value: 'SPOT', description: 'Spot trading pairs only' },
				{ name: 'Futures', value: 'FUTURES', description: 'Futures contracts only' },
				{ name: 'Any', value: 'ANY', description: 'Spot trading pairs and futures contracts' },
			],
			description: 'Which instruments to list when Symbol is empty',
		},
	]),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions(
		{ show: { resource: ['market'], operation: ['get24hTicker'] } },
		properties(version),
	);

/** One ticker of the service (`{t, s, c, h, l, o, b, a, v, qv, it}`) as an item. */
function tickerItem(entry: IDataObject): IDataObject {
	const lastPrice = decimalText(entry.c);
	const openPrice = decimalText(entry.o);
	return {
		symbol: String(entry.s ?? ''),
		time: integerOf(entry.t),
		lastPrice,
		openPrice,
		highPrice: decimalText(entry.h),
		lowPrice: decimalText(entry.l),
		bidPrice: decimalText(entry.b),
		askPrice: decimalText(entry.a),
		volume: decimalText(entry.v),
		quoteVolume: decimalText(entry.qv),
		instrumentType: entry.it === undefined ? undefined : String(entry.it),
		// The service gives no change.
		priceChange: priceChange(lastPrice, openPrice),
		priceChangePercent: priceChangePercent(lastPrice, openPrice),
	};
}

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const symbol = optionalSymbol(run, itemIndex);
	const { instrumentType } = run.options(itemIndex, (options) => ({
		instrumentType: oneOf(
			run.node,
			'Instrument Type',
			options.instrumentType ?? 'SPOT',
			INSTRUMENT_TYPES,
			itemIndex,
		),
	}));
	// Items with the same Instrument Type share one request (an expression may set it per item).
	const query = { symbol, instType: instrumentType };
	const found = await readSymbolEntries(run, MARKET_ENDPOINTS.ticker24h, query, itemIndex);
	const tickers = found.map(tickerItem);
	// Also the answer for a symbol missing from an all-symbols answer shared by many items.
	if (symbol !== undefined && tickers.length === 0) {
		throw new NodeOperationError(run.node, `Symbol: the service gave no ticker for ${symbol}`, {
			description:
				'Check the symbol and the Instrument Type: the symbol must be a trading pair of that type, e.g. BTCUSDT for Spot. Leave Symbol empty to list every ticker.',
			itemIndex,
		});
	}
	return tickers;
}
