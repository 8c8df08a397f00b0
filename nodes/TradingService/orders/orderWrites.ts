import { NodeOperationError, sleep, type IDataObject, type INode } from 'n8n-workflow';

import { inScope } from '../helpers/accountScope';
import { ERROR_CODES, LIMITS } from '../constants';
import type { OrderParams } from './orderRules';
import { ENDPOINTS, isServiceRejection } from '../transport';
import type { EngineRun, WriteKind } from '../writes/engine';
import { fingerprint, type WriteLedger } from '../writes/ledger';
import {
	pendingWrite,
	type PendingWrite,
	type Refusal,
	type Verdict,
} from '../writes/pendingWrite';
import { checkBusinessKeys } from './businessKeys';
import { judgeFound, readBatchResults, type BatchResultEntry } from './orderAnswers';
import { withOutcome } from '../writes/outcomes';

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
		const group = bySymbol.get(pending.write.order.symbol);
		if (group) group.push(pending);
		else bySymbol.set(pending.write.order.symbol, [pending]);
	}
	const batches: PendingOrder[][] = [];
	for (const group of bySymbol.values()) {
		for (let start = 0; start < group.length; start += LIMITS.ordersPerBatch) {
			batches.push(group.slice(start, start + LIMITS.ordersPerBatch));
		}
	}
	return batches;
}

/** The fields Fit to Symbol Rules may change. */
const FITTED_FIELDS = ['price', 'quantity', 'amount'] as const;

/**
 * What the ledger keeps of a placed order: the fields the service assigned, and, when Fit to
 * Symbol Rules changed the order, the values sent (a re-run may not be able to fit it again).
 */
function storedOrderResult(order: IDataObject, write?: OrderWrite): IDataObject {
	const stored: IDataObject = {};
	if (write?.given !== undefined) {
		const sent: IDataObject = {};
		for (const field of FITTED_FIELDS)
			if (write.order[field] !== undefined) sent[field] = write.order[field];
		stored.sent = sent;
	}
	for (const field of ['orderId', 'clientOrderId', 'status'] as const) {
		if (typeof order[field] === 'string' || typeof order[field] === 'number')
			stored[field] = String(order[field]);
	}
	const time = order.transactTime ?? order.time;
	if (typeof time === 'string' || typeof time === 'number') stored.transactTime = String(time);
	return stored;
}

/**
 * An order an earlier try of this node run placed, answered from the ledger: what was sent plus
 * what the service assigned then (its status may have moved on since). Nothing is sent.
 */
export function replayedOrder(order: OrderParams, stored: IDataObject): IDataObject {
	const { newClientOrderId, ...given } = order;
	const { sent, ...assigned } = stored;
	return {
		outcome: 'placed',
		replayed: true,
		...given,
		...(sent as IDataObject | undefined),
		clientOrderId: newClientOrderId ?? null,
		...assigned,
	};
}

/**
 * Looks an order up by its client order ID (GET /api/v1/spot/order?origClientOrderId=…) after an
 * answer that leaves its outcome unknown. Found, and it is the order sent: placed. Not found proves
 * nothing: the exchange may still create an order after a timeout (-1146) or a lost answer, later
 * than any receive window, and it refuses a client order ID only while an order holding it is open,
 * so a second attempt could fill twice. The order is therefore never sent again: it is looked up
 * once more after its attempts' receive window, and stays unknown if still not found.
 * `duplicate`: the last attempt was refused because an open order holds the ID.
 */
