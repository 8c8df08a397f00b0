/**
 * Orders as the API answers them. Ids, times and decimals are strings: the ids are 19-digit
 * numbers, larger than Number.MAX_SAFE_INTEGER.
 */
import type { DemoKey } from './options';

/**
 * The family's order statuses. PENDING_NEW, NEW, PARTIALLY_FILLED and PENDING_CANCEL are open; the
 * others are final. The book itself rests orders as NEW: PENDING_NEW only appears in create answers
 * (behaviour `createAnswerStatus`), PENDING_CANCEL while a delayed cancel waits to be applied
 * (behaviour `cancelApplyDelayMs`). REJECTED is in the family's list but the sandbox never sends it:
 * an order it refuses is answered with an error code and never placed.
 */
export type OrderStatus =
	| 'PENDING_NEW'
	| 'NEW'
	| 'PARTIALLY_FILLED'
	| 'PENDING_CANCEL'
	| 'FILLED'
	| 'CANCELED'
	| 'PARTIALLY_CANCELED'
	| 'REJECTED';
export type OrderSide = 'BUY' | 'SELL';
/** The order types an order is sent with. */
export type OrderType = 'LIMIT' | 'MARKET' | 'LIMIT_MAKER';
/**
 * The type an answer shows: the type sent, or with behaviour `marketOrderType: 'byBase'` a MARKET
 * order as MARKET_OF_BASE (sent with `quantity`) or MARKET_OF_QUOTE (sent with `amount`), the names
 * the family's order stream uses.
 */
export type AnsweredOrderType = OrderType | 'MARKET_OF_BASE' | 'MARKET_OF_QUOTE';
export type TimeInForce = 'GTC' | 'IOC' | 'FOK';

export interface OrderData {
	accountId: string;
	symbol: string;
	symbolName: string;
	clientOrderId: string;
	orderId: string;
	transactTime: string;
	price: string;
	origQty: string;
	executedQty: string;
	status: OrderStatus;
	timeInForce: TimeInForce;
	type: AnsweredOrderType;
	side: OrderSide;
	reqAmount: string;
}

/**
 * An order as the query endpoints answer it (GET /api/v1/spot/order, openOrders, tradeOrders): the
 * family's query shape, a superset of OrderData. Ids, times and decimals are strings.
 */
export interface OrderView {
	accountId: string;
	exchangeId: string;
	symbol: string;
	symbolName: string;
	clientOrderId: string;
	orderId: string;
	price: string;
	origQty: string;
	executedQty: string;
	cumulativeQuoteQty: string;
	cummulativeQuoteQty: string;
	avgPrice: string;
	status: OrderStatus;
	timeInForce: TimeInForce;
	type: AnsweredOrderType;
	side: OrderSide;
	stopPrice: string;
	icebergQty: string;
	time: string;
	updateTime: string;
	isWorking: boolean;
	reqAmount: string;
	stpMode: 'EXPIRE_TAKER' | 'EXPIRE_MAKER';
	feeCoin: string;
	feeAmount: string;
	sumFeeAmount: string;
}

/** Answer of DELETE /api/v1/spot/order (the family's cancel shape): an order without its name and amount. */
export type CancelAnswer = Omit<OrderData, 'symbolName' | 'reqAmount'>;

/** A resting order seeded as if placed at `time` (Sandbox.seedOpenOrder). */
export interface SeedOpenOrderInput {
	/** Whose trading account: a demo key (default DEMO_KEYS.master: account 10001; the sub key: 20001). */
	key?: DemoKey;
	symbol: string;
	side: OrderSide;
	/** Default LIMIT. */
	type?: 'LIMIT' | 'LIMIT_MAKER';
	price: string;
	quantity: string;
	/** Default: the order ID, as for an order sent without one. */
	clientOrderId?: string;
	/** When it was placed (ms, server clock): not after now(), not before the newest order's time. */
	time: number;
}
