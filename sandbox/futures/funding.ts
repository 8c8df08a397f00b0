/**
 * Funding rates on the sandbox clock. Period k runs from k × interval to (k + 1) × interval (ms since
 * the epoch) and is settled at its end at the rate of period k: a seeded default, or the rates a
 * test scripted (setFundingRates: the first for the period running when it was called, one per
 * period after it, the last one staying). The settled rates are the history
 * (GET /api/v2/futures/historyFundingRate): at start and on reset it holds the settlements of the
 * last HISTORY_PERIODS periods, and each boundary the clock passes adds one entry per contract.
 * Fees charged at a settlement are the futures state's (futures.ts).
 */
import * as D from '../decimal';
import { hashString } from '../market/walk';
import { CONTRACTS } from './contracts';

export const DEFAULT_FUNDING_INTERVAL_MS = 8 * 3_600_000;
/** Settlements listed in the history at start and after reset (30 days of 8-hour periods). */
export const HISTORY_PERIODS = 90;

export interface SettledRate {
	/** Counts the settlements of every contract together: one contract's ids have gaps. */
	id: string;
	/** Counts the contract's own settlements: 1, 2, 3... (behaviour fundingHistoryIds 'perContract'). */
	contractId: string;
	symbol: string;
	settleTime: number;
	settleRate: string;
}

/** A settled rate as the history lists it: `id` in the numbering asked for. */
export type ListedRate = Omit<SettledRate, 'contractId'>;

/** How the history numbers its entries (behaviour fundingHistoryIds). */
export type FundingHistoryIds = 'shared' | 'perContract';

export class Funding {
	private scripts = new Map<string, { start: number; rates: string[] }>();
	/** Every settlement, oldest first (ids ascending). */
	private settled: SettledRate[] = [];
	private seq = 0;
	private contractSeq = new Map<string, number>();
	/** Index of the last boundary settled: boundary b is at b × interval. */
	private lastBoundary = 0;

	constructor(readonly intervalMs: number) {
		if (!Number.isSafeInteger(intervalMs) || intervalMs < 1)
			throw new Error(`fundingIntervalMs must be a positive integer, not ${intervalMs}`);
	}

	/** Forget scripts and settlements; the history of the periods before `now` is seeded afresh. */
	reset(now: number): void {
		this.scripts.clear();
		this.seedHistory(now, HISTORY_PERIODS);
	}

	/**
	 * The history afresh: the settlements of the last `periods` boundaries up to `now` (the scripts
	 * are kept), ids from 1 again. Throws when there are not that many boundaries since the epoch.
	 */
	seedHistory(now: number, periods: number): void {
		const current = Math.floor(now / this.intervalMs);
		if (!Number.isSafeInteger(periods) || periods < 0)
			throw new Error(`periods must be a whole number, not ${periods}`);
		if (periods > current)
			throw new Error(`only ${current} funding boundaries since the epoch, not ${periods}`);
		this.settled = [];
		this.seq = 0;
		this.contractSeq.clear();
		for (let b = Math.max(1, current - periods + 1); b <= current; b++) this.record(b);
		this.lastBoundary = current;
	}

	/** The period running at `now`. */
	periodAt(now: number): number {
		return Math.floor(now / this.intervalMs);
	}

	setRates(symbol: string, rates: string[], now: number): void {
		this.scripts.set(symbol, { start: this.periodAt(now), rates: [...rates] });
	}

	/** The rate of period k of a contract. */
	rateOf(symbol: string, k: number): string {
		const script = this.scripts.get(symbol);
		if (script && k >= script.start && script.rates.length > 0)
			return script.rates[Math.min(k - script.start, script.rates.length - 1)];
		return defaultRate(symbol, k);
	}

	/** The rate of the period running now, and when it is settled. */
	current(symbol: string, now: number): { rate: string; nextFundingTime: number } {
		const k = this.periodAt(now);
		return { rate: this.rateOf(symbol, k), nextFundingTime: (k + 1) * this.intervalMs };
	}

	/**
	 * The boundaries passed since the last call, oldest first, each recorded in the history (every
	 * contract): the caller charges their fees.
	 */
	due(now: number): { time: number; rates: Map<string, string> }[] {
		const out: { time: number; rates: Map<string, string> }[] = [];
		const current = this.periodAt(now);
		while (this.lastBoundary < current) {
			this.lastBoundary++;
			out.push({
				time: this.lastBoundary * this.intervalMs,
				rates: this.record(this.lastBoundary),
			});
		}
		return out;
	}

	/** Record the settlement at boundary b of every contract (period b - 1's rate). */
	private record(b: number): Map<string, string> {
		const rates = new Map<string, string>();
		for (const c of CONTRACTS) {
			const settleRate = this.rateOf(c.symbol, b - 1);
			rates.set(c.symbol, settleRate);
			const contractId = (this.contractSeq.get(c.symbol) ?? 0) + 1;
			this.contractSeq.set(c.symbol, contractId);
			this.settled.push({
				id: String(++this.seq),
				contractId: String(contractId),
				symbol: c.symbol,
				settleTime: b * this.intervalMs,
				settleRate,
			});
		}
		return rates;
	}

	/**
	 * Settled rates of a contract with ids in [fromId, endId] (both optional, inclusive), the newest
	 * `limit` of them, newest first; `ids` says which numbering the ids are (and `id` shows).
	 */
	history(
		symbol: string,
		limit: number,
		fromId?: bigint,
		endId?: bigint,
		ids: FundingHistoryIds = 'shared',
	): ListedRate[] {
		const out: ListedRate[] = [];
		for (let i = this.settled.length - 1; i >= 0 && out.length < limit; i--) {
			const r = this.settled[i];
			if (r.symbol !== symbol) continue;
			const shown = ids === 'perContract' ? r.contractId : r.id;
			const id = BigInt(shown);
			if (endId !== undefined && id > endId) continue;
			if (fromId !== undefined && id < fromId) break;
			out.push({ id: shown, symbol, settleTime: r.settleTime, settleRate: r.settleRate });
		}
		return out;
	}
}

/** A seeded default rate: -0.0003 to 0.0007 in steps of 0.000001, never 0. */
export function defaultRate(symbol: string, k: number): string {
	let h = hashString(`${symbol}:${k}`);
	h = Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> 0;
	let n = (h % 1001) - 300;
	if (n === 0) n = 100;
	return D.fmt({ v: BigInt(n), s: 6 });
}
