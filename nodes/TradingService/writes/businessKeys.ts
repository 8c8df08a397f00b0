import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { DAY_MS, ERROR_CODES, LIMITS } from '../constants';
import type { OrderParams } from '../helpers/orderRules';
import { ENDPOINTS, isServiceRejection } from '../transport';
import type { EngineRun } from './engine';
import { matchesSentOrder } from './orderAnswers';
import { withOutcome } from './outcomes';
import type { PendingWrite, Verdict } from './pendingWrite';

/**
 * Business keys: a client order ID the user gave names one order for good. The exchange refuses an
 * ID only while an order holding it is open, so before such an order is sent the node looks the ID
 * up, and an order found in any state is that order: nothing is sent.
 *
 * Reach: the exchange lists past orders of the last 90 days (LIMITS.pastOrdersDays), and its
 * single-order query states no limit. An ID whose order ended longer ago than that may not be
 * found, and is then taken as new (docs/safety.md).
 */

/** What the check reads of an order of the run (writes/orders.ts `OrderWrite`). */
type PendingOrder = PendingWrite<{ order: OrderParams; businessKey: boolean }>;

/** Orders of one symbol at or under this count are looked up one by one; above it, from lists. */
const LOOKUPS_BEFORE_LISTS = 3;

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

/** The verdict of one order from what holds its ID: found and this order, found and another, or none. */
function verdictOf(run: EngineRun, pending: PendingOrder, holder: Holder): Verdict | undefined {
	if ('notFound' in holder) return undefined;
	if ('failed' in holder) {
		return {
			kind: 'rejected',
			refusal: {
				error: uncheckedError(run.node, pending, `Looking it up failed: ${holder.failed}`),
			},
		};
	}
	if (matchesSentOrder(pending.write.order, holder.found))
		return { kind: 'placed', result: holder.found, alreadyPlaced: true };
	return {
		kind: 'rejected',
		refusal: { error: alreadyUsedError(run.node, pending, holder.found) },
	};
}

/** One order's holder by the single-order query. */
async function lookUpOne(run: EngineRun, pending: PendingOrder): Promise<Holder> {
	try {
		const found = (await run.client.request(ENDPOINTS.queryOrder, {
			qs: { origClientOrderId: pending.write.order.newClientOrderId },
			itemIndex: pending.itemIndex,
		})) as IDataObject;
		return { found };
	} catch (error) {
		if (isServiceRejection(error, ERROR_CODES.orderNotFound)) return { notFound: true };
		return { failed: (error as Error).message };
	}
}

/**
 * The orders of one symbol by client order ID, from one page of open orders and one of past orders
 * of the last 90 days. Open orders are read first: an order that ends between the two reads is in
 * the first. `complete`: both pages were shorter than a full page, so an ID in neither is new.
 */
async function listSymbol(
	run: EngineRun,
	symbol: string,
	itemIndex: number,
): Promise<{ byId: Map<string, IDataObject>; complete: boolean }> {
	const byId = new Map<string, IDataObject>();
	const open = (await run.client.request(ENDPOINTS.openOrders, {
		qs: { symbol, limit: LIMITS.ordersPageSize },
		itemIndex,
	})) as IDataObject[];
	const past = (await run.client.request(ENDPOINTS.tradeOrders, {
		qs: {
			symbol,
			// A day inside the 90 days the exchange serves, so a clock a little off is not refused.
			startTime: Date.now() - LIMITS.pastOrdersDays * DAY_MS + DAY_MS,
			limit: LIMITS.ordersPageSize,
		},
		itemIndex,
	})) as IDataObject[];
	for (const order of [...past, ...open]) {
		if (typeof order.clientOrderId === 'string') byId.set(order.clientOrderId, order);
	}
	const complete = open.length < LIMITS.ordersPageSize && past.length < LIMITS.ordersPageSize;
	return { byId, complete };
}

/**
 * The check of every order of `pending` that carries a business key (the others get undefined):
 * its verdict when the ID is taken (placed: this very order; rejected: another order holds it, or
 * the check failed), undefined when the order may be sent.
 */
export async function checkBusinessKeys(
	run: EngineRun,
	pending: PendingOrder[],
): Promise<Array<Verdict | undefined>> {
	const verdicts: Array<Verdict | undefined> = pending.map(() => undefined);
	const bySymbol = new Map<string, number[]>();
	pending.forEach((one, index) => {
		if (!one.write.businessKey) return;
		const symbol = one.write.order.symbol;
		bySymbol.set(symbol, [...(bySymbol.get(symbol) ?? []), index]);
	});
	for (const [symbol, indexes] of bySymbol) {
		let listed: Awaited<ReturnType<typeof listSymbol>> | undefined;
		if (indexes.length > LOOKUPS_BEFORE_LISTS) {
			try {
				listed = await listSymbol(run, symbol, pending[indexes[0]].itemIndex);
			} catch {
				listed = undefined; // each order is looked up on its own instead
			}
		}
		for (const index of indexes) {
			const one = pending[index];
			const id = one.write.order.newClientOrderId as string;
			const fromList = listed?.byId.get(id);
			const holder: Holder =
				fromList !== undefined
					? { found: fromList }
					: listed?.complete === true
						? { notFound: true }
						: await lookUpOne(run, one);
			verdicts[index] = verdictOf(run, one, holder);
		}
	}
	return verdicts;
}
