import { sleep, type IDataObject } from 'n8n-workflow';

import { ERROR_CODES, LIMITS } from '../constants';
import { decimalAbove } from '../helpers/decimals';
import { ENDPOINTS, isServiceRejection } from '../transport';
import type { EngineRun } from '../writes/engine';
import type { PendingWrite, Verdict } from '../writes/pendingWrite';
import { lostRunText, type LostRun } from '../writes/writeRun';

// A transfer looked up in the transfer history by its client order ID: after an unknown outcome,
// after a lost run, and after the exchange refused the ID as already used.

/** What a lookup reads of a transfer of the run (transferWrites.ts `TransferWrite`). */
type PendingTransfer = PendingWrite<{
	qs: {
		fromAccountId: string;
		toAccountId: string;
		coin: string;
		quantity: string;
		clientOrderId?: string;
	};
	fromEarlierTry?: boolean;
}>;

/** Flow type of transfer records in the history (spec §2.2). */
const TRANSFER_FLOW_TYPE = 51;
/**
 * How far the history lookup reaches around the transfer's attempts: the service accepted them
 * only while the two clocks agreed within the receive window, so a minute either side is ample.
 */
const LOOKUP_MARGIN_MS = 60_000;
/**
 * How long after a transfer was executed the node allows the history to list it. Neither the spec
 * nor the UAE documentation says how late the history may be: 10 s is the node's decision, a few
 * re-reads spaced out (docs/safety.md). A retry after a lost run reads the history until this long
 * after the lost run's last attempt could have been accepted before it sends anything.
 */
export const HISTORY_LAG_MS = 10_000;
/** How far apart the history is read while the node waits for it to list a transfer. */
const HISTORY_RE_READ_MS = 2_500;
/** How an item names a transfer found by the exchange's refusal of its client order ID. */
export const FOUND_BY_REFUSAL = 'the exchange refused the client order ID as already used';

const PLAIN_DECIMAL = /^[-+]?\d+(\.\d+)?$/;

/** Whether a record's signed `change` moves exactly `quantity`, either way. */
function movesQuantity(change: unknown, quantity: string): boolean {
	if (typeof change !== 'string' || !PLAIN_DECIMAL.test(change)) return false;
	const size = change.replace(/^[-+]/, '');
	return !decimalAbove(size, quantity) && !decimalAbove(quantity, size);
}

/** Why a record carrying the transfer's client order ID is not the transfer sent, or undefined. */
function mismatchOf(record: IDataObject, qs: PendingTransfer['write']['qs']): string | undefined {
	if (record.coin !== undefined && record.coin !== qs.coin)
		return `its coin is ${String(record.coin)}`;
	if (
		record.accountId !== undefined &&
		record.accountId !== qs.fromAccountId &&
		record.accountId !== qs.toAccountId
	)
		return `it is on account ${String(record.accountId)}`;
	if (record.change !== undefined && !movesQuantity(record.change, qs.quantity))
		return `it moves ${String(record.change)}`;
	return undefined;
}

/**
 * Looks a transfer up in the transfer history (flow type 51) by its client order ID, over the time
 * its attempts may have reached the service. A record carrying the ID, for the coin, the accounts
 * and the quantity sent: placed. Anything else leaves it unknown, and it is not sent again.
 */
export async function lookUpTransfer(run: EngineRun, pending: PendingTransfer): Promise<Verdict> {
	const verdict = await lookUpByClientOrderId(run, pending);
	// On n8n's re-run the report says where the unknown outcome came from, as the engine does.
	if (verdict.kind !== 'unknown' || pending.write.fromEarlierTry !== true) return verdict;
	return {
		...verdict,
		reason: `an earlier try of this node run sent it and got no answer, and ${verdict.reason}`,
	};
}

