import {
	NodeApiError,
	NodeOperationError,
	sleep,
	type IDataObject,
	type INode,
	type JsonObject,
} from 'n8n-workflow';

import { ERROR_CODES, LIMITS } from '../constants';
import { isServiceRejection } from '../transport';
import {
	pendingWrite,
	type EngineSession,
	type Refusal,
	type Verdict,
	type WriteKind,
} from '../writes/engine';
import { fingerprint, type WriteLedger } from '../writes/ledger';
import { withOutcome } from '../writes/outcomes';
import { lostRunText, type LostRun } from '../writes/writeSession';
import {
	HISTORY_LAG_MS,
	LOOKUP_MARGIN_MS,
	confirmed,
	findInHistory,
	lookUpTransfer,
	type PendingTransfer,
	type TransferParams,
	type TransferWrite,
} from './transferHistory';
import { TRANSFER_ENDPOINTS } from './endpoints';
import { checkClientTransferId } from './transferKeys';

// Transfers as the engine settles them: each is sent with a generated client order ID, by which
// the transfer history finds it (transferHistory.ts). A record carrying the ID proves the transfer
// was executed; not finding one proves nothing, so an unknown transfer is never sent again
// (docs/safety.md, "Transfers: never sent twice").

export type { PendingTransfer, TransferParams, TransferWrite };

/**
 * The client order ID of a transfer: the run's prefix, the item, and the slot's version when the
 * transfer changed between n8n's re-runs, so a changed transfer never reuses the ID of one that may
 * have been executed. At most 4 + 24 + 3 × 11 characters, well within the exchange's 64.
 */
export function transferClientOrderId(
	idPrefix: string,
	itemIndex: number,
	version: number,
): string {
	return `${idPrefix}-${itemIndex}${version > 0 ? `-v${version}` : ''}`;
}

/**
 * A transfer with its ledger slot (keyed by what the user asked for) and its client order ID: the
 * user's Client Transfer ID when given, else generated.
 */
export function pendingTransfer(
	ledger: WriteLedger,
	slotName: string,
	transfer: TransferParams,
	itemIndex: number,
	idPrefix?: string,
	clientTransferId?: string,
): PendingTransfer {
	const asked = clientTransferId === undefined ? transfer : { ...transfer, clientTransferId };
	const slot = ledger.slot(slotName, fingerprint('assetTransfer', { ...asked }));
	const qs: TransferWrite['qs'] = { ...transfer };
	if (clientTransferId !== undefined) {
		qs.clientOrderId = clientTransferId;
		const fromEarlierTry = slot.recorded?.outcome === 'unknown';
		const write = { qs, businessKey: true, ...(fromEarlierTry ? { fromEarlierTry } : {}) };
		return pendingWrite(slot, write, itemIndex);
	} else if (idPrefix !== undefined) {
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

function duplicateRefusedError(node: INode, pending: PendingTransfer): NodeOperationError {
	const id = pending.write.qs.clientOrderId ?? '';
	const businessKey = pending.write.businessKey === true;
	const older = businessKey
		? ' (a transfer older than the 29 days the node checks may hold it)'
		: '';
	const fix = businessKey
		? 'Give this transfer its own Client Transfer ID.'
		: 'Check the transfer history, then run again.';
	return withOutcome(
		new NodeOperationError(node, 'Another transfer already used this client order ID', {
			description: `The service refused client order ID ${id} as used before, and the transfer history does not show it as this transfer${older}. This request moved nothing. ${fix}`,
			itemIndex: pending.itemIndex,
		}),
		'rejected',
	);
}

/** How an item names a transfer found by the exchange's refusal of its client order ID. */
export const FOUND_BY_REFUSAL = 'the exchange refused the client order ID as already used';

/**
 * After a lost run, the history read by the ID that run gave the transfer (docs/safety.md, "Late is
 * not lost"): found, placed, not sent; not found, sent. A retry reads for HISTORY_LAG_MS, and what
 * the history cannot tell keeps it unsent; a late run reads once, and only a record stops it.
 */
async function checkAfterLostRun(
	session: EngineSession,
	pending: PendingTransfer[],
): Promise<Array<Verdict | undefined>> {
	const lostRun = session.lostRun;
	if (lostRun === undefined) return pending.map(() => undefined);
	if (Date.now() < lostRun.settledFrom) await sleep(lostRun.settledFrom - Date.now());
	const listedBy =
		lostRun.why === 'retry' ? Math.max(lostRun.settledFrom, Date.now()) + HISTORY_LAG_MS : 0;
	const verdicts: Array<Verdict | undefined> = [];
	for (const one of pending) {
		const finding = await findInHistory(session, one, lostRun.since - LOOKUP_MARGIN_MS, listedBy);
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
 * A duplicate after a lost run: the ID is this execution's, node run and item's alone, so the lost
 * run made it (placed), unless the history shows it moved other values (unknown).
 */
async function lostRunDuplicate(
	session: EngineSession,
	lostRun: LostRun,
	pending: PendingTransfer,
): Promise<Verdict> {
	const clientOrderId = pending.write.qs.clientOrderId ?? '';
	const finding = await findInHistory(session, pending, lostRun.since - LOOKUP_MARGIN_MS);
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

/**
 * A transfer refused because its client order ID was used before: after a lost run, that run's
 * (lostRunDuplicate); else found by that ID, placed; else the refusal stands (nothing moved) when
 * only this attempt was sent, and it stays unknown after earlier attempts.
 */
async function lookUpDuplicate(
	session: EngineSession,
	pending: PendingTransfer,
	duplicate: Refusal,
): Promise<Verdict> {
	const businessKey = pending.write.businessKey === true;
	// A generated ID is this execution's alone; a Client Transfer ID is not, so its refusal alone
	// proves nothing of a lost run.
	if (session.lostRun !== undefined && !pending.maybeExecuted && !businessKey)
		return await lostRunDuplicate(session, session.lostRun, pending);
	const verdict = await lookUpTransfer(session, pending);
	if (verdict.kind === 'placed') return { ...verdict, alreadyPlaced: true };
	if (pending.maybeExecuted || (businessKey && session.lostRun !== undefined)) return verdict;
	return {
		kind: 'rejected',
		refusal: { ...duplicate, error: duplicateRefusedError(session.node, pending) },
	};
}

export function transferKind(session: EngineSession): WriteKind<TransferWrite> {
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
			endpoint: TRANSFER_ENDPOINTS.assetTransfer,
			request: { qs: { ...pending.write.qs }, itemIndex: pending.itemIndex },
		}),
		read: (body, [pending]) => {
			const answer = body as IDataObject;
			if (answer.success === true) {
				// The family's answer echoes the ID ("" when none was sent): the item shows the one sent.
				const sent = pending.write.qs.clientOrderId;
				const echoed = typeof answer.clientOrderId === 'string' && answer.clientOrderId !== '';
				const result = echoed || sent === undefined ? answer : { ...answer, clientOrderId: sent };
				return [{ kind: 'placed', result }];
			}
			const error = new NodeApiError(session.node, answer as JsonObject, {
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
		precheck: async (pending) => {
			const verdicts = await checkAfterLostRun(
				session,
				pending.filter((one) => one.write.businessKey !== true),
			);
			const checked: Array<Verdict | undefined> = [];
			for (const one of pending)
				checked.push(
					one.write.businessKey === true
						? await checkClientTransferId(session, one)
						: verdicts.shift(),
				);
			return checked;
		},
		lookup: (pending, duplicate) =>
			duplicate === undefined
				? lookUpTransfer(session, pending)
				: lookUpDuplicate(session, pending, duplicate),
	};
}
