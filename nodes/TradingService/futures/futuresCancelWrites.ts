import { NodeOperationError, type IDataObject } from 'n8n-workflow';

import { inLanes } from '../helpers/lanes';
import { isServiceRejection } from '../transport';
import {
	pendingWrite,
	type EngineSession,
	type Refusal,
	type Settled,
	type Verdict,
	type WriteKind,
} from '../writes/engine';
import { fingerprint, type WriteLedger } from '../writes/ledger';
import { lostRunText } from '../writes/writeSession';
import { FUTURES_ENDPOINTS } from './endpoints';
import {
	confirmFuturesCancel,
	ended,
	explainFuturesCancel,
	isNothingToCancel,
	lostRunSettled,
	notFound,
	pin,
	refusedAfterLostRun,
	sentReference,
	type FuturesCancelWrite,
	type NotCancelledDetail,
	type PendingFuturesCancel,
} from './futuresCancelLookups';
import {
	findFuturesOrder,
	FUTURES_CANCELLED_STATUSES,
	FUTURES_OPEN_STATUSES,
	futuresOrderQuery,
	isFuturesOrderOf,
	listAllOpenFuturesOrders,
	type FuturesOrderReference,
	type FuturesOrderType,
} from './futuresOrderFind';

// A futures cancel must name the order's type (LIMIT or STOP).

/** More than this many orders to find: one list of the open orders instead of a lookup each. */
const SINGLE_LOOKUPS_UP_TO = 3;
const LOOKUPS_AT_ONCE = 10;

/** `slotName`: "3", or "3.1" for the second ID of item 3. */
export function pendingFuturesCancel(
	ledger: WriteLedger,
	slotName: string,
	reference: FuturesOrderReference,
	type: FuturesOrderType | undefined,
	itemIndex: number,
): PendingFuturesCancel {
	const request = { ...futuresOrderQuery(reference), type: type ?? 'find' };
	const slot = ledger.slot(slotName, fingerprint('futuresCancel', request), itemIndex);
	return pendingWrite(slot, { reference, ...(type ? { type } : {}) }, itemIndex);
}

function referenceText(reference: FuturesOrderReference): string {
	return 'orderId' in reference
		? `ID ${reference.orderId}`
		: `with client order ID ${reference.clientOrderId}`;
}

const HOW_TO_CHECK = (reference: FuturesOrderReference) =>
	`Look up futures order ${referenceText(reference)} (Trading Service > Futures > Get Order) and check its status`;

function storedCancel(order: IDataObject): IDataObject {
	const stored: IDataObject = {};
	for (const field of ['orderId', 'clientOrderId', 'symbol', 'orderType', 'status']) {
		if (typeof order[field] === 'string' || typeof order[field] === 'number')
			stored[field] = String(order[field]);
	}
	return stored;
}

function notAllowed(
	session: EngineSession,
	pending: PendingFuturesCancel,
	order: IDataObject,
	allowed: string[],
): Verdict {
	const { reference } = pending.write;
	const [field, named] =
		'orderId' in reference
			? ['Order ID', reference.orderId]
			: ['Client Order ID', reference.clientOrderId];
	const error = new NodeOperationError(
		session.node,
		`${field}: order ${named} is an order of ${String(order.symbol)}, which is not in Allowed Contracts (${allowed.join(', ')})`,
		{
			description:
				'The node’s Allowed Contracts guardrail refuses this cancel; nothing was sent. Add the contract to Allowed Contracts if the cancel is intended.',
			itemIndex: pending.itemIndex,
		},
	);
	return { kind: 'rejected', refusal: { error } };
}

