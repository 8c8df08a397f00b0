import { sleep, type IDataObject, type INode, type NodeOperationError } from 'n8n-workflow';

import { DAY_MS, LIMITS } from '../constants';
import { inScope } from '../helpers/accountScope';
import { inLanes } from '../helpers/lanes';
import { refusedError, type OrderParams } from './orderRules';
import type { EngineSession, PendingWrite, Verdict } from '../writes/engine';
import { findOrder } from './orderIds';
import { matchesSentOrder } from './orderLookups';
import { LOST_RUN_CLOCK_MARGIN_MS, lostRunText, type LostRun } from '../writes/writeSession';
import { ORDER_ENDPOINTS } from './endpoints';

// Business keys (docs/safety.md): a client order ID the user gave names one order for good, while
// the exchange refuses an ID only while its order is open. So the ID is looked up before sending:
// an order found in any state is that order. After a lost run the check covers generated IDs too:
// the lost run named its orders as this run does, so one found under such an ID is what it placed.

type PendingOrder = PendingWrite<{ order: OrderParams; businessKey: boolean }>;

/** Orders of one symbol at or under this count are looked up one by one; above it, from lists. */
const LOOKUPS_BEFORE_LISTS = 3;
/** Single lookups in flight at once (weight 1 each). */
const LOOKUPS_AT_ONCE = 10;

/** What the check says of one order: the order that holds its ID, nothing found, or why it failed. */
type Holder = { found: IDataObject } | { notFound: true } | { failed: string };

/** An order as found, with what tells two orders of one side, type and symbol apart. */
function describeFound(found: IDataObject): string {
	const sizes = [
		['price', found.price],
		['quantity', found.origQty],
		['amount', found.reqAmount],
		['time in force', found.timeInForce],
	].filter(([, value]) => value !== undefined && value !== '' && value !== '0');
	const detail = sizes.map(([name, value]) => `${String(name)} ${String(value)}`).join(', ');
	return `${String(found.side)} ${String(found.type)} ${String(found.symbol)}, ${detail ? `${detail}, ` : ''}status ${String(found.status)}`;
}

function alreadyUsedError(
	node: INode,
	pending: PendingOrder,
	found: IDataObject,
): NodeOperationError {
	const { order } = pending.write;
	return refusedError(
		node,
		`Client order ID ${order.newClientOrderId} already belongs to another order`,
		`Order ${String(found.orderId)} (${describeFound(found)}) holds this client order ID, and it is not this ${order.side} ${order.type} order for ${order.symbol}. Nothing was sent. Give this order its own client order ID, or send the order that ID was first used for.`,
		pending.itemIndex,
	);
}

function uncheckedError(node: INode, pending: PendingOrder, why: string): NodeOperationError {
	return refusedError(
		node,
		`Could not check whether client order ID ${pending.write.order.newClientOrderId} was already used`,
		`${why}. The ID may belong to an order placed before, so nothing was sent. Run the node again once the exchange answers order lookups.`,
		pending.itemIndex,
	);
}

/**
 * The verdict of one order from what holds its ID. After a lost run, a failed check or another order
 * under a generated ID leaves it unknown: the lost run may have placed it.
 */
function verdictOf(
	run: EngineSession,
	pending: PendingOrder,
	holder: Holder,
	lostRun: LostRun | undefined,
): Verdict | undefined {
	if ('notFound' in holder) return undefined;
	const id = pending.write.order.newClientOrderId;
	if ('failed' in holder) {
		if (lostRun !== undefined) {
			const reason = `${lostRunText(lostRun)}, and looking client order ID ${id} up failed (${holder.failed}); it was not sent`;
			return { kind: 'unknown', reason };
		}
		const error = uncheckedError(run.node, pending, `Looking it up failed: ${holder.failed}`);
		return { kind: 'rejected', refusal: { error } };
	}
	if (matchesSentOrder(pending.write.order, holder.found))
		return { kind: 'placed', result: holder.found, alreadyPlaced: true };
	if (lostRun !== undefined && !pending.write.businessKey) {
		const found = holder.found;
		const reason = `${lostRunText(lostRun)}, and order ${String(found.orderId)} (${String(found.side)} ${String(found.type)} ${String(found.symbol)}, price ${String(found.price)}, quantity ${String(found.origQty)}, status ${String(found.status)}) holds client order ID ${id} with other values than this order has now: the earlier run placed that one for this item, so this one was not sent`;
		return { kind: 'unknown', reason };
	}
	return {
		kind: 'rejected',
		refusal: { error: alreadyUsedError(run.node, pending, holder.found) },
	};
}

async function lookUpOne(run: EngineSession, pending: PendingOrder): Promise<Holder> {
	try {
		const clientOrderId = pending.write.order.newClientOrderId as string;
		const found = await findOrder(run, { clientOrderId }, pending.itemIndex);
		return found === undefined ? { notFound: true } : { found };
	} catch (error) {
		return { failed: (error as Error).message };
	}
}

/**
 * The orders of one symbol by client order ID: one page of open orders, then one of past orders since
 * `since` (an order ending between the reads is in the first). `complete`: neither page was full.
 */
async function listSymbol(
	run: EngineSession,
	symbol: string,
	itemIndex: number,
	since: number,
): Promise<{ byId: Map<string, IDataObject>; complete: boolean }> {
	const byId = new Map<string, IDataObject>();
	const scope = await run.account(itemIndex);
	const { accountId } = scope;
	const open = (await run.client.request(ORDER_ENDPOINTS.openOrders, {
		qs: { symbol, accountId, limit: LIMITS.ordersPageSize },
		itemIndex,
	})) as IDataObject[];
	const past = (await run.client.request(ORDER_ENDPOINTS.tradeOrders, {
		qs: { symbol, accountId, startTime: since, limit: LIMITS.ordersPageSize },
		itemIndex,
	})) as IDataObject[];
	for (const order of [...past, ...open]) {
		if (inScope(scope, order) && typeof order.clientOrderId === 'string')
			byId.set(order.clientOrderId, order);
	}
	const complete = open.length < LIMITS.ordersPageSize && past.length < LIMITS.ordersPageSize;
	return { byId, complete };
}

/**
 * The check of every order with a business key, and after a lost run of every order: its verdict
 * when the ID is taken (placed: this very order; rejected: another holds it, or the check failed;
 * unknown: after a lost run, when the check cannot tell), undefined when the order may be sent.
 */
export async function checkBusinessKeys(
	run: EngineSession,
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
		// A list that cannot be read: each order is looked up on its own instead.
		const itemIndex = pending[indexes[0]].itemIndex;
		const listed =
			indexes.length > LOOKUPS_BEFORE_LISTS
				? await listSymbol(run, symbol, itemIndex, since).catch(() => undefined)
				: undefined;
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