/** What the transfer history holds under a transfer's client order ID. */
type HistoryFinding =
	| { found: IDataObject; clientOrderId: string }
	| { notFound: string }
	/**
	 * `ending`: how a lookup after an unknown outcome ends the sentence (never sent again).
	 * `otherTransfer`: a record carries the ID but is not this transfer, so a transfer was made
	 * under it (after a lost run: that run's, with other values).
	 */
	| { cannotTell: string; ending: string; otherTransfer?: true };

/**
 * The transfer history (flow type 51) read by the transfer's client order ID, from `from` on, read
 * again every HISTORY_RE_READ_MS while it lists nothing and `listedBy` (local time) is ahead.
 */
async function findInHistory(
	run: EngineRun,
	pending: PendingTransfer,
	from: number,
	listedBy = 0,
): Promise<HistoryFinding> {
	for (;;) {
		const finding = await readHistory(run, pending, from);
		const left = listedBy - Date.now();
		if (!('notFound' in finding) || left <= 0) return finding;
		await sleep(Math.min(HISTORY_RE_READ_MS, left));
	}
}

/**
 * One read of the transfer history by the transfer's client order ID: a record carrying the ID,
 * for the coin, the accounts and the quantity sent (found); none (notFound, with the words that
 * say so); or why the history cannot tell.
 */
async function readHistory(
	run: EngineRun,
	pending: PendingTransfer,
	from: number,
): Promise<HistoryFinding> {
	const { qs } = pending.write;
	const clientOrderId = qs.clientOrderId;
	if (clientOrderId === undefined)
		return { cannotTell: 'the transfer has no client order ID to look it up by', ending: '' };
	const now = Date.now();
	let records: IDataObject[];
	try {
		records = (await run.client.request(ENDPOINTS.history, {
			qs: {
				flowType: TRANSFER_FLOW_TYPE,
				startTime: String(from),
				endTime: String(now + LOOKUP_MARGIN_MS),
				limit: LIMITS.historyPageSize,
				clientOrderId,
			},
			itemIndex: pending.itemIndex,
			// It settles a transfer that may have been executed: before the key's waiting reads.
			urgent: true,
		})) as IDataObject[];
	} catch (error) {
		const why = (error as Error).message;
		return {
			cannotTell: isServiceRejection(error, ERROR_CODES.noPermission)
				? `the API key may not read the account history (${why}), so client order ID ${clientOrderId} cannot be looked up: give the API key permission to read the account history (fund statement), which the node needs to find a transfer after a crash`
				: `looking it up in the transfer history by client order ID ${clientOrderId} failed (${why})`,
			ending: ', and a transfer is never sent again without proof',
		};
	}
	const found = records.filter((record) => record.clientOrderId === clientOrderId);
	if (found.length === 0) {
		if (records.length > 0 && records.every((record) => record.clientOrderId === undefined))
			return {
				cannotTell: `the service's transfer records carry no client order ID, so it cannot be looked up by ${clientOrderId}`,
				ending: '; a transfer is never sent again without proof',
			};
		return { notFound: `no transfer record with client order ID ${clientOrderId} was found` };
	}
	for (const record of found) {
		const mismatch = mismatchOf(record, qs);
		if (mismatch !== undefined) {
			return {
				cannotTell: `a transfer record carries client order ID ${clientOrderId}, but ${mismatch}, so it is not the transfer sent`,
				ending: '; it was not sent again',
				otherTransfer: true,
			};
		}
	}
	// The source's record (the debit) names the transfer; both sides carry the same IDs.
	const record = found.find((one) => one.accountId === qs.fromAccountId) ?? found[0];
	return { found: record, clientOrderId };
}

/** A transfer found in the history, placed: as the item shows it. */
function confirmed(
	{ found, clientOrderId }: { found: IDataObject; clientOrderId: string },
	alreadyPlaced = false,
): Verdict {
	const result: IDataObject = {
		confirmedByLookup: true,
		clientOrderId,
		...(typeof found.orderId === 'string' ? { orderId: found.orderId } : {}),
		...(found.created !== undefined ? { created: String(found.created) } : {}),
	};
	return alreadyPlaced ? { kind: 'placed', result, alreadyPlaced } : { kind: 'placed', result };
}

