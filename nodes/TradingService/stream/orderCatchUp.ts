import type { IDataObject, INode } from 'n8n-workflow';

import { ACCOUNT_ENDPOINTS } from '../account/endpoints';
import { ERROR_CODES, LIMITS } from '../constants';
import { inScope, type AccountScope } from '../helpers/accountScope';
import { TradesWalk, compareTradeIds } from '../helpers/trades';
import { ORDER_ENDPOINTS } from '../orders/endpoints';
import { isServiceRejection, type ServiceClient } from '../transport';
import type { SessionClock } from './activation';
import { exchangeTime, text } from './events';
import { orderEventsOf, type OrderEvents, type OrderRecord } from './restOrders';

/**
 * The orders of an outage, read in bulk, list by list and page by page, in the order docs/trigger.md
 * ("No gaps, no repeats") gives. Every request names the followed account (`accountId`), and a
 * record of another account is dropped.
 */

/** What the reads need: the client, n8n's clock (each page's send time) and the account. */
type ListReader = { client: ServiceClient; clock: SessionClock; scope: AccountScope };

/** Most pages of open orders one catch-up reads: 10,000 orders. */
const MAX_OPEN_PAGES = 10;
/** Most pages of past orders one catch-up reads below its range, for orders older than it. */
const MAX_OLDER_PAGES = 10;
/** Most orders one catch-up looks up by ID, LOOKUPS_AT_ONCE at a time. */
export const MAX_LOOKUPS = 20;
const LOOKUPS_AT_ONCE = 4;

const NOT_FOUND_CODES = [ERROR_CODES.orderNotFound, ERROR_CODES.orderDoesNotExist];

export interface OrderCatchUp extends OrderEvents {
	/** Orders the lookups could not read, with their symbols: tried again next time. */
	missing: Array<{ orderId: string; symbol: string; reason: string }>;
	/** Orders left for the next catch-up, beyond MAX_LOOKUPS (order ID → symbol). */
	postponed: Map<string, string>;
	/** Orders last seen open that the exchange says do not exist (or are another account's). */
	gone: string[];
	/** The newest trade ID read, when every fill read became events: the next catch-up reads above it. */
	tradeMark?: string;
}

/**
 * The orders read, one record per order. An order can be read twice (open, then past, when it
 * ended between the two reads): the record the exchange updated last is kept, then the later read.
 */
class OrderRecords {
	private readonly byId = new Map<string, OrderRecord>();

	add(order: IDataObject, sentAt: number): void {
		const orderId = text(order.orderId);
		if (orderId === undefined) return;
		const before = this.byId.get(orderId);
		if (before === undefined || isLater({ order, sentAt }, before))
			this.byId.set(orderId, { order, sentAt });
	}

	has(orderId: string): boolean {
		return this.byId.has(orderId);
	}

	entries(): IterableIterator<[string, OrderRecord]> {
		return this.byId.entries();
	}
}

/** Whether `record` shows a later state of its order than `other`: its update time, else its read. */
function isLater(record: OrderRecord, other: OrderRecord): boolean {
	const is = exchangeTime(record.order.updateTime);
	const was = exchangeTime(other.order.updateTime);
	if (is !== undefined && was !== undefined && is !== was) return is > was;
	return record.sentAt >= other.sentAt;
}

/** The smallest order ID of a page, or undefined for an empty one. */
function smallestId(page: IDataObject[]): string | undefined {
	let smallest: string | undefined;
	for (const order of page) {
		const orderId = text(order.orderId);
		if (orderId !== undefined && (smallest === undefined || compareTradeIds(orderId, smallest) < 0))
			smallest = orderId;
	}
	return smallest;
}

/** One page of an order list, every record kept with the page's send time. */
async function orderPage(
	{ client, clock, scope }: ListReader,
	endpoint: 'openOrders' | 'tradeOrders',
	qs: IDataObject,
	records: OrderRecords,
): Promise<IDataObject[]> {
	const sentAt = clock.now();
	const page = (await client.request(ORDER_ENDPOINTS[endpoint], {
		qs: { ...qs, limit: LIMITS.ordersPageSize, accountId: scope.accountId },
	})) as IDataObject[];
	for (const order of page) if (inScope(scope, order)) records.add(order, sentAt);
	return page;
}

/**
 * An order list's pages, newest first, each below the smallest order ID of the one before
 * (`fromOrderId`; one account named, so its last ID continues it, docs/api.md §4.7).
 */
