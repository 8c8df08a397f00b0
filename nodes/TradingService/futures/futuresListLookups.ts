import { sleep, type IDataObject } from 'n8n-workflow';

import { DAY_MS, LIMITS } from '../constants';
import type { LookupEntry, Verdict } from '../writes/writeKind';
import { LOST_RUN_CLOCK_MARGIN_MS, type LostRun } from '../writes/writeSession';
import {
	futuresOrderType,
	listOpenFuturesOrders,
	listPastFuturesOrders,
	type FuturesOrderReader,
	type FuturesOrderType,
} from './futuresOrderFind';
import {
	matchesSentFuturesOrder,
	type FuturesOrderWrite,
	type KeyHolder,
	type PendingFuturesOrder,
} from './futuresOrderLookups';

// Many futures orders settled from the order lists (docs/safety.md "Futures: the same rules as spot").
// An ID is unique only among OPEN orders and a triggered stop reuses its ID: an order is only ever
// judged against orders of its own contract and type.

/** LIMIT-list orders of one contract at or under this count are looked up one by one: lists cost more. */
const SINGLE_LOOKUPS_UP_TO = 3;
/** Pages read of each list at most; beyond them, what is not settled is looked up one by one. */
const MAX_PAGES = 3;
/** Past orders are read from this long before the earliest first attempt: a clock stepped meanwhile. */
const CLOCK_STEP_MARGIN_MS = 60_000;

/** Client order ID → the orders listed under it, one per order ID (the later read wins). */
type Found = Map<string, IDataObject[]>;

interface ListAt {
	reader: FuturesOrderReader;
	base: { itemIndex: number; urgent: boolean; maxPages: number };
}

const idOf = (one: PendingFuturesOrder) => one.write.order.clientOrderId as string;

const listTypeOf = ({ order }: FuturesOrderWrite): FuturesOrderType =>
	order.type === 'STOP' ? 'STOP' : 'LIMIT';

function gather(found: Found, sought: Set<string>, orders: IDataObject[]): void {
	for (const order of orders) {
		const id = order.clientOrderId;
		if (typeof id !== 'string' || !sought.has(id)) continue;
		const others = (found.get(id) ?? []).filter((one) => one.orderId !== order.orderId);
		found.set(id, [...others, order]);
	}
}

/** Until each sought ID is found (one open order holds an ID at most). True: nothing sought unread. */
async function readOpen(
	at: ListAt,
	type: FuturesOrderType,
	symbol: string | undefined,
	sought: Set<string>,
	found: Found,
): Promise<boolean> {
	const all = () => [...sought].every((id) => found.has(id));
	const onPage = (orders: IDataObject[]) => (gather(found, sought, orders), all());
	const list = await listOpenFuturesOrders(at.reader, { ...at.base, symbol, type, onPage });
	return list.complete || all();
}

/** Paging stops at an order older than `since` too, were the service to ignore startTime. */
async function readPast(
	at: ListAt,
	symbol: string,
	type: FuturesOrderType,
	since: number,
	sought: Set<string>,
	found: Found,
	newestOnly: boolean,
): Promise<boolean> {
	let reached = false;
	const all = () => [...sought].every((id) => found.has(id));
	const onPage = (orders: IDataObject[]) => {
		gather(found, sought, orders);
		reached ||= orders.some((order) => Number(order.time) < since);
		return reached || (newestOnly && all());
	};
	const query = { ...at.base, symbol, type, startTime: since, onPage };
	const list = await listPastFuturesOrders(at.reader, query);
	return list.complete || reached || (newestOnly && all());
}

function ofWrite(found: Found, one: PendingFuturesOrder): IDataObject[] {
	const { symbol } = one.write.order;
	const type = listTypeOf(one.write);
	return (found.get(idOf(one)) ?? [])
		.filter((order) => order.symbol === symbol && futuresOrderType(order) === type)
		.sort((a, b) => Number(b.time) - Number(a.time));
}

