/**
 * The market data answers, computed from the walk (market.ts) and hashed sizes, so the same seed and
 * clock give the same answer: order book depth, recent trades, candles and the two tickers. Shapes
 * are the UAE documentation's; every price and size is a decimal string, times are numbers.
 */
import * as D from '../decimal';
import type { MarketSymbol } from './catalogue';
import type { Market } from './market';
import { MINUTE_MS, hashString, unit } from './walk';

const DAY_MS = 86_400_000;
/** 1970-01-05 was a Monday: weekly candles open on Mondays, 00:00 UTC. */
const WEEK_OFFSET_MS = 4 * DAY_MS;
/** Most minutes sampled for a candle's high and low. */
const HIGH_LOW_SAMPLES = 60;
/** Seconds between two of the generated public trades. */
const TRADE_SPACING_MS = 15_000;

/** Candle intervals of the UAE documentation; 1M is a calendar month (UTC). */
export const KLINE_INTERVAL_MS: Readonly<Record<string, number | 'month'>> = {
	'1m': MINUTE_MS,
	'3m': 3 * MINUTE_MS,
	'5m': 5 * MINUTE_MS,
	'15m': 15 * MINUTE_MS,
	'30m': 30 * MINUTE_MS,
	'1h': 60 * MINUTE_MS,
	'2h': 120 * MINUTE_MS,
	'4h': 240 * MINUTE_MS,
	'6h': 360 * MINUTE_MS,
	'8h': 480 * MINUTE_MS,
	'12h': 720 * MINUTE_MS,
	'1d': DAY_MS,
	'1w': 7 * DAY_MS,
	'1M': 'month',
};

const dec = (s: string): D.Dec => D.parseDec(s)!;

/** floor(x / step) steps of `step`, as a decimal (x a double). */
function stepsOf(x: number, step: string, atLeastOne = false): D.Dec {
	let n = Math.floor(x / Number(step));
	if (atLeastOne && n < 1) n = 1;
	return D.mul({ v: BigInt(Math.max(0, n)), s: 0 }, dec(step));
}

/** Open time of the candle holding `t`. */
export function candleOpen(t: number, interval: string): number {
	const len = KLINE_INTERVAL_MS[interval];
	if (len === 'month') {
		const d = new Date(t);
		return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
	}
	const offset = interval === '1w' ? WEEK_OFFSET_MS : 0;
	return Math.floor((t - offset) / len) * len + offset;
}

function previousOpen(open: number, interval: string): number {
	const len = KLINE_INTERVAL_MS[interval];
	if (len !== 'month') return open - len;
	const d = new Date(open);
	return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1);
}

