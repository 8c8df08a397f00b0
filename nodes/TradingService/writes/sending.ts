import { inLanes } from '../helpers/lanes';
import type { WriteAttempt } from '../transport';
import type { WriteKind } from './writeKind';
import { recordUnknown, type PendingWrite, type Verdict } from './pendingWrite';
import type { Settling } from './settling';

/**
 * Sends one round of writes (engine.ts): the kind's groups, one request each, up to the hooks'
 * `parallel` at once, and settles each write of a request by what its answer says. A hook that
 * throws stops new requests; once those in flight are settled, its error is returned.
 */
export async function sendRound<W>(
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
	const attempt = await run.client.write(endpoint, request);
	const { firstSentAt = Infinity, acceptableUntil = 0 } = attempt.window;
	for (const pending of group) {
		pending.window.firstSentAt = Math.min(pending.window.firstSentAt ?? Infinity, firstSentAt);
		pending.window.acceptableUntil = Math.max(pending.window.acceptableUntil ?? 0, acceptableUntil);
		recordUnknown(pending);
	}
	const verdicts = verdictsOf(kind, attempt, group);
	learnVerdicts(kind, group, verdicts);
	for (const [position, pending] of group.entries())
		await settling.apply(pending, verdicts[position]);
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
