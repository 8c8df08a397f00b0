import {
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
	type INodePropertyOptions,
} from 'n8n-workflow';

import { LIMITS } from '../constants';
import {
	optionsCollection,
	parallelRequestsOption,
	returnAllAndLimit,
} from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { inputError, limitParameter, returnAllParameter, timestampMs } from '../helpers/validation';
import { requiredSymbol, type RunContext } from '../run/runContext';
import {
	candleItem,
	candleWindowCount,
	candleWindows,
	isCandleInterval,
	KLINE_INTERVALS,
	mergeCandles,
	spanEnd,
	type TimeWindow,
} from './candles';
import { MARKET_ENDPOINTS } from './endpoints';
import { readMarket, requiredSymbolField } from './marketReads';

const INTERVAL_OPTIONS: INodePropertyOptions[] = KLINE_INTERVALS.map((interval) => ({
	name: interval.name,
	value: interval.value,
}));

/** Start Time and End Time: in the main form in version 1, under Options from version 2 on. */
const TIME_FIELDS: INodeProperties[] = [
	{
		displayName: 'Start Time',
		name: 'startTime',
		type: 'dateTime',
		default: '',
		description:
			'Open time of the earliest candle to return: a date and time, in the n8n server’s time zone unless it ends in Z (UTC) or an offset, e.g. 2026-01-01T00:00:00Z. Required with Return All, which then returns every candle up to End Time. Without Return All: the first Limit candles from this time; leave empty for the latest Limit candles.',
	},
	{
		displayName: 'End Time',
		name: 'endTime',
		type: 'dateTime',
		default: '',
		description:
			'Open time of the latest candle to return, in the same form as Start Time, e.g. 2026-01-31T23:00:00Z. Leave empty for now. Must not be before Start Time.',
	},
];

const properties = (version: NodeVersion): INodeProperties[] => [
	requiredSymbolField(version),
	{
		displayName: 'Interval',
		name: 'interval',
		type: 'options',
		default: '1h',
		options: INTERVAL_OPTIONS,
		description:
			'Length of each candle. Values: 1m 3m 5m 15m 30m (minutes), 1h 2h 4h 6h 8h 12h (hours), 1d (day), 1w (week), 1M (calendar month, UTC).',
	},
	...returnAllAndLimit(LIMITS.klinesMax),
	...(version < 2
		? TIME_FIELDS
		: [optionsCollection([...TIME_FIELDS, ...parallelRequestsOption(version, 'item')])]),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions(
		{ show: { resource: ['market'], operation: ['getCandles'] } },
		properties(version),
	);

function optionalTime(
	run: RunContext,
	name: 'startTime' | 'endTime',
	field: string,
	itemIndex: number,
): number | undefined {
	const path = run.version < 2 ? name : `options.${name}`;
	const value = run.parameter(path, itemIndex, '');
	if (value === '' || value === undefined || value === null) return undefined;
	return timestampMs(run.node, field, value, itemIndex);
}

interface CandleRequest {
	symbol: string;
	interval: string;
	/** Return All. */
	windows?: TimeWindow[];
	/** Not Return All: one request. */
	limit?: number;
	startTime?: number;
	endTime?: number;
}

function allCandlesRequest(
	run: RunContext,
	found: { symbol: string; interval: string; startTime?: number; givenEnd?: number },
	itemIndex: number,
): CandleRequest {
	const node = run.node;
	const { symbol, interval, startTime, givenEnd } = found;
	if (startTime === undefined) {
		throw inputError(
			node,
			'Start Time',
			'is required when Return All is on',
			'Set Start Time to the open time of the first candle you want, or turn Return All off to get the latest Limit candles.',
			itemIndex,
		);
	}
	const endTime = givenEnd ?? Date.now();
	if (endTime < startTime) {
		throw inputError(
			node,
			'Start Time',
			`${new Date(startTime).toISOString()} is in the future`,
			'Set Start Time in the past, or set an End Time after it.',
			itemIndex,
		);
	}
	const requests = candleWindowCount(interval, startTime, endTime);
	if (requests > LIMITS.klinesReturnAllRequests) {
		throw inputError(
			node,
			'Start Time',
			`the range holds more than ${LIMITS.klinesReturnAllRequests * LIMITS.klinesMax} candles of ${interval}`,
			`Return All reads at most ${LIMITS.klinesReturnAllRequests * LIMITS.klinesMax} candles (${LIMITS.klinesReturnAllRequests} requests) per item: set a later Start Time or an earlier End Time, or choose a longer Interval.`,
			itemIndex,
		);
	}
	return {
		symbol,
		interval,
		windows: candleWindows(interval, startTime, endTime),
		startTime,
		endTime,
	};
}

function candleRequest(run: RunContext, itemIndex: number): CandleRequest {
	const node = run.node;
	const symbol = requiredSymbol(run, itemIndex);
	const interval = run.parameter('interval', itemIndex, '1h');
	if (!isCandleInterval(interval)) {
		throw inputError(
			node,
			'Interval',
			`"${String(interval)}" is not a candle interval`,
			`Use one of: ${INTERVAL_OPTIONS.map((option) => option.value).join(', ')} (1m is a minute, 1M a month).`,
			itemIndex,
		);
	}
	const returnAll = returnAllParameter(run, itemIndex);
	const startTime = optionalTime(run, 'startTime', 'Start Time', itemIndex);
	const givenEnd = optionalTime(run, 'endTime', 'End Time', itemIndex);
	if (startTime !== undefined && givenEnd !== undefined && givenEnd < startTime) {
		throw inputError(
			node,
			'End Time',
			`${new Date(givenEnd).toISOString()} is before Start Time (${new Date(startTime).toISOString()})`,
			'Set End Time after Start Time, or leave it empty for now.',
			itemIndex,
		);
	}
	if (returnAll)
		return allCandlesRequest(run, { symbol, interval, startTime, givenEnd }, itemIndex);
	const limit = limitParameter(run, itemIndex, LIMITS.klinesMax);
	// From Start Time: the range is cut to the first Limit candles, so that the answer is those
	// whichever candles the service keeps of a longer range.
	const endTime =
		startTime === undefined
			? givenEnd
			: Math.min(givenEnd ?? Number.MAX_SAFE_INTEGER, spanEnd(interval, startTime, limit));
	return { symbol, interval, limit, startTime, endTime };
}

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const request = candleRequest(run, itemIndex);
	const { symbol, interval } = request;
	const read = async (query: Record<string, number | undefined>) => {
		const sent = { symbol, interval, ...query };
		const answer = (await readMarket(run, MARKET_ENDPOINTS.klines, sent, itemIndex)) as unknown[][];
		return answer
			.map((row) => candleItem(symbol, interval, row))
			.filter((candle): candle is IDataObject => candle !== undefined);
	};

	if (request.windows !== undefined) {
		const candles: IDataObject[] = [];
		for (const window of request.windows) {
			// One push per candle: spreading 100,000 candles into push() overflows the call stack.
			for (const candle of await read({ ...window, limit: LIMITS.klinesMax })) candles.push(candle);
		}
		return mergeCandles(candles, {
			startTime: request.startTime as number,
			endTime: request.endTime as number,
		});
	}

	const limit = request.limit as number;
	const candles = await read({
		startTime: request.startTime,
		endTime: request.endTime,
		limit,
	});
	const merged = mergeCandles(candles, {
		startTime: request.startTime ?? 0,
		endTime: request.endTime ?? Number.MAX_SAFE_INTEGER,
	});
	return request.startTime === undefined ? merged.slice(-limit) : merged.slice(0, limit);
}