/** Before sending: an order found already ended, or cancelled by a lost run, settles its cancel. */
async function beforeSending(
	session: EngineSession,
	pending: PendingFuturesCancel,
	order: IDataObject | undefined,
	allowed: string[] | undefined,
): Promise<Verdict | undefined> {
	if (order === undefined) return notFound();
	if (allowed !== undefined && !allowed.includes(String(order.symbol)))
		return notAllowed(session, pending, order, allowed);
	const status = String(order.status);
	if (session.lostRun !== undefined && FUTURES_CANCELLED_STATUSES.includes(status))
		return { kind: 'placed', result: order, alreadyPlaced: true };
	const { write } = pending;
	const mayCancelPlaced = write.type === undefined && 'clientOrderId' in write.reference;
	if (!FUTURES_OPEN_STATUSES.includes(status))
		return await ended(session, pending, order, { mayCancelPlaced });
	return pin(pending, order, session);
}

/**
 * WriteKind.precheck: a cancel without a type, under Allowed Contracts, or after a lost run finds
 * its order first; found open, its type and order ID are what the request names.
 */
async function findBeforeCancel(
	session: EngineSession,
	pending: PendingFuturesCancel[],
	allowed?: string[],
): Promise<Array<Verdict | undefined>> {
	const verdicts: Array<Verdict | undefined> = pending.map(() => undefined);
	const wanted = [...pending.keys()].filter(
		(index) =>
			pending[index].write.type === undefined ||
			allowed !== undefined ||
			session.lostRun !== undefined,
	);
	if (wanted.length === 0) return verdicts;
	await lostRunSettled(session);
	let left = wanted;
	if (wanted.length > SINGLE_LOOKUPS_UP_TO) {
		const open = new Map<string, IDataObject>();
		const { orders } = await listAllOpenFuturesOrders(session, {
			itemIndex: pending[0].itemIndex,
		});
		for (const order of orders) {
			open.set(`o${String(order.orderId)}`, order);
			if (typeof order.clientOrderId === 'string' && order.clientOrderId !== '')
				open.set(`c${order.clientOrderId}`, order);
		}
		const key = (reference: FuturesOrderReference) =>
			'orderId' in reference ? `o${reference.orderId}` : `c${reference.clientOrderId}`;
		const found = wanted.filter((index) => open.has(key(pending[index].write.reference)));
		for (const index of found) {
			const order = open.get(key(pending[index].write.reference));
			verdicts[index] = await beforeSending(session, pending[index], order, allowed);
		}
		left = wanted.filter((index) => !found.includes(index));
	}
	await inLanes(left.length, LOOKUPS_AT_ONCE, async (position) => {
		const one = pending[left[position]];
		const order = await findFuturesOrder(session, one.write.reference, one.itemIndex);
		verdicts[left[position]] = await beforeSending(session, one, order, allowed);
	});
	return verdicts;
}

/** `allowed`: Allowed Contracts. */
export function futuresCancelKind(
	session: EngineSession,
	allowed?: string[],
): WriteKind<FuturesCancelWrite> {
	return {
		wording: ({ reference }) => ({
			what: `cancel of futures order ${referenceText(reference)}`,
			howToCheck: HOW_TO_CHECK(reference),
		}),
		whyNoLookup: () => undefined,
		unknownDetail: () => 'The node looked the order up and could not tell whether it was cancelled',
		stored: storedCancel,
		groups: (pending) => pending.map((one) => [one]),
		request: ([{ write, itemIndex }]) => ({
			endpoint: FUTURES_ENDPOINTS.cancelOrder,
			// The type is set before sending: given, or found by the precheck or the lookup.
			request: { qs: { ...futuresOrderQuery(sentReference(write)), type: write.type }, itemIndex },
		}),
		read: (body, [{ write }]): Verdict[] => {
			const order = body as IDataObject;
			if (isFuturesOrderOf(sentReference(write), order)) return [{ kind: 'placed', result: order }];
			const reason = `the cancel answer names order ${String(order.orderId)}, not the order sent`;
			return [{ kind: 'unknown', reason }];
		},
		refused: (error) => {
			const said = isServiceRejection(error) ? error.rejection : undefined;
			// 0212 ("already completed or does not exist", or the wrong type): the order tells why.
			if (said !== undefined && isNothingToCancel(said.code))
				return { kind: 'duplicate', refusal: { code: String(said.code), msg: said.msg } };
			// After a lost run, another refusal is looked up too: that run may have cancelled it.
			if (said !== undefined && session.lostRun !== undefined)
				return { kind: 'duplicate', refusal: { error, code: String(said.code), msg: said.msg } };
			return { kind: 'rejected', refusal: { error } };
		},
		precheck: (pending) =>
			findBeforeCancel(session, pending, allowed).catch((error: unknown) => {
				if (session.lostRun === undefined) throw error;
				// The lost run may have cancelled: neither "sent again" nor "nothing was executed".
				const reason = `${lostRunText(session.lostRun)}, and looking the order up before cancelling failed: ${(error as Error).message}; the cancel was not sent`;
				return pending.map((): Verdict => ({ kind: 'unknown', reason, failed: true }));
			}),
		lookup: (pending, said) => {
			if (said === undefined) return confirmFuturesCancel(session, pending);
			if (said.error !== undefined) return refusedAfterLostRun(session, pending, said);
			return explainFuturesCancel(session, pending, said);
		},
		// Two items cancelling one order ID: cancelled once, and both say so.
		sameWrite: ({ reference, sendAs }) => {
			const sent = sendAs ?? reference;
			return 'orderId' in sent ? sent.orderId : undefined;
		},
		sameWriteOfStored: (stored) =>
			typeof stored.orderId === 'string' && stored.orderId !== '' ? stored.orderId : undefined,
	};
}

