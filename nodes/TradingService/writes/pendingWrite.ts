import type { IDataObject, NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { SendWindow } from '../transport';
import type { LedgerSlot } from './ledger';
import type { WriteWording } from './outcomes';

/**
 * One write the engine settles (engine.ts), and what is known of it: what an answer or a lookup
 * says of it, and how it ended.
 */

export type NodeError = NodeApiError | NodeOperationError;

/** Why a write was not executed. */
export interface Refusal {
	/** The error that says why, when the request as a whole was refused. */
	error?: NodeError;
	/** The service's code and message, when its answer (or a lookup) says why for this write alone. */
	code?: string;
	msg?: string;
	/** What a lookup found, or the kind's reason in words (a cancel's "already filled"). */
	detail?: IDataObject;
}

/** What an answer or a lookup says of one write. */
export type Verdict =
	| { kind: 'placed'; result: IDataObject; alreadyPlaced?: boolean; entry?: IDataObject }
	| { kind: 'rejected'; refusal: Refusal }
	/** Refused because another write holds its ID, which may be this very write: looked up. */
	| { kind: 'duplicate'; refusal: Refusal }
	/** `wording`: the request's own, when the whole request's outcome is unknown. */
	| {
			kind: 'unknown';
			reason: string;
			detail?: string;
			unusable?: { problem: string; body: unknown };
			wording?: WriteWording;
			/** A lookup's request failed (after its retries): the service cannot be asked now. */
			failed?: true;
	  }
	/** A lookup proved it was not executed, and no attempt of it can be accepted any more. */
	| { kind: 'notDone' };

/**
 * How a write ended. `via`: how a placed write is known to be placed. `sharedWith`: the item of
 * this run whose write did the very same thing, and whose outcome this one took instead of being
 * sent (writes/sameWrites.ts).
 */
export type Settled = (
	| {
			outcome: 'placed';
			result: IDataObject;
			via: 'answer' | 'lookup' | 'ledger';
			alreadyPlaced: boolean;
			entry?: IDataObject;
	  }
	| { outcome: 'rejected'; refusal: Refusal }
	| { outcome: 'unknown'; reason: string; error: NodeError }
) & { sharedWith?: number };

/** One write of the run and what is known of it. */
export interface PendingWrite<W> {
	readonly write: W;
	readonly itemIndex: number;
	readonly slot: LedgerSlot;
	/** When its attempts may have reached the service, over every try of this node run. */
	readonly window: SendWindow;
	/** Whether an attempt may have been executed: it is then looked up before it is sent again. */
	maybeExecuted: boolean;
	/** Whether it was sent again after a lookup proved it was not executed (once per run at most). */
	resent: boolean;
	settled?: Settled;
}

/** A pending write for a ledger slot: what an earlier try of this node run left there comes with it. */
export function pendingWrite<W>(slot: LedgerSlot, write: W, itemIndex: number): PendingWrite<W> {
	const recorded = slot.recorded;
	return {
		write,
		itemIndex,
		slot,
		window:
			recorded === undefined
				? {}
				: { firstSentAt: recorded.firstSentAt, acceptableUntil: recorded.acceptableUntil },
		maybeExecuted: recorded?.outcome === 'unknown',
		resent: false,
	};
}

/** Records the write as unknown in the ledger, with the window in which its attempts may have reached the service. */
export function recordUnknown(pending: PendingWrite<unknown>): void {
	const now = Date.now();
	pending.slot.record({
		outcome: 'unknown',
		firstSentAt: pending.window.firstSentAt ?? now,
		acceptableUntil: pending.window.acceptableUntil ?? now,
	});
}