function nextOpen(open: number, interval: string): number {
	const len = KLINE_INTERVAL_MS[interval];
	if (len !== 'month') return open + len;
	const d = new Date(open);
	return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** Base volume traded over `minutes` minutes from minute `from` (hashed around minuteVolume). */
function volumeOf(m: Market, s: MarketSymbol, from: number, minutes: number, salt: number): D.Dec {
	const u = unit(m.config.seed, hashString(s.symbol), 101, salt, from);
	return stepsOf(Number(s.minuteVolume) * minutes * (0.5 + u), s.rules.stepSize);
}

/** Price range of the minutes [m0, m1]: open, close, high, low (high and low sampled). */
function rangeOf(
	m: Market,
	s: MarketSymbol,
	m0: number,
	m1: number,
): { open: string; close: string; high: string; low: string } {
	const f0 = m.factorAt(s, m0);
	const f1 = m.factorAt(s, m1);
	let hi = Math.max(f0, f1);
	let lo = Math.min(f0, f1);
	const span = m1 - m0;
	const samples = Math.min(span, HIGH_LOW_SAMPLES);
	for (let i = 1; i < samples; i++) {
		const f = m.factorAt(s, m0 + Math.round((i * span) / samples));
		if (f > hi) hi = f;
		if (f < lo) lo = f;
	}
	return {
		open: m.priceOf(s, f0),
		close: m.priceOf(s, f1),
		high: m.priceOf(s, hi),
		low: m.priceOf(s, lo),
	};
}

export type KlineRow = [
	number,
	string,
	string,
	string,
	string,
	string,
	number,
	string,
	number,
	string,
	string,
];

/** One candle: [openTime, open, high, low, close, volume, closeTime (0, as the documentation's examples), quoteVolume, trades, takerBuyBaseVolume, takerBuyQuoteVolume]. */
function candle(m: Market, s: MarketSymbol, open: number, interval: string, now: number): KlineRow {
	const m0 = Math.floor(open / MINUTE_MS);
	const m1 = Math.floor(Math.min(nextOpen(open, interval) - 1, now) / MINUTE_MS);
	const r = rangeOf(m, s, m0, Math.max(m0, m1));
	const minutes = Math.max(1, m1 - m0 + 1);
	const volume = volumeOf(m, s, m0, minutes, minutes);
	const uTaker = unit(m.config.seed, hashString(s.symbol), 102, m0, minutes);
	const uTrades = unit(m.config.seed, hashString(s.symbol), 103, m0, minutes);
	const takerBuy = stepsOf(Number(D.fmt(volume)) * (0.3 + 0.4 * uTaker), s.rules.stepSize);
	const close = dec(r.close);
	return [
		open,
		r.open,
		r.high,
		r.low,
		r.close,
		D.fmt(volume),
		0,
		D.fmt(D.mul(volume, close)),
		Math.round(minutes * (2 + 8 * uTrades)),
		D.fmt(takerBuy),
		D.fmt(D.mul(takerBuy, close)),
	];
}

/**
 * Candles of `interval` whose open time is in [startTime, endTime] (endTime defaults to now and is
 * cut to now: no candle of the future): the NEWEST `limit` of them, oldest first. A client paging
 * forward from startTime with a limit smaller than the range gets the range's end, not its start.
 */
export function klines(
	m: Market,
	s: MarketSymbol,
	interval: string,
	limit: number,
	startTime: number | undefined,
	endTime: number | undefined,
): KlineRow[] {
	const now = m.now();
	const end = Math.min(endTime ?? now, now);
	const rows: KlineRow[] = [];
	if (startTime !== undefined && startTime > end) return rows;
	let open = candleOpen(end, interval);
	while (rows.length < limit && open >= 0 && (startTime === undefined || open >= startTime)) {
		rows.push(candle(m, s, open, interval, now));
		open = previousOpen(open, interval);
	}
	return rows.reverse();
}

/** GET /quote/v1/depth: `limit` levels a side around the current price, one tick apart. */
export function depth(
	m: Market,
	s: MarketSymbol,
	limit: number,
): { t: number; b: string[][]; a: string[][] } {
	const now = m.now();
	const minute = Math.floor(now / MINUTE_MS);
	const mid = dec(m.price(s));
	const tick = dec(s.rules.tickSize);
	const h = hashString(s.symbol);
	const qty = (side: number, k: number) =>
		D.fmt(
			stepsOf(
				Number(s.minuteVolume) * (0.05 + unit(m.config.seed, h, 104, side, minute, k)),
				s.rules.stepSize,
				true,
			),
		);
	const b: string[][] = [];
	const a: string[][] = [];
	for (let k = 1; k <= limit; k++) {
		const step = D.mul(tick, { v: BigInt(k), s: 0 });
		const bid = D.sub(mid, step);
		if (D.isPositive(bid)) b.push([D.fmt(bid), qty(0, k)]);
		a.push([D.fmt(D.add(mid, step)), qty(1, k)]);
	}
	return { t: now, b, a };
}

/** GET /quote/v1/trades: the last `limit` public trades, one every 15 s, oldest first. */
export function trades(
	m: Market,
	s: MarketSymbol,
	limit: number,
): Array<{ t: number; p: string; q: string; ibm: boolean }> {
	const newest = Math.floor(m.now() / TRADE_SPACING_MS) * TRADE_SPACING_MS;
	const h = hashString(s.symbol);
	const out: Array<{ t: number; p: string; q: string; ibm: boolean }> = [];
	for (let i = limit - 1; i >= 0; i--) {
		const t = newest - i * TRADE_SPACING_MS;
		const u = unit(m.config.seed, h, 105, t / 1000);
		out.push({
			t,
			p: m.priceAt(s, t),
			q: D.fmt(stepsOf(Number(s.minuteVolume) * 0.5 * u, s.rules.stepSize, true)),
			ibm: unit(m.config.seed, h, 106, t / 1000) < 0.5,
		});
	}
	return out;
}

/** One entry of GET /quote/v1/ticker/24hr: the last 24 hours to now. No change fields (the documentation has none). */
export function ticker24h(m: Market, s: MarketSymbol) {
	const now = m.now();
	const mNow = Math.floor(now / MINUTE_MS);
	const mOpen = mNow - 1440;
	const r = rangeOf(m, s, mOpen, mNow);
	const volume = volumeOf(m, s, mOpen, 1440, 1440);
	const close = dec(r.close);
	const tick = dec(s.rules.tickSize);
	const bid = D.sub(close, tick);
	return {
		t: now,
		s: s.symbol,
		c: r.close,
		h: r.high,
		l: r.low,
		o: r.open,
		b: D.fmt(D.isPositive(bid) ? bid : close),
		a: D.fmt(D.add(close, tick)),
		v: D.fmt(volume),
		qv: D.fmt(D.mul(volume, close)),
		it: 'SPOT',
	};
}

/** One entry of GET /quote/v1/ticker/price. */
export function tickerPrice(m: Market, s: MarketSymbol): { s: string; p: string } {
	return { s: s.symbol, p: m.price(s) };
}
