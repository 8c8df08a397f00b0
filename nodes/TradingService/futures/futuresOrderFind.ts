import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { ERROR_CODES } from '../constants';
import { contractAccountOf } from '../helpers/accountScope';
import { inputError } from '../helpers/validation';
import { isServiceRejection, toNodeError, type Endpoint, type ServiceClient } from '../transport';
import { FUTURES_ENDPOINTS } from './endpoints';

// Futures orders found again; no write code here, so any futures file may use it.

/** The two kinds the exchange lists, cancels and pages separately. */
export type FuturesOrderType = 'LIMIT' | 'STOP';
const FUTURES_ORDER_TYPES: readonly FuturesOrderType[] = ['LIMIT', 'STOP'];

/** The UAE documentation's rule for a futures client order ID: up to 100 of these characters. */
export const FUTURES_CLIENT_ORDER_ID = /^[.A-Z:/a-z0-9_-]{1,100}$/;

/** Client Order ID as Get Order and Cancel Order take it. */
export function readFuturesClientOrderId(
	node: INode,
	clientOrderId: unknown,
	itemIndex: number,
): { clientOrderId: string } {
	if (typeof clientOrderId === 'string' && FUTURES_CLIENT_ORDER_ID.test(clientOrderId))
		return { clientOrderId };
	throw inputError(
		node,
		'Client Order ID',
		`${clientOrderId === '' ? 'an empty value' : `"${String(clientOrderId)}"`} is not a client order ID`,
		'A futures client order ID is 1 to 100 letters, digits and . : / _ - (the clientOrderId field of an order).',
		itemIndex,
	);
}

export type FuturesOrderReference = { orderId: string } | { clientOrderId: string };

/** A RunContext or an EngineSession. */
export interface FuturesOrderReader {
	readonly node: INode;
	readonly client: ServiceClient;
}

/** Limit orders: NEW, PARTIALLY_FILLED (PENDING_NEW in a create answer); stop orders: ORDER_NEW. */
export const FUTURES_OPEN_STATUSES: readonly string[] = [
	'NEW',
	'PARTIALLY_FILLED',
	'PENDING_NEW',
	'PENDING_CANCEL',
	'ORDER_NEW',
];
/** A cancel applied: limit orders (after a partial fill: PARTIALLY_CANCELED), stop orders. */
export const FUTURES_CANCELLED_STATUSES: readonly string[] = [
	'CANCELED',
	'PARTIALLY_CANCELED',
	'ORDER_CANCELED',
];
export const FUTURES_FILLED_STATUSES: readonly string[] = ['FILLED', 'ORDER_FILLED'];

/** Largest page of openOrders and historyOrders ("Maximum 500"). */
const FUTURES_ORDERS_PAGE = 500;

/** Answers write `orderType` in lower case. Undefined when unknown: a cancel's type is never guessed. */
export function futuresOrderType(order: IDataObject): FuturesOrderType | undefined {
	const type = typeof order.orderType === 'string' ? order.orderType.toUpperCase() : '';
	if (type === 'STOP' || type.startsWith('STOP_')) return 'STOP';
	if (['LIMIT', 'MARKET', 'LIMIT_MAKER'].includes(type)) return 'LIMIT';
	return undefined;
}

export function futuresOrderQuery(reference: FuturesOrderReference): IDataObject {
	return 'orderId' in reference
		? { orderId: reference.orderId }
		: { clientOrderId: reference.clientOrderId };
}

export function isFuturesOrderOf(reference: FuturesOrderReference, order: IDataObject): boolean {
	return 'orderId' in reference
		? String(order.orderId) === reference.orderId
		: order.clientOrderId === reference.clientOrderId;
}

/**
 * Undefined when the service has none (0211) or answers with another order, which proves nothing
 * of this one. A client order ID names the open order holding it, else the newest that used it.
 */
export async function findFuturesOrder(
	reader: FuturesOrderReader,
	reference: FuturesOrderReference,
	itemIndex?: number,
	urgent = false,
): Promise<IDataObject | undefined> {
	try {
		const order = (await reader.client.request(FUTURES_ENDPOINTS.order, {
			qs: futuresOrderQuery(reference),
			itemIndex,
			...(urgent ? { urgent } : {}),
		})) as IDataObject;
		return isFuturesOrderOf(reference, order) ? order : undefined;
	} catch (error) {
		if (isServiceRejection(error, ERROR_CODES.orderNotFound)) return undefined;
		throw toNodeError(reader.node, error);
	}
}

interface FuturesListQuery {
	/** Open orders: optional (every contract). Past orders: required by the service. */
	symbol?: string;
	type: FuturesOrderType;
	fromOrderId?: string;
	startTime?: number;
	itemIndex?: number;
	urgent?: boolean;
	/** Pages at most (default: until a short page). */
	maxPages?: number;
	/** Called with each page; true: what was sought is found, stop paging. */
	onPage?: (orders: IDataObject[]) => boolean;
}

