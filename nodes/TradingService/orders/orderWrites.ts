import type { IDataObject } from 'n8n-workflow';

import { ERROR_CODES, LIMITS } from '../constants';
import { isServiceRejection, isUnknownOutcomeCode, isZeroCode, sameCode } from '../transport';
import {
	pendingWrite,
	type EngineSession,
	type PendingWrite,
	type Refusal,
	type Verdict,
	type WriteKind,
} from '../writes/engine';
import { fingerprint, type WriteLedger } from '../writes/ledger';
import { checkBusinessKeys } from './businessKeys';
import {
	FITTED_FIELDS,
	lookUpDuplicate,
	lookUpOrder,
	matchesSentOrder,
	storedOrderResult,
} from './orderLookups';
import { lookUpOrdersInLists } from './listLookups';
import type { OrderParams } from './orderRules';
import { ORDER_ENDPOINTS } from './endpoints';

// Orders as the write engine settles them: what is sent (one per request, or batches of 20 by
// symbol) and what each entry of a batch answer says of its order.

/** One order of the run: what is sent, and where it stands among its item's orders. */
export interface OrderWrite {
	order: OrderParams;
	/** Position among the orders of its item (Create Many's JSON mode may give many). */
	orderIndex: number;
	/** Whether the user gave its client order ID: a business key, checked before it is sent. */
	businessKey: boolean;
	/** Fit to Symbol Rules changed the order: the order as the user gave it (the ledger's key). */
	given?: OrderParams;
}

export type PendingOrder = PendingWrite<OrderWrite>;

/**
 * An order of the run, with its ledger slot and, unless `idPrefix` is undefined (generation off)
 * or the user gave one, a generated client order ID. The slot's version is part of the ID: an
 * order changed between n8n's re-runs gets a new ID, so it can never be taken for the order it
 * replaces, which may have been placed. `slotName` names it within the run ("3", or "3.1" for the
 * second order of item 3).
 */
export function pendingOrder(
	ledger: WriteLedger,
	slotName: string,
	order: OrderParams,
	itemIndex: number,
	orderIndex: number,
	idPrefix: string | undefined,
	given: OrderParams = order,
): PendingOrder {
	// The fingerprint is of the order as the user gave it (`given`: before Fit to Symbol Rules
	// rounded it, so a try that cannot read the rules still finds the write): a generated ID is
	// derived from the slot.
	const slot = ledger.slot(slotName, fingerprint('newOrder', given));
	const businessKey = order.newClientOrderId !== undefined;
	if (order.newClientOrderId === undefined && idPrefix !== undefined) {
		order.newClientOrderId = `${idPrefix}-${itemIndex}-${orderIndex}${slot.version > 0 ? `-v${slot.version}` : ''}`;
	}
	const fitted = FITTED_FIELDS.some((field) => given[field] !== order[field]);
	return pendingWrite(
		slot,
		{ order, orderIndex, businessKey, ...(fitted ? { given } : {}) },
		itemIndex,
	);
}

/**
 * Groups orders by symbol (first appearance first) and cuts each group into batches of 20: a batch
 * request takes one symbol and at most 20 orders (spec §4.3).
 */
function toBatches(orders: PendingOrder[]): PendingOrder[][] {
	const bySymbol = new Map<string, PendingOrder[]>();
	for (const pending of orders) {
		const symbol = pending.write.order.symbol;
		bySymbol.set(symbol, [...(bySymbol.get(symbol) ?? []), pending]);
	}
	const size = LIMITS.ordersPerBatch;
	return [...bySymbol.values()].flatMap((group) =>
		Array.from({ length: Math.ceil(group.length / size) }, (_, batch) =>
			group.slice(batch * size, (batch + 1) * size),
		),
	);
}

function entryRefusal(entry: BatchResultEntry): Refusal {
	return {
		code: entry.code === undefined || entry.code === null ? undefined : String(entry.code),
		msg: typeof entry.msg === 'string' ? entry.msg : '',
		detail: { entry: entry as IDataObject },
	};
}

