import type { PendingWrite } from './pendingWrite';
import { sendRound } from './sending';
import { NOT_A_THIRD_TIME, Settling } from './settling';

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
 * 3. Unknown: look it up. Found: placed. Proven not executed, and no attempt of it can be any more
 *    (only where the kind's lookup can prove that; an order not found is not proof): sent once
 *    more, never a third time. Otherwise it stays unknown, and the user is told what to check.
 *
 * What a verdict makes of a write is settling.ts's; sending a round and reading its answers,
 * sending.ts's. The state of a settling lives in its own pending writes and its Settling, so
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
	const toSend: Array<PendingWrite<W>> = [];
	for (const pending of writes) {
		const recorded = pending.slot.recorded;
		if (recorded?.outcome === 'placed') {
			const { alreadyPlaced, ...result } = recorded.result ?? {};
			settling.placed(pending, result, 'ledger', alreadyPlaced === true);
		} else if (pending.maybeExecuted) {
			const why = settling.kind.whyNoLookup(pending.write);
			if (why === undefined) await settling.byLookup(pending);
			else settling.unknown(pending, `${FROM_EARLIER_TRY}, and ${why}`);
		} else {
			toSend.push(pending);
		}
	}
	return toSend;
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