interface FuturesOrderList {
	orders: IDataObject[];
	complete: boolean;
}

function isBelow(a: string, b: string): boolean {
	return a.length !== b.length ? a.length < b.length : a < b;
}

async function listPages(
	reader: FuturesOrderReader,
	endpoint: Endpoint,
	query: FuturesListQuery,
): Promise<FuturesOrderList> {
	const { symbol, type, startTime, itemIndex, urgent, maxPages = Infinity, onPage } = query;
	const orders: IDataObject[] = [];
	let from = query.fromOrderId;
	for (let page = 0; page < maxPages; page++) {
		const qs: IDataObject = {
			...(symbol === undefined ? {} : { symbol }),
			type,
			...(from === undefined ? {} : { fromOrderId: from }),
			...(startTime === undefined ? {} : { startTime }),
			limit: FUTURES_ORDERS_PAGE,
		};
		const answer = (await reader.client.request(endpoint, {
			qs,
			itemIndex,
			...(urgent ? { urgent } : {}),
		})) as IDataObject[];
		// An order of another contract is listed only if the service ignored the filter: never used.
		const listed = answer.filter((order) => symbol === undefined || order.symbol === symbol);
		orders.push(...listed);
		const enough = onPage?.(listed) ?? false;
		if (answer.length < FUTURES_ORDERS_PAGE) return { orders, complete: true };
		if (enough) break;
		const smallest = answer
			.map((order) => String(order.orderId))
			.reduce((least, id) => (isBelow(id, least) ? id : least));
		// A page that does not go down cannot be paged on.
		if (from !== undefined && !isBelow(smallest, from)) break;
		from = smallest;
	}
	return { orders, complete: false };
}

export function listOpenFuturesOrders(
	reader: FuturesOrderReader,
	query: FuturesListQuery,
): Promise<FuturesOrderList> {
	return listPages(reader, FUTURES_ENDPOINTS.openOrders, query);
}

export function listPastFuturesOrders(
	reader: FuturesOrderReader,
	query: FuturesListQuery & { symbol: string },
): Promise<FuturesOrderList> {
	return listPages(reader, FUTURES_ENDPOINTS.historyOrders, query);
}

/** Open orders of both types: the exchange lists each type on its own. */
export async function listAllOpenFuturesOrders(
	reader: FuturesOrderReader,
	query: Omit<FuturesListQuery, 'type'>,
): Promise<FuturesOrderList> {
	const orders: IDataObject[] = [];
	let complete = true;
	let read = 0;
	let found = false;
	const onPage = query.onPage && ((page: IDataObject[]) => (found = query.onPage!(page)));
	for (const type of FUTURES_ORDER_TYPES) {
		const listed = await listOpenFuturesOrders(reader, { ...query, type, onPage });
		orders.push(...listed.orders);
		complete &&= listed.complete;
		read++;
		if (!listed.complete || found) break;
	}
	return { orders, complete: complete && read === FUTURES_ORDER_TYPES.length };
}

/** Account type 3 not labelled as a sub account's, as the futures triggers go by. */
/** Without a futures account of its own, a cancel finding nothing must not read as done. */
export async function requireOwnFuturesAccount(
	run: { readonly node: INode; keyAccounts(itemIndex: number): Promise<IDataObject[]> },
	what: string,
	itemIndex: number,
): Promise<void> {
	// The triggers' rule: one futures (type 3) account that is not a sub account's.
	if (contractAccountOf(await run.keyAccounts(itemIndex)) !== undefined) return;
	const name = run.node.credentials?.tradingServiceApi?.name;
	const credential = name ? `the credential "${name}"` : 'this credential';
	throw new NodeOperationError(run.node, 'This API key has no futures account of its own', {
		description: `${what} acts on the API key's own futures account (account type 3), and the exchange lists none for the key of ${credential} (a sub account's key has none). Nothing was sent. Use a credential with the main account's API key.`,
		itemIndex,
	});
}

/** The open order a triggered stop placed under its client order ID; undefined when not one. */
export async function findTriggeredOrder(
	reader: FuturesOrderReader,
	stop: IDataObject,
	itemIndex?: number,
): Promise<IDataObject | undefined> {
	const id = stop.clientOrderId;
	if (typeof id !== 'string' || id === '' || typeof stop.symbol !== 'string') return undefined;
	const holds = (order: IDataObject) => order.clientOrderId === id;
	const { orders } = await listOpenFuturesOrders(reader, {
		symbol: stop.symbol,
		type: 'LIMIT',
		itemIndex,
		urgent: true,
		onPage: (page) => page.some(holds),
	});
	const holding = orders.filter(holds);
	return holding.length === 1 ? holding[0] : undefined;
}