export function futuresCancelledJson(
	settled: Extract<Settled, { outcome: 'placed' }>,
	write?: FuturesCancelWrite,
): IDataObject {
	const stop = write?.triggeredStop;
	return {
		outcome: 'placed',
		cancelled: true,
		...(stop === undefined
			? {}
			: {
					triggeredStopOrderId: stop,
					message: `Stop order ${stop} had triggered: the order it placed under its client order ID was cancelled`,
				}),
		...(settled.via === 'ledger' ? { replayed: true } : {}),
		...(settled.via === 'lookup' ? { confirmedByLookup: true } : {}),
		...(settled.via === 'lookup' && settled.alreadyPlaced ? { alreadyPlaced: true } : {}),
		...(settled.sharedWith === undefined ? {} : { sameCancelAsItem: settled.sharedWith }),
	};
}

/** No `error`: a rejection is data. */
export function notCancelledJson(refusal: Refusal): IDataObject {
	if (refusal.error !== undefined) {
		return {
			outcome: 'rejected',
			cancelled: false,
			reason: 'requestRefused',
			message: `Not cancelled: ${refusal.error.message}`,
		};
	}
	const { reason, text, order, triggeredOrderId } = refusal.detail as NotCancelledDetail;
	return {
		outcome: 'rejected',
		cancelled: false,
		reason,
		message: `Not cancelled: ${text}`,
		...(refusal.code ? { code: refusal.code } : {}),
		...(refusal.msg ? { serviceMessage: refusal.msg } : {}),
		...(order === undefined
			? {}
			: {
					confirmedByLookup: true,
					orderId: order.orderId,
					symbol: order.symbol,
					status: order.status,
				}),
		...(order?.orderType === undefined ? {} : { orderType: order.orderType }),
		...(triggeredOrderId === undefined ? {} : { triggeredOrderId }),
	};
}

export function futuresCancelItem(pending: PendingFuturesCancel): IDataObject {
	const { reference } = pending.write;
	const named = reference as IDataObject;
	const settled = pending.settled!;
	if (settled.outcome === 'placed') {
		const { status, orderType, symbol } = settled.result;
		return { ...named, ...futuresCancelledJson(settled, pending.write), symbol, orderType, status };
	}
	if (settled.outcome === 'rejected') return { ...named, ...notCancelledJson(settled.refusal) };
	return {
		...named,
		outcome: 'unknown',
		cancelled: null,
		message: settled.error.message,
		howToCheck: HOW_TO_CHECK(reference),
	};
}
