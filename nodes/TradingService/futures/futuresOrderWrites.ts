import type { IDataObject } from 'n8n-workflow';

import { ERROR_CODES } from '../constants';
import { isServiceRejection, isUnknownOutcomeCode, isZeroCode, sameCode } from '../transport';
import { pendingWrite } from '../writes/engine';
import { fingerprint, type WriteLedger } from '../writes/ledger';
import type { EngineSession, Refusal, Verdict, WriteKind } from '../writes/writeKind';
import { FUTURES_ENDPOINTS } from './endpoints';
import { keyHoldersFromLists, lookUpFuturesOrdersInLists } from './futuresListLookups';
import {
	checkFuturesBusinessKeys,
	lookUpFuturesOrder,
	matchesSentFuturesOrder,
	type FuturesOrderWrite,
	type PendingFuturesOrder,
} from './futuresOrderLookups';
import { nameChildren, PRICE_FIELDS, type FuturesOrder } from './futuresOrderRules';

export type { FuturesOrderWrite, PendingFuturesOrder } from './futuresOrderLookups';

/** The UAE documentation's batch limits. */
const FUTURES_BATCH_SIZE = { orders: 20, stop: 3 } as const;

/**
 * `idPrefix` undefined: no client order ID generated. `key`: what the ledger knows the write by
 * (Close Position gives the request, not the size it read).
 */
export function pendingFuturesOrder(
	ledger: WriteLedger,
	slotName: string,
	write: Omit<FuturesOrderWrite, 'businessKey'>,
	itemIndex: number,
	idPrefix: string | undefined,
	key: IDataObject = write.given ?? write.order,
): PendingFuturesOrder {
	const slot = ledger.slot(slotName, fingerprint('futuresOrder', key));
	const { order } = write;
	const businessKey = order.clientOrderId !== undefined;
	if (order.clientOrderId === undefined && idPrefix !== undefined)
		order.clientOrderId = `${idPrefix}-${itemIndex}-${write.orderIndex}${slot.version > 0 ? `-v${slot.version}` : ''}`;
	nameChildren(order);
	const given = write.given;
	const fitted =
		given !== undefined &&
		[...PRICE_FIELDS, 'baseQty'].some((field) => given[field] !== order[field]);
	return pendingWrite(
		slot,
		{ ...write, businessKey, given: fitted ? given : undefined },
		itemIndex,
	);
}

function toBatches(orders: PendingFuturesOrder[]): PendingFuturesOrder[][] {
	const groups = new Map<string, PendingFuturesOrder[]>();
	for (const one of orders) {
		const { symbol, side, type } = one.write.order;
		const key = `${symbol} ${side} ${type}`;
		groups.set(key, [...(groups.get(key) ?? []), one]);
	}
	return [...groups.values()].flatMap((group) => {
		const size =
			group[0].write.order.type === 'STOP' ? FUTURES_BATCH_SIZE.stop : FUTURES_BATCH_SIZE.orders;
		return Array.from({ length: Math.ceil(group.length / size) }, (_, batch) =>
			group.slice(batch * size, (batch + 1) * size),
		);
	});
}

const isObject = (value: unknown): value is IDataObject =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

function entryId(entry: unknown): string | undefined {
	if (!isObject(entry)) return undefined;
	const id = isObject(entry.order) ? entry.order.clientOrderId : entry.clientOrderId;
	return typeof id === 'string' && id !== '' ? id : undefined;
}

function entryVerdict(write: FuturesOrderWrite, entry: unknown): Verdict {
	if (!isObject(entry))
		return { kind: 'unknown', reason: 'the batch answer has no result for this order' };
	const refusal: Refusal = {
		code: entry.code === undefined || entry.code === null ? undefined : String(entry.code),
		msg: typeof entry.msg === 'string' ? entry.msg : '',
		detail: { entry },
	};
	if (entry.code === undefined || entry.code === null)
		return { kind: 'unknown', reason: 'its result carries no code' };
	if (isZeroCode(entry.code)) {
		if (!isObject(entry.order) || !matchesSentFuturesOrder(write, entry.order))
			return { kind: 'unknown', reason: 'its result says success but is not about this order' };
		return { kind: 'placed', result: entry.order, entry };
	}
	if (sameCode(entry.code, ERROR_CODES.duplicateClientOrderId))
		return { kind: 'duplicate', refusal };
	if (isUnknownOutcomeCode(entry.code))
		return {
			kind: 'unknown',
			reason: `its result has code ${String(entry.code)}, which means it may have been executed`,
		};
	return { kind: 'rejected', refusal };
}

/**
 * Matched by client order ID, by position only when every entry naming one is at its own order's
 * position; otherwise unknown, never rejected: a refusal at the wrong place may be a placed order's.
 */
