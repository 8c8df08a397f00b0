import type { IDataObject } from 'n8n-workflow';

import { unexpectedResponseError } from '../transport';
import type { EngineRun, SettleHooks, WriteKind } from './writeKind';
import { outcomeUnknownError, withOutcome } from './outcomes';
import {
	recordUnknown,
	type PendingWrite,
	type Refusal,
	type Settled,
	type Verdict,
} from './pendingWrite';

export const NOT_A_THIRD_TIME =
	'it was sent once more after a lookup proved it was not executed, and that was not confirmed either, so it is not sent a third time in this run';

type UnknownVerdict = Extract<Verdict, { kind: 'unknown' }>;

/**
 * One settling of writes of one kind (engine.ts): what a verdict makes of a write, in the ledger
 * and for the hooks, and which writes a lookup proved not executed. Its state is its own, so
 * several items of one run may be settled at once.
 */
export class Settling<W> {
	/** Proven not executed, and no attempt of them can be accepted any more: the next round sends them. */
	readonly resend: Array<PendingWrite<W>> = [];

	constructor(
		readonly run: EngineRun,
		readonly kind: WriteKind<W>,
		readonly hooks: SettleHooks<W>,
	) {}

	/** Ends a write: the ledger learns how, then the onSettled hook, which may stop the run. */
	settle(pending: PendingWrite<W>, settled: Settled): void {
		if (settled.outcome === 'placed') {
			if (settled.via !== 'ledger')
				pending.slot.record({
					outcome: 'placed',
					// A write found already placed says so again when the ledger answers a re-run.
					result: {
						...this.kind.stored(settled.result, pending.write),
						...(settled.alreadyPlaced ? { alreadyPlaced: true } : {}),
					},
				});
		} else if (settled.outcome === 'rejected') {
			pending.slot.forget();
		} else {
			recordUnknown(pending);
		}
		pending.settled = settled;
		this.hooks.onSettled?.(pending);
	}

	/** Ends a write placed; `via`: how it is known to be. */
	placed(
		pending: PendingWrite<W>,
		result: IDataObject,
		via: 'answer' | 'lookup' | 'ledger',
		alreadyPlaced: boolean,
		entry?: IDataObject,
	): void {
		this.settle(pending, { outcome: 'placed', result, via, alreadyPlaced, entry });
	}

	/** Ends a write unknown, with the error that says what to check. */
	unknown(
		pending: PendingWrite<W>,
		reason: string,
		detail = this.kind.unknownDetail(pending.write),
		wording = this.kind.wording(pending.write),
	): void {
		const error = outcomeUnknownError(this.run.node, wording, reason, detail, pending.itemIndex);
		this.settle(pending, { outcome: 'unknown', reason, error });
	}

	/** Settles a write by what the answer to its request says of it (nothing: unknown). */
	async apply(pending: PendingWrite<W>, verdict: Verdict | undefined): Promise<void> {
		switch (verdict?.kind) {
			case 'placed':
				return this.placed(pending, verdict.result, 'answer', false, verdict.entry);
			case 'rejected':
				return this.settle(pending, { outcome: 'rejected', refusal: verdict.refusal });
			case 'duplicate':
				return await this.byLookup(pending, verdict.refusal);
			case 'unknown':
				return await this.unknownAnswer(pending, verdict);
			default:
				return await this.unknownAnswer(pending, {
					kind: 'unknown',
					reason: 'the answer says nothing about it',
				});
		}
	}

	/**
	 * Settles a write by its lookup: found, placed; proven not executed, queued to be sent once more
	 * (never a third time). `cause`: why the outcome became unknown, kept when the lookup cannot tell.
	 */
	async byLookup(pending: PendingWrite<W>, duplicate?: Refusal, cause?: string): Promise<void> {
		const verdict = await this.lookUp(pending, duplicate);
		switch (verdict.kind) {
			case 'placed':
				return this.placed(pending, verdict.result, 'lookup', verdict.alreadyPlaced ?? false);
			case 'rejected':
				return this.settle(pending, { outcome: 'rejected', refusal: verdict.refusal });
			case 'notDone':
				if (pending.resent) return this.unknown(pending, NOT_A_THIRD_TIME);
				pending.resent = true;
				this.resend.push(pending);
				return;
			default: {
				const reason = verdict.kind === 'unknown' ? verdict.reason : 'the lookup could not tell';
				return this.unknown(pending, cause === undefined ? reason : `${cause}; then ${reason}`);
			}
		}
	}

	private async lookUp(pending: PendingWrite<W>, duplicate?: Refusal): Promise<Verdict> {
		try {
			return await this.kind.lookup(pending, duplicate);
		} catch (error) {
			return { kind: 'unknown', reason: `looking it up failed: ${(error as Error).message}` };
		}
	}

	/** An answer that leaves the write unknown: looked up where the kind can, else reported. */
	private async unknownAnswer(pending: PendingWrite<W>, verdict: UnknownVerdict): Promise<void> {
		if (this.kind.whyNoLookup(pending.write) === undefined) {
			pending.maybeExecuted = true;
			return await this.byLookup(pending, undefined, verdict.reason);
		}
		const wording = verdict.wording ?? this.kind.wording(pending.write);
		if (verdict.unusable === undefined)
			return this.unknown(pending, verdict.reason, verdict.detail, wording);
		// An answer that cannot be read, and no way to look the write up: the answer is the report.
		const { problem, body } = verdict.unusable;
		const error = unexpectedResponseError(
			this.run.node,
			problem,
			body,
			wording.howToCheck,
			pending.itemIndex,
		);
		this.settle(pending, {
			outcome: 'unknown',
			reason: problem,
			error: withOutcome(error, 'unknown'),
		});
	}
}
