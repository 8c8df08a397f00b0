/** The ledger: what the sandbox received and applied, for tests to check. */
import type { OrderData, OrderStatus } from './orders';

export interface LedgerRequest {
	method: string;
	/** Path without the query string. */
	path: string;
	/** Raw query string as received, without the leading '?'. */
	query: string;
	/** Raw body as received (utf-8). */
	body: string;
	/** Value of the X-APIKEY header, if any. */
	apiKey?: string;
	/** HTTP status sent (or that would have been sent for dropAfter); 0 for dropBefore. */
	status: number;
	/** Error code of the response body, if it was an error. */
	code?: string;
	/** Nominal weight of the endpoint (0 for unknown paths). */
	weight: number;
	/** Server clock (sandbox.now()) when the request was received. */
	at: number;
	/** Fault kind applied to this request, if any. */
	fault?: string;
	/**
	 * For a fault that acts after processing (e.g. http500After, unknownAfter, dropAfter): the HTTP
	 * status the request's own processing produced (200 = the write was applied).
	 */
	appliedStatus?: number;
	/**
	 * The request-rate class of a request the request-rate limiter judged (a known demo key on an
	 * endpoint, request rates on): 'order' or 'query' (see README.md, "Rate limits").
	 */
	rateClass?: 'order' | 'query';
	/**
	 * A request-rate refusal: 'rateLimited' for the 0003 refusal (429, or 400 under behaviour
	 * rateLimitStatus 400: the limit met, a request signed before its suspension began, or the
	 * rateLimitSuspension fault), 'intoSuspension' for a 418 -3145 sent into a suspension.
	 */
	limit?: 'rateLimited' | 'intoSuspension';
}

export interface LedgerTransfer {
	id: string;
	fromAccountId: string;
	toAccountId: string;
	coin: string;
	quantity: string;
	/** The clientOrderId it was sent with; "" when none. */
	clientOrderId: string;
	created: string;
	apiKey: string;
}

/** An order as placed (the create answer at that moment); its later state: Sandbox.getOrder(orderId). */
export type LedgerOrder = OrderData & { via: 'single' | 'batch'; apiKey: string };

/**
 * An applied cancel; with behaviour cancelApplyDelayMs it is written when the cancel is applied, not
 * when it is accepted. `via`: DELETE /api/v1/spot/order ('single'), /api/v1/spot/openOrders
 * ('symbol'), /api/v1/spot/cancelAllOpenOrders ('all'), /api/v1/spot/cancelOrderByIds ('ids').
 */
export interface LedgerCancel {
	orderId: string;
	clientOrderId: string;
	accountId: string;
	/** Status after the cancel: CANCELED or PARTIALLY_CANCELED. */
	status: OrderStatus;
	via: 'single' | 'symbol' | 'all' | 'ids';
	apiKey: string;
	/** Server clock when applied. */
	at: number;
}

export interface Ledger {
	requests: LedgerRequest[];
	transfers: LedgerTransfer[];
	/** Placed orders (an order test places nothing and is not here). */
	orders: LedgerOrder[];
	cancels: LedgerCancel[];
}