async function pagesBelow(
	read: (qs: IDataObject) => Promise<IDataObject[]>,
	qs: IDataObject,
	maxPages = Number.POSITIVE_INFINITY,
): Promise<void> {
	let below: string | undefined;
	for (let pages = 0; pages < maxPages; pages++) {
		const page = await read(below === undefined ? qs : { ...qs, fromOrderId: below });
		const smallest = smallestId(page);
		if (page.length < LIMITS.ordersPageSize || smallest === undefined || smallest === below) return;
		below = smallest;
	}
}

/**
 * The past orders a catch-up needs. The list's time filter is taken for the creation time (docs/
 * api.md §4.8), so the walk reads every order created since the start (readRecent), then, for older
 * orders it is asked for, pages on below the smallest ID read, without a start (readOlder).
 */
class PastOrdersWalk {
	/** The smallest order ID read: every past order above it was in a page. */
	private floor?: string;
	/** Whether the older pages reached the end of the list (90 days back). */
	private exhausted = false;
	private olderPages = 0;

	constructor(
		private readonly reader: ListReader,
		private readonly records: OrderRecords,
		private readonly since: number,
	) {}

	async readRecent(): Promise<void> {
		await pagesBelow((qs) => this.page(qs), { startTime: this.since });
	}

	/**
	 * Pages below what was read until each of `wanted` is read or could only be above the floor
	 * (not a past order), the list ends, or MAX_OLDER_PAGES are read.
	 */
	async readOlder(wanted: Iterable<string>): Promise<void> {
		const ids = [...wanted];
		const below = (orderId: string) => !this.records.has(orderId) && this.belowFloor(orderId);
		while (!this.exhausted && this.olderPages < MAX_OLDER_PAGES && ids.some(below)) {
			const before = this.floor;
			const page = await this.page(before === undefined ? {} : { fromOrderId: before });
			this.olderPages++;
			if (page.length < LIMITS.ordersPageSize || this.floor === before) this.exhausted = true;
		}
	}

	private async page(qs: IDataObject): Promise<IDataObject[]> {
		const page = await orderPage(this.reader, 'tradeOrders', qs, this.records);
		const smallest = smallestId(page);
		if (smallest !== undefined && this.belowFloor(smallest)) this.floor = smallest;
		return page;
	}

	private belowFloor(orderId: string): boolean {
		return this.floor === undefined || compareTradeIds(orderId, this.floor) < 0;
	}
}

/**
 * The fills from `since` to `until`, above the trade ID `fromId` when one is known, paged backwards
 * with `toId` (helpers/trades.ts); and the newest trade ID among them (or the one read above).
 */
async function readFills(
	{ client, scope }: ListReader,
	node: INode,
	range: { since: number; until: number; fromId?: string },
): Promise<{ fills: IDataObject[]; newest?: string }> {
	const walk = new TradesWalk(node, { startTime: range.since, endTime: range.until });
	await client.requestAllPages(ACCOUNT_ENDPOINTS.trades, {
		next: () => {
			const request = walk.next();
			if (request === undefined) return undefined;
			const qs: IDataObject = { ...request.qs, accountId: scope.accountId };
			if (range.fromId !== undefined) qs.fromId = range.fromId;
			return { ...request, qs };
		},
		take: (page) => walk.take(page),
	});
	const fills = walk.trades.filter((trade) => inScope(scope, trade));
	let newest = range.fromId;
	for (const fill of fills) {
		const id = text(fill.id);
		if (id !== undefined && (newest === undefined || compareTradeIds(id, newest) > 0)) newest = id;
	}
	return { fills, newest };
}

/** Each of `wanted` (order ID → symbol) looked up by ID, LOOKUPS_AT_ONCE at a time. */
async function lookUpOrders(
	{ client, clock, scope }: ListReader,
	wanted: Map<string, string>,
	records: OrderRecords,
): Promise<Pick<OrderCatchUp, 'missing' | 'gone'>> {
	const missing: OrderCatchUp['missing'] = [];
	const gone: string[] = [];
	const queue = [...wanted.entries()];
	const lookUp = async (): Promise<void> => {
		for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
			const [orderId, symbol] = next;
			try {
				const sentAt = clock.now();
				const order = (await client.request(ORDER_ENDPOINTS.queryOrder, {
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
	await pagesBelow((qs) => orderPage(reader, 'openOrders', qs, records), {}, MAX_OPEN_PAGES);
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
