import { sleep, type IDataObject } from 'n8n-workflow';

import { ERROR_CODES, LIMITS } from '../constants';
import { decimalAbove } from '../helpers/decimals';
import { isServiceRejection } from '../transport';
import type { EngineSession, PendingWrite, Verdict } from '../writes/engine';
import { ACCOUNT_ENDPOINTS } from '../account/endpoints';

// A transfer looked up in the transfer history by its client order ID: after an unknown outcome,
// after a lost run, and after the exchange refused the ID as already used (transferWrites.ts).

/** What the user asked for: the transfer's own parameters, as the ledger fingerprints them. */
export interface TransferParams {
	fromAccountId: string;
	toAccountId: string;
	coin: string;
	quantity: string;
}

/** The transfer as sent (transferWrites.ts): in the query string, the client order ID last. */
export interface TransferWrite {
	qs: TransferParams & { clientOrderId?: string };
	/** Whether the client order ID is the user's Client Transfer ID (transferKeys.ts). */
	businessKey?: boolean;
	/** Whether an earlier try of this node run sent it and got no answer (the ledger says unknown). */
	fromEarlierTry?: boolean;
}

export type PendingTransfer = PendingWrite<TransferWrite>;

/** Flow type of transfer records in the history (spec §2.2). */
const TRANSFER_FLOW_TYPE = 51;
/** Around the transfer's attempts: accepted only within the receive window, a minute is ample. */
export const LOOKUP_MARGIN_MS = 60_000;
/** How late the history may list a transfer: the node's decision, no documentation says. */
export const HISTORY_LAG_MS = 10_000;
/** How far apart the history is read while the node waits for it to list a transfer. */
const HISTORY_RE_READ_MS = 2_500;

const PLAIN_DECIMAL = /^[-+]?\d+(\.\d+)?$/;

/** Whether a record's signed `change` moves exactly `quantity`, either way. */
function movesQuantity(change: unknown, quantity: string): boolean {
	if (typeof change !== 'string' || !PLAIN_DECIMAL.test(change)) return false;
	const size = change.replace(/^[-+]/, '');
	return !decimalAbove(size, quantity) && !decimalAbove(quantity, size);
}

/** Whether a signed decimal is a debit. */
const isDebit = (change: unknown) => typeof change === 'string' && change.startsWith('-');

/**
 * Why a record carrying the transfer's client order ID is not the transfer sent, or undefined. The
 * family's two shapes: one record per transfer naming both accounts (the UAE fund statement), or
 * one per account with a signed `change` (the description's): the source's a debit, the target's a
 * credit, so a transfer the other way never passes for this one.
 */
function mismatchOf(record: IDataObject, qs: PendingTransfer['write']['qs']): string | undefined {
	if (record.coin !== undefined && record.coin !== qs.coin)
		return `its coin is ${String(record.coin)}`;
	if (record.fromAccountId !== undefined || record.toAccountId !== undefined) {
		if (record.fromAccountId !== qs.fromAccountId || record.toAccountId !== qs.toAccountId)
			return `it moves from account ${String(record.fromAccountId)} to ${String(record.toAccountId)}`;
	} else if (record.accountId !== undefined) {
		if (record.accountId !== qs.fromAccountId && record.accountId !== qs.toAccountId)
			return `it is on account ${String(record.accountId)}`;
		if (
			record.change !== undefined &&
			isDebit(record.change) !== (record.accountId === qs.fromAccountId)
		)
			return `it moves ${String(record.change)} on account ${String(record.accountId)}`;
	}
	const size = record.change ?? record.quantity;
	if (size !== undefined && !movesQuantity(size, qs.quantity)) return `it moves ${String(size)}`;
	return undefined;
}

/** Whether a record shows enough (its accounts and its quantity) to prove a transfer by itself. */
function showsTransfer(record: IDataObject): boolean {
	const accounts =
		(record.fromAccountId !== undefined && record.toAccountId !== undefined) ||
		record.accountId !== undefined;
	return accounts && (record.change ?? record.quantity) !== undefined;
}

/**
 * Looks a transfer up by its client order ID, over the time its attempts may have reached the
 * service: a record of it, placed; anything else leaves it unknown, and it is not sent again.
 */
export async function lookUpTransfer(
	session: EngineSession,
	pending: PendingTransfer,
): Promise<Verdict> {
	const finding = await findInHistory(
		session,
		pending,
		(pending.window.firstSentAt ?? Date.now()) - LOOKUP_MARGIN_MS,
	);
	if ('found' in finding) return confirmed(finding);
	const reason =
		'notFound' in finding
			? `${finding.notFound}, which does not prove it was not executed (the exchange may still execute it), so it was not sent again`
			: `${finding.cannotTell}${finding.ending}`;
	// On n8n's re-run the report says where the unknown outcome came from, as the engine does.
	if (pending.write.fromEarlierTry !== true) return { kind: 'unknown', reason };
	return {
		kind: 'unknown',
		reason: `an earlier try of this node run sent it and got no answer, and ${reason}`,
	};
}

/** What the transfer history holds under a transfer's client order ID. */
export type HistoryFinding =
	| { found: IDataObject; clientOrderId: string }
	| { notFound: string }
	/**
	 * `ending`: how a lookup after an unknown outcome ends the sentence. `otherTransfer`: a record
	 * carries the ID but is not this transfer (after a lost run: that run's, with other values).
	 */
	| { cannotTell: string; ending: string; otherTransfer?: true };

/** The history read from `from` on, again while it lists nothing and `listedBy` is ahead. */
export async function findInHistory(
	session: EngineSession,
	pending: PendingTransfer,
	from: number,
	listedBy = 0,
): Promise<HistoryFinding> {
	for (;;) {
		const finding = await readHistory(session, pending, from);
		const left = listedBy - Date.now();
		if (!('notFound' in finding) || left <= 0) return finding;
		await sleep(Math.min(HISTORY_RE_READ_MS, left));
	}
}

/** One read of the transfer history by the transfer's client order ID. */
async function readHistory(
	session: EngineSession,
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
		records = (await session.client.request(ACCOUNT_ENDPOINTS.history, {
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
		// A full page that ignored the filter may have left the record out: that proves nothing.
		if (records.length >= LIMITS.historyPageSize)
			return {
				cannotTell: `the transfer history answered a full page without client order ID ${clientOrderId}, so it cannot tell whether a record of it exists`,
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
	// A Client Transfer ID is shared across executions: only a record that shows this transfer's
	// accounts and quantity proves it (a generated ID is this item's alone).
	if (pending.write.businessKey === true && !found.some(showsTransfer))
		return {
			cannotTell: `a transfer record carries client order ID ${clientOrderId}, but it does not show the accounts and quantity it moved, so it cannot prove this transfer`,
			ending: '; it was not sent again',
		};
	// The source's record (the debit) names the transfer; both sides carry the same IDs.
	const record = found.find((one) => one.accountId === qs.fromAccountId) ?? found[0];
	return { found: record, clientOrderId };
}

/** A transfer found in the history, placed: as the item shows it. */
export function confirmed(
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
