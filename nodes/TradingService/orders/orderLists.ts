import { sleep, type IDataObject } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { inScope } from '../helpers/accountScope';
import { ENDPOINTS, type Endpoint } from '../transport';
import type { EngineRun } from '../writes/engine';
import type { PendingWrite, Verdict } from '../writes/pendingWrite';
import type { LookupEntry } from '../writes/writeKind';
import { judgeFound } from './orderLookups';
import type { OrderParams } from './orderRules';

/**
 * Many orders whose outcome is unknown, settled from the account's order lists instead of one
 * query each (writes/settling.ts gathers them): a page of open orders and, for what it does not
 * show, a page of the symbol's orders since the first attempt, matched by client order ID in the
 * account the orders were placed in. Cost grows with pages, not orders: 200 orders lost in 10
 * batches are one or two requests. What the lists cannot show (a page limit reached, a list that
 * cannot be read) is looked up one by one, as before.
 */

/** Orders of one symbol at or under this count are looked up one by one: two list reads cost more. */
export const SINGLE_LOOKUPS_UP_TO = 3;
/** Pages read of each list at most; beyond them, what is not found is looked up one by one. */
const MAX_PAGES = 3;
/** Past orders are listed from this long before the first attempt (see listSymbol). */
const CLOCK_STEP_MARGIN_MS = 60_000;

/** What reading one list found: its orders (of the account only), and whether it was read to its end. */
export interface ListRead {
	orders: IDataObject[];
	complete: boolean;
}

/** Whether order ID `a` is below `b` (decimal digits, up to 20: compared as numbers). */
function below(a: string, b: string): boolean {
	return a.length !== b.length ? a.length < b.length : a < b;
}

/**
 * Reads one order list of one account (`qs` names it, `accountId` included) page by page, newest
 * first: each next page from the smallest order ID seen (`fromOrderId`: smaller IDs, docs/api.md
 * §4.7), until a page is short (the list is read to its end), `onPage` says what it sought was
 * found, or MAX_PAGES. Another account's order, were the service to list one, is dropped.
 */
export async function readOrderList(
	run: EngineRun,
	endpoint: Endpoint,
	qs: IDataObject,
	itemIndex: number,
	onPage: (orders: IDataObject[]) => boolean,
): Promise<ListRead> {
	const orders: IDataObject[] = [];
	let from = qs.fromOrderId as string | undefined;
	for (let page = 0; page < MAX_PAGES; page++) {
		const answer = (await run.client.request(endpoint, {
			qs: {
				...qs,
				...(from === undefined ? {} : { fromOrderId: from }),
				limit: LIMITS.ordersPageSize,
			},
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
		const smallest = ids.reduce((least, id) => (below(id, least) ? id : least));
		// A page that does not go down cannot be paged on.
		if (from !== undefined && !below(smallest, from)) break;
		from = smallest;
	}
	return { orders, complete: false };
}

type PendingOrder = PendingWrite<{ order: OrderParams }>;

/** The orders holding each sought client order ID, newest first, and whether both lists were read to their end. */
async function listSymbol(
	run: EngineRun,
	accountId: string,
	symbol: string,
	pending: PendingOrder[],
): Promise<{ byId: Map<string, IDataObject[]>; complete: boolean }> {
	const sought = new Set(pending.map(({ write }) => write.order.newClientOrderId as string));
	const byId = new Map<string, IDataObject[]>();
	const take = (orders: IDataObject[]) => {
		for (const order of orders) {
			const id = order.clientOrderId;
			if (typeof id === 'string' && sought.has(id)) byId.set(id, [...(byId.get(id) ?? []), order]);
		}
	};
	const allFound = () => [...sought].every((id) => byId.has(id));
	const itemIndex = pending[0].itemIndex;
	const onPage = (orders: IDataObject[]) => {
		take(orders);
		return allFound();
	};
	// Open orders first: an order that ends between the two reads is in the first.
	const open = await readOrderList(
		run,
		ENDPOINTS.openOrders,
		{ symbol, accountId },
		itemIndex,
		onPage,
	);
	if (allFound()) return { byId, complete: true };
	// The service stamps an order it accepted at or after the request's timestamp minus its 1 s
	// tolerance for clocks ahead, and the first attempt was signed after firstSentAt; a minute more
	// for a clock stepped in between costs a few orders more on the page.
	const since =
		Math.min(...pending.map(({ window }) => window.firstSentAt ?? 0)) -
		LIMITS.futureToleranceMs -
		CLOCK_STEP_MARGIN_MS;
	const past = await readOrderList(
		run,
		ENDPOINTS.tradeOrders,
		{ symbol, accountId, startTime: since },
		itemIndex,
		onPage,
	);
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
 * The orders of one symbol and account, from the lists: found, judged as a single lookup judges
 * (orderLookups.ts judgeFound); not found in lists read to their end, listed again once no attempt
 * can be accepted any more, and then unknown (not found never proves not placed, docs/safety.md);
 * not found in lists not read to their end: undefined, looked up on their own.
 */
async function settleSymbol(
	run: EngineRun,
	accountId: string,
	symbol: string,
	pending: PendingOrder[],
): Promise<Array<Verdict | undefined>> {
	const verdicts = new Map<PendingOrder, Verdict | undefined>();
	let missing = pending;
	for (let listing = 1; missing.length > 0; listing++) {
		const startedAt = Date.now();
		let listed: Awaited<ReturnType<typeof listSymbol>>;
		try {
			listed = await listSymbol(run, accountId, symbol, missing);
		} catch {
			break; // the lists cannot be read: what they did not settle is looked up on its own
		}
		const { byId, complete } = listed;
		const notFound: PendingOrder[] = [];
		for (const one of missing) {
			const found = byId.get(one.write.order.newClientOrderId as string);
			if (found !== undefined) verdicts.set(one, judgeAll(one, found));
			else if (complete) notFound.push(one);
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
 * WriteKind.lookupMany of orders: the gathered orders by symbol and account, each group of more
 * than SINGLE_LOOKUPS_UP_TO from the lists; undefined for what the lists do not settle (and for
 * an order refused as a duplicate, or without a client order ID or a first attempt to date it by).
 */
export async function lookUpOrdersInLists(
	run: EngineRun,
	entries: Array<LookupEntry<{ order: OrderParams }>>,
): Promise<Array<Verdict | undefined>> {
	const verdicts: Array<Verdict | undefined> = entries.map(() => undefined);
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
	await Promise.all(
		[...groups.values()].map(async ({ accountId, symbol, indexes }) => {
			if (indexes.length <= SINGLE_LOOKUPS_UP_TO) return;
			const found = await settleSymbol(
				run,
				accountId,
				symbol,
				indexes.map((index) => entries[index].pending),
			);
			found.forEach((verdict, position) => (verdicts[indexes[position]] = verdict));
		}),
	);
	return verdicts;
}