/** The per-order result entry of a batch answer (spec §4.3). */
export interface BatchResultEntry {
	code?: unknown;
	msg?: unknown;
	order?: unknown;
	clientOrderId?: unknown;
}

export type EntryVerdict =
	/** Code zero and the order, which is the one sent. */
	| { kind: 'placed'; entry: BatchResultEntry; order: IDataObject }
	| { kind: 'rejected'; entry: BatchResultEntry }
	/** Refused because an open order holds its client order ID: look that order up. */
	| { kind: 'duplicate'; entry: BatchResultEntry }
	| { kind: 'unknown'; entry?: BatchResultEntry; reason: string };

function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function entryClientOrderId(entry: unknown): string | undefined {
	if (!isObject(entry)) return undefined;
	const id = isObject(entry.order) ? entry.order.clientOrderId : entry.clientOrderId;
	return typeof id === 'string' && id !== '' ? id : undefined;
}

/** One entry, matched to its order, read: placed only with code zero and the order it is about. */
function verdictOf(sent: OrderParams, entry: unknown): EntryVerdict {
	if (!isObject(entry))
		return { kind: 'unknown', reason: 'the batch answer has no result for this order' };
	const result = entry as BatchResultEntry;
	const unknown = (reason: string): EntryVerdict => ({ kind: 'unknown', entry: result, reason });
	if (result.code === undefined || result.code === null)
		return unknown('its result carries no code');
	if (isZeroCode(result.code)) {
		if (!isObject(result.order)) return unknown('its result says success but carries no order');
		if (!matchesSentOrder(sent, result.order)) return unknown('its result is about another order');
		return { kind: 'placed', entry: result, order: result.order };
	}
	if (sameCode(result.code, ERROR_CODES.duplicateClientOrderId))
		return { kind: 'duplicate', entry: result };
	if (isUnknownOutcomeCode(result.code))
		return unknown(
			`its result has code ${String(result.code)}, which means it may have been executed`,
		);
	return { kind: 'rejected', entry: result };
}

/** Whether an entry placed an order other than the one sent at its position. */
function placedAnotherOrder(sent: OrderParams, entry: unknown): boolean {
	if (!isObject(entry) || !isZeroCode(entry.code) || !isObject(entry.order)) return false;
	return !matchesSentOrder(sent, entry.order);
}

/**
 * The entries of a batch answer matched to the orders sent (docs/safety.md), by client order ID;
 * by position only where it provably agrees. Otherwise the orders paired by position are unknown
 * (then looked up), never rejected: a refusal at the wrong position may belong to a placed order.
 */
export function readBatchResults(sent: OrderParams[], result: unknown[]): EntryVerdict[] {
	const matched: Array<unknown> = new Array(sent.length).fill(undefined);
	const pairedByPosition: boolean[] = new Array(sent.length).fill(false);
	const sentIds = sent.map((order) => order.newClientOrderId);
	// With an order that has no client order ID, the service fills in IDs of its own: only position counts.
	const byId = sentIds.every((id) => id !== undefined);
	let positionAgrees = result.length === sent.length;
	if (byId) {
		const indexOfId = new Map(sentIds.map((id, index) => [id as string, index]));
		const taken = new Set<number>();
		result.forEach((entry, position) => {
			const id = entryClientOrderId(entry);
			if (id === undefined) return;
			const index = indexOfId.get(id);
			if (index !== position) positionAgrees = false;
			if (index === undefined || taken.has(index)) return;
			taken.add(index);
			matched[index] = entry;
		});
	}
	if (positionAgrees) {
		result.forEach((entry, position) => {
			// By ID, only the entries that name no ID and the positions left are paired so.
			if (byId && (entryClientOrderId(entry) !== undefined || matched[position] !== undefined))
				return;
			matched[position] = entry;
			pairedByPosition[position] = true;
		});
	}
	const positionRefuted = sent.some(
		(order, index) => pairedByPosition[index] && placedAnotherOrder(order, matched[index]),
	);
	return sent.map((order, index): EntryVerdict => {
		const unknown = (reason: string): EntryVerdict => ({ kind: 'unknown', reason });
		if (pairedByPosition[index] && positionRefuted)
			return unknown(
				"the batch answer lists its results in another order than the orders sent, so this order's result cannot be told",
			);
		if (matched[index] === undefined && !positionAgrees && !byId)
			return unknown(`the batch answer has ${result.length} results for ${sent.length} orders`);
		return verdictOf(order, matched[index]);
	});
}

