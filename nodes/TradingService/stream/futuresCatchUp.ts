import type { IDataObject } from 'n8n-workflow';

import { ERROR_CODES } from '../constants';
import { FUTURES_ENDPOINTS } from '../futures/endpoints';
import { readContracts } from '../futures/contracts';
import { IdWalk, ORDERS_PAGING, TRADES_PAGING } from '../futures/idPages';
import { compareTradeIds } from '../helpers/trades';
import { isServiceRejection, type Endpoint } from '../transport';
import type { Activation } from './activation';
import type { Emitter } from './emitter';
import { exchangeTime, followsFutures, text } from './events';
import { futuresEventsOf, ordersToSettle, type FuturesRecord } from './futuresOrders';
import type { OrderEvents } from './restOrders';

/**
 * The futures order events (docs/trigger.md, "Futures orders"): the key's own futures account's
 * orders and fills of an outage, read in bulk, list by list and page by page, never order by order
 * but for a few old ones no list shows. The futures lists need a type (LIMIT or STOP) and, for
 * past orders and fills, a contract: a catch-up costs 2 open-order reads, 2 past-order reads and
 * one fill read per contract, more only when a list holds more than a page.
 */

/** Most entries one list is read for: 10 pages of 500 orders. */
const MAX_LIST_ENTRIES = 5000;
/** Most orders one catch-up looks up by ID (orders older than the range that no list shows). */
export const MAX_FUTURES_LOOKUPS = 20;
const LIST_TYPES = ['LIMIT', 'STOP'] as const;
const NOT_FOUND_CODES = [ERROR_CODES.orderNotFound, ERROR_CODES.orderDoesNotExist];

export interface FuturesCatchUp extends OrderEvents {
	/** Orders last seen open that the exchange says it does not have: no longer followed. */
	gone: string[];
	/** Orders left to the next catch-up (lookups failed or beyond MAX_FUTURES_LOOKUPS). */
	left: string[];
	/** Fills whose order the exchange says it does not have (0211): not emitted, logged. */
	unreadable: IDataObject[];
	/** Whether every fill's order was read or is unreadable: none is left to the next catch-up. */
	complete: boolean;
}

class FuturesRecords {
	readonly byId = new Map<string, FuturesRecord>();

	/** The later read of an order wins: an order read open, then past, ended in between. */
	add(order: IDataObject, list: FuturesRecord['list'], sentAt: number): void {
		const orderId = text(order.orderId);
		const before = orderId === undefined ? undefined : this.byId.get(orderId);
		if (orderId !== undefined && (before === undefined || before.sentAt <= sentAt))
			this.byId.set(orderId, { order, list, sentAt });
	}
}

/**
 * One list read page by page (futures/idPages.ts), every entry kept with its page's send time;
 * `stop` ends the walk after the page that holds an entry it matches.
 */
async function readList(
	{ client, clock, node }: Activation,
	endpoint: Endpoint,
	query: IDataObject,
	take: (entry: IDataObject, sentAt: number) => void,
	stop?: (entry: IDataObject, walk: IdWalk) => boolean,
): Promise<void> {
	const paging = endpoint === FUTURES_ENDPOINTS.userTrades ? TRADES_PAGING : ORDERS_PAGING;
	const wanted = paging === TRADES_PAGING ? undefined : MAX_LIST_ENTRIES;
	const walk = new IdWalk(node, paging, query, wanted);
	if (stop !== undefined) walk.until((entry) => stop(entry, walk));
	let sentAt = clock.now();
	await client.requestAllPages(endpoint, {
		next: () => {
			sentAt = clock.now();
			return walk.next();
		},
		take: (page) => {
			walk.take(page);
			for (const entry of page as IDataObject[]) take(entry, sentAt);
		},
	});
}

/** The contracts whose lists are read: every contract listed, and those of followed orders. */
async function contractsOf(activation: Activation, followed: Record<string, string>) {
	activation.futuresContracts ??= (await readContracts(activation.client)).map(
		(contract) => contract.symbol,
	);
	const symbols = new Set(activation.futuresContracts);
	for (const tag of Object.values(followed)) symbols.add(tag.split('|')[0]);
	return [...symbols];
}

