import { sleep, type IDataObject } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { inScope } from '../helpers/accountScope';
import { type Endpoint } from '../transport';
import type { EngineSession, PendingWrite, Verdict } from '../writes/engine';
import type { LookupEntry } from '../writes/writeKind';
import { confirmFound, explainFound } from './cancelLookups';
import type { OrderReference } from './orderIds';
import { judgeFound } from './orderLookups';
import type { OrderParams } from './orderRules';
import { ORDER_ENDPOINTS } from './endpoints';

// Many orders or cancels whose outcome is unknown, settled from the account's order lists instead
// of one query each (writes/lookups.ts gathers them; docs/safety.md): cost grows with pages, not
// orders. What the lists cannot show (a page limit reached, a list unread) is looked up one by one.

/** Orders of one symbol at or under this count are looked up one by one: two list reads cost more. */
const SINGLE_LOOKUPS_UP_TO = 3;
/** Pages read of each list at most; beyond them, what is not found is looked up one by one. */
const MAX_PAGES = 3;
/** Past orders are listed from this long before the first attempt (see listSymbol). */
const CLOCK_STEP_MARGIN_MS = 60_000;

/** Whether order ID `a` is below `b` (decimal digits, up to 20: compared as numbers). */
function isBelow(a: string, b: string): boolean {
	return a.length !== b.length ? a.length < b.length : a < b;
}

/**
 * One order list of one account (`qs` names it, `accountId` included), page by page, newest first:
 * each next page from the smallest order ID seen (`fromOrderId`: smaller IDs, docs/api.md §4.7),
 * until a page is short (`complete`: read to its end), `onPage` says what it sought was found, or
 * MAX_PAGES. Another account's order, were the service to list one, is dropped.
 */
async function readOrderList(
	run: EngineSession,
	endpoint: Endpoint,
	qs: IDataObject,
	itemIndex: number,
	onPage: (orders: IDataObject[]) => boolean,
): Promise<{ orders: IDataObject[]; complete: boolean }> {
	const orders: IDataObject[] = [];
	let from = qs.fromOrderId as string | undefined;
	for (let page = 0; page < MAX_PAGES; page++) {
		const below = from === undefined ? {} : { fromOrderId: from };
		const answer = (await run.client.request(endpoint, {
			qs: { ...qs, ...below, limit: LIMITS.ordersPageSize },
			itemIndex,
			urgent: true,
		})) as IDataObject[];
		const scope = { accountId: String(qs.accountId), shared: true };
		const ofAccount = answer.filter((order) => inScope(scope, order));
		orders.push(...ofAccount);
		const enough = onPage(ofAccount);
		if (answer.length < LIMITS.ordersPageSize) return { orders, complete: true };
		if (enough) break;
		const ids = answer.map((order) => String(order.orderId));
		const smallest = ids.reduce((least, id) => (isBelow(id, least) ? id : least));
		// A page that does not go down cannot be paged on.
		if (from !== undefined && !isBelow(smallest, from)) break;
		from = smallest;
	}
	return { orders, complete: false };
}

// Orders: a page of open orders and, for what it does not show, a page of the symbol's orders
// since the first attempt, matched by client order ID in the account the orders were placed in.

type PendingOrder = PendingWrite<{ order: OrderParams }>;

/** The orders holding each sought client order ID, newest first, and whether both lists were read to their end. */
async function listSymbol(
	run: EngineSession,
	accountId: string,
	symbol: string,
	pending: PendingOrder[],
): Promise<{ byId: Map<string, IDataObject[]>; complete: boolean }> {
	const sought = new Set(pending.map(({ write }) => write.order.newClientOrderId as string));
	const byId = new Map<string, IDataObject[]>();
	const allFound = () => [...sought].every((id) => byId.has(id));
	const onPage = (orders: IDataObject[]) => {
		for (const order of orders) {
			const id = order.clientOrderId;
			if (typeof id === 'string' && sought.has(id)) byId.set(id, [...(byId.get(id) ?? []), order]);
		}
		return allFound();
	};
	const read = (endpoint: Endpoint, qs: IDataObject) =>
		readOrderList(run, endpoint, qs, pending[0].itemIndex, onPage);
	// Open orders first: an order that ends between the two reads is in the first.
	const open = await read(ORDER_ENDPOINTS.openOrders, { symbol, accountId });
	if (allFound()) return { byId, complete: true };
	// The service stamps an order it accepted at or after the request's timestamp minus its 1 s
	// tolerance for clocks ahead, and the first attempt was signed after firstSentAt; a minute more
	// for a clock stepped in between costs a few orders more on the page.
	const firstSentAt = Math.min(...pending.map(({ window }) => window.firstSentAt ?? 0));
	const since = firstSentAt - LIMITS.futureToleranceMs - CLOCK_STEP_MARGIN_MS;
	const past = await read(ORDER_ENDPOINTS.tradeOrders, { symbol, accountId, startTime: since });
	return { byId, complete: open.complete && past.complete };
}