async function lookUpByClientOrderId(run: EngineRun, pending: PendingTransfer): Promise<Verdict> {
	const finding = await findInHistory(
		run,
		pending,
		(pending.window.firstSentAt ?? Date.now()) - LOOKUP_MARGIN_MS,
	);
	if ('found' in finding) return confirmed(finding);
	if ('notFound' in finding)
		return {
			kind: 'unknown',
			reason: `${finding.notFound}, which does not prove it was not executed (the exchange may still execute it), so it was not sent again`,
		};
	return {
		kind: 'unknown',
		reason: `${finding.cannotTell}${finding.ending}`,
	};
}

/**
 * After a lost run (writes/writeRun.ts): the transfer history is read by the client order ID the
 * lost run gave this transfer. Found: placed by that run, not sent. Not found: sent; should the
 * lost run have made it after all, the exchange refuses the reused ID and lookUpDuplicate reports
 * it placed.
 *
 * A retry is a sign of a lost run: it reads the history until HISTORY_LAG_MS after the lost run's
 * last attempt could have been accepted, and anything the history cannot tell (a key that may not
 * read it, a failed read) leaves the transfer unknown, unsent. A run that is only late shows no
 * such sign (a first run after a Wait or a slow step is late too), so only a record carrying the
 * ID stops it, and it reads once: a re-delivered run starts after the dead worker's queue lock
 * expired, long after its last request.
 */
export async function checkAfterLostRun(
	run: EngineRun,
	pending: PendingTransfer[],
): Promise<Array<Verdict | undefined>> {
	const lostRun = run.lostRun;
	if (lostRun === undefined) return pending.map(() => undefined);
	if (Date.now() < lostRun.settledFrom) await sleep(lostRun.settledFrom - Date.now());
	const listedBy =
		lostRun.why === 'retry' ? Math.max(lostRun.settledFrom, Date.now()) + HISTORY_LAG_MS : 0;
	const verdicts: Array<Verdict | undefined> = [];
	for (const one of pending) {
		const finding = await findInHistory(run, one, lostRun.since - LOOKUP_MARGIN_MS, listedBy);
		if ('found' in finding) verdicts.push(confirmed(finding, true));
		else if ('notFound' in finding) verdicts.push(undefined);
		else if (lostRun.why === 'late' && finding.otherTransfer !== true) verdicts.push(undefined);
		else
			verdicts.push({
				kind: 'unknown',
				reason: `${lostRunText(lostRun)}, and ${finding.cannotTell}; it was not sent, so it cannot move the money twice`,
			});
	}
	return verdicts;
}

/**
 * A transfer refused as a duplicate in a run that may follow a lost one. The generated ID is this
 * execution's, node run and item's alone (writes/writeRun.ts), so the transfer that used it is the
 * lost run's for this item: placed, never rejected. The history, read once more, confirms it or,
 * when its record moves other values, shows the lost run made another transfer for the item
 * (unknown). The history may not list it yet, or not be readable: the refusal is then the proof.
 */
export async function lostRunDuplicate(
	run: EngineRun,
	lostRun: LostRun,
	pending: PendingTransfer,
): Promise<Verdict> {
	const clientOrderId = pending.write.qs.clientOrderId ?? '';
	const finding = await findInHistory(run, pending, lostRun.since - LOOKUP_MARGIN_MS);
	if ('found' in finding) return confirmed(finding, true);
	if ('cannotTell' in finding && finding.otherTransfer === true)
		return {
			kind: 'unknown',
			reason: `${lostRunText(lostRun)}, and the exchange refused client order ID ${clientOrderId} as already used, and ${finding.cannotTell}: the earlier run made another transfer for this item under this ID, so this one was not sent`,
		};
	return {
		kind: 'placed',
		result: { clientOrderId, foundBy: FOUND_BY_REFUSAL },
		alreadyPlaced: true,
	};
}

/** A transfer refused as a duplicate client order ID, when the history does not show it as this one. */
