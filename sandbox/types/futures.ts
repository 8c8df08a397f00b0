/**
 * The futures read side (`/api/v2/futures/*`) as the UAE documentation answers it, and the
 * `sb.futures` controls tests drive it with. Ids, times and decimals are strings; flags booleans.
 */
import type { DemoKey } from './options';

/** One position (GET /api/v2/futures/positions). */
export interface FuturesPosition {
	symbol: string;
	baseAsset: string;
	quoteAsset: string;
	avgPrice: string;
	leverage: string;
	lastPrice: string;
	baseQty: string;
	quoteQty: string;
	markPrice: string;
	/** "0" on a CROSS position (the documentation's example). */
	liquidationPrice: string;
	margin: string;
	/** "" on a CROSS position (the documentation's example). */
	marginRate: string;
	profitRate: string;
	unrealizedPnL: string;
	realizedPnL: string;
	marginType: 'CROSS' | 'ISOLATED';
	positionMode: 'net';
	positionSide: 'LONG';
	/** The position's take-profit trigger price (POST position/trading-stop); "" when none. */
	takeProfit: string;
	/** The position's stop-loss trigger price; "" when none. */
	stopLoss: string;
}

export type FuturesOrderStatus =
	| 'NEW'
	| 'PARTIALLY_FILLED'
	| 'FILLED'
	| 'CANCELED'
	| 'PARTIALLY_CANCELED'
	| 'REJECTED'
	// the create answer of a LIMIT, LIMIT_MAKER or MARKET order (POST order, batchOrders)
	| 'PENDING_NEW'
	// stop orders
	| 'ORDER_NEW'
	| 'ORDER_FILLED'
	| 'ORDER_CANCELED';

export type FuturesTimeInForce = 'GTC' | 'IOC' | 'FOK' | 'LIMIT_MAKER';

/** One futures order (GET /api/v2/futures/order, openOrders, historyOrders). */
export interface FuturesOrder {
	time: string;
	orderId: string;
	clientOrderId: string;
	symbol: string;
	baseAsset: string;
	quoteAsset: string;
	price: string;
	side: 'BUY' | 'SELL';
	/**
	 * Lower case as the documentation's examples write it: "limit", "market", "limit_maker",
	 * "stop".
	 */
	orderType: string;
	reduceOnly: boolean;
	leverage: string;
	originalBaseQty: string;
	executedBaseQty: string;
	originalQuoteQty: string;
	executedQuoteQty: string;
	avgPrice: string;
	timeInForce: FuturesTimeInForce;
	status: FuturesOrderStatus;
	stpMode: string;
	ordCxlReason: string;
	isLiquidationOrder: boolean;
	liquidationType: string;
	slTriggerPrice: string;
	slTriggerBy: string;
	tpTriggerPrice: string;
	tpTriggerBy: string;
	/** STOP orders only: the trigger price (a sandbox field; the documentation's order has none). */
	stopPrice?: string;
}

/** One futures fill (GET /api/v2/futures/userTrades). */
export interface FuturesTrade {
	time: string;
	tradeId: string;
	orderId: string;
	symbol: string;
	price: string;
	quantity: string;
	commissionAsset: string;
	commission: string;
	makerRebate: string;
	type: string;
	side: 'BUY' | 'SELL';
	realizedPnl: string;
	isMaker: boolean;
	ticketId: string;
}

/** One settled funding rate (GET /api/v2/futures/historyFundingRate). */
export interface FundingRateRecord {
	id: string;
	symbol: string;
	settleTime: string;
	settleRate: string;
}

/** One funding fee charged to a position (GET /api/v2/futures/historyFundingFees). */
export interface FundingFeeRecord {
	symbol: string;
	fundingTime: string;
	positionSide: 'LONG';
	positionSize: string;
	markPrice: string;
	fundingRate: string;
	fee: string;
	feeAsset: string;
}

/** sb.futures.fill: a futures fill of the key's contract account. */
export interface FuturesFillInput {
	symbol: string;
	side: 'BUY' | 'SELL';
	/** Base quantity, on the contract's step; default (with orderId) all that remains. */
	quantity?: string;
	/** Default: the order's price (with orderId), else the mark price now. On the contract's tick. */
	price?: string;
	/** Default the master key (contract account 10003); the sub key has none and throws. */
	key?: DemoKey;
	/** Fill this resting order (placeOpenOrder) instead of a new order filled at once. */
	orderId?: string;
	/** The new order's client order ID (default: generated). */
	clientOrderId?: string;
	/** Maker (commission at makerFeeRate) or taker (default, takerFeeRate). */
	isMaker?: boolean;
}

export interface FuturesFillResult {
	order: FuturesOrder;
	trade: FuturesTrade;
	/** The position after the fill; null when the fill closed it. */
	position: FuturesPosition | null;
}

/** sb.futures.placeOpenOrder: a resting LIMIT order (no margin is reserved). */
export interface FuturesOpenOrderInput {
	symbol: string;
	side: 'BUY' | 'SELL';
	quantity: string;
	price: string;
	key?: DemoKey;
	clientOrderId?: string;
	/** Creation time (default now); not after now, not before the newest futures order's. */
	time?: number;
	timeInForce?: 'GTC' | 'IOC' | 'FOK';
	reduceOnly?: boolean;
}

/** The futures controls (sb.futures). reset() clears every one of them. */
export interface FuturesControl {
	/**
	 * Script a contract's funding rates: one decimal string per funding period, the first for the
	 * period running now; after the last, the last value stays.
	 */
	setFundingRates(symbol: string, rates: string[]): void;
	/**
	 * The funding rate history afresh: the settlements of the last `periods` funding times up to now
	 * (every contract, at its scripted or seeded rates; no fees), ids from 1 again. reset() seeds 90.
	 */
	seedFundingHistory(periods: number): void;
	fill(input: FuturesFillInput): FuturesFillResult;
	placeOpenOrder(input: FuturesOpenOrderInput): FuturesOrder;
	/**
	 * Fix a contract's mark (and last) price at `price` (on the contract's tick) until reset() or
	 * setMarkPrice(symbol, null) (back to the walk); stop orders and TP/SL then trigger at once.
	 */
	setMarkPrice(symbol: string, price: string | null): void;
	/**
	 * Liquidate the key's position of `symbol`: a MARKET SELL for the whole position at the mark
	 * price, isLiquidationOrder true, liquidationType LIQUIDATION_TAKER; its fill, events and the
	 * position closed. Throws when there is no position.
	 */
	liquidate(symbol: string, key?: DemoKey): FuturesFillResult;
	/**
	 * Every futures order of the key's account (default master; [] for the sub key), oldest first,
	 * in the answer shape (open and final, limit and stop, TP/SL children and triggered orders).
	 */
	orders(key?: DemoKey): FuturesOrder[];
	/** The key's open positions as GET /api/v2/futures/positions lists them (default master key). */
	positions(key?: DemoKey): FuturesPosition[];
	/** Settle every funding boundary the clock has passed now (also done before each request). */
	settleNow(): void;
	/** The funding interval in force (option fundingIntervalMs). */
	readonly fundingIntervalMs: number;
}
