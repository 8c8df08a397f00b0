import { sleep, type IDataObject } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { inLanes } from '../helpers/lanes';
import { withOutcome } from '../writes/outcomes';
import type { EngineSession, PendingWrite, Refusal, Verdict } from '../writes/writeKind';
import { lostRunText, type LostRun } from '../writes/writeSession';
import type { FuturesOrder } from './futuresOrderRules';
import { findFuturesOrder, FUTURES_OPEN_STATUSES, futuresOrderType } from './futuresOrderFind';
import { inputError } from '../helpers/validation';

// A filled order frees its client order ID: an ID found in any state names an order placed, and
// it is this one only when its fields match what was sent.

export interface FuturesOrderWrite {
	order: FuturesOrder;
	orderIndex: number;
	/** The user gave its client order ID: looked up before it is sent (a business key). */
	businessKey: boolean;
	/** The order before Fit to Contract Rules changed it. */
	given?: FuturesOrder;
	/** Close Position: the size came from the position, which a re-run reads smaller: not compared. */
	sizeFromPosition?: boolean;
}

export type PendingFuturesOrder = PendingWrite<FuturesOrderWrite>;

function sameDecimal(sent: string | undefined, found: unknown): boolean {
	if (sent === undefined) return true;
	if (typeof found !== 'string' && typeof found !== 'number') return false;
	const key = (text: string) =>
		text
			.replace(/^0+(?=\d)/, '')
			.replace(/(\.\d*?)0+$/, '$1')
			.replace(/\.$/, '');
	return key(sent) === key(String(found));
}

/** The answer's attached trigger price is "" when none. */
function sameAttached(sent: string | undefined, found: unknown): boolean {
	if (found === undefined) return true;
	return sent === undefined ? found === '' : sameDecimal(sent, found);
}

/** A business key reused for another order is not it. */
export function matchesSentFuturesOrder(write: FuturesOrderWrite, found: IDataObject): boolean {
	const { order } = write;
	const type = typeof found.orderType === 'string' ? found.orderType.toUpperCase() : '';
	const sameType = order.type === 'STOP' ? futuresOrderType(found) === 'STOP' : type === order.type;
	const priced = order.type === 'LIMIT' || order.type === 'LIMIT_MAKER' || order.type === 'STOP';
	return (
		(order.clientOrderId === undefined || found.clientOrderId === order.clientOrderId) &&
		found.symbol === order.symbol &&
		found.side === order.side &&
		sameType &&
		(!priced || order.price === undefined || sameDecimal(order.price, found.price)) &&
		(found.stopPrice === undefined || sameDecimal(order.stopPrice, found.stopPrice)) &&
		(write.sizeFromPosition === true ||
			sameDecimal(order.baseQty, found.originalBaseQty ?? found.origQty)) &&
		// A market order by quote keeps the quote as sent; a limit one is shown as price × base.
		(order.type !== 'MARKET' || sameDecimal(order.quoteQty, found.originalQuoteQty)) &&
		(found.reduceOnly === undefined || found.reduceOnly === (order.reduceOnly ?? false)) &&
		sameAttached(order.tpTriggerPrice, found.tpTriggerPrice) &&
		sameAttached(order.slTriggerPrice, found.slTriggerPrice)
	);
}

function described(found: IDataObject): string {
	return `order ${String(found.orderId)} (${String(found.side)} ${String(found.orderType)} ${String(found.symbol)}, status ${String(found.status)})`;
}

/** What a found order says of the write (see orders/orderLookups.ts judgeFound). */
export function judgeFound(
	pending: PendingFuturesOrder,
	found: IDataObject,
	duplicate: boolean,
): Verdict {
	const matches = matchesSentFuturesOrder(pending.write, found);
	const stamped = Number(found.time ?? found.updateTime);
	const firstSentAt = pending.window.firstSentAt;
	const sinceFirst =
		firstSentAt !== undefined &&
		Number.isFinite(stamped) &&
		stamped > firstSentAt - LIMITS.futureToleranceMs;
	if (matches && sinceFirst) return { kind: 'placed', result: found, alreadyPlaced: duplicate };
	if (matches && FUTURES_OPEN_STATUSES.includes(String(found.status)))
		return { kind: 'placed', result: found, alreadyPlaced: true };
	return {
		kind: 'unknown',
		reason: `the lookup by client order ID ${String(pending.write.order.clientOrderId)} found ${described(found)}, which is not this order or is older than its first attempt, so it cannot tell whether this one was placed`,
	};
}

