import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type INode,
	type JsonObject,
} from 'n8n-workflow';

import { ERROR_CODES, LIMITS } from '../constants';
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
import { checkAfterLostRun, lookUpTransfer, lostRunDuplicate } from './transferHistory';

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

/**
 * The client order ID of a transfer: the run's prefix (writes/writeRun.ts, clientOrderIdPrefix), the item,
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
