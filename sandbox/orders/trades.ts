/**
 * The fills of the user's orders (GET /api/v1/account/trades): one record per fill of one order,
 * written by every fill the book makes (a MARKET order at once, a resting order on the test's
 * schedule) and by seedTrades. Kept ascending by id; ids grow with time, as the exchange's do.
 */
import { FEE_RATE, SEEDED_ORDER_ID_BASE, TICKET_ID_BASE, TRADE_ID_BASE } from '../constants';
import * as D from '../decimal';
import { MENA_CATALOGUE } from '../market/catalogue';
import { mulberry32 } from '../prng';
import { cmpId } from '../store';
import type { AccountTrade, SeedTradesOptions } from '../types';

/** A fill as held: the answer's fields and the account whose order filled. */
interface HeldTrade {
	accountId: string;
	trade: AccountTrade;
}

/** One side of a match, as the book reports it. */
export interface FillSide {
	accountId: string;
	orderId: string;
	clientOrderId: string;
	symbol: string;
	side: 'BUY' | 'SELL';
	price: D.Dec;
	qty: D.Dec;
	fee: D.Dec;
	feeCoin: string;
	isMaker: boolean;
	time: number;
}

/** What a list asks for; every bound is optional but the window and the limit. */
export interface TradeQuery {
	accountId: string;
	symbol?: string;
	clientOrderId?: string;
	/** Only ids strictly above (the UAE documentation: "IDs bigger than fromId"). */
	fromId?: string;
	/** Only ids strictly below ("IDs less than toId"). */
	toId?: string;
	/** Inclusive time bounds (ms). */
	startTime: number;
	endTime: number;
	limit: number;
}

/** Most fills one seedTrades call writes. */
export const MAX_SEEDED_TRADES = 100_000;

export class TradeBook {
	/** Ascending by id (and so by time). */
	private trades: HeldTrade[] = [];
	private idSeq = TRADE_ID_BASE;
	private ticketSeq = TICKET_ID_BASE;
	/** Order ids of seeded fills: below the book's, as orders older than any placed. */
	private seededOrderSeq = SEEDED_ORDER_ID_BASE;

	constructor(private readonly clock: () => number) {}

	clear(): void {
		this.trades = [];
		this.idSeq = TRADE_ID_BASE;
		this.ticketSeq = TICKET_ID_BASE;
		this.seededOrderSeq = SEEDED_ORDER_ID_BASE;
	}

	get size(): number {
		return this.trades.length;
	}

	/** Write a match: one fill per side given (two when both orders are the user's), one ticketId. */
	record(sides: FillSide[]): AccountTrade[] {
		const ticketId = (this.ticketSeq++).toString();
		return sides.map((s) => {
			const trade = toTrade(s, (this.idSeq++).toString(), ticketId);
			this.trades.push({ accountId: s.accountId, trade });
			return trade;
		});
	}

