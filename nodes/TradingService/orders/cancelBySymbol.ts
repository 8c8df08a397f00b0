import { sleep, type IDataObject } from 'n8n-workflow';

import { CANCEL_PENDING_STATUS, LIMITS } from '../constants';
import { ENDPOINTS } from '../transport';
import { cancelItem, stopOnFirstRefusal } from './cancelItems';
import { cancelKind, pendingCancel, type PendingCancel } from './cancelWrites';
import { settleWrites } from '../writes/engine';
import { fingerprint } from '../writes/ledger';
import type { RunContext } from '../run/runContext';

import { writeRun } from '../writes/writeRun';

/**
 * Cancel Many by symbol. The exchange's cancel-all endpoints answer only that a request was
 * accepted (DELETE /api/v1/spot/openOrders: `{"success": true}`, at most 200 orders a call), which
 * proves nothing about any one order. So the node lists the open orders of the symbol, cancels
 * exactly those by ID through the write engine (per-order answers, the write ledger, lookups when
 * an answer is lost), then lists again to confirm: an order it cancelled that is still listed as
 * open is reported unknown, and orders that appeared meanwhile are cancelled in a further round.
 * Every order gets an item with its own outcome: a partly done cancel is reported order by order.
 */

/** Rounds of list-and-cancel: orders placed while the node cancels are caught by the next one. */
const MAX_ROUNDS = 5;
/** How long a cancel the exchange accepted may take to leave the open-orders list. */
const CONFIRM_WAIT_MS = 3000;
const CONFIRM_POLL_MS = 250;

/** What one Cancel Many by symbol cancels: one symbol's open orders of one account, of one side or both. */
export interface SymbolCancel {
	symbol: string;
	side: string | undefined;
	accountId: string;
}

async function listOpen(
	run: RunContext,
	{ symbol, side, accountId }: SymbolCancel,
	itemIndex: number,
): Promise<Map<string, IDataObject>> {
	const orders = (await run.client.request(ENDPOINTS.openOrders, {
		qs: {
			symbol,
			...(side === undefined ? {} : { side }),
			accountId,
			limit: LIMITS.ordersPageSize,
		},
		itemIndex,
	})) as IDataObject[];
	const open = new Map<string, IDataObject>();
	for (const order of orders) {
		// The list may hold other symbols', sides' or accounts' orders only if the service ignored a
		// filter: never cancel those.
		if (order.symbol !== symbol || (side !== undefined && order.side !== side)) continue;
		if (order.accountId !== undefined && String(order.accountId) !== accountId) continue;
		open.set(String(order.orderId), order);
	}
	return open;
}

function orderIdOf(pending: PendingCancel): string {
	return 'orderId' in pending.write.reference ? pending.write.reference.orderId : '';
}

/** Whether a listed order still waits for a cancel that was answered as done. */
function stillOpenAfterCancel(pending: PendingCancel, listed: IDataObject | undefined): boolean {
	return (
		pending.settled?.outcome === 'placed' &&
		listed !== undefined &&
		listed.status !== CANCEL_PENDING_STATUS
	);
}

/** The open orders listed again once the cancels were answered, giving accepted ones time to show. */
async function listAfterCancels(
	run: RunContext,
	what: SymbolCancel,
	itemIndex: number,
	targets: Map<string, PendingCancel>,
): Promise<Map<string, IDataObject>> {
	let open = await listOpen(run, what, itemIndex);
	// A cancel is applied a moment after its answer: give accepted cancels time to show.
	for (
		const waitUntil = Date.now() + CONFIRM_WAIT_MS;
		[...targets.values()].some((pending) =>
			stillOpenAfterCancel(pending, open.get(orderIdOf(pending))),
		) && Date.now() < waitUntil;

	) {
		await sleep(CONFIRM_POLL_MS);
		open = await listOpen(run, what, itemIndex);
	}
	return open;
}

/** What the rounds of list-and-cancel did: every order targeted, and what is still open. */
interface Rounds {
	targets: Map<string, PendingCancel>;
	open: Map<string, IDataObject>;
	rounds: number;
	/** Why the last list, which confirms the cancels, could not be read. */
	unconfirmed?: string;
}

/**
 * Lists, cancels and lists again until no new order is open, at most MAX_ROUNDS times. Items of
 * one run naming the same symbol, side and account share one cancel (cancelMany.operation.ts), so
 * the ledger keeps it under that name rather than under an item: whichever item starts it, a
 * later try finds it.
 */