/** The verdict of the orders found under an order's client order ID: this order if any is. */
function judgeAll(pending: PendingOrder, found: IDataObject[]): Verdict {
	const verdicts = found.map((order) =>
		judgeFound(pending.write.order, order, pending.window, false),
	);
	return verdicts.find((verdict) => verdict.kind === 'placed') ?? verdicts[0];
}

/**
 * The orders of one symbol and account: found, judged as a single lookup judges; not found in lists
 * read to their end, listed again once no attempt can be accepted any more, and then unknown (not
 * found never proves not placed); else undefined, looked up on their own.
 */
async function settleSymbol(
	run: EngineSession,
	accountId: string,
	symbol: string,
	pending: PendingOrder[],
): Promise<Array<Verdict | undefined>> {
	const verdicts = new Map<PendingOrder, Verdict | undefined>();
	let missing = pending;
	for (let listing = 1; missing.length > 0; listing++) {
		const startedAt = Date.now();
		const listed = await listSymbol(run, accountId, symbol, missing).catch(() => undefined);
		if (listed === undefined) break; // what the lists did not settle is looked up on its own
		const notFound: PendingOrder[] = [];
		for (const one of missing) {
			const found = listed.byId.get(one.write.order.newClientOrderId as string);
			if (found !== undefined) verdicts.set(one, judgeAll(one, found));
			else if (listed.complete) notFound.push(one);
		}
		const acceptableUntil = (one: PendingOrder) =>
			one.window.acceptableUntil ?? startedAt + LIMITS.maxRecvWindowMs + LIMITS.futureToleranceMs;
		missing = [];
		for (const one of notFound) {
			if (listing > 1 || startedAt >= acceptableUntil(one)) {
				const id = one.write.order.newClientOrderId as string;
				verdicts.set(one, {
					kind: 'unknown',
					reason: `no order with client order ID ${id} was found among the open and past ${symbol} orders, which does not prove it was not placed: the exchange may still create it after a timeout, so it was not sent again`,
				});
			} else missing.push(one);
		}
		// Not found while an attempt may still be accepted: listed again once none can.
		if (missing.length > 0) await sleep(Math.max(...missing.map(acceptableUntil)) - startedAt);
	}
	return pending.map((one) => verdicts.get(one));
}

/**
 * WriteKind.lookupMany of orders, by symbol and account; undefined for what the lists do not settle
 * (and for an order refused as a duplicate, or without a client order ID or a first attempt).
 */
export async function lookUpOrdersInLists(
	run: EngineSession,
	entries: Array<LookupEntry<{ order: OrderParams }>>,
): Promise<Array<Verdict | undefined>> {
	const bySymbol = new Map<string, number[]>();
	for (const [index, { pending, said }] of entries.entries()) {
		const { order } = pending.write;
		if (said !== undefined || order.newClientOrderId === undefined) continue;
		if (pending.window.firstSentAt === undefined) continue;
		bySymbol.set(order.symbol, [...(bySymbol.get(order.symbol) ?? []), index]);
	}
	const groups = new Map<string, { accountId: string; symbol: string; indexes: number[] }>();
	for (const [symbol, indexes] of bySymbol) {
		// A few are looked up one by one: no list, and no read of the key's accounts.
		if (indexes.length <= SINGLE_LOOKUPS_UP_TO) continue;
		for (const index of indexes) {
			const { accountId } = await run.account(entries[index].pending.itemIndex);
			const key = `${accountId} ${symbol}`;
			const group = groups.get(key) ?? { accountId, symbol, indexes: [] };
			group.indexes.push(index);
			groups.set(key, group);
		}
	}
	const verdicts: Array<Verdict | undefined> = entries.map(() => undefined);
	await Promise.all(
		[...groups.values()].map(async ({ accountId, symbol, indexes }) => {
			if (indexes.length <= SINGLE_LOOKUPS_UP_TO) return;
			const pending = indexes.map((index) => entries[index].pending);
			const found = await settleSymbol(run, accountId, symbol, pending);
			found.forEach((verdict, position) => (verdicts[indexes[position]] = verdict));
		}),
	);
	return verdicts;
}

// Cancels (a lost answer to 100 IDs, or 0211 for each ID without saying why): the account's open,
// then past orders from the largest order ID sought down, matched by order ID, each judged as a
// single lookup judges it (a lost run's check judges its own way). An order the lists do not show
// (another account's: an order ID names one order whichever account holds it; older than 90 days)
// is looked up on its own.