/**
 * Past orders of one contract and type, newest first, down to the range's start and, below it, to
 * each followed order of the list not read yet (the list's time filter is the creation time, so an
 * order placed before the range that ended in it is below).
 */
function readPast(
	activation: Activation,
	records: FuturesRecords,
	query: { symbol: string; type: FuturesRecord['list'] },
	since: number,
	followed: string[],
): Promise<void> {
	const take = (order: IDataObject, sentAt: number) => records.add(order, query.type, sentAt);
	const stop = (entry: IDataObject, walk: IdWalk): boolean => {
		const orderId = text(entry.orderId) ?? '0';
		if ((exchangeTime(entry.time) ?? 0) >= since) return false;
		const read = new Set(walk.entries.map((order) => text(order.orderId)));
		return !followed.some((id) => !read.has(id) && compareTradeIds(id, orderId) < 0);
	};
	return readList(activation, FUTURES_ENDPOINTS.historyOrders, query, take, stop);
}

/** Each of `wanted` looked up by ID, four at a time: read, gone (not the account's), or left. */
async function lookUp(
	activation: Activation,
	wanted: string[],
	records: FuturesRecords,
): Promise<Pick<FuturesCatchUp, 'gone' | 'left'>> {
	const { client, clock, log } = activation;
	const gone: string[] = [];
	const left = wanted.slice(MAX_FUTURES_LOOKUPS);
	const queue = wanted.slice(0, MAX_FUTURES_LOOKUPS);
	const worker = async (): Promise<void> => {
		for (let orderId = queue.shift(); orderId !== undefined; orderId = queue.shift()) {
			try {
				const sentAt = clock.now();
				const order = (await client.request(FUTURES_ENDPOINTS.order, {
					qs: { orderId },
				})) as IDataObject;
				records.add(order, /STOP/i.test(text(order.orderType) ?? '') ? 'STOP' : 'LIMIT', sentAt);
			} catch (error) {
				if (NOT_FOUND_CODES.some((code) => isServiceRejection(error, code))) gone.push(orderId);
				else {
					left.push(orderId);
					log.warn(`futures order ${orderId} could not be read: ${(error as Error).message}`);
				}
			}
		}
	};
	await Promise.all([worker(), worker(), worker(), worker()]);
	return { gone, left };
}

/** Each of `orderIds` read again by ID, four at a time; a failed read fails the catch-up. */
async function readAgain(
	{ client }: Activation,
	orderIds: string[],
): Promise<Map<string, IDataObject>> {
	const read = new Map<string, IDataObject>();
	const queue = [...orderIds];
	const worker = async (): Promise<void> => {
		for (let orderId = queue.shift(); orderId !== undefined; orderId = queue.shift())
			read.set(
				orderId,
				(await client.request(FUTURES_ENDPOINTS.order, { qs: { orderId } })) as IDataObject,
			);
	};
	await Promise.all([worker(), worker(), worker(), worker()]);
	return read;
}

/** One read of the futures order events (readFuturesOrders). */
async function readOnce(
	activation: Activation,
	since: number,
	followed: Record<string, string>,
): Promise<FuturesCatchUp & { unsettled: string[] }> {
	const records = new FuturesRecords();
	const add = (type: FuturesRecord['list']) => (order: IDataObject, sentAt: number) =>
		records.add(order, type, sentAt);
	const open = FUTURES_ENDPOINTS.openOrders;
	await Promise.all(LIST_TYPES.map((type) => readList(activation, open, { type }, add(type))));
	const contracts = await contractsOf(activation, followed);
	const unread = (symbol: string, type: string) =>
		Object.entries(followed)
			.filter(([id, tag]) => tag === `${symbol}|${type}` && !records.byId.has(id))
			.map(([id]) => id);
	await Promise.all(
		contracts.flatMap((symbol) =>
			LIST_TYPES.map((type) =>
				readPast(activation, records, { symbol, type }, since, unread(symbol, type)),
			),
		),
	);
	const fills: IDataObject[] = [];
	const trades = FUTURES_ENDPOINTS.userTrades;
	await Promise.all(
		contracts.map((symbol) =>
			readList(activation, trades, { symbol, startTime: since }, (fill) => fills.push(fill)),
		),
	);
	const reread = await readAgain(activation, ordersToSettle(fills, records.byId, since));
	const ofFills = fills.map((fill) => text(fill.orderId)).filter((id) => id !== undefined);
	const wanted = [...new Set([...ofFills, ...Object.keys(followed)])].filter(
		(id) => !records.byId.has(id),
	);
	const looked = await lookUp(activation, wanted, records);
	const lastSeenOpen = new Set(Object.keys(followed));
	const ofNone = (fill: IDataObject) => !records.byId.has(text(fill.orderId) ?? '');
	const left = new Set(looked.left);
	return {
		...futuresEventsOf(fills, records.byId, { since, lastSeenOpen, reread }),
		gone: looked.gone.filter((id) => lastSeenOpen.has(id)),
		left: looked.left,
		unreadable: fills.filter((fill) => ofNone(fill) && !left.has(text(fill.orderId) ?? '')),
		complete: !fills.some((fill) => left.has(text(fill.orderId) ?? '')),
	};
}

