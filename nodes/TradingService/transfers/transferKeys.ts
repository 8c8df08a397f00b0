import { NodeOperationError, sleep, type IDataObject, type INode } from 'n8n-workflow';

import { DAY_MS, LIMITS } from '../constants';
import { decimalAbove } from '../helpers/decimals';
import { inputError } from '../helpers/validation';
import type { EngineSession, Verdict } from '../writes/engine';
import { withOutcome } from '../writes/outcomes';
import { lostRunText } from '../writes/writeSession';
import {
	HISTORY_LAG_MS,
	confirmed,
	findInHistory,
	type PendingTransfer,
	type TransferParams,
} from './transferHistory';

// Client Transfer ID (docs/safety.md, "Business keys"): an ID the user gives names one transfer for
// good. The exchange refusing a reused ID is not relied on: the transfer history is read by the ID
// before anything is sent, and a transfer found under it is that transfer, never made again.

/** The history keeps transfers 30 days (spec §2.2); a day less, so a clock a little off is not refused. */
const KEY_LOOKBACK_MS = (30 - 1) * DAY_MS;

const CLIENT_TRANSFER_ID = /^[\x21-\x7e]+$/;

/**
 * The history may list a transfer up to HISTORY_LAG_MS late, so a key sent again within moments
 * (a second item, a manual re-run) is answered from what this process sent, not from the history
 * alone: kept long past the lag and any receive window. Per n8n process: queue workers each keep
 * their own (docs/safety.md).
 */
const REMEMBERED_MS = 10 * 60_000;
const REMEMBERED_MOST = 10_000;

interface SentTransfer {
	transfer: TransferParams;
	outcome: 'placed' | 'unknown';
	result: IDataObject;
	at: number;
}

const sentByKey = new Map<string, SentTransfer>();

/** Notes what this process sent under a Client Transfer ID (placed or unknown; a rejection moved nothing). */
export function rememberClientTransfer(
	keyIdentity: string,
	id: string,
	sent: Omit<SentTransfer, 'at'>,
): void {
	const now = Date.now();
	for (const [name, one] of sentByKey)
		if (now - one.at > REMEMBERED_MS || sentByKey.size >= REMEMBERED_MOST) sentByKey.delete(name);
		else break;
	sentByKey.delete(`${keyIdentity} ${id}`);
	sentByKey.set(`${keyIdentity} ${id}`, { ...sent, at: now });
}

const sameTransfer = (a: TransferParams, b: TransferParams) =>
	a.fromAccountId === b.fromAccountId &&
	a.toAccountId === b.toAccountId &&
	a.coin === b.coin &&
	!decimalAbove(a.quantity, b.quantity) &&
	!decimalAbove(b.quantity, a.quantity);

/** The verdict from what this process sent under the key lately, or undefined when it sent nothing. */
function fromMemory(
	session: EngineSession,
	pending: PendingTransfer,
	keyIdentity: string,
): Verdict | undefined {
	const { clientOrderId: id = '', ...transfer } = pending.write.qs;
	const sent = sentByKey.get(`${keyIdentity} ${id}`);
	if (sent === undefined || Date.now() - sent.at > REMEMBERED_MS) return undefined;
	if (!sameTransfer(sent.transfer, transfer))
		return refused(
			session.node,
			pending,
			`Client transfer ID ${id} already belongs to another transfer`,
			`This n8n process sent ${sent.transfer.quantity} ${sent.transfer.coin} from ${sent.transfer.fromAccountId} to ${sent.transfer.toAccountId} under it ${Math.round((Date.now() - sent.at) / 1000)} s ago. Nothing was sent. Give this transfer its own Client Transfer ID, or send the transfer that ID was first used for.`,
		);
	if (sent.outcome === 'unknown')
		return {
			kind: 'unknown',
			reason: `this n8n process sent it under Client Transfer ID ${id} ${Math.round((Date.now() - sent.at) / 1000)} s ago and its outcome is unknown; it was not sent again, so it cannot move the money twice`,
		};
	return {
		kind: 'placed',
		result: { ...sent.result, clientOrderId: id, foundBy: FOUND_BY_MEMORY },
		alreadyPlaced: true,
	};
}

/** How an item names a transfer this process sent moments before under the same key. */
export const FOUND_BY_MEMORY =
	'this n8n process sent it under this Client Transfer ID moments before';

/** The Client Transfer ID option as typed: empty is none; otherwise 1 to 64 printable characters. */
export function clientTransferIdOf(
	node: INode,
	value: unknown,
	itemIndex: number,
): string | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const max = LIMITS.transferClientOrderIdLength;
	const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
	if (typeof text !== 'string' || text.length > max || !CLIENT_TRANSFER_ID.test(text)) {
		const problem =
			typeof text === 'string' && text.length > max
				? `is ${text.length} characters long`
				: `${JSON.stringify(value)} is not a valid client transfer ID`;
		throw inputError(
			node,
			'Client Transfer ID',
			problem,
			`Use 1 to ${max} printable characters without spaces, e.g. the deposit order ID this transfer moves on.`,
			itemIndex,
		);
	}
	return text;
}

function refused(node: INode, pending: PendingTransfer, message: string, description: string) {
	const error = new NodeOperationError(node, message, {
		description,
		itemIndex: pending.itemIndex,
	});
	return { kind: 'rejected', refusal: { error: withOutcome(error, 'rejected') } } as const;
}

/**
 * The check of one transfer with a Client Transfer ID: placed when the history holds this very
 * transfer under the ID; rejected when another transfer holds it or the history cannot be read
 * (nothing sent); after a lost run, what cannot be told stays unknown; undefined: not found, send.
 */
export async function checkClientTransferId(
	session: EngineSession,
	pending: PendingTransfer,
): Promise<Verdict | undefined> {
	const id = pending.write.qs.clientOrderId ?? '';
	const remembered = fromMemory(session, pending, await session.client.keyIdentity());
	if (remembered !== undefined) return remembered;
	const lostRun = session.lostRun;
	// A retry may start while a request of the crashed run is still within its receive window.
	if (lostRun !== undefined && Date.now() < lostRun.settledFrom)
		await sleep(lostRun.settledFrom - Date.now());
	const listedBy =
		lostRun?.why === 'retry' ? Math.max(lostRun.settledFrom, Date.now()) + HISTORY_LAG_MS : 0;
	const finding = await findInHistory(session, pending, Date.now() - KEY_LOOKBACK_MS, listedBy);
	if ('found' in finding) return confirmed(finding, true);
	if ('notFound' in finding) return undefined;
	if (lostRun !== undefined)
		return {
			kind: 'unknown',
			reason: `${lostRunText(lostRun)}, and ${finding.cannotTell}; it was not sent, so it cannot move the money twice`,
		};
	if (finding.otherTransfer === true)
		return refused(
			session.node,
			pending,
			`Client transfer ID ${id} already belongs to another transfer`,
			`${capitalised(finding.cannotTell)}. Nothing was sent. Give this transfer its own Client Transfer ID, or send the transfer that ID was first used for.`,
		);
	return refused(
		session.node,
		pending,
		`Could not check whether client transfer ID ${id} was already used`,
		`${capitalised(finding.cannotTell)}. The ID may belong to a transfer made before, so nothing was sent. Run the node again once the exchange answers history reads.`,
	);
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Forgets what this process sent: for tests, as a new process would start. */
export function forgetClientTransfers(): void {
	sentByKey.clear();
}
