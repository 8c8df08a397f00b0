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
import type { EngineRun, WriteKind } from './engine';
import { fingerprint, type WriteLedger } from './ledger';
import { withOutcome } from './outcomes';
import { pendingWrite, type PendingWrite, type Refusal, type Verdict } from './pendingWrite';
import { lostRunText } from './recovery';

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
	/** `ending`: how a lookup after an unknown outcome ends the sentence (never sent again). */
	| { cannotTell: string; ending: string };

/**
 * The transfer history (flow type 51) read by the transfer's client order ID, from `from` on: a
 * record carrying the ID, for the coin, the accounts and the quantity sent (found); none (notFound,
 * with the words that say so); or why the history cannot tell.
 */
async function findInHistory(
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
 * lost run gave this transfer. Found: placed by that run, not sent. Not found: sent. Anything the
 * history cannot tell leaves it unknown, unsent: the lost run may have executed it.
 */
async function checkAfterLostRun(
	run: EngineRun,
	pending: PendingTransfer[],
): Promise<Array<Verdict | undefined>> {
	const lostRun = run.lostRun;
	if (lostRun === undefined) return pending.map(() => undefined);
	if (Date.now() < lostRun.settledFrom) await sleep(lostRun.settledFrom - Date.now());
	const verdicts: Array<Verdict | undefined> = [];
	for (const one of pending) {
		const finding = await findInHistory(run, one, lostRun.since - LOOKUP_MARGIN_MS);
		if ('found' in finding)
			verdicts.push({
				kind: 'placed',
				result: confirmedTransfer(finding.found, finding.clientOrderId),
				alreadyPlaced: true,
			});
		else if ('notFound' in finding) verdicts.push(undefined);
		else
			verdicts.push({
				kind: 'unknown',
				reason: `${lostRunText(lostRun)}, and ${finding.cannotTell}; it was not sent, so it cannot move the money twice`,
			});
	}
	return verdicts;
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
 * A transfer refused because its client order ID was used before: the transfer found by that ID is
 * this one (placed, by an earlier attempt), or, when only this one attempt was sent, the refusal
 * stands (nothing moved). After earlier attempts whose outcome is unknown, it stays unknown.
 */
async function lookUpDuplicate(
	run: EngineRun,
	pending: PendingTransfer,
	duplicate: Refusal,
): Promise<Verdict> {
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