function readFuturesBatch(writes: FuturesOrderWrite[], result: unknown[]): Verdict[] {
	const ids = writes.map(({ order }) => order.clientOrderId);
	const matched: unknown[] = new Array(writes.length).fill(undefined);
	let positionAgrees = result.length === writes.length;
	result.forEach((entry, position) => {
		const id = entryId(entry);
		if (id === undefined) return;
		const index = ids.indexOf(id);
		// An ID not sent is the service's own, for an order sent without one: only there it may be.
		if (index < 0 ? ids[position] !== undefined : index !== position) positionAgrees = false;
		if (index >= 0 && matched[index] === undefined) matched[index] = entry;
	});
	if (positionAgrees)
		result.forEach((entry, position) => {
			const id = entryId(entry);
			if (id === undefined || (ids[position] === undefined && !ids.includes(id)))
				matched[position] ??= entry;
		});
	return writes.map((write, index) =>
		matched[index] === undefined
			? {
					kind: 'unknown',
					reason: `the batch answer (${result.length} results for ${writes.length} orders) has no result that can be told to be this order’s`,
				}
			: entryVerdict(write, matched[index]),
	);
}

function stored(result: IDataObject, write?: FuturesOrderWrite): IDataObject {
	const kept: IDataObject = {};
	for (const field of ['orderId', 'clientOrderId', 'status', 'time'] as const)
		if (typeof result[field] === 'string' || typeof result[field] === 'number')
			kept[field] = String(result[field]);
	if (write?.given !== undefined || write?.sizeFromPosition === true) {
		kept.sent = { ...write.order };
	}
	return kept;
}

export function replayedFuturesOrder(write: FuturesOrderWrite, kept: IDataObject): IDataObject {
	const { sent, ...assigned } = kept;
	return {
		outcome: 'placed',
		replayed: true,
		...write.order,
		...(sent as IDataObject | undefined),
		...assigned,
	};
}

interface FuturesOrderSending {
	endpoint: 'single' | 'batch';
	recvWindow?: number;
}

function wireOrder(order: FuturesOrder): IDataObject {
	const wire: IDataObject = {};
	for (const [key, value] of Object.entries(order)) if (value !== undefined) wire[key] = value;
	return wire;
}

export function futuresOrderKind(
	session: EngineSession,
	sending: FuturesOrderSending,
): WriteKind<FuturesOrderWrite> {
	const recvWindow: IDataObject =
		sending.recvWindow === undefined ? {} : { recvWindow: sending.recvWindow };
	const howToCheck = (symbol: string, id?: string) =>
		`Check your open futures orders (limit and stop) and order history for ${symbol}${id ? ` (client order ID ${id})` : ''}`;
	return {
		wording: ({ order }) => ({
			what: `futures ${order.side} ${order.type} order for ${order.symbol}`,
			howToCheck: howToCheck(order.symbol, order.clientOrderId),
		}),
		requestWording: (group) =>
			sending.endpoint === 'single'
				? undefined
				: {
						what: `batch of ${group.length} futures orders for ${group[0].write.order.symbol}`,
						howToCheck: howToCheck(group[0].write.order.symbol),
					},
		whyNoLookup: ({ order }) =>
			order.clientOrderId === undefined ? 'it has no client order ID to look it up by' : undefined,
		unknownDetail: ({ order }) =>
			order.clientOrderId === undefined
				? 'The order has no client order ID, so the node cannot look it up'
				: `Client order ID ${order.clientOrderId}`,
		stored,
		groups: (pending) =>
			sending.endpoint === 'single' ? pending.map((one) => [one]) : toBatches(pending),
		request: (group) => {
			const itemIndex = group[0].itemIndex;
			const orders = group.map(({ write }) => wireOrder(write.order));
			return sending.endpoint === 'single'
				? {
						endpoint: FUTURES_ENDPOINTS.newOrder,
						request: { qs: { ...orders[0], ...recvWindow }, itemIndex },
					}
				: {
						endpoint: FUTURES_ENDPOINTS.batchOrders,
						request: { qs: recvWindow, body: orders, itemIndex },
					};
		},
		read: (body, group) => {
			const writes = group.map(({ write }) => write);
			if (sending.endpoint === 'batch')
				return readFuturesBatch(writes, (body as { result: unknown[] }).result);
			const answer = body as IDataObject;
			return [
				matchesSentFuturesOrder(writes[0], answer)
					? { kind: 'placed', result: answer }
					: { kind: 'unknown', reason: 'the answer is about another order' },
			];
		},
		refused: (error) =>
			isServiceRejection(error, ERROR_CODES.duplicateClientOrderId)
				? { kind: 'duplicate', refusal: { error } }
				: { kind: 'rejected', refusal: { error } },
		precheck: (pending) =>
			checkFuturesBusinessKeys(session, pending, (toCheck, lostRun) =>
				keyHoldersFromLists(session, toCheck, lostRun),
			),
		lookup: (pending, duplicate) => lookUpFuturesOrder(session, pending, duplicate),
		// Many lost at once (a batch answer, a connection): from the open and past order lists.
		lookupMany: {
			key: 'futuresOrder',
			lookUp: (entries) => lookUpFuturesOrdersInLists(session, entries),
		},
	};
}