async function lookUpOrder(
	run: EngineRun,
	pending: PendingOrder,
	duplicate: Refusal | undefined,
): Promise<Verdict> {
	const { order } = pending.write;
	const clientOrderId = order.newClientOrderId;
	if (clientOrderId === undefined)
		return { kind: 'unknown', reason: 'the order has no client order ID to look it up by' };
	for (let lookups = 1; ; lookups++) {
		const lookupStartedAt = Date.now();
		let found: IDataObject | undefined;
		try {
			const scope = await run.account(pending.itemIndex);
			found = (await run.client.request(ENDPOINTS.queryOrder, {
				qs: { origClientOrderId: clientOrderId, accountId: scope.accountId },
				itemIndex: pending.itemIndex,
			})) as IDataObject;
			// Another account's order under this ID (a master key's sub account) is not this order.
			if (!inScope(scope, found)) found = undefined;
		} catch (error) {
			if (!isServiceRejection(error, ERROR_CODES.orderNotFound)) {
				return {
					kind: 'unknown',
					reason: `looking the order up by its client order ID failed: ${(error as Error).message}`,
				};
			}
		}
		if (found !== undefined)
			return judgeFound(order, found, pending.window, duplicate !== undefined);
		if (duplicate !== undefined) {
			return {
				kind: 'unknown',
				reason: `the service said an open order holds client order ID ${clientOrderId}, but a lookup did not find it`,
			};
		}
		const acceptableUntil =
			pending.window.acceptableUntil ??
			lookupStartedAt + LIMITS.maxRecvWindowMs + LIMITS.futureToleranceMs;
		if (lookups > 1 || lookupStartedAt >= acceptableUntil) {
			return {
				kind: 'unknown',
				reason: `no order with client order ID ${clientOrderId} was found, which does not prove it was not placed: the exchange may still create it after a timeout, so it was not sent again`,
			};
		}
		await sleep(acceptableUntil - lookupStartedAt);
	}
}

/**
 * A write refused because an open order holds its client order ID: the order found by that ID is
 * this write (placed), or the lookup cannot tell. Then, when only this one attempt was sent, the
 * refusal stands: nothing was executed; after earlier attempts whose outcome is unknown, it stays
 * unknown.
 */
async function lookUpDuplicate(
	run: EngineRun,
	pending: PendingOrder,
	duplicate: Refusal,
): Promise<Verdict> {
	const verdict = await lookUpOrder(run, pending, duplicate);
	if (verdict.kind === 'placed' || pending.maybeExecuted) return verdict;
	const reason = verdict.kind === 'unknown' ? verdict.reason : 'the lookup did not find it';
	return {
		kind: 'rejected',
		refusal: {
			...duplicate,
			error: duplicate.error ?? duplicateRefusedError(run.node, pending, reason),
		},
	};
}

/** A batch entry refused as a duplicate, whose holder is not this order. */
function duplicateRefusedError(
	node: INode,
	pending: PendingOrder,
	reason: string,
): NodeOperationError {
	return withOutcome(
		new NodeOperationError(node, 'An open order already uses this client order ID', {
			description: `The service refused order ${pending.write.order.newClientOrderId} as a duplicate, and ${reason}. This request placed nothing.`,
			itemIndex: pending.itemIndex,
		}),
		'rejected',
	);
}

function entryRefusal(entry: BatchResultEntry): Refusal {
	return {
		code: entry.code === undefined || entry.code === null ? undefined : String(entry.code),
		msg: typeof entry.msg === 'string' ? entry.msg : '',
		detail: { entry: entry as IDataObject },
	};
}

/** How Create and Create Many send orders: one per request (spec §4.4) or batches of 20 (§4.3). */
export interface OrderSending {
	endpoint: 'single' | 'batch';
	recvWindow?: number;
}

/** Orders as the engine settles them. */
export function orderKind(run: EngineRun, sending: OrderSending): WriteKind<OrderWrite> {
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
		request: (group) =>
			sending.endpoint === 'single'
				? {
						endpoint: ENDPOINTS.newOrder,
						request: {
							qs: { ...group[0].write.order, ...recvWindow },
							itemIndex: group[0].itemIndex,
						},
					}
				: {
						endpoint: ENDPOINTS.batchOrders,
						request: {
							qs: recvWindow,
							body: group.map(({ write }) => write.order),
							itemIndex: group[0].itemIndex,
						},
					},
		read: (body, group) => {
			if (sending.endpoint === 'single') return [{ kind: 'placed', result: body as IDataObject }];
			const entries = readBatchResults(
				group.map(({ write }) => write.order),
				(body as { result: unknown[] }).result,
			);
			return entries.map((entry): Verdict => {
				switch (entry.kind) {
					case 'placed':
						return { kind: 'placed', result: entry.order, entry: entry.entry as IDataObject };
					case 'rejected':
						return { kind: 'rejected', refusal: entryRefusal(entry.entry) };
					case 'duplicate':
						return { kind: 'duplicate', refusal: entryRefusal(entry.entry) };
					case 'unknown':
						return { kind: 'unknown', reason: entry.reason };
				}
			});
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
	};
}
