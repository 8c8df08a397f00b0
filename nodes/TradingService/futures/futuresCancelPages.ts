import { sleep, type IDataObject } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { isServiceRejection } from '../transport';
import {
	pendingWrite,
	settleWrites,
	type EngineSession,
	type NodeError,
	type PendingWrite,
	type Refusal,
	type Verdict,
	type WriteKind,
} from '../writes/engine';
import { fingerprint, type WriteLedger } from '../writes/ledger';
import { FUTURES_ENDPOINTS } from './endpoints';
import { lostRunSettled } from './futuresCancelLookups';
import { listOpenFuturesOrders, type FuturesOrderType } from './futuresOrderFind';

// cancelOrders answers only the last order ID it cancelled ("0": none), so a page whose answer is
// lost is settled by listing what is left, never assumed; something left once no attempt can be
// applied any more is sent once more (cancelling twice moves no money). After a lost run a page is
// listed before it is sent, and a refusal of it is listed too: the lost run may have cancelled it.

const CANCEL_PAGE_LIMIT = 200;
const MAX_PAGES = 100;

interface CancelPage {
	symbol?: string;
	side: 'BUY' | 'SELL';
	type: FuturesOrderType;
	fromOrderId?: string;
}

type PendingPage = PendingWrite<CancelPage>;

const scopeText = ({ symbol, side, type }: CancelPage) =>
	`open ${side} ${type} futures orders of ${symbol ?? 'every contract'}`;

/** Paged until the list ends or one is found: the other side's orders may fill pages. */
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

const ALL_CANCELLED: Verdict = {
	kind: 'placed',
	result: { lastOrderId: '0', settledByList: true },
	alreadyPlaced: true,
};

/** WriteKind.precheck: after a lost run, nothing left of the page's scope is a page done, not sent. */
async function pagesAfterLostRun(
	session: EngineSession,
	pending: PendingPage[],
): Promise<Array<Verdict | undefined>> {
	if (session.lostRun === undefined) return pending.map(() => undefined);
	await lostRunSettled(session);
	return await Promise.all(
		pending.map(async (one) => {
			// Unlistable: sent (cancelling twice moves no money); a refusal is then listed again.
			const listed = await leftOpen(session, one).catch(() => undefined);
			return listed?.complete === true && listed.left.length === 0 ? ALL_CANCELLED : undefined;
		}),
	);
}

/** A page refused after a lost run: nothing left, the lost run cancelled it; orders left, refused. */
async function refusedPage(
	session: EngineSession,
	pending: PendingPage,
	said: Refusal,
): Promise<Verdict> {
	const refusedAs = said.error?.message ?? `code ${said.code ?? ''}`;
	const why = `an earlier run may have cancelled them, and sending the cancel again was refused (${refusedAs})`;
	try {
		const { left, complete } = await leftOpen(session, pending);
		if (left.length > 0) return { kind: 'rejected', refusal: said };
		if (complete) return ALL_CANCELLED;
		return { kind: 'unknown', reason: `${why}; the open orders could not be listed to their end` };
	} catch (error) {
		return {
			kind: 'unknown',
			reason: `${why}; listing what is left failed: ${(error as Error).message}`,
			failed: true,
		};
	}
}

function cancelPageKind(session: EngineSession): WriteKind<CancelPage> {
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
		refused: (error) =>
			session.lostRun !== undefined && isServiceRejection(error)
				? { kind: 'duplicate', refusal: { error } }
				: { kind: 'rejected', refusal: { error } },
		precheck: (pending) => pagesAfterLostRun(session, pending),
		lookup: (pending, said) =>
			said === undefined ? lookUpPage(session, pending) : refusedPage(session, pending, said),
	};
}

export interface SequenceEnd {
	page: CancelPage;
	outcome: 'placed' | 'rejected' | 'unknown';
	/** Requests settled (a page answered from the ledger counts too). */
	pages: number;
	error?: NodeError;
	/** Whether the first page was refused as a whole: nothing of this sequence was cancelled. */
	refusedAtFirst?: boolean;
	settledByList?: boolean;
	replayed?: boolean;
	/** Settled without sending: after a lost run, nothing was left to cancel. */
	alreadyPlaced?: boolean;
}

/** A ledger slot per page (`slotBase`.page): a re-run answers the pages sent from the ledger. */
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
		if (settled.alreadyPlaced) end.alreadyPlaced = true;
		if (settled.result.settledByList === true) end.settledByList = true;
		const last = String(settled.result.lastOrderId);
		if (last === '0' || last === fromOrderId) return end;
		fromOrderId = last;
	}
	return end;
}
