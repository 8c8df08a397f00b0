import type { IDataObject, INode } from 'n8n-workflow';

import { DAY_MS, ERROR_CODES, LIMITS } from '../constants';
import { inScope } from '../helpers/accountScope';
import { ENDPOINTS, isServiceRejection } from '../transport';
import { USER_STREAM } from './activation';
import { text } from './events';
import {
	OrderRecords,
	PastOrdersWalk,
	readFills,
	readOpenOrders,
	type ListReader,
} from './orderLists';
import { orderEventsOf, type OrderEvents } from './restOrders';

/**
 * The orders of what happened while the stream was not listening, read in bulk (orderLists.ts), in
 * this order, so that an order's record is read before its fills and a fill made between the two
 * reads is counted forward from it (restOrders.ts):
 * 1. the open orders;
 * 2. the past orders created since the start of the range, then, below them, as far as needed for
 *    the orders last seen open that neither list holds yet;
 * 3. the fills since the range's start, above the newest trade ID the last catch-up read;
 * 4. below the past orders read, as far as needed for orders with fills that no list held yet;
 * 5. one lookup by ID for each order still missing, at most MAX_LOOKUPS: orders older than the past
 *    orders' reach (90 days, or MAX_OLDER_PAGES), or placed during the catch-up (which the stream
 *    brings). The others are tried again at the next catch-up.
 * So a catch-up costs a request per page of each list, whatever the number of orders.
 */

/** Most orders one catch-up looks up by ID. */
export const MAX_LOOKUPS = 20;
/** Lookups in flight at once. */
const LOOKUPS_AT_ONCE = 4;

const NOT_FOUND_CODES = [ERROR_CODES.orderNotFound, ERROR_CODES.orderDoesNotExist];

/** An order that could not be read this time, with its symbol (to look for it again). */
export interface MissingOrder {
	orderId: string;
	symbol: string;
	reason: string;
}

export interface OrderCatchUp extends OrderEvents {
	/** Orders the lookups could not read: tried again next time. */
	missing: MissingOrder[];
	/** Orders left for the next catch-up, beyond MAX_LOOKUPS (order ID → symbol). */
	postponed: Map<string, string>;
	/** Orders last seen open that the exchange says do not exist (or are another account's). */
	gone: string[];
	/** The newest trade ID read, when every fill read became events: the next catch-up reads above it. */
	tradeMark?: string;
}

/** Where a catch-up starts: before the cursor by the overlap, within the fills' 30 days. */
export function catchUpStart(cursor: number, now: number): number {
	const oldestTrade = now - LIMITS.accountTradesRetentionDays * DAY_MS + LIMITS.maxRecvWindowMs;
	return Math.max(cursor - USER_STREAM.catchUpOverlapMs, oldestTrade);
}

/** Each of `wanted` (order ID → symbol) looked up by ID, LOOKUPS_AT_ONCE at a time. */
async function lookUpOrders(
	{ client, clock, scope }: ListReader,
	wanted: Map<string, string>,
	records: OrderRecords,
): Promise<Pick<OrderCatchUp, 'missing' | 'gone'>> {
	const missing: MissingOrder[] = [];
	const gone: string[] = [];
	const queue = [...wanted.entries()];
	const lookUp = async (): Promise<void> => {
		for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
			const [orderId, symbol] = next;
			try {
				const sentAt = clock.now();
				const order = (await client.request(ENDPOINTS.queryOrder, {
					qs: { orderId, accountId: scope.accountId },
				})) as IDataObject;
				if (inScope(scope, order)) records.add(order, sentAt);
				else gone.push(orderId);
			} catch (error) {
				// Asked by ID in its account: the exchange says it has no such order, so asking again
				// at every reconnect would only get the same answer.
				if (NOT_FOUND_CODES.some((code) => isServiceRejection(error, code))) gone.push(orderId);
				else missing.push({ orderId, symbol, reason: (error as Error).message });
			}
		}
	};
	await Promise.all(Array.from({ length: LOOKUPS_AT_ONCE }, lookUp));
	return { missing, gone };
}

/** The orders of `candidates` (order ID → symbol) that no read has shown yet. */
function notRead(candidates: Map<string, string>, records: OrderRecords): Map<string, string> {
	return new Map([...candidates].filter(([orderId]) => !records.has(orderId)));
}

/** The orders the fills are of, with their symbols. */
function ordersOfFills(fills: IDataObject[]): Map<string, string> {
	const orders = new Map<string, string>();
	for (const fill of fills) {
		const orderId = text(fill.orderId);
		const symbol = text(fill.symbol);
		if (orderId && symbol) orders.set(orderId, symbol);
	}
	return orders;
}

/**
 * The order events of the range from `since` to now. `open`: the orders last seen open (order ID →
 * symbol); `tradeMark`: the newest trade ID the last catch-up of this activation read, if any.
 */
export async function catchUpOrders(
	reader: ListReader,
	node: INode,
	range: { since: number; open: Record<string, string>; tradeMark?: string },
): Promise<OrderCatchUp> {
	const { since } = range;
	const records = new OrderRecords();
	await readOpenOrders(reader, records);
	const past = new PastOrdersWalk(reader, records, since);
	await past.readRecent();
	const lastSeenOpen = new Map(Object.entries(range.open));
	await past.readOlder(notRead(lastSeenOpen, records).keys());
	const until = reader.clock.now() + LIMITS.maxRecvWindowMs;
	const read = await readFills(reader, node, { since, until, fromId: range.tradeMark });
	const filled = ordersOfFills(read.fills);
	await past.readOlder(notRead(filled, records).keys());
	// Orders with fills first: their fills are lost if they are not read.
	const wanted = new Map([...notRead(filled, records), ...notRead(lastSeenOpen, records)]);
	const asked = new Map([...wanted].slice(0, MAX_LOOKUPS));
	const { missing, gone } = await lookUpOrders(reader, asked, records);
	const postponed = new Map([...wanted].slice(MAX_LOOKUPS));
	// A fill whose order could not be read must be read again: the mark stays where it was.
	const unread = [...missing.map(({ orderId }) => orderId), ...postponed.keys()];
	const complete = !unread.some((orderId) => filled.has(orderId));
	return {
		...orderEventsOf(read.fills, records, { since, lastSeenOpen: new Set(lastSeenOpen.keys()) }),
		missing,
		postponed,
		gone,
		tradeMark: complete ? read.newest : range.tradeMark,
	};
}
