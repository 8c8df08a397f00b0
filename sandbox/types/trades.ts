/** Fills (GET /api/v1/account/trades) as the UAE documentation answers them, and what tests seed. */
import type { DemoKey } from './options';

/** The fee of one fill, as the UAE documentation nests it (`fee`). No HSK deduction in the sandbox. */
export interface AccountTradeFee {
	feeCoinId: string;
	feeCoinName: string;
	/** Fee after HSK deduction: the sandbox deducts none, so the same as `originFee`. */
	fee: string;
	originCoinId: string;
	originCoinName: string;
	originFee: string;
}

/**
 * One fill of one of the key's orders. Ids, times and decimals are strings (the UAE
 * documentation's types); `isBuyer` and `isMaker` are booleans. A match between two of the user's
 * own orders gives two fills, one per side, sharing `ticketId` and `time`.
 */
export interface AccountTrade {
	id: string;
	clientOrderId: string;
	ticketId: string;
	symbol: string;
	symbolName: string;
	orderId: string;
	/** "//Ignore" in the documentation; always "0" (its example's value). */
	matchOrderId: string;
	price: string;
	qty: string;
	commission: string;
	commissionAsset: string;
	time: string;
	isBuyer: boolean;
	isMaker: boolean;
	fee: AccountTradeFee;
	feeCoinId: string;
	feeAmount: string;
	makerRebate: string;
	hskDeduct: boolean;
	hskDeductPrice: string;
}

/**
 * Synthetic fills (Sandbox.seedTrades): `count` fills spread evenly over [startTime, endTime],
 * prices, quantities and sides drawn from a seeded PRNG. Fills only: no order, balance or history
 * record is written.
 */
export interface SeedTradesOptions {
	/** How many fills (records) to write; at most 100000. */
	count: number;
	/** Time of the first fill (ms): not before the newest fill's time (trade ids grow with time). */
	startTime: number;
	/** Time of the last fill (ms): not after the sandbox clock. */
	endTime: number;
	/** Whose fills: a demo key's trading account (default DEMO_KEYS.master: 10001; the sub key: 20001). */
	key?: DemoKey;
	/** Default ['BTCUSDT']; symbols of the sandbox's catalogue, drawn per fill. */
	symbols?: string[];
	/**
	 * Whether each match is between two of the user's own orders: two fills per match (the buyer's,
	 * taker, and the seller's, maker) sharing ticketId and time. Default false: one fill per match.
	 */
	bothSides?: boolean;
	/** PRNG seed; default 1. */
	seed?: number;
}
