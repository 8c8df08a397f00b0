import type { IDataObject } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { decimalText, integerOf } from './marketReads';

/*
 * Candle time arithmetic for Get Candles. The service returns at most 1000 candles a request and
 * does not say which ones it keeps when a range holds more, so Return All never asks for a range
 * that holds more: it splits it into windows of at most 1000 candle open times.
 */

/** Candle intervals the service offers (UAE documentation), with their length where it is fixed. */
export const KLINE_INTERVALS: ReadonlyArray<{ value: string; name: string; ms?: number }> = [
	{ value: '1m', name: '1 Minute', ms: 60_000 },
	{ value: '3m', name: '3 Minutes', ms: 180_000 },
	{ value: '5m', name: '5 Minutes', ms: 300_000 },
	{ value: '15m', name: '15 Minutes', ms: 900_000 },
	{ value: '30m', name: '30 Minutes', ms: 1_800_000 },
	{ value: '1h', name: '1 Hour', ms: 3_600_000 },
	{ value: '2h', name: '2 Hours', ms: 7_200_000 },
	{ value: '4h', name: '4 Hours', ms: 14_400_000 },
	{ value: '6h', name: '6 Hours', ms: 21_600_000 },
	{ value: '8h', name: '8 Hours', ms: 28_800_000 },
	{ value: '12h', name: '12 Hours', ms: 43_200_000 },
	{ value: '1d', name: '1 Day', ms: 86_400_000 },
	{ value: '1w', name: '1 Week', ms: 604_800_000 },
	{ value: '1M', name: '1 Month' },
];

/** Both ends inclusive, in ms. */
export interface TimeWindow {
	startTime: number;
	endTime: number;
}

/** The length of an interval in ms, or undefined for 1M (a calendar month, of varying length). */
export function intervalMs(interval: string): number | undefined {
	return KLINE_INTERVALS.find((known) => known.value === interval)?.ms;
}

export function isCandleInterval(value: unknown): value is string {
	return typeof value === 'string' && KLINE_INTERVALS.some((known) => known.value === value);
}

function addMonths(start: number, months: number): number {
	const date = new Date(start);
	return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1);
}

/** The first month start (UTC) at or after `ms`. */
function monthCeil(ms: number): number {
	const date = new Date(ms);
	const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
	return start === ms ? start : addMonths(start, 1);
}

/**
 * The last millisecond of the span from `from` that holds exactly `count` candle open times,
 * whatever the candles are aligned to (1M: `count` months from the first month start at or after).
 */
export function spanEnd(interval: string, from: number, count: number): number {
	const length = intervalMs(interval);
	if (length !== undefined) return from + count * length - 1;
	return addMonths(monthCeil(from), count) - 1;
}

/** [startTime, endTime] as consecutive windows of at most `perWindow` candles, earliest first. */
export function candleWindows(
	interval: string,
	startTime: number,
	endTime: number,
	perWindow: number = LIMITS.klinesMax,
): TimeWindow[] {
	const windows: TimeWindow[] = [];
	for (let from = startTime; from <= endTime; ) {
		const last = Math.min(endTime, spanEnd(interval, from, perWindow));
		windows.push({ startTime: from, endTime: last });
		from = last + 1;
	}
	return windows;
}

/** How many windows candleWindows makes, counted without building them (a range too large). */
export function candleWindowCount(
	interval: string,
	startTime: number,
	endTime: number,
	perWindow: number = LIMITS.klinesMax,
): number {
	if (endTime < startTime) return 0;
	const length = intervalMs(interval);
	if (length !== undefined) return Math.ceil((endTime - startTime + 1) / (perWindow * length));
	return candleWindows(interval, startTime, endTime, perWindow).length;
}

/**
 * The last millisecond of the candle opened at `openTime`: the next candle's open time − 1 (the
 * service's answers may give 0 there, as its documentation's examples do).
 */
export function candleCloseTime(interval: string, openTime: number): number {
	const length = intervalMs(interval);
	if (length !== undefined) return openTime + length - 1;
	// A month candle opens at a month start; one that does not closes a calendar month later.
	const next = new Date(openTime);
	next.setUTCMonth(next.getUTCMonth() + 1);
	return next.getTime() - 1;
}

/**
 * A row of the answer ([openTime, open, high, low, close, volume, closeTime, quoteVolume, trades,
 * takerBuyBaseVolume, takerBuyQuoteVolume]) as an item; undefined without an open time.
 */
export function candleItem(
	symbol: string,
	interval: string,
	row: unknown[],
): IDataObject | undefined {
	const openTime = integerOf(row[0]);
	if (openTime === undefined) return undefined;
	const closeTime = integerOf(row[6]);
	return {
		symbol,
		interval,
		openTime,
		closeTime:
			closeTime === undefined || closeTime <= openTime
				? candleCloseTime(interval, openTime)
				: closeTime,
		open: decimalText(row[1]),
		high: decimalText(row[2]),
		low: decimalText(row[3]),
		close: decimalText(row[4]),
		volume: decimalText(row[5]),
		quoteVolume: decimalText(row[7]),
		trades: integerOf(row[8]) ?? 0,
		takerBuyVolume: decimalText(row[9]),
		takerBuyQuoteVolume: decimalText(row[10]),
	};
}

/** Each open time once (the first seen), inside `range` when given, earliest first. */
export function mergeCandles(
	candles: Iterable<IDataObject>,
	range?: { startTime: number; endTime: number },
): IDataObject[] {
	const byOpenTime = new Map<number, IDataObject>();
	for (const candle of candles) {
		const openTime = candle.openTime as number;
		if (range && (openTime < range.startTime || openTime > range.endTime)) continue;
		if (!byOpenTime.has(openTime)) byOpenTime.set(openTime, candle);
	}
	return [...byOpenTime.values()].sort((a, b) => (a.openTime as number) - (b.openTime as number));
}
