import {
	NodeApiError,
	NodeOperationError,
	sleep,
	type IDataObject,
	type INode,
	type JsonObject,
} from 'n8n-workflow';

import { ERROR_CODES, LIMITS } from '../constants';
import { decimalAbove } from '../helpers/decimals';
import { ENDPOINTS, isServiceRejection } from '../transport';
import type { EngineRun, WriteKind } from '../writes/engine';
import { fingerprint, type WriteLedger } from '../writes/ledger';
import { withOutcome } from '../writes/outcomes';
import {
	pendingWrite,
	type PendingWrite,
	type Refusal,
	type Verdict,
} from '../writes/pendingWrite';
import { lostRunText, type LostRun } from '../writes/recovery';

/**
 * Transfers as the engine settles them. Each is sent with a client order ID the node generates
 * like an order's (the same on every try of one node run, new for anything else), so that one
 * whose outcome is unknown can be looked up: the exchange's transfer history takes a client order
 * ID and its transfer records carry it (UAE documentation). A record carrying the ID proves the
 * transfer was executed. Not finding one proves nothing (the history may lag, the exchange may
 * execute the transfer late, the service's records may not carry the ID at all), so an unknown
 * transfer is never sent again by this node: when n8n re-runs the node (Retry On Fail, a retried
 * execution), the ledger answers for it, and an unknown one is looked up again, never re-sent. A
 * refused one (it moved nothing) is sent again.
 */

/** What the user asked for: the transfer's own parameters, as the ledger fingerprints them. */
export interface TransferParams {
	fromAccountId: string;
	toAccountId: string;
	coin: string;
	quantity: string;
}

/** The transfer as sent: the spec sends its parameters in the query string, the client order ID last. */
export interface TransferWrite {
	qs: TransferParams & { clientOrderId?: string };
	/** Whether an earlier try of this node run sent it and got no answer (the ledger says unknown). */
	fromEarlierTry?: boolean;
}

export type PendingTransfer = PendingWrite<TransferWrite>;

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

/**
 * The client order ID of a transfer: the run's prefix (orders.ts, clientOrderIdPrefix), the item,
 * and the slot's version when the transfer changed between n8n's re-runs, so a changed transfer
 * never reuses the ID of one that may have been executed. At most 4 + 24 + 3 × 11 characters, well
 * within the exchange's 64.
 */
export function transferClientOrderId(
	idPrefix: string,
	itemIndex: number,
	version: number,
): string {
	return `${idPrefix}-${itemIndex}${version > 0 ? `-v${version}` : ''}`;
}

/**
 * A transfer of the run with its ledger slot and, unless `idPrefix` is undefined, a generated
 * client order ID. The slot is keyed by what the user asked for: the ID is derived from the slot.
 */
export function pendingTransfer(
	ledger: WriteLedger,
	slotName: string,
	transfer: TransferParams,
	itemIndex: number,
	idPrefix?: string,
): PendingTransfer {
	const slot = ledger.slot(slotName, fingerprint('assetTransfer', { ...transfer }));
	const qs: TransferWrite['qs'] = { ...transfer };
	if (idPrefix !== undefined) {
		const clientOrderId = transferClientOrderId(idPrefix, itemIndex, slot.version);
		// A prefix from elsewhere could be longer; the exchange refuses more than 64 characters.
		if (clientOrderId.length <= LIMITS.transferClientOrderIdLength)
			qs.clientOrderId = clientOrderId;
	}
	const fromEarlierTry = slot.recorded?.outcome === 'unknown';
	return pendingWrite(slot, fromEarlierTry ? { qs, fromEarlierTry } : { qs }, itemIndex);
}

/** What the ledger keeps of a transfer: the small scalar fields of the answer (ID, client ID, time). */
function storedTransfer(answer: IDataObject): IDataObject {
	const stored: IDataObject = {};
	for (const [field, value] of Object.entries(answer)) {
		if (
			(typeof value === 'string' && value.length <= 64) ||
			typeof value === 'number' ||
			typeof value === 'boolean'
		)
			stored[field] = value;
	}
	return stored;
}

const PLAIN_DECIMAL = /^[-+]?\d+(\.\d+)?$/;

/** Whether a record's signed `change` moves exactly `quantity`, either way. */
function movesQuantity(change: unknown, quantity: string): boolean {
	if (typeof change !== 'string' || !PLAIN_DECIMAL.test(change)) return false;
	const size = change.replace(/^[-+]/, '');
	return !decimalAbove(size, quantity) && !decimalAbove(quantity, size);
}