/** STOP orders are never left out: a GET by client order ID names a triggered stop's own order. */
function byContractAndType(pending: PendingFuturesOrder[]): PendingFuturesOrder[][] {
	const groups = new Map<string, PendingFuturesOrder[]>();
	for (const one of pending) {
		const key = `${one.write.order.symbol} ${listTypeOf(one.write)}`;
		groups.set(key, [...(groups.get(key) ?? []), one]);
	}
	return [...groups.values()].filter(
		(group) => group.length > SINGLE_LOOKUPS_UP_TO || listTypeOf(group[0].write) === 'STOP',
	);
}

/** What the lists say of one order: a verdict, not found (lists read to their end), or cannot tell. */
function judgeListed(
	one: PendingFuturesOrder,
	found: Found,
	complete: boolean,
): Verdict | 'notFound' | undefined {
	const id = idOf(one);
	const orders = ofWrite(found, one);
	if (orders.some((order) => !Number.isFinite(Number(order.time)))) return undefined;
	// The exchange cannot stamp an order of this write before its first attempt less its tolerance
	// for clocks ahead (judgeFound's rule): an order older than that reused the ID, it is not this one.
	const since = (one.window.firstSentAt as number) - LIMITS.futureToleranceMs;
	const recent = orders.filter((order) => Number(order.time) > since);
	const same = recent.filter((order) => matchesSentFuturesOrder(one.write, order));
	if (same.length === 1) return { kind: 'placed', result: same[0] };
	const named = recent
		.map((order) => `${String(order.orderId)} (${String(order.status)})`)
		.join(', ');
	if (recent.length > 0)
		return {
			kind: 'unknown',
			reason:
				same.length > 1
					? `the futures orders ${named} were all created under client order ID ${id} since its first attempt, each as this order: which one it placed cannot be told`
					: `the futures orders created under client order ID ${id} since its first attempt, ${named}, have other values than this order, so whether this one was placed cannot be told`,
		};
	return complete ? 'notFound' : undefined;
}

/** Throws when a list cannot be read. */
async function listAndJudge(
	reader: FuturesOrderReader,
	group: PendingFuturesOrder[],
): Promise<Array<Verdict | 'notFound' | undefined>> {
	const { symbol } = group[0].write.order;
	const type = listTypeOf(group[0].write);
	const at = { reader, base: { itemIndex: group[0].itemIndex, urgent: true, maxPages: MAX_PAGES } };
	const sought = new Set(group.map(idOf));
	const found: Found = new Map();
	// Open orders first: an order that ends between the two reads is in both, the later kept.
	const openRead = await readOpen(at, type, symbol, sought, found);
	const firstSentAt = Math.min(...group.map(({ window }) => window.firstSentAt as number));
	const since = firstSentAt - LIMITS.futureToleranceMs - CLOCK_STEP_MARGIN_MS;
	const pastRead = await readPast(at, symbol, type, since, sought, found, false);
	return group.map((one) => judgeListed(one, found, openRead && pastRead));
}

/** Not found never proves not placed: listed again once no attempt can be accepted, then unknown. */
async function settleGroup(
	reader: FuturesOrderReader,
	group: PendingFuturesOrder[],
): Promise<Array<Verdict | undefined>> {
	const verdicts = new Map<PendingFuturesOrder, Verdict | undefined>();
	let missing = group;
	for (let listing = 1; missing.length > 0; listing++) {
		const startedAt = Date.now();
		const listed = await listAndJudge(reader, missing).catch(() => undefined);
		if (listed === undefined) break; // what the lists did not settle is looked up on its own
		const acceptableUntil = (one: PendingFuturesOrder) =>
			one.window.acceptableUntil ?? startedAt + LIMITS.maxRecvWindowMs + LIMITS.futureToleranceMs;
		const notFound = missing.filter((one, position) => {
			const finding = listed[position];
			if (finding !== 'notFound') verdicts.set(one, finding);
			return finding === 'notFound';
		});
		missing = [];
		for (const one of notFound) {
			if (listing > 1 || startedAt >= acceptableUntil(one))
				verdicts.set(one, {
					kind: 'unknown',
					reason: `no ${one.write.order.type} order with client order ID ${idOf(one)} was found among the open and past ${one.write.order.symbol} futures orders, which does not prove it was not placed: the exchange may still create it after a timeout, so it was not sent again`,
				});
			else missing.push(one);
		}
		// Not found while an attempt may still be accepted: listed again once none can.
		if (missing.length > 0) await sleep(Math.max(...missing.map(acceptableUntil)) - startedAt);
	}
	return group.map((one) => verdicts.get(one));
}

