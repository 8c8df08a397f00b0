/**
 * The sandbox's futures state as the futures oracles read it (the fault matrix, the e2e test of the
 * futures trading examples, the bench): every futures order the book holds, of every account, and
 * the positions. Read in-process from the sandbox's futures book: no request, so nothing counts
 * against the key's request rates and no fault applies to the oracle's own reads.
 */
import { DEMO_ACCOUNTS, type Sandbox } from '../../sandbox';

/** A futures order as the book holds it (the fields the oracles read). */
export interface BookOrder {
	accountId: string;
	orderId: string;
	clientOrderId: string;
	symbol: string;
	side: 'BUY' | 'SELL';
	price: string;
	quantity: string;
	reduceOnly: boolean;
	status: string;
	/** LIMIT / MARKET / LIMIT_MAKER / STOP, as the sandbox keeps it (any case). */
	type?: string;
	orderType?: string;
	time: number;
	[field: string]: unknown;
}

/** Statuses of an order still open: limit (NEW, PARTIALLY_FILLED) and stop (ORDER_NEW). */
export const OPEN_STATUSES = new Set(['NEW', 'PARTIALLY_FILLED', 'ORDER_NEW', 'PENDING_NEW']);
/** Statuses of a cancelled order: limit and stop. */
export const CANCELLED_STATUSES = new Set(['CANCELED', 'PARTIALLY_CANCELED', 'ORDER_CANCELED']);

interface BookShape {
	orders?: BookOrder[];
}

/** A futures order as the sandbox's control `sb.futures.orders()` shows it (GET order's fields). */
interface OrderView {
	orderId: string;
	clientOrderId: string;
	symbol: string;
	side: 'BUY' | 'SELL';
	price: string;
	originalBaseQty: string;
	reduceOnly: boolean;
	status: string;
	orderType: string;
	time: string;
	[field: string]: unknown;
}

/**
 * Every futures order the sandbox holds, oldest first (a copy of each, as it is now): the master
 * key's contract account's through the control `sb.futures.orders()` (the only futures account:
 * the sub key has none), else every account's from the book.
 */
export function futuresOrders(sb: Sandbox): BookOrder[] {
	const control = sb.futures as unknown as {
		orders?: () => OrderView[];
		book?: BookShape;
	};
	if (typeof control.orders === 'function')
		return control.orders().map((o) => ({
			...o,
			accountId: DEMO_ACCOUNTS.mainContract,
			quantity: o.originalBaseQty,
			type: String(o.orderType).toUpperCase(),
			time: Number(o.time),
		}));
	const held = control.book?.orders;
	if (!Array.isArray(held))
		throw new Error(
			'futuresLedger: the sandbox no longer keeps its futures orders in futures.book.orders',
		);
	return held.map((o) => ({ ...o }));
}

/** The main contract account's futures orders (the master key's futures account). */
export function mainFuturesOrders(sb: Sandbox): BookOrder[] {
	return futuresOrders(sb).filter((o) => o.accountId === DEMO_ACCOUNTS.mainContract);
}

export function isOpen(order: BookOrder): boolean {
	return OPEN_STATUSES.has(order.status);
}

export function isCancelled(order: BookOrder): boolean {
	return CANCELLED_STATUSES.has(order.status);
}

/** The order's type, upper case (the book's orders placed by the sandbox's controls are LIMIT). */
export function typeOf(order: BookOrder): string {
	return String(order.type ?? order.orderType ?? 'LIMIT').toUpperCase();
}

/** A stop order: by its type, or by a stop status. */
export function isStop(order: BookOrder): boolean {
	return typeOf(order).startsWith('STOP') || order.status.startsWith('ORDER_');
}

/** The master key's position in a contract ('0' when none). */
export function positionSize(sb: Sandbox, symbol: string): string {
	return sb.futures.positions().find((p) => p.symbol === symbol)?.baseQty ?? '0';
}
