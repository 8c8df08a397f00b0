import { NodeOperationError, sleep, type IDataObject, type INode } from 'n8n-workflow';

import { DAY_MS, LIMITS } from '../constants';
import { inLanes } from '../helpers/lanes';
import type { OrderParams } from './orderRules';
import { ENDPOINTS } from '../transport';
import type { EngineRun } from '../writes/engine';
import { findOrder } from './orderIds';
import { matchesSentOrder } from './orderLookups';
import { withOutcome } from '../writes/outcomes';
import type { PendingWrite, Verdict } from '../writes/pendingWrite';
import { LOST_RUN_CLOCK_MARGIN_MS, lostRunText, type LostRun } from '../writes/writeRun';

/**
 * Business keys: a client order ID the user gave names one order for good. The exchange refuses an
 * ID only while an order holding it is open, so before such an order is sent the node looks the ID
 * up, and an order found in any state is that order: nothing is sent.
 *
 * Reach: the exchange lists past orders of the last 90 days (LIMITS.pastOrdersDays), and its
 * single-order query states no limit. An ID whose order ended longer ago than that may not be
 * found, and is then taken as new (docs/safety.md).
 *
 * After a lost run (writes/writeRun.ts) the same check covers generated IDs too: the lost run
 * named its orders as this run does, so an order found under one is what that run placed.
 */

/** What the check reads of an order of the run (orders/orderWrites.ts `OrderWrite`). */
type PendingOrder = PendingWrite<{ order: OrderParams; businessKey: boolean }>;

/** Orders of one symbol at or under this count are looked up one by one; above it, from lists. */
const LOOKUPS_BEFORE_LISTS = 3;
/** Single lookups in flight at once (weight 1 each). */
const LOOKUPS_AT_ONCE = 10;

/** What the check says of one order: the order that holds its ID, nothing found, or why it failed. */
type Holder = { found: IDataObject } | { notFound: true } | { failed: string };

function alreadyUsedError(
	node: INode,
	pending: PendingOrder,
	found: IDataObject,
): NodeOperationError {
	const { order } = pending.write;
	return withOutcome(
		new NodeOperationError(
			node,
			`Client order ID ${order.newClientOrderId} already belongs to another order`,
			{
				description: `Order ${String(found.orderId)} (${String(found.side)} ${String(found.type)} ${String(found.symbol)}, status ${String(found.status)}) holds this client order ID, and it is not this ${order.side} ${order.type} order for ${order.symbol}. Nothing was sent. Give this order its own client order ID, or send the order that ID was first used for.`,
				itemIndex: pending.itemIndex,
			},
		),
		'rejected',
	);
}

function uncheckedError(node: INode, pending: PendingOrder, why: string): NodeOperationError {
	return withOutcome(
		new NodeOperationError(
			node,
			`Could not check whether client order ID ${pending.write.order.newClientOrderId} was already used`,
			{
				description: `${why}. The ID may belong to an order placed before, so nothing was sent. Run the node again once the exchange answers order lookups.`,
				itemIndex: pending.itemIndex,
			},
		),
		'rejected',
	);
}

/**
 * The verdict of one order from what holds its ID: found and this order, found and another, or
 * none. After a lost run, a failed check, or another order under a generated ID, leaves the order
 * unknown: the lost run may have placed it, so "nothing was executed" cannot be said.
 */
function verdictOf(
	run: EngineRun,
	pending: PendingOrder,
	holder: Holder,
	lostRun: LostRun | undefined,
): Verdict | undefined {
	if ('notFound' in holder) return undefined;
	const id = pending.write.order.newClientOrderId;
	if ('failed' in holder) {
		if (lostRun !== undefined)
			return {
				kind: 'unknown',
				reason: `${lostRunText(lostRun)}, and looking client order ID ${id} up failed (${holder.failed}); it was not sent`,
			};
		return {
			kind: 'rejected',
			refusal: {
				error: uncheckedError(run.node, pending, `Looking it up failed: ${holder.failed}`),
			},
		};
	}
	if (matchesSentOrder(pending.write.order, holder.found))
		return { kind: 'placed', result: holder.found, alreadyPlaced: true };
	if (lostRun !== undefined && !pending.write.businessKey) {
		const found = holder.found;
		return {
			kind: 'unknown',
			reason: `${lostRunText(lostRun)}, and order ${String(found.orderId)} (${String(found.side)} ${String(found.type)} ${String(found.symbol)}, price ${String(found.price)}, quantity ${String(found.origQty)}, status ${String(found.status)}) holds client order ID ${id} with other values than this order has now: the earlier run placed that one for this item, so this one was not sent`,
		};
	}
	return {
		kind: 'rejected',
		refusal: { error: alreadyUsedError(run.node, pending, holder.found) },
	};
}