type CancelWrite = { reference: OrderReference; sendAs?: OrderReference };
type PendingCancel = PendingWrite<CancelWrite>;

/** The order ID a cancel names, when it names one (a client order ID is looked up on its own). */
function orderIdOf(pending: PendingCancel): string | undefined {
	const reference = pending.write.sendAs ?? pending.write.reference;
	return 'orderId' in reference ? reference.orderId : undefined;
}

/** The orders of one account holding the sought order IDs: open ones first, then past ones. */
async function listAccount(
	run: EngineSession,
	accountId: string,
	sought: Set<string>,
	itemIndex: number,
): Promise<Map<string, IDataObject>> {
	const found = new Map<string, IDataObject>();
	const onPage = (orders: IDataObject[]) => {
		for (const order of orders) {
			const id = String(order.orderId);
			if (sought.has(id) && !found.has(id)) found.set(id, order);
		}
		return found.size === sought.size;
	};
	const read = (endpoint: Endpoint, qs: IDataObject) =>
		readOrderList(run, endpoint, qs, itemIndex, onPage);
	await read(ORDER_ENDPOINTS.openOrders, { accountId });
	const left = [...sought].filter((id) => !found.has(id));
	if (left.length === 0) return found;
	// Past orders below the largest ID sought plus one (fromOrderId: smaller IDs only).
	const largest = left.reduce((most, id) => (BigInt(id) > BigInt(most) ? id : most));
	await read(ORDER_ENDPOINTS.tradeOrders, { accountId, fromOrderId: String(BigInt(largest) + 1n) });
	return found;
}

function findingOf(
	{ pending, said }: LookupEntry<CancelWrite>,
	order: IDataObject,
	listedAt: number,
	listing: number,
): Verdict | { again: number } {
	if (said !== undefined) return explainFound(order, said);
	const finding = confirmFound(order, pending.window, listedAt);
	// Listed again once the cancel could no longer apply, and still open: it was not applied.
	return 'again' in finding && listing > 1 ? { kind: 'notDone' } : finding;
}

/** The cancels of one account from its lists: a verdict each, undefined where the lists cannot tell. */
async function settleAccount(
	run: EngineSession,
	accountId: string,
	entries: Array<LookupEntry<CancelWrite>>,
	judge: typeof findingOf,
): Promise<Array<Verdict | undefined>> {
	const verdicts = new Map<PendingCancel, Verdict>();
	let waiting = entries;
	for (let listing = 1; waiting.length > 0; listing++) {
		const listedAt = Date.now();
		const sought = new Set(waiting.map(({ pending }) => orderIdOf(pending) as string));
		const itemIndex = waiting[0].pending.itemIndex;
		const found = await listAccount(run, accountId, sought, itemIndex).catch(() => undefined);
		if (found === undefined) break; // what the lists did not settle is looked up on its own
		const again: typeof entries = [];
		let until = 0;
		for (const entry of waiting) {
			const order = found.get(orderIdOf(entry.pending) as string);
			if (order === undefined) continue;
			const finding = judge(entry, order, listedAt, listing);
			if ('again' in finding) {
				again.push(entry);
				until = Math.max(until, finding.again);
			} else verdicts.set(entry.pending, finding);
		}
		waiting = again;
		if (waiting.length > 0) await sleep(until - listedAt);
	}
	return entries.map(({ pending }) => verdicts.get(pending));
}

/** WriteKind.lookupMany of cancels, by the account of their item; undefined for what the lists do not settle. */
export async function lookUpCancelsInLists(
	run: EngineSession,
	entries: Array<LookupEntry<CancelWrite>>,
	judge: typeof findingOf = findingOf,
): Promise<Array<Verdict | undefined>> {
	const byId = [...entries.keys()].filter((index) => orderIdOf(entries[index].pending));
	// A few are looked up one by one: no list, and no read of the key's accounts.
	if (byId.length <= SINGLE_LOOKUPS_UP_TO) return entries.map(() => undefined);
	const groups = new Map<string, number[]>();
	for (const index of byId) {
		const { accountId } = await run.account(entries[index].pending.itemIndex);
		groups.set(accountId, [...(groups.get(accountId) ?? []), index]);
	}
	const verdicts: Array<Verdict | undefined> = entries.map(() => undefined);
	await Promise.all(
		[...groups].map(async ([accountId, indexes]) => {
			if (indexes.length <= SINGLE_LOOKUPS_UP_TO) return;
			const ofAccount = indexes.map((index) => entries[index]);
			const found = await settleAccount(run, accountId, ofAccount, judge);
			found.forEach((verdict, position) => (verdicts[indexes[position]] = verdict));
		}),
	);
	return verdicts;
}