	/** Synthetic fills (see SeedTradesOptions); throws an Error naming the problem. */
	seed(accountId: string, opts: SeedTradesOptions): AccountTrade[] {
		const { count, startTime, endTime } = opts;
		if (!Number.isSafeInteger(count) || count < 1 || count > MAX_SEEDED_TRADES)
			throw new Error(`seedTrades: count must be an integer from 1 to ${MAX_SEEDED_TRADES}`);
		if (!Number.isSafeInteger(startTime) || !Number.isSafeInteger(endTime) || startTime < 0)
			throw new Error('seedTrades: startTime and endTime must be millisecond timestamps');
		if (startTime > endTime) throw new Error('seedTrades: startTime is after endTime');
		if (endTime > this.clock())
			throw new Error(`seedTrades: endTime ${endTime} is after the sandbox clock ${this.clock()}`);
		const newest = this.trades[this.trades.length - 1];
		if (newest !== undefined && startTime < Number(newest.trade.time)) {
			throw new Error(
				`seedTrades: startTime ${startTime} is before the newest fill's time ${newest.trade.time}: seed the oldest first, as trade ids grow with time`,
			);
		}
		const symbols = opts.symbols ?? ['BTCUSDT'];
		if (symbols.length === 0) throw new Error('seedTrades: symbols is empty');
		for (const s of symbols) {
			if (!Object.prototype.hasOwnProperty.call(MENA_CATALOGUE, s))
				throw new Error(`seedTrades: unknown symbol ${s}`);
		}
		const rnd = mulberry32(opts.seed ?? 1);
		const feeRate = D.parseDec(FEE_RATE)!;
		const perMatch = opts.bothSides ? 2 : 1;
		const matches = Math.ceil(count / perMatch);
		const out: AccountTrade[] = [];
		for (let m = 0; m < matches; m++) {
			const time =
				matches > 1
					? startTime + Math.floor(((endTime - startTime) * m) / (matches - 1))
					: startTime;
			const info = MENA_CATALOGUE[symbols[Math.floor(rnd() * symbols.length)]];
			// a price within ±5% of the anchor on the symbol's tick; a quantity of 0.00000001 to 2
			const anchor = D.parseDec(info.last)!;
			const tickScale = D.parseDec(info.rules.tickSize)!.s;
			const raw = D.mul(anchor, { v: BigInt(95_000 + Math.floor(rnd() * 10_000)), s: 5 });
			const price = D.divTrunc(raw, { v: 1n, s: 0 }, tickScale);
			const qty: D.Dec = { v: BigInt(1 + Math.floor(rnd() * 200_000_000)), s: 8 };
			const takerBuys = rnd() < 0.5;
			const side = (buyer: boolean, isMaker: boolean, n: number): FillSide => ({
				accountId,
				orderId: (this.seededOrderSeq++).toString(),
				clientOrderId: `seed-${m}-${n}`,
				symbol: info.symbol,
				side: buyer ? 'BUY' : 'SELL',
				price,
				qty,
				// the family's fee coin: a buyer pays in the base coin, a seller in the quote coin
				fee: buyer ? D.mul(qty, feeRate) : D.mul(D.mul(qty, price), feeRate),
				feeCoin: buyer ? info.base : info.quote,
				isMaker,
				time,
			});
			const sides = [side(takerBuys, false, 0)];
			if (opts.bothSides && out.length + 1 < count) sides.push(side(!takerBuys, true, 1));
			out.push(...this.record(sides));
		}
		return out;
	}

	/**
	 * The fills of one account matching `q`, newest first (id descending): the newest `limit` of
	 * those within every bound given.
	 */
	query(q: TradeQuery): AccountTrade[] {
		const out: AccountTrade[] = [];
		if (q.limit <= 0 || q.startTime > q.endTime) return out;
		if (q.fromId !== undefined && q.toId !== undefined && cmpId(q.fromId, q.toId) >= 0) return out;
		// index of the first fill with id >= toId: everything before it is below toId
		let hi = this.trades.length;
		if (q.toId !== undefined) {
			let lo = 0;
			while (lo < hi) {
				const mid = (lo + hi) >>> 1;
				if (cmpId(this.trades[mid].trade.id, q.toId) < 0) lo = mid + 1;
				else hi = mid;
			}
		}
		for (let k = hi - 1; k >= 0 && out.length < q.limit; k--) {
			const { accountId, trade } = this.trades[k];
			if (q.fromId !== undefined && cmpId(trade.id, q.fromId) <= 0) break;
			if (accountId !== q.accountId) continue;
			const t = Number(trade.time);
			if (t < q.startTime || t > q.endTime) continue;
			if (q.symbol !== undefined && trade.symbol !== q.symbol) continue;
			if (q.clientOrderId !== undefined && trade.clientOrderId !== q.clientOrderId) continue;
			out.push(trade);
		}
		return out;
	}
}

/** The answer's shape of one side of a match (the UAE documentation's field list). */
function toTrade(s: FillSide, id: string, ticketId: string): AccountTrade {
	const fee = D.fmt(s.fee);
	return {
		id,
		clientOrderId: s.clientOrderId,
		ticketId,
		symbol: s.symbol,
		symbolName: s.symbol,
		orderId: s.orderId,
		matchOrderId: '0',
		price: D.fmt(s.price),
		qty: D.fmt(s.qty),
		commission: fee,
		commissionAsset: s.feeCoin,
		time: String(s.time),
		isBuyer: s.side === 'BUY',
		isMaker: s.isMaker,
		fee: {
			feeCoinId: s.feeCoin,
			feeCoinName: s.feeCoin,
			fee,
			originCoinId: s.feeCoin,
			originCoinName: s.feeCoin,
			originFee: fee,
		},
		feeCoinId: s.feeCoin,
		feeAmount: fee,
		makerRebate: '0',
		hskDeduct: false,
		hskDeductPrice: '',
	};
}