/** Why a record carrying the transfer's client order ID is not the transfer sent, or undefined. */
function mismatchOf(record: IDataObject, qs: TransferWrite['qs']): string | undefined {
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
async function lookUpTransfer(run: EngineRun, pending: PendingTransfer): Promise<Verdict> {
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
		})) as IDataObject[];
	} catch (error) {
		if (isServiceRejection(error, ERROR_CODES.noPermission))
			return {
				cannotTell: `the API key may not read the account history (${(error as Error).message}), so client order ID ${clientOrderId} cannot be looked up: give the API key permission to read the account history (fund statement), which the node needs to find a transfer after a crash`,
				ending: ', and a transfer is never sent again without proof',
			};
		return {
			cannotTell: `looking it up in the transfer history by client order ID ${clientOrderId} failed (${(error as Error).message})`,
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

/** A transfer found in the history, as the item shows it. */
function confirmedTransfer(record: IDataObject, clientOrderId: string): IDataObject {
	return {
		confirmedByLookup: true,
		clientOrderId,
		...(typeof record.orderId === 'string' ? { orderId: record.orderId } : {}),
		...(record.created !== undefined ? { created: String(record.created) } : {}),
	};
}

async function lookUpByClientOrderId(run: EngineRun, pending: PendingTransfer): Promise<Verdict> {
	const finding = await findInHistory(
		run,
		pending,
		(pending.window.firstSentAt ?? Date.now()) - LOOKUP_MARGIN_MS,
	);
	if ('found' in finding)
		return { kind: 'placed', result: confirmedTransfer(finding.found, finding.clientOrderId) };
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
 * After a lost run (writes/recovery.ts): the transfer history is read by the client order ID the
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
async function checkAfterLostRun(
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
		if ('found' in finding)
			verdicts.push({
				kind: 'placed',
				result: confirmedTransfer(finding.found, finding.clientOrderId),
				alreadyPlaced: true,
			});
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
 * execution's, node run and item's alone (writes/recovery.ts), so the transfer that used it is the
 * lost run's for this item: placed, never rejected. The history, read once more, confirms it or,
 * when its record moves other values, shows the lost run made another transfer for the item
 * (unknown). The history may not list it yet, or not be readable: the refusal is then the proof.
 */
async function lostRunDuplicate(
	run: EngineRun,
	lostRun: LostRun,
	pending: PendingTransfer,
): Promise<Verdict> {
	const clientOrderId = pending.write.qs.clientOrderId ?? '';
	const finding = await findInHistory(run, pending, lostRun.since - LOOKUP_MARGIN_MS);
	if ('found' in finding)
		return {
			kind: 'placed',
			result: confirmedTransfer(finding.found, finding.clientOrderId),
			alreadyPlaced: true,
		};
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
function duplicateRefusedError(node: INode, pending: PendingTransfer): NodeOperationError {
	return withOutcome(
		new NodeOperationError(node, 'Another transfer already used this client order ID', {
			description: `The service refused client order ID ${pending.write.qs.clientOrderId ?? ''} as used before, and the transfer history does not show it as this transfer. This request moved nothing. Check the transfer history, then run again.`,
			itemIndex: pending.itemIndex,
		}),
		'rejected',
	);
}

/**
 * A transfer refused because its client order ID was used before: in a run that may follow a lost
 * one, the lost run's transfer (lostRunDuplicate); else the transfer found by that ID is this one
 * (placed, by an earlier attempt), or, when only this one attempt was sent, the refusal stands
 * (nothing moved). After earlier attempts whose outcome is unknown, it stays unknown.
 */
async function lookUpDuplicate(
	run: EngineRun,
	pending: PendingTransfer,
	duplicate: Refusal,
): Promise<Verdict> {
	if (run.lostRun !== undefined && !pending.maybeExecuted)
		return await lostRunDuplicate(run, run.lostRun, pending);
	const verdict = await lookUpTransfer(run, pending);
	if (verdict.kind === 'placed') return { ...verdict, alreadyPlaced: true };
	if (pending.maybeExecuted) return verdict;
	return {
		kind: 'rejected',
		refusal: { ...duplicate, error: duplicateRefusedError(run.node, pending) },
	};
}

export function transferKind(run: EngineRun): WriteKind<TransferWrite> {
	const wording = ({ qs }: TransferWrite) => ({
		what: `transfer of ${qs.quantity} ${qs.coin} from ${qs.fromAccountId} to ${qs.toAccountId}`,
		howToCheck: `Check the transfer history (Trading Service > Get Transaction History, Flow Type: Transfer Between Accounts) or the account balances${qs.clientOrderId === undefined ? '' : ` (client order ID ${qs.clientOrderId})`}`,
	});
	return {
		wording,
		whyNoLookup: ({ qs }) =>
			qs.clientOrderId === undefined ? 'it has no client order ID to look it up by' : undefined,
		unknownDetail: ({ qs }) =>
			qs.clientOrderId === undefined
				? 'The transfer has no client order ID, so the node cannot look it up'
				: `Client order ID ${qs.clientOrderId}`,
		stored: storedTransfer,
		groups: (pending) => pending.map((one) => [one]),
		request: ([pending]) => ({
			endpoint: ENDPOINTS.assetTransfer,
			request: { qs: { ...pending.write.qs }, itemIndex: pending.itemIndex },
		}),
		read: (body, [pending]) => {
			const answer = body as IDataObject;
			if (answer.success === true) {
				// The family's answer echoes the ID ("" when none was sent): the item shows the one sent.
				const sent = pending.write.qs.clientOrderId;
				const echoed = typeof answer.clientOrderId === 'string' && answer.clientOrderId !== '';
				return [
					{
						kind: 'placed',
						result: echoed || sent === undefined ? answer : { ...answer, clientOrderId: sent },
					},
				];
			}
			const error = new NodeApiError(run.node, answer as JsonObject, {
				message: `The service refused the ${wording(pending.write).what}`,
				description:
					'It answered success: false, so nothing was moved. Check the accounts, the coin and the balance, then run again.',
				itemIndex: pending.itemIndex,
			});
			return [{ kind: 'rejected', refusal: { error } }];
		},
		refused: (error) =>
			isServiceRejection(error, ERROR_CODES.duplicateClientOrderId)
				? { kind: 'duplicate', refusal: { error } }
				: { kind: 'rejected', refusal: { error } },
		precheck: (pending) => checkAfterLostRun(run, pending),
		lookup: (pending, duplicate) =>
			duplicate === undefined
				? lookUpTransfer(run, pending)
				: lookUpDuplicate(run, pending, duplicate),
	};
}
