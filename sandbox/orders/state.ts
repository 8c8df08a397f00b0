/**
 * An order as the book holds it, and what the book works with: order parameters, the wallet it
 * locks and moves funds in, list filters, and the list limits of the order endpoints.
 */
import type * as D from '../decimal';
import type { JsonValue } from '../json';
import type { OrderSide, OrderStatus, OrderType, TimeInForce } from '../types';

/** Order parameters: strings (query/form) or JSON values (batch). */
export type OrderInput = Record<string, JsonValue | undefined>;

/** Whose order: the trading account it is placed on and the API key that sent it. */
export interface OrderOwner {
	accountId: string;
	apiKey: string;
}

/** What the order book needs from the balances. */
export interface Wallet {
	free(accountId: string, coin: string): D.Dec;
	lock(accountId: string, coin: string, amount: D.Dec): void;
	unlock(accountId: string, coin: string, amount: D.Dec): void;
	/** Change the total balance and write a history record of `flowType` with the new total. */
	move(
		accountId: string,
		coin: string,
		flowType: number,
		change: D.Dec,
		created: string,
		symbol?: string,
	): void;
}

export type StpMode = 'EXPIRE_TAKER' | 'EXPIRE_MAKER';

export interface OrderState {
	accountId: string;
	apiKey: string;
	symbol: string;
	clientOrderId: string;
	orderId: string;
	price: string;
	origQty: string;
	reqAmount: string;
	executedQty: D.Dec;
	cumQuote: D.Dec;
	fee: D.Dec;
	feeCoin: string;
	status: OrderStatus;
	timeInForce: TimeInForce;
	type: OrderType;
	side: OrderSide;
	stpMode: StpMode;
	time: number;
	updateTime: number;
	/** Coin and amount still locked for this order (LIMIT orders only). */
	lockCoin: string;
	locked: D.Dec;
}

export const EXCHANGE_ID = '301';
export const DEFAULT_OPEN_ORDERS_LIMIT = 500;
export const MAX_OPEN_ORDERS_LIMIT = 1000;
/** DELETE /api/v1/spot/cancelAllOpenOrders: `limit` default and ceiling. */
export const DEFAULT_CANCEL_ALL_LIMIT = 100;
export const MAX_CANCEL_ALL_LIMIT = 200;
/** DELETE /api/v1/spot/openOrders: at most this many orders per call ("200 orders/batch"). */
export const MAX_CANCEL_BY_SYMBOL = 200;
export const MAX_CANCEL_IDS = 100;
/** Past orders are listed for this many days (CCXT: tradeOrders "only supports the last 90 days"). */
export const PAST_ORDERS_DAYS = 90;

/** Open: on the book, holding its client order ID and its funds (a pending cancel included). */
export function isOpen(status: OrderStatus): boolean {
	return (
		status === 'NEW' ||
		status === 'PARTIALLY_FILLED' ||
		status === 'PENDING_NEW' ||
		status === 'PENDING_CANCEL'
	);
}

export interface OrderListFilter {
	symbol?: string;
	side?: OrderSide;
	/** Only orders with an orderId strictly below this one (the next page of a newest-first list). */
	beforeOrderId?: string;
	/** Leave out orders whose cancel is accepted but not yet applied (PENDING_CANCEL). */
	skipPendingCancel?: boolean;
	startTime?: number;
	endTime?: number;
}