/** Not found: looked up once more after the receive window, then unknown, never sent again. */
export async function lookUpFuturesOrder(
	session: EngineSession,
	pending: PendingFuturesOrder,
	duplicate: Refusal | undefined,
): Promise<Verdict> {
	const clientOrderId = pending.write.order.clientOrderId;
	if (clientOrderId === undefined)
		return { kind: 'unknown', reason: 'the order has no client order ID to look it up by' };
	for (let lookups = 1; ; lookups++) {
		const startedAt = Date.now();
		let found: IDataObject | undefined;
		try {
			found = await findFuturesOrder(session, { clientOrderId }, pending.itemIndex, true);
		} catch (error) {
			const reason = `looking the order up by its client order ID failed: ${(error as Error).message}`;
			return { kind: 'unknown', reason, failed: true };
		}
		if (found !== undefined) {
			const verdict = judgeFound(pending, found, duplicate !== undefined);
			if (verdict.kind === 'placed' || duplicate === undefined || pending.maybeExecuted)
				return verdict;
			// Refused as a duplicate and only this attempt sent: another order holds the ID.
			const error = inputError(
				session.node,
				'Client Order ID',
				`${clientOrderId} is held by another open order, ${described(found)}`,
				'Nothing was placed. Give this order its own client order ID.',
				pending.itemIndex,
			);
			return {
				kind: 'rejected',
				refusal: { ...duplicate, error: duplicate.error ?? withOutcome(error, 'rejected') },
			};
		}
		if (duplicate !== undefined)
			return {
				kind: 'unknown',
				reason: `the service said an open order holds client order ID ${clientOrderId}, but a lookup did not find it`,
			};
		const until =
			pending.window.acceptableUntil ??
			startedAt + LIMITS.maxRecvWindowMs + LIMITS.futureToleranceMs;
		if (lookups > 1 || startedAt >= until)
			return {
				kind: 'unknown',
				reason: `no futures order with client order ID ${clientOrderId} was found, which does not prove it was not placed: the exchange may still create it after a timeout, so it was not sent again`,
			};
		await sleep(until - startedAt);
	}
}

export type KeyHolder = { found: IDataObject } | { notFound: true } | { failed: string };

/** Undefined where the lists cannot tell. */
type KeyHoldersFinder = (
	pending: PendingFuturesOrder[],
	lostRun: LostRun | undefined,
) => Promise<Array<KeyHolder | undefined>>;

async function findKeyHolder(session: EngineSession, one: PendingFuturesOrder): Promise<KeyHolder> {
	const clientOrderId = one.write.order.clientOrderId as string;
	try {
		const found = await findFuturesOrder(session, { clientOrderId }, one.itemIndex);
		return found === undefined ? { notFound: true } : { found };
	} catch (error) {
		return { failed: (error as Error).message };
	}
}

/** Another's: refused, unknown after a lost run; a check that failed refuses: the ID may be taken. */
function keyVerdict(
	session: EngineSession,
	one: PendingFuturesOrder,
	holder: KeyHolder,
	lostRun: LostRun | undefined,
): Verdict | undefined {
	if ('notFound' in holder) return undefined;
	const id = one.write.order.clientOrderId as string;
	const refused = (problem: string, fix: string) => ({
		kind: 'rejected' as const,
		refusal: {
			error: withOutcome(
				inputError(session.node, 'Client Order ID', problem, fix, one.itemIndex),
				'rejected',
			),
		},
	});
	if ('failed' in holder) {
		const why = `looking client order ID ${id} up failed: ${holder.failed}`;
		return lostRun !== undefined
			? { kind: 'unknown', reason: `${lostRunText(lostRun)}, and ${why}; it was not sent` }
			: refused(
					`could not check whether ${id} was already used`,
					`${why}. The ID may belong to an order placed before, so nothing was sent. Run the node again once the exchange answers order lookups.`,
				);
	}
	const found = holder.found;
	if (matchesSentFuturesOrder(one.write, found))
		return { kind: 'placed', result: found, alreadyPlaced: true };
	if (lostRun !== undefined && !one.write.businessKey)
		return {
			kind: 'unknown',
			reason: `${lostRunText(lostRun)}, and ${described(found)} holds client order ID ${id} with other values than this order has now: the earlier run placed that one for this item, so this one was not sent`,
		};
	return refused(
		`${id} already belongs to another order, ${described(found)}`,
		`It is not this ${one.write.order.side} ${one.write.order.type} order for ${one.write.order.symbol}. Nothing was sent. Give this order its own client order ID, or send the order that ID was first used for.`,
	);
}

/** WriteKind.precheck: business keys and, after a lost run, every generated ID. */
export async function checkFuturesBusinessKeys(
	session: EngineSession,
	pending: PendingFuturesOrder[],
	fromLists?: KeyHoldersFinder,
): Promise<Array<Verdict | undefined>> {
	const lostRun = session.lostRun;
	const verdicts: Array<Verdict | undefined> = pending.map(() => undefined);
	const checked: number[] = [];
	pending.forEach((one, index) => {
		if (one.write.order.clientOrderId !== undefined) {
			if (one.write.businessKey || lostRun !== undefined) checked.push(index);
		} else if (lostRun?.why === 'retry')
			verdicts[index] = {
				kind: 'unknown',
				reason: `${lostRunText(lostRun)}, and the order has no client order ID to look it up by, so it was not sent: the earlier run may have placed it`,
			};
	});
	if (checked.length === 0) return verdicts;
	// A retry may start while a request of the crashed run is still within its receive window.
	if (lostRun !== undefined && Date.now() < lostRun.settledFrom)
		await sleep(lostRun.settledFrom - Date.now());
	const toCheck = checked.map((index) => pending[index]);
	const listed = fromLists === undefined ? [] : await fromLists(toCheck, lostRun);
	await inLanes(toCheck.length, 5, async (position) => {
		const one = toCheck[position];
		// A GET names the order holding the ID whatever its age, which bounded pages cannot prove absent.
		const holder = listed[position] ?? (await findKeyHolder(session, one));
		verdicts[checked[position]] = keyVerdict(session, one, holder, lostRun);
	});
	return verdicts;
}
