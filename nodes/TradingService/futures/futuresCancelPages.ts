import { sleep, type IDataObject } from 'n8n-workflow';

import { LIMITS } from '../constants';
import {
	pendingWrite,
	settleWrites,
	type EngineSession,
	type NodeError,
	type PendingWrite,
	type Verdict,
	type WriteKind,
} from '../writes/engine';
import { fingerprint, type WriteLedger } from '../writes/ledger';
import { FUTURES_ENDPOINTS } from './endpoints';
import { listOpenFuturesOrders, type FuturesOrderType } from './futuresOrderFind';

// Cancel Many Orders of a contract or of every contract: DELETE /api/v2/futures/cancelOrders, which
// cancels the newest open orders of one side and type (at most 200) and answers only the last
// order ID it cancelled ("0": none). One request sequence per side and type, each page a write of
// the engine: `lastOrderId` sent as `fromOrderId` until "0". A page whose answer is lost is settled
// by listing what is left, never assumed: nothing left of its side and type, it held; something
// left once no attempt can be applied any more, it is sent once more (cancelling twice moves no
// money, and the page then cancels what is left).

/** Most orders one cancelOrders request cancels ("max 200"). */
export const CANCEL_PAGE_LIMIT = 200;
/** Pages of one sequence at most: 200 × 100 orders. */
const MAX_PAGES = 100;

export interface CancelPage {
	/** Undefined: every contract. */
	symbol?: string;
	side: 'BUY' | 'SELL';
	type: FuturesOrderType;
	/** Only orders below this order ID (the previous page's lastOrderId). */
	fromOrderId?: string;
}

type PendingPage = PendingWrite<CancelPage>;

const scopeText = ({ symbol, side, type }: CancelPage) =>
	`open ${side} ${type} futures orders of ${symbol ?? 'every contract'}`;

/**
 * What is left open of the page's side and type, below its fromOrderId: paged until the list ends
 * or one is found (the other side's orders may fill pages); `complete` false: it did not end.
 */
async function leftOpen(
	session: EngineSession,
	pending: PendingPage,
): Promise<{ left: IDataObject[]; complete: boolean }> {
	const { symbol, side, type, fromOrderId } = pending.write;
	const ofSide = (orders: IDataObject[]) => orders.filter((order) => order.side === side);
	const { orders, complete } = await listOpenFuturesOrders(session, {
		symbol,
		type,
		fromOrderId,
		itemIndex: pending.itemIndex,
		urgent: true,
		onPage: (page) => ofSide(page).length > 0,
	});
	return { left: ofSide(orders), complete };
}

async function lookUpPage(session: EngineSession, pending: PendingPage): Promise<Verdict> {
	for (;;) {
		const listedAt = Date.now();
		let listed: { left: IDataObject[]; complete: boolean };
		try {
			listed = await leftOpen(session, pending);
		} catch (error) {
			const reason = `listing the open orders to see what is left failed: ${(error as Error).message}`;
			return { kind: 'unknown', reason, failed: true };
		}
		if (listed.left.length === 0 && !listed.complete)
			return { kind: 'unknown', reason: 'the open orders could not be listed to their end' };
		if (listed.left.length === 0)
			return { kind: 'placed', result: { lastOrderId: '0', settledByList: true } };
		const acceptableUntil =
			pending.window.acceptableUntil ??
			listedAt + LIMITS.maxRecvWindowMs + LIMITS.futureToleranceMs;
		if (listedAt >= acceptableUntil) return { kind: 'notDone' };
		await sleep(acceptableUntil - listedAt);
	}
}

/** The page kind: one request each; its answer's lastOrderId says where the next page starts. */
export function cancelPageKind(session: EngineSession): WriteKind<CancelPage> {
	return {
		wording: (page) => ({
			what: `cancel of the ${scopeText(page)}${page.fromOrderId ? ` below order ID ${page.fromOrderId}` : ''}`,
			howToCheck: `List the ${scopeText(page)} (Trading Service > Futures > Get Orders, Order Status Open, Order Type ${page.type === 'LIMIT' ? 'Limit' : 'Stop'})`,
		}),
		whyNoLookup: () => undefined,
		unknownDetail: () =>
			'The node listed the open orders and could not tell whether the cancel was applied',
		stored: (result) => ({ lastOrderId: String(result.lastOrderId) }),
		groups: (pending) => pending.map((one) => [one]),
		request: ([{ write, itemIndex }]) => {
			const { symbol, side, type, fromOrderId } = write;
			const qs: IDataObject = {
				side,
				orderType: type,
				...(symbol === undefined ? {} : { symbol }),
				...(fromOrderId === undefined ? {} : { fromOrderId }),
				limit: CANCEL_PAGE_LIMIT,
			};
			return { endpoint: FUTURES_ENDPOINTS.cancelOrders, request: { qs, itemIndex } };
		},
		read: (body) => {
			const last = (body as IDataObject).lastOrderId;
			if ((typeof last === 'string' || typeof last === 'number') && /^\d{1,20}$/.test(String(last)))
				return [{ kind: 'placed', result: { lastOrderId: String(last) } }];
			return [
				{
					kind: 'unknown',
					reason: `the answer's lastOrderId ${JSON.stringify(last)} is not an order ID`,
				},
			];
		},
		lookup: (pending) => lookUpPage(session, pending),
	};
}

/** How one side and type's sequence ended. */
export interface SequenceEnd {
	page: CancelPage;
	outcome: 'placed' | 'rejected' | 'unknown';
	/** Requests settled (a page answered from the ledger counts too). */
	pages: number;
	/** The error of a refused or unknown page. */
	error?: NodeError;
	/** Whether the first page was refused as a whole: nothing of this sequence was cancelled. */
	refusedAtFirst?: boolean;
	/** Whether a page ended by a list rather than an answer. */
	settledByList?: boolean;
	/** Whether a page came from an earlier try's ledger. */
	replayed?: boolean;
}

/**
 * One side and type's pages, one after the other, each through the engine with a ledger slot of
 * its own (`slotBase`.page), so a re-run of the node answers the pages sent from the ledger.
 */
export async function cancelSequence(
	session: EngineSession & { ledger: WriteLedger },
	base: Omit<CancelPage, 'fromOrderId'>,
	slotBase: string,
	itemIndex: number,
): Promise<SequenceEnd> {
	const kind = cancelPageKind(session);
	const end: SequenceEnd = { page: base, outcome: 'placed', pages: 0 };
	let fromOrderId: string | undefined;
	for (let page = 0; page < MAX_PAGES; page++) {
		const write: CancelPage = { ...base, ...(fromOrderId ? { fromOrderId } : {}) };
		const request = { ...write, limit: CANCEL_PAGE_LIMIT };
		const slot = session.ledger.slot(
			`${slotBase}.${page}`,
			fingerprint('futuresCancelPage', request as IDataObject),
			itemIndex,
		);
		const pending = pendingWrite(slot, write, itemIndex);
		await settleWrites(session, kind, [pending]);
		const settled = pending.settled!;
		end.pages++;
		if (settled.outcome === 'rejected') {
			return {
				...end,
				outcome: 'rejected',
				error: settled.refusal.error,
				refusedAtFirst: page === 0,
			};
		}
		if (settled.outcome === 'unknown') return { ...end, outcome: 'unknown', error: settled.error };
		if (settled.via === 'ledger') end.replayed = true;
		if (settled.result.settledByList === true) end.settledByList = true;
		const last = String(settled.result.lastOrderId);
		if (last === '0' || last === fromOrderId) return end;
		fromOrderId = last;
	}
	return end;
}
