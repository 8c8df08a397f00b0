import type { IDataObject } from 'n8n-workflow';

import { inLanes } from '../helpers/lanes';
import { unexpectedResponseError, type WriteAttempt } from '../transport';
import type { LedgerSlot } from './ledger';
import { lookupFailed, lookupsOf } from './lookups';
import { outcomeUnknownError, withOutcome } from './outcomes';
import { sameWrites } from './sameWrites';
import type {
	EngineSession,
	PendingWrite,
	Refusal,
	SettleHooks,
	Settled,
	Verdict,
	WriteKind,
} from './writeKind';

// The write engine (docs/architecture.md): every order, cancel and transfer is settled here. A
// settling's state is in its pending writes and its Settling: items of a run may settle at once.

export type * from './writeKind';

const FROM_EARLIER_TRY = 'an earlier try of this node run sent it and got no answer';

export const NOT_A_THIRD_TIME =
	'it was sent once more after a lookup proved it was not executed, and that was not confirmed either, so it is not sent a third time in this run';

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

/** Settles `writes`: each ends with `settled` set, unless a hook stops the run. */
export async function settleWrites<W>(
	session: EngineSession,
	kind: WriteKind<W>,
	writes: Array<PendingWrite<W>>,
	hooks: SettleHooks<W> = {},
): Promise<void> {
	const settling = new Settling(session, kind, hooks);
	if (kind.sameWrite === undefined) return await settleOwn(settling, writes);
	const same = sameWrites(session, kind);
	let own = same.claim(writes);
	for (;;) {
		try {
			await settleOwn(settling, own);
		} finally {
			same.release(own);
		}
		// Those whose item stopped before settling them are this settling's to send after all.
		const orphans = await same.follow(settling, writes);
		if (orphans.length === 0) return;
		own = same.claim(orphans);
	}
}

/** Settles the writes this settling sends (or answers from the ledger, or checks). */
async function settleOwn<W>(settling: Settling<W>, writes: Array<PendingWrite<W>>): Promise<void> {
	let toSend = await precheck(settling, await fromLedger(settling, writes));
	toSend.push(...settling.resend.splice(0));
	// Round 1 sends the writes; round 2 those a lookup proved not executed after an unknown outcome.
	for (let round = 0; round < 2 && toSend.length > 0; round++) {
		const stop = await sendRound(settling, toSend);
		if (stop !== undefined) throw stop.error;
		toSend = settling.resend.splice(0);
	}
	for (const pending of toSend) settling.unknown(pending, NOT_A_THIRD_TIME);
}

/** An earlier try's ledger: placed, answered; unknown, looked up. Returns the writes it lacks. */
async function fromLedger<W>(
	settling: Settling<W>,
	writes: Array<PendingWrite<W>>,
): Promise<Array<PendingWrite<W>>> {
	const toSend = new Set<PendingWrite<W>>();
	await settledAll(
		writes.map(async (pending) => {
			const recorded = pending.slot.recorded;
			if (recorded?.outcome === 'placed') {
				const { alreadyPlaced, ...result } = recorded.result ?? {};
				settling.placed(pending, result, 'ledger', alreadyPlaced === true);
			} else if (pending.maybeExecuted) {
				const why = settling.kind.whyNoLookup(pending.write);
				if (why === undefined) await settling.byLookup(pending);
				else settling.unknown(pending, `${FROM_EARLIER_TRY}, and ${why}`);
			} else {
				toSend.add(pending);
			}
		}),
	);
	// In the order given, whatever order the lookups ended in.
	return writes.filter((pending) => toSend.has(pending));
}

/** Waits for every promise, then throws the first failure: none runs on while the run reports. */
async function settledAll(promises: Array<Promise<void>>): Promise<void> {
	const results = await Promise.allSettled(promises);
	const failed = results.find((result) => result.status === 'rejected');
	if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
}

/** The kind's check of writes not sent yet (WriteKind.precheck); returns those it lets be sent. */
async function precheck<W>(
	settling: Settling<W>,
	unsent: Array<PendingWrite<W>>,
): Promise<Array<PendingWrite<W>>> {
	if (settling.kind.precheck === undefined || unsent.length === 0) return unsent;
	const checked = await settling.kind.precheck(unsent);
	const toSend: Array<PendingWrite<W>> = [];
	for (const [position, pending] of unsent.entries()) {
		const verdict = checked[position];
		if (verdict?.kind === 'placed') settling.placed(pending, verdict.result, 'lookup', true);
		else if (verdict?.kind === 'rejected')
			settling.settle(pending, { outcome: 'rejected', refusal: verdict.refusal });
		else if (verdict?.kind === 'unknown') {
			// A lost run may have sent it, and the check could not tell: never sent blindly.
			pending.maybeExecuted = true;
			settling.unknown(pending, verdict.reason, verdict.detail);
		} else toSend.push(pending);
	}
	return toSend;
}