async function cancelInRounds(
	run: RunContext,
	what: SymbolCancel,
	itemIndex: number,
): Promise<Rounds> {
	const { symbol, side, accountId } = what;
	const slotName = `symbol ${accountId} ${symbol} ${side ?? 'BOTH'}`;
	// The orders an earlier try of this node run targeted: reported again, and looked up or
	// answered from the ledger, never cancelled twice.
	const writes = writeRun(run);
	const targetsSlot = writes.ledger.slot(slotName, fingerprint('cancelBySymbol', { symbol, side }));
	const earlier = String(targetsSlot.recorded?.result?.orderIds ?? '')
		.split(',')
		.filter((id) => id !== '');
	const targets = new Map<string, PendingCancel>();
	const target = (orderId: string) => {
		const pending = pendingCancel(writes.ledger, `${slotName}.${orderId}`, { orderId }, itemIndex);
		targets.set(orderId, pending);
		return pending;
	};
	let open = await listOpen(run, what, itemIndex);
	const kind = cancelKind(writes, 'byIds');
	const afterRequest = stopOnFirstRefusal(() => targets.values());
	let round = 0;
	for (; round < MAX_ROUNDS; round++) {
		const fresh = [
			...(round === 0 ? earlier.filter((orderId) => !targets.has(orderId)) : []),
			...[...open.keys()].filter((orderId) => !targets.has(orderId) && !earlier.includes(orderId)),
		].map(target);
		if (fresh.length === 0) break;
		targetsSlot.record({ outcome: 'unknown', result: { orderIds: [...targets.keys()].join(',') } });
		await settleWrites(writes, kind, fresh, { afterRequest });
		try {
			open = await listAfterCancels(run, what, itemIndex, targets);
		} catch (error) {
			// Cancels were sent: their answers stand, each order's item says what is known of it.
			const unconfirmed = `listing the open ${symbol} orders to confirm failed: ${(error as Error).message}`;
			return { targets, open: new Map(), rounds: round, unconfirmed };
		}
	}
	return { targets, open, rounds: round };
}

/** The item of an order a round targeted, as its cancel settled and the last list shows it. */
function targetItem(
	pending: PendingCancel,
	listed: IDataObject | undefined,
	symbol: string,
	unconfirmed: string | undefined,
): IDataObject {
	const orderId = orderIdOf(pending);
	if (stillOpenAfterCancel(pending, listed)) {
		return {
			orderId,
			symbol,
			outcome: 'unknown',
			cancelled: null,
			status: listed?.status,
			message: `Unknown outcome: the exchange answered that order ${orderId} was cancelled, but it was still listed as open ${CONFIRM_WAIT_MS / 1000} s later`,
			howToCheck: `Look up order ID ${orderId} (Trading Service > Order > Get) and check its status`,
		};
	}
	const item = cancelItem(pending);
	if (item.outcome === 'placed' && listed?.status === CANCEL_PENDING_STATUS)
		item.status = CANCEL_PENDING_STATUS;
	// Without the confirming list the cancel's own answer is all there is: say so.
	if (unconfirmed !== undefined) item.notConfirmed = unconfirmed;
	return { ...item, symbol };
}

/** Cancels the open orders `what` names: an item per order, or one saying there were none. */
export async function cancelBySymbol(
	run: RunContext,
	what: SymbolCancel,
	itemIndex: number,
): Promise<IDataObject[]> {
	const { symbol, side } = what;
	const { targets, open, rounds, unconfirmed } = await cancelInRounds(run, what, itemIndex);
	if (targets.size === 0 && open.size === 0) {
		return [
			{
				symbol,
				...(side === undefined ? {} : { side }),
				openOrders: 0,
				message: `No open ${symbol} orders: nothing to cancel`,
			},
		];
	}
	const items = [...targets.values()].map((pending) =>
		targetItem(pending, open.get(orderIdOf(pending)), symbol, unconfirmed),
	);
	// Orders placed after the last round: not cancelled, and said so.
	for (const [orderId, order] of open) {
		if (targets.has(orderId)) continue;
		items.push({
			orderId,
			symbol,
			outcome: 'rejected',
			cancelled: false,
			reason: 'stillOpen',
			status: order.status,
			message: `Not cancelled: order ${orderId} was placed while the node was cancelling, after ${rounds} rounds. Run the node again to cancel it.`,
		});
	}
	return items;
}