/**
 * How Create and Create Many send orders: one per request (spec §4.4) or batches of 20 (§4.3), to
 * the v1 endpoints (node version 1) or the unified v1.1 ones (version 2: docs/api.md).
 */
export interface OrderSending {
	endpoint: 'single' | 'batch';
	unified?: boolean;
	recvWindow?: number;
}

export function orderKind(run: EngineSession, sending: OrderSending): WriteKind<OrderWrite> {
	const recvWindow: IDataObject =
		sending.recvWindow === undefined ? {} : { recvWindow: sending.recvWindow };
	return {
		wording: ({ order }) => ({
			what: `${order.side} ${order.type} order for ${order.symbol}`,
			howToCheck: `Check your open orders and trade history for ${order.symbol}${order.newClientOrderId ? ` (client order ID ${order.newClientOrderId})` : ''}`,
		}),
		requestWording: (group) => {
			if (sending.endpoint === 'single') return undefined;
			const symbol = group[0].write.order.symbol;
			return {
				what: `batch of ${group.length} ${symbol} orders`,
				howToCheck: `Check your open orders and trade history for ${symbol}`,
			};
		},
		whyNoLookup: ({ order }) =>
			order.newClientOrderId === undefined
				? 'it has no client order ID to look it up by'
				: undefined,
		unknownDetail: ({ order }) =>
			order.newClientOrderId === undefined
				? 'The order has no client order ID, so the node cannot look it up'
				: `Client order ID ${order.newClientOrderId}`,
		stored: storedOrderResult,
		groups: (pending) =>
			sending.endpoint === 'single' ? pending.map((one) => [one]) : toBatches(pending),
		request: (group) => {
			const { itemIndex } = group[0];
			const orders = group.map(({ write }) => write.order);
			const { newOrder, batchOrders, unifiedOrder, unifiedBatchOrders } = ORDER_ENDPOINTS;
			return sending.endpoint === 'single'
				? {
						endpoint: sending.unified ? unifiedOrder : newOrder,
						request: { qs: { ...orders[0], ...recvWindow }, itemIndex },
					}
				: {
						endpoint: sending.unified ? unifiedBatchOrders : batchOrders,
						request: { qs: recvWindow, body: orders, itemIndex },
					};
		},
		read: (body, group) => {
			if (sending.endpoint === 'single') return [{ kind: 'placed', result: body as IDataObject }];
			const entries = readBatchResults(
				group.map(({ write }) => write.order),
				(body as { result: unknown[] }).result,
			);
			return entries.map(
				(entry): Verdict =>
					entry.kind === 'placed'
						? { kind: 'placed', result: entry.order, entry: entry.entry as IDataObject }
						: entry.kind === 'unknown'
							? { kind: 'unknown', reason: entry.reason }
							: { kind: entry.kind, refusal: entryRefusal(entry.entry) },
			);
		},
		refused: (error) =>
			isServiceRejection(error, ERROR_CODES.duplicateClientOrderId)
				? { kind: 'duplicate', refusal: { error } }
				: { kind: 'rejected', refusal: { error } },
		precheck: (pending) => checkBusinessKeys(run, pending),
		lookup: (pending, duplicate) =>
			duplicate === undefined
				? lookUpOrder(run, pending, undefined)
				: lookUpDuplicate(run, pending, duplicate),
		lookupMany: { key: 'order', lookUp: (entries) => lookUpOrdersInLists(run, entries) },
	};
}
