import { sleep, type IDataObject } from 'n8n-workflow';

import { ENDPOINTS } from '../transport';
import type { EngineRun } from '../writes/engine';
import type { PendingWrite, Refusal, Verdict } from '../writes/pendingWrite';
import type { LookupEntry } from '../writes/writeKind';
import { confirmFound, explainFound } from './cancelLookups';
import type { OrderReference } from './orderIds';
import { SINGLE_LOOKUPS_UP_TO, readOrderList } from './orderLists';

/**
 * Many cancels whose outcome is unknown (a lost answer to 100 IDs), or refused as having nothing
 * to cancel without saying why (0211 for each ID), settled from the account's order lists
 * instead of one query each (writes/settling.ts gathers them): its open orders, then its past
 * orders from the largest order ID sought down, matched by order ID. An order found is judged as a
 * single lookup judges it (cancelLookups.ts); one still open while the cancel may still apply is
 * listed again once it cannot. An order the lists do not show (another account's: an order ID
 * names one order whichever account holds it; older than the past orders' 90 days; a page limit
 * reached; a list that cannot be read) is looked up on its own.
 */

type PendingCancel = PendingWrite<{ reference: OrderReference; sendAs?: OrderReference }>;

/** The order ID a cancel names, when it names one (a client order ID is looked up on its own). */
function orderIdOf(pending: PendingCancel): string | undefined {
	const reference = pending.write.sendAs ?? pending.write.reference;
	return 'orderId' in reference ? reference.orderId : undefined;
}

/** The orders of one account holding the sought order IDs: open ones first, then past ones. */
async function listAccount(
	run: EngineRun,
	accountId: string,
	sought: Set<string>,
	itemIndex: number,
): Promise<Map<string, IDataObject>> {
	const found = new Map<string, IDataObject>();
	const onPage = (orders: IDataObject[]) => {
		for (const order of orders) {
			const id = String(order.orderId);
			if (sought.has(id) && !found.has(id)) found.set(id, order);
		}
		return found.size === sought.size;
	};
	await readOrderList(run, ENDPOINTS.openOrders, { accountId }, itemIndex, onPage);
	const left = [...sought].filter((id) => !found.has(id));
	if (left.length === 0) return found;
	// Past orders below the largest ID sought plus one (fromOrderId: smaller IDs only).
	const largest = left.reduce((most, id) => (BigInt(id) > BigInt(most) ? id : most));
	await readOrderList(
		run,
		ENDPOINTS.tradeOrders,
		{ accountId, fromOrderId: String(BigInt(largest) + 1n) },
		itemIndex,
		onPage,
	);
	return found;
}

/** What the found order says of one cancel: a verdict, or when to look again. */
function findingOf(
	pending: PendingCancel,
	said: Refusal | undefined,
	order: IDataObject,
	listedAt: number,
	listing: number,
): Verdict | { again: number } {
	if (said !== undefined) return explainFound(order, said);
	const finding = confirmFound(order, pending.window, listedAt);
	// Listed again once the cancel could no longer apply, and still open: it was not applied.
	return 'again' in finding && listing > 1 ? { kind: 'notDone' } : finding;
}

/** The cancels of one account from its lists: a verdict each, undefined where the lists cannot tell. */
async function settleAccount(
	run: EngineRun,
	accountId: string,
	entries: Array<LookupEntry<{ reference: OrderReference; sendAs?: OrderReference }>>,
): Promise<Array<Verdict | undefined>> {
	const verdicts = new Map<PendingCancel, Verdict>();
	let waiting = entries;
	for (let listing = 1; waiting.length > 0; listing++) {
		const listedAt = Date.now();
		let found: Map<string, IDataObject>;
		try {
			const sought = new Set(waiting.map(({ pending }) => orderIdOf(pending) as string));
			found = await listAccount(run, accountId, sought, waiting[0].pending.itemIndex);
		} catch {
			break; // the lists cannot be read: what they did not settle is looked up on its own
		}
		const again: typeof entries = [];
		let until = 0;
		for (const entry of waiting) {
			const order = found.get(orderIdOf(entry.pending) as string);
			if (order === undefined) continue;
			const finding = findingOf(entry.pending, entry.said, order, listedAt, listing);
			if ('again' in finding) {
				again.push(entry);
				until = Math.max(until, finding.again);
			} else verdicts.set(entry.pending, finding);
		}
		waiting = again;
		if (waiting.length > 0) await sleep(until - listedAt);
	}
	return entries.map(({ pending }) => verdicts.get(pending));
}

/**
 * WriteKind.lookupMany of cancels: the gathered cancels by the account of their item, each group
 * of more than SINGLE_LOOKUPS_UP_TO from the lists; undefined for what the lists do not settle.
 */
export async function lookUpCancelsInLists(
	run: EngineRun,
	entries: Array<LookupEntry<{ reference: OrderReference; sendAs?: OrderReference }>>,
): Promise<Array<Verdict | undefined>> {
	const verdicts: Array<Verdict | undefined> = entries.map(() => undefined);
	const byId = [...entries.keys()].filter((index) => orderIdOf(entries[index].pending));
	// A few are looked up one by one: no list, and no read of the key's accounts.
	if (byId.length <= SINGLE_LOOKUPS_UP_TO) return verdicts;
	const groups = new Map<string, number[]>();
	for (const index of byId) {
		const { accountId } = await run.account(entries[index].pending.itemIndex);
		groups.set(accountId, [...(groups.get(accountId) ?? []), index]);
	}
	await Promise.all(
		[...groups].map(async ([accountId, indexes]) => {
			if (indexes.length <= SINGLE_LOOKUPS_UP_TO) return;
			const found = await settleAccount(
				run,
				accountId,
				indexes.map((index) => entries[index]),
			);
			found.forEach((verdict, position) => (verdicts[indexes[position]] = verdict));
		}),
	);
	return verdicts;
}