/** Sends one round: the kind's groups, a request each, in lanes; returns a hook's stop error. */
async function sendRound<W>(
	settling: Settling<W>,
	toSend: Array<PendingWrite<W>>,
): Promise<{ error: unknown } | undefined> {
	const groups = settling.kind.groups(toSend);
	let started = 0;
	let stop: { error: unknown } | undefined;
	await inLanes(
		groups.length,
		settling.hooks.parallel ?? 1,
		async (index) => {
			started = Math.max(started, index + 1);
			try {
				await sendGroup(settling, groups[index], () => groups.length - started);
			} catch (error) {
				stop ??= { error };
			}
		},
		{ stopped: () => stop !== undefined },
	);
	return stop;
}

async function sendGroup<W>(
	settling: Settling<W>,
	group: Array<PendingWrite<W>>,
	requestsLeft: () => number,
): Promise<void> {
	const { session, kind } = settling;
	recordInFlight(group);
	const { endpoint, request } = kind.request(group);
	const lookups = lookupsOf(session);
	let applying: Array<Promise<void>> = [];
	const sent = lookups.sendStarted();
	try {
		const attempt = await session.client.write(endpoint, request);
		const { firstSentAt = Infinity, acceptableUntil = 0 } = attempt.window;
		for (const pending of group) {
			const own = pending.window;
			own.firstSentAt = Math.min(own.firstSentAt ?? Infinity, firstSentAt);
			own.acceptableUntil = Math.max(own.acceptableUntil ?? 0, acceptableUntil);
			recordUnknown(pending);
		}
		const verdicts = verdictsOf(kind, attempt, group);
		learnVerdicts(kind, group, verdicts);
		// Every write of the request at once: those it leaves unknown ask for their lookups before
		// the request counts as answered, so they are looked up with the other requests' (lookups.ts).
		applying = group.map((pending, position) => settling.apply(pending, verdicts[position]));
	} finally {
		lookups.sendEnded(sent);
	}
	await settledAll(applying);
	settling.hooks.afterRequest?.(group, requestsLeft());
}

/** The ledger slot of every write of a request is written before the request leaves. */
function recordInFlight(group: Array<PendingWrite<unknown>>): void {
	const now = Date.now();
	for (const pending of group) {
		pending.window.firstSentAt ??= now;
		pending.slot.record({
			outcome: 'unknown',
			firstSentAt: pending.window.firstSentAt,
			acceptableUntil: Math.max(pending.window.acceptableUntil ?? 0, now),
		});
	}
}

/** What the attempt says of each write of the group, in the group's order. */
function verdictsOf<W>(
	kind: WriteKind<W>,
	attempt: WriteAttempt,
	group: Array<PendingWrite<W>>,
): Verdict[] {
	if (attempt.kind === 'answered') {
		try {
			return kind.read(attempt.body, group);
		} catch (error) {
			const reason = `its answer could not be read: ${(error as Error).message}`;
			return group.map(() => ({ kind: 'unknown', reason }));
		}
	}
	if (attempt.kind === 'rejected') {
		const verdict = kind.refused?.(attempt.error) ?? {
			kind: 'rejected',
			refusal: { error: attempt.error },
		};
		return group.map(() => verdict);
	}
	const { reason, detail, unusable } = attempt;
	const wording = kind.requestWording?.(group);
	return group.map(() => ({ kind: 'unknown', reason, detail, unusable, wording }));
}

/**
 * The ledger learns what the answer says of every write of the request before a hook may stop the
 * run at one of them: a refused write left recorded in flight would be taken for one that may have
 * been executed, and never sent again; a placed one would be reported unknown and looked up.
 */
function learnVerdicts<W>(
	kind: WriteKind<W>,
	group: Array<PendingWrite<W>>,
	verdicts: Verdict[],
): void {
	for (const [position, pending] of group.entries()) {
		const verdict = verdicts[position];
		if (verdict?.kind === 'rejected' && !pending.maybeExecuted) pending.slot.forget();
		if (verdict?.kind === 'placed')
			pending.slot.record({
				outcome: 'placed',
				result: kind.stored(verdict.result, pending.write),
			});
	}
}

/** One settling of writes of one kind: what a verdict makes of a write, in the ledger and hooks. */
export class Settling<W> {
	/** Proven not executed, and no attempt of them can be accepted any more: the next round sends them. */
	readonly resend: Array<PendingWrite<W>> = [];

	constructor(
		readonly session: EngineSession,
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
		sharedWith?: number,
	): void {
		const error = outcomeUnknownError(
			this.session.node,
			wording,
			reason,
			detail,
			pending.itemIndex,
		);
		this.settle(pending, {
			outcome: 'unknown',
			reason,
			error,
			...(sharedWith === undefined ? {} : { sharedWith }),
		});
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

	/** Settles a write by its lookup. `cause`: why it became unknown, kept when the lookup cannot tell. */
	async byLookup(pending: PendingWrite<W>, duplicate?: Refusal, cause?: string): Promise<void> {
		let verdict: Verdict;
		try {
			verdict = await lookupsOf(this.session).lookUp(this.kind, { pending, said: duplicate });
		} catch (error) {
			verdict = lookupFailed(error);
		}
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

	/** An answer that leaves the write unknown: looked up where the kind can, else reported. */
	private async unknownAnswer(
		pending: PendingWrite<W>,
		verdict: Extract<Verdict, { kind: 'unknown' }>,
	): Promise<void> {
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
			this.session.node,
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