/** One order's holder by the single-order query. */
async function lookUpOne(run: EngineRun, pending: PendingOrder): Promise<Holder> {
	try {
		const clientOrderId = pending.write.order.newClientOrderId as string;
		const found = await findOrder(run, { clientOrderId }, pending.itemIndex);
		return found === undefined ? { notFound: true } : { found };
	} catch (error) {
		return { failed: (error as Error).message };
	}
}

/**
 * The orders of one symbol by client order ID, from one page of open orders and one of past orders
 * since `since`. Open orders are read first: an order that ends between the two reads is in the
 * first. `complete`: both pages were shorter than a full page, so an ID in neither is new.
 */
async function listSymbol(
	run: EngineRun,
	symbol: string,
	itemIndex: number,
	since: number,
): Promise<{ byId: Map<string, IDataObject>; complete: boolean }> {
	const byId = new Map<string, IDataObject>();
	const { accountId } = await run.account(itemIndex);
	const open = (await run.client.request(ENDPOINTS.openOrders, {
		qs: { symbol, accountId, limit: LIMITS.ordersPageSize },
		itemIndex,
	})) as IDataObject[];
	const past = (await run.client.request(ENDPOINTS.tradeOrders, {
		qs: { symbol, accountId, startTime: since, limit: LIMITS.ordersPageSize },
		itemIndex,
	})) as IDataObject[];
	for (const order of [...past, ...open]) {
		if (order.accountId !== undefined && String(order.accountId) !== accountId) continue;
		if (typeof order.clientOrderId === 'string') byId.set(order.clientOrderId, order);
	}
	const complete = open.length < LIMITS.ordersPageSize && past.length < LIMITS.ordersPageSize;
	return { byId, complete };
}

/**
 * The check of every order of `pending` that carries a business key, and after a lost run of every
 * order (the others get undefined): its verdict when the ID is taken (placed: this very order;
 * rejected: another order holds it, or the check failed; unknown: after a lost run, when the check
 * cannot tell, or, in a retry, when the order has no client order ID to look it up by), undefined
 * when the order may be sent.
 */
export async function checkBusinessKeys(
	run: EngineRun,
	pending: PendingOrder[],
): Promise<Array<Verdict | undefined>> {
	const lostRun = run.lostRun;
	const verdicts: Array<Verdict | undefined> = pending.map(() => undefined);
	const bySymbol = new Map<string, number[]>();
	pending.forEach((one, index) => {
		if (lostRun?.why === 'retry' && one.write.order.newClientOrderId === undefined) {
			// Nothing names it: whether the crashed run sent it cannot be told, so it is not sent. A
			// late run is most often a first one (a long queue): it sends, as without a crash.
			verdicts[index] = {
				kind: 'unknown',
				reason: `${lostRunText(lostRun)}, and the order has no client order ID to look it up by (Generate Client Order ID is off), so it was not sent: the earlier run may have placed it`,
			};
			return;
		}
		const checked =
			one.write.businessKey ||
			(lostRun !== undefined && one.write.order.newClientOrderId !== undefined);
		if (!checked) return;
		const symbol = one.write.order.symbol;
		bySymbol.set(symbol, [...(bySymbol.get(symbol) ?? []), index]);
	});
	// A retry may start while a request of the crashed run is still within its receive window:
	// "not found" proves nothing before that window has passed.
	if (lostRun !== undefined && bySymbol.size > 0 && Date.now() < lostRun.settledFrom)
		await sleep(lostRun.settledFrom - Date.now());
	for (const [symbol, indexes] of bySymbol) {
		// Business keys: a day inside the 90 days the exchange serves, so a clock a little off is
		// not refused. A lost run's orders are no older than its execution.
		const since =
			lostRun === undefined || indexes.some((index) => pending[index].write.businessKey)
				? Date.now() - LIMITS.pastOrdersDays * DAY_MS + DAY_MS
				: lostRun.since - LOST_RUN_CLOCK_MARGIN_MS;
		let listed: Awaited<ReturnType<typeof listSymbol>> | undefined;
		if (indexes.length > LOOKUPS_BEFORE_LISTS) {
			try {
				listed = await listSymbol(run, symbol, pending[indexes[0]].itemIndex, since);
			} catch {
				listed = undefined; // each order is looked up on its own instead
			}
		}
		// Orders not settled by the lists are looked up one by one, a few at a time.
		await inLanes(indexes.length, LOOKUPS_AT_ONCE, async (position) => {
			const index = indexes[position];
			const one = pending[index];
			const id = one.write.order.newClientOrderId as string;
			const fromList = listed?.byId.get(id);
			const holder: Holder =
				fromList !== undefined
					? { found: fromList }
					: listed?.complete === true
						? { notFound: true }
						: await lookUpOne(run, one);
			verdicts[index] = verdictOf(run, one, holder, lostRun);
		});
	}
	return verdicts;
}
