import { inLanes } from '../helpers/lanes';
import type { WriteAttempt } from '../transport';
import { recordUnknown, type PendingWrite, type Verdict } from './pendingWrite';
import { sameWrites } from './sameWrites';
import { NOT_A_THIRD_TIME, Settling, runLookups } from './settling';

/**
 * The write engine: every order, cancel and transfer is settled here, one algorithm for all.
 *
 * 1. The ledger first: a write an earlier try of this node run placed is answered from it, nothing
 *    sent; one that try left unknown is looked up before anything is sent. A write the ledger does
 *    not know may still exist from another execution (an order's business key), or from a run of
 *    this one that a crash cut short with its ledger (run.lostRun): the kind checks it, and a write
 *    found there is not sent.
 * 2. Send, one request per group (a batch of orders, a list of IDs, or one write), and read what
 *    the answer says of each write: placed, rejected, or unknown.
 * 3. Unknown: look it up, with the run's other writes waiting for a lookup (settling.ts
 *    RunLookups: from the kind's lists where it has them, one by one where they cannot tell).
 *    Found: placed. Proven not executed, and no attempt of it can be any more (only where the
 *    kind's lookup can prove that; an order not found is not proof): sent once more, never a third
 *    time. Otherwise it stays unknown, and the user is told what to check.
 *
 * Two writes of one run that do the very same thing (a cancel of one order named by two items) are
 * sent once: the other takes its outcome (sameWrites.ts).
 *
 * What a verdict makes of a write is settling.ts's; sending a round and reading its answers is
 * below. The state of a settling lives in its own pending writes and its Settling, so
 * several items of one run may be settled at once.
 */

export type { EngineRun, SettleHooks, WriteKind } from './writeKind';
import type { EngineRun, SettleHooks, WriteKind } from './writeKind';

const FROM_EARLIER_TRY = 'an earlier try of this node run sent it and got no answer';

/** Settles `writes`: each ends with `settled` set, unless a hook stops the run. */
export async function settleWrites<W>(
	run: EngineRun,
	kind: WriteKind<W>,
	writes: Array<PendingWrite<W>>,
	hooks: SettleHooks<W> = {},
): Promise<void> {
	const settling = new Settling(run, kind, hooks);
	if (kind.sameWrite === undefined) return await settleOwn(settling, writes);
	// Writes another item of the run is doing already take its outcome (writes/sameWrites.ts).
	const same = sameWrites(run, kind);
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

/**
 * What an earlier try of this node run (Retry On Fail, a retried execution) left in the ledger:
 * placed, answered from it; unknown, looked up (or reported, for a kind that cannot be). Returns
 * the writes the ledger does not know.
 */
async function fromLedger<W>(
	settling: Settling<W>,
	writes: Array<PendingWrite<W>>,
): Promise<Array<PendingWrite<W>>> {
	const toSend = new Set<PendingWrite<W>>();
	// All at once: the writes to look up are looked up together (settling.ts RunLookups).
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

/**
 * Waits for every promise, then throws the first failure (a hook that stops the run): none is
 * left running while the run reports what it did.
 */
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

/**
 * Sends one round of writes (engine.ts): the kind's groups, one request each, up to the hooks'
 * `parallel` at once, and settles each write of a request by what its answer says. A hook that
 * throws stops new requests; once those in flight are settled, its error is returned.
 */
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
	const { run, kind } = settling;
	recordInFlight(group);
	const { endpoint, request } = kind.request(group);
	const lookups = runLookups(run);
	let applying: Array<Promise<void>> = [];
	const sent = lookups.sendStarted();
	try {
		const attempt = await run.client.write(endpoint, request);
		const { firstSentAt = Infinity, acceptableUntil = 0 } = attempt.window;
		for (const pending of group) {
			pending.window.firstSentAt = Math.min(pending.window.firstSentAt ?? Infinity, firstSentAt);
			pending.window.acceptableUntil = Math.max(
				pending.window.acceptableUntil ?? 0,
				acceptableUntil,
			);
			recordUnknown(pending);
		}
		const verdicts = verdictsOf(kind, attempt, group);
		learnVerdicts(kind, group, verdicts);
		// Every write of the request at once: those it leaves unknown ask for their lookups before
		// the request counts as answered, so they are looked up with the other requests' (settling.ts).
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
			// An answer the kind cannot read leaves every write of the group unknown.
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