/** Reads of a catch-up at most, while orders fill between an order's read and the fill list's. */
const MAX_READS = 3;

/**
 * The futures order events from `since` to now: open orders (both types), past orders (every
 * contract, both types), fills (every contract), then lookups for the orders of fills and the
 * followed orders no list showed. `followed`: order ID → "symbol|type", last seen open. Read again
 * while an order counted back from its filled quantity filled meanwhile (futuresOrders.ts).
 */
export async function readFuturesOrders(
	activation: Activation,
	since: number,
	followed: Record<string, string>,
): Promise<FuturesCatchUp> {
	for (let reads = 1; ; reads++) {
		const { unsettled, ...found } = await readOnce(activation, since, followed);
		if (unsettled.length === 0) return found;
		if (reads === MAX_READS)
			throw new Error(
				`futures order(s) ${unsettled.join(', ')} kept filling while the catch-up read them; it reads them again`,
			);
	}
}

/**
 * The futures baseline, when the state has none of this futures account's: the open orders
 * followed, the changes of the range before now remembered as seen, nothing emitted.
 */
export async function rememberFuturesOrders(
	activation: Activation,
	emitter: Emitter,
	since: number,
): Promise<void> {
	const { state, settings, contractAccount } = activation;
	if (!followsFutures(settings.kinds, true) || contractAccount === undefined) return;
	if (state.futuresAccount === contractAccount && state.futuresOpen !== undefined) return;
	state.futuresOpen = {};
	state.futuresAccount = contractAccount;
	state.futuresSince = since;
	delete state.futuresCursor;
	const found = await readFuturesOrders(activation, since, {});
	for (const change of [...found.unchanged, ...found.changes]) {
		emitter.remember({ channel: 'order', ...change });
		emitter.keep({ channel: 'order', ...change });
	}
}

/**
 * A catch-up's futures order events, handled like stream events: each emitted unless seen. Whether
 * it is complete: false when fills' orders were left, so that the next catch-up reads them again.
 */
export async function catchUpFuturesOrders(
	activation: Activation,
	emitter: Emitter,
	since: number,
): Promise<boolean> {
	const { state, settings, log } = activation;
	if (!followsFutures(settings.kinds, true) || state.futuresOpen === undefined) return true;
	// Orders before the baseline (futures events newly chosen in a workflow that ran) are not news.
	const from = Math.max(since, state.futuresSince ?? 0);
	const found = await readFuturesOrders(activation, from, state.futuresOpen);
	for (const orderId of found.gone) {
		delete state.futuresOpen[orderId];
		log.info(
			`futures order ${orderId}, last seen open, is not on the exchange; no longer followed`,
		);
	}
	for (const fill of found.unreadable)
		log.warn(
			`futures fill ${text(fill.tradeId) ?? ''} of order ${text(fill.orderId) ?? ''} not emitted: its order cannot be read (the exchange says it has no such order; the fill list does not say whether it filled the order or was a liquidation)`,
		);
	if (found.left.length > 0)
		log.warn(
			`futures order(s) no list shows were left for the next catch-up (it looks up ${MAX_FUTURES_LOOKUPS} at most; it reads their fills again): ${found.left.join(', ')}`,
		);
	for (const change of found.unchanged) emitter.keep({ channel: 'order', ...change });
	for (const change of found.changes) emitter.handle({ channel: 'order', ...change });
	return found.complete;
}