/** WriteKind.lookupMany; undefined for what the lists do not settle. */
export async function lookUpFuturesOrdersInLists(
	reader: FuturesOrderReader,
	entries: Array<LookupEntry<FuturesOrderWrite>>,
): Promise<Array<Verdict | undefined>> {
	const listed = entries
		.filter(({ said }) => said === undefined)
		.map(({ pending }) => pending)
		.filter(({ write, window }) => write.order.clientOrderId !== undefined && window.firstSentAt);
	const verdicts = new Map<PendingFuturesOrder, Verdict | undefined>();
	await Promise.all(
		byContractAndType(listed).map(async (group) => {
			const found = await settleGroup(reader, group);
			group.forEach((one, position) => verdicts.set(one, found[position]));
		}),
	);
	return entries.map(({ pending }) => verdicts.get(pending));
}

// Business keys: the open orders of every contract (an open order anywhere holds its ID).
/** The order holding a checked ID, as a GET by client order ID would name it, but of the write's type. */
function holderOf(
	one: PendingFuturesOrder,
	open: Found,
	past: Found,
	complete: boolean,
): KeyHolder | undefined {
	const own = [...ofWrite(open, one), ...ofWrite(past, one)];
	// The open one, else the newest past one: a stop's triggered order holds its ID in the other list.
	const holder = own[0] ?? open.get(idOf(one))?.[0];
	if (holder !== undefined) return { found: holder };
	return complete ? { notFound: true } : undefined;
}

/** Business keys are read back 89 days (the service keeps 90). Never throws. */
export async function keyHoldersFromLists(
	reader: FuturesOrderReader,
	pending: PendingFuturesOrder[],
	lostRun: LostRun | undefined,
): Promise<Array<KeyHolder | undefined>> {
	const groups = byContractAndType(pending);
	const holders = new Map<PendingFuturesOrder, KeyHolder | undefined>();
	if (groups.length === 0) return pending.map(() => undefined);
	const base = { itemIndex: groups[0][0].itemIndex, urgent: false, maxPages: MAX_PAGES };
	const at = { reader, base };
	const open: Found = new Map();
	const past: Found = new Map();
	try {
		const sought = new Set(groups.flat().map(idOf));
		let openRead = true;
		for (const type of ['LIMIT', 'STOP'] as const)
			openRead = (await readOpen(at, type, undefined, sought, open)) && openRead;
		for (const group of groups) {
			const since = group.some(({ write }) => write.businessKey)
				? Date.now() - LIMITS.pastOrdersDays * DAY_MS + DAY_MS
				: (lostRun?.since ?? Date.now()) - LOST_RUN_CLOCK_MARGIN_MS;
			const { symbol } = group[0].write.order;
			const ids = new Set(group.map(idOf));
			const type = listTypeOf(group[0].write);
			const pastRead = await readPast(at, symbol, type, since, ids, past, true);
			for (const one of group) holders.set(one, holderOf(one, open, past, openRead && pastRead));
		}
	} catch {
		return pending.map(() => undefined); // a list unread: each ID is looked up on its own
	}
	return pending.map((one) => holders.get(one));
}
