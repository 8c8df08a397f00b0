import type { IDataObject, INode } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { inScope, type AccountScope } from '../helpers/accountScope';
import { TradesWalk, compareTradeIds } from '../helpers/trades';
import { ENDPOINTS, type ServiceClient } from '../transport';
import type { SessionClock } from './activation';
import { exchangeTime, text } from './events';

/**
 * The lists a catch-up reads, each page by page, so that what it costs grows with pages, not with
 * orders: the open orders, the past orders, and the fills. Every request names the followed account
 * (`accountId`), and a record of another account is dropped.
 */

/** What the reads need: the client, n8n's clock (each page's send time) and the account. */
export interface ListReader {
	client: ServiceClient;
	clock: SessionClock;
	scope: AccountScope;
}

/** One order as a list or a lookup gave it, and when its request was sent (n8n's clock). */
export interface OrderRecord {
	order: IDataObject;
	sentAt: number;
}

/** Most pages of open orders one catch-up reads: 10,000 orders. */
export const MAX_OPEN_PAGES = 10;
/** Most pages of past orders one catch-up reads below its range, for orders older than it. */
export const MAX_OLDER_PAGES = 10;

/**
 * The orders read, one record per order. An order can be read twice (open, then past, when it
 * ended between the two reads): the record the exchange updated last is kept, then the later read.
 */
export class OrderRecords {
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

	get(orderId: string): OrderRecord | undefined {
		return this.byId.get(orderId);
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
	const page = (await client.request(ENDPOINTS[endpoint], {
		qs: { ...qs, limit: LIMITS.ordersPageSize, accountId: scope.accountId },
	})) as IDataObject[];
	for (const order of page) if (inScope(scope, order)) records.add(order, sentAt);
	return page;
}

/**
 * Every open order (GET /api/v1/spot/openOrders), newest first, paged by `fromOrderId` (smaller
 * IDs; one account named, so its last ID continues it, docs/api.md §4.7), at most MAX_OPEN_PAGES.
 */
export async function readOpenOrders(reader: ListReader, records: OrderRecords): Promise<void> {
	let below: string | undefined;
	for (let pages = 0; pages < MAX_OPEN_PAGES; pages++) {
		const qs: IDataObject = below === undefined ? {} : { fromOrderId: below };
		const page = await orderPage(reader, 'openOrders', qs, records);
		const smallest = smallestId(page);
		if (page.length < LIMITS.ordersPageSize || smallest === undefined || smallest === below) return;
		below = smallest;
	}
}

/**
 * The past orders a catch-up needs (GET /api/v1/spot/tradeOrders: filled and cancelled orders of the
 * last 90 days), newest first, paged by `fromOrderId`. The list's time filter is the orders'
 * creation time (docs/api.md §4.8; the UAE documentation says only "Start Timestamp", and the
 * sandbox takes the strictest reading): an order placed before the start that ended after it is not
 * listed in the range. So the walk reads every order created since the start (readRecent), then,
 * for orders it is asked for that are older (last seen open, or filled while the stream was down),
 * pages on below the smallest ID read, without a start (readOlder), at most MAX_OLDER_PAGES.
 */
export class PastOrdersWalk {
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

	/** Every past order created since the start. */
	async readRecent(): Promise<void> {
		let below: string | undefined;
		for (;;) {
			const qs: IDataObject = { startTime: this.since };
			if (below !== undefined) qs.fromOrderId = below;
			const page = await this.page(qs);
			const smallest = smallestId(page);
			if (page.length < LIMITS.ordersPageSize || smallest === undefined || smallest === below)
				return;
			below = smallest;
		}
	}

	/**
	 * Pages below what was read until each of `wanted` is read or could only be above the floor
	 * (not a past order), the list ends, or MAX_OLDER_PAGES are read.
	 */
	async readOlder(wanted: Iterable<string>): Promise<void> {
		const ids = [...wanted];
		const below = (orderId: string) =>
			!this.records.has(orderId) &&
			(this.floor === undefined || compareTradeIds(orderId, this.floor) < 0);
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
		if (
			smallest !== undefined &&
			(this.floor === undefined || compareTradeIds(smallest, this.floor) < 0)
		)
			this.floor = smallest;
		return page;
	}
}

/** The fills a catch-up read, and the newest trade ID among them (or the one it read above). */
export interface FillsRead {
	fills: IDataObject[];
	newest?: string;
}

/**
 * The fills from `since` to `until` (GET /api/v1/account/trades), above the trade ID `fromId` when
 * one is known ("IDs bigger than fromId", UAE documentation): newest first, paged backwards with
 * `toId` (helpers/trades.ts), as the exchange lists the newest `limit` of a range, with `fromId` too.
 */
export async function readFills(
	{ client, scope }: ListReader,
	node: INode,
	range: { since: number; until: number; fromId?: string },
): Promise<FillsRead> {
	const walk = new TradesWalk(node, { startTime: range.since, endTime: range.until });
	await client.requestAllPages(ENDPOINTS.accountTrades, {
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
