import type { IDataObject, INode } from 'n8n-workflow';

import type { AccountScope } from '../helpers/accountScope';
import { inLanes } from '../helpers/lanes';
import {
	unexpectedResponseError,
	type Endpoint,
	type EndpointRequest,
	type ServiceClient,
} from '../transport';
import { outcomeUnknownError, withOutcome, type WriteWording } from './outcomes';
import {
	recordUnknown,
	type NodeError,
	type PendingWrite,
	type Refusal,
	type Settled,
	type Verdict,
} from './pendingWrite';
import type { LedgerRecord } from './ledger';
import type { LostRun } from './recovery';

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
 * The state of a settling lives in its own pending writes and in local lists, so several items of
 * one run may be settled at once.
 */

/** What the engine needs to know of one kind of write (orders/orderWrites.ts, cancels.ts, transfers.ts). */
export interface WriteKind<W> {
	/** How a write is named, and what to check when its outcome stays unknown. */
	wording(write: W): WriteWording;
	/** How a request of several writes is named, when its outcome as a whole is unknown (default: each write's own). */
	requestWording?(group: Array<PendingWrite<W>>): WriteWording | undefined;
	/** Why a write cannot be looked up, or undefined when it can. */
	whyNoLookup(write: W): string | undefined;
	/** Said of a write whose lookup could not settle it. */
	unknownDetail(write: W): string;
	/** What the ledger keeps of a placed write's result: the fields needed to answer a re-run. */
	stored(result: IDataObject, write?: W): IDataObject;
	/** The requests to send: the writes of each, in order. */
	groups(pending: Array<PendingWrite<W>>): Array<Array<PendingWrite<W>>>;
	/** The request that sends one group. */
	request(group: Array<PendingWrite<W>>): { endpoint: Endpoint; request: EndpointRequest };
	/** What a usable answer says of each write of the group, in the group's order. */
	read(body: unknown, group: Array<PendingWrite<W>>): Verdict[];
	/** What a refusal of the whole request says of each of its writes (default: rejected). */
	refused?(error: NodeError): Verdict;
	/**
	 * Checks writes this node run has not sent yet against what the service already holds (another
	 * execution's order under the same business key; after a lost run, what that run sent): a
	 * verdict settles the write unsent; undefined lets it be sent.
	 */
	precheck?(pending: Array<PendingWrite<W>>): Promise<Array<Verdict | undefined>>;
	/** Looks a write up. `duplicate`: the answer said another write holds its ID. */
	lookup(pending: PendingWrite<W>, duplicate?: Refusal): Promise<Verdict>;
}

export interface SettleHooks<W> {
	/**
	 * How many requests may be in flight at once (default 1). A hook that throws stops new requests;
	 * those in flight are settled, then its error is thrown.
	 */
	parallel?: number;
	/** Called as each write settles; may throw to stop the run: nothing further is sent. */
	onSettled?(pending: PendingWrite<W>): void;
	/** Called after the writes of each request are settled; may throw to stop before the next request. */
	afterRequest?(group: Array<PendingWrite<W>>, requestsLeft: number): void;
}

/** What the engine uses of the run. */
export interface EngineRun {
	readonly node: INode;
	readonly client: ServiceClient;
	/** Set when an earlier run of this node may have been cut short by a crash (writes/recovery.ts). */
	readonly lostRun: LostRun | undefined;
	/** The trading account the item's order lookups, lists and cancels act on (helpers/accountScope.ts). */
	account(itemIndex: number): Promise<AccountScope>;
}

const FROM_EARLIER_TRY = 'an earlier try of this node run sent it and got no answer';
const NOT_A_THIRD_TIME =
	'it was sent once more after a lookup proved it was not executed, and that was not confirmed either, so it is not sent a third time in this run';

/**
 * What the engine last wrote to the ledger for each write it settled: a stopped run is reported
 * from it (writes/runReport.ts), including writes whose answer was read but which a hook's stop
 * left unsettled.
 */
const inLedger = new WeakMap<PendingWrite<unknown>, LedgerRecord['outcome'] | undefined>();

function record(pending: PendingWrite<unknown>, entry: LedgerRecord): void {
	pending.slot.record(entry);
	inLedger.set(pending, entry.outcome);
}

function forget(pending: PendingWrite<unknown>): void {
	pending.slot.forget();
	inLedger.set(pending, undefined);
}

function markUnknown(pending: PendingWrite<unknown>): void {
	recordUnknown(pending);
	inLedger.set(pending, 'unknown');
}

/**
 * What the write ledger holds of a write now: placed, unknown (it may have been executed), or
 * nothing (never sent, or refused). For a write this try did not touch, what an earlier try left.
 */
export function ledgerOutcome(pending: PendingWrite<unknown>): LedgerRecord['outcome'] | undefined {
	return inLedger.has(pending) ? inLedger.get(pending) : pending.slot.recorded?.outcome;
}

/** Settles `writes`: each ends with `settled` set, unless a hook stops the run. */
export async function settleWrites<W>(
	run: EngineRun,
	kind: WriteKind<W>,
	writes: Array<PendingWrite<W>>,
	hooks: SettleHooks<W> = {},
): Promise<void> {
	const resend: Array<PendingWrite<W>> = [];

	const settle = (pending: PendingWrite<W>, settled: Settled) => {
		if (settled.outcome === 'placed') {
			if (settled.via !== 'ledger')
				record(pending, {
					outcome: 'placed',
					// A write found already placed says so again when the ledger answers a re-run.
					result: {
						...kind.stored(settled.result, pending.write),
						...(settled.alreadyPlaced ? { alreadyPlaced: true } : {}),
					},
				});
		} else if (settled.outcome === 'rejected') {
			forget(pending);
		} else {
			markUnknown(pending);
		}
		pending.settled = settled;
		hooks.onSettled?.(pending);
	};
	const unknown = (
		pending: PendingWrite<W>,
		reason: string,
		detail = kind.unknownDetail(pending.write),
		wording = kind.wording(pending.write),
	) =>
		settle(pending, {
			outcome: 'unknown',
			reason,
			error: outcomeUnknownError(run.node, wording, reason, detail, pending.itemIndex),
		});

	const lookUp = async (pending: PendingWrite<W>, duplicate?: Refusal): Promise<Verdict> => {
		try {
			return await kind.lookup(pending, duplicate);
		} catch (error) {
			return { kind: 'unknown', reason: `looking it up failed: ${(error as Error).message}` };
		}
	};
	/** `cause`: why the outcome became unknown, kept in the report when the lookup cannot tell. */
	const settleByLookup = async (pending: PendingWrite<W>, duplicate?: Refusal, cause?: string) => {
		const verdict = await lookUp(pending, duplicate);
		switch (verdict.kind) {
			case 'placed':
				return settle(pending, {
					outcome: 'placed',
					result: verdict.result,
					via: 'lookup',
					alreadyPlaced: verdict.alreadyPlaced ?? false,
				});
			case 'rejected':
				return settle(pending, { outcome: 'rejected', refusal: verdict.refusal });
			case 'notDone':
				if (pending.resent) return unknown(pending, NOT_A_THIRD_TIME);
				pending.resent = true;
				resend.push(pending);
				return;
			default: {
				const reason = verdict.kind === 'unknown' ? verdict.reason : 'the lookup could not tell';
				return unknown(pending, cause === undefined ? reason : `${cause}; then ${reason}`);
			}
		}
	};
	const settleUnknown = async (
		pending: PendingWrite<W>,
		verdict: Extract<Verdict, { kind: 'unknown' }>,
	) => {
		if (kind.whyNoLookup(pending.write) === undefined) {
			pending.maybeExecuted = true;
			return await settleByLookup(pending, undefined, verdict.reason);
		}
		const wording = verdict.wording ?? kind.wording(pending.write);
		if (verdict.unusable === undefined)
			return unknown(pending, verdict.reason, verdict.detail, wording);
		// An answer that cannot be read, and no way to look the write up: the answer is the report.
		const { problem, body } = verdict.unusable;
		const error = unexpectedResponseError(
			run.node,
			problem,
			body,
			wording.howToCheck,
			pending.itemIndex,
		);
		return settle(pending, {
			outcome: 'unknown',
			reason: problem,
			error: withOutcome(error, 'unknown'),
		});
	};
	const apply = async (pending: PendingWrite<W>, verdict: Verdict | undefined) => {
		switch (verdict?.kind) {
			case 'placed':
				return settle(pending, {
					outcome: 'placed',
					result: verdict.result,
					via: 'answer',
					alreadyPlaced: false,
					entry: verdict.entry,
				});
			case 'rejected':
				return settle(pending, { outcome: 'rejected', refusal: verdict.refusal });
			case 'duplicate':
				return await settleByLookup(pending, verdict.refusal);
			case 'unknown':
				return await settleUnknown(pending, verdict);
			default:
				return await settleUnknown(pending, {
					kind: 'unknown',
					reason: 'the answer says nothing about it',
				});
		}
	};

	// 1. What an earlier try of this node run (Retry On Fail, a retried execution) left in the ledger.
	let toSend: Array<PendingWrite<W>> = [];
	for (const pending of writes) {
		const recorded = pending.slot.recorded;
		if (recorded?.outcome === 'placed') {
			const { alreadyPlaced, ...result } = recorded.result ?? {};
			settle(pending, {
				outcome: 'placed',
				result,
				via: 'ledger',
				alreadyPlaced: alreadyPlaced === true,
			});
		} else if (pending.maybeExecuted) {
			const why = kind.whyNoLookup(pending.write);
			if (why === undefined) await settleByLookup(pending);
			else unknown(pending, `${FROM_EARLIER_TRY}, and ${why}`);
		} else {
			toSend.push(pending);
		}
	}
	if (kind.precheck !== undefined && toSend.length > 0) {
		const checked = await kind.precheck(toSend);
		const unsent = toSend;
		toSend = [];
		for (const [position, pending] of unsent.entries()) {
			const verdict = checked[position];
			if (verdict === undefined) toSend.push(pending);
			else if (verdict.kind === 'placed')
				settle(pending, {
					outcome: 'placed',
					result: verdict.result,
					via: 'lookup',
					alreadyPlaced: true,
				});
			else if (verdict.kind === 'rejected')
				settle(pending, { outcome: 'rejected', refusal: verdict.refusal });
			else if (verdict.kind === 'unknown') {
				// A lost run may have sent it, and the check could not tell: never sent blindly.
				pending.maybeExecuted = true;
				unknown(pending, verdict.reason, verdict.detail);
			} else toSend.push(pending);
		}
	}
	toSend.push(...resend.splice(0));

	// 2 and 3. Round 1 sends the writes; round 2 those proven not executed after an unknown outcome.
	let stop: { error: unknown } | undefined;
	const send = async (group: Array<PendingWrite<W>>, requestsLeft: () => number) => {
		// The ledger slot of every write of the request is written before the request leaves.
		const now = Date.now();
		for (const pending of group) {
			pending.window.firstSentAt ??= now;
			record(pending, {
				outcome: 'unknown',
				firstSentAt: pending.window.firstSentAt,
				acceptableUntil: Math.max(pending.window.acceptableUntil ?? 0, now),
			});
		}
		const { endpoint, request } = kind.request(group);
		const attempt = await run.client.write(endpoint, request);
		for (const pending of group) {
			pending.window.firstSentAt = Math.min(
				pending.window.firstSentAt ?? Infinity,
				attempt.window.firstSentAt ?? Infinity,
			);
			pending.window.acceptableUntil = Math.max(
				pending.window.acceptableUntil ?? 0,
				attempt.window.acceptableUntil ?? 0,
			);
			markUnknown(pending);
		}
		let verdicts: Verdict[];
		if (attempt.kind === 'answered') {
			verdicts = readAnswer(kind, attempt.body, group);
		} else if (attempt.kind === 'rejected') {
			const verdict = kind.refused?.(attempt.error) ?? {
				kind: 'rejected',
				refusal: { error: attempt.error },
			};
			verdicts = group.map(() => verdict);
		} else {
			const { reason, detail, unusable } = attempt;
			const wording = kind.requestWording?.(group);
			verdicts = group.map(() => ({ kind: 'unknown', reason, detail, unusable, wording }));
		}
		// The ledger learns what the answer says of every write of the request before a hook may
		// stop the run at one of them: a refused write left recorded in flight would be taken
		// for one that may have been executed, and never sent again; a placed one would be
		// reported unknown and looked up.
		for (const [position, pending] of group.entries()) {
			const verdict = verdicts[position];
			if (verdict?.kind === 'rejected' && !pending.maybeExecuted) forget(pending);
			if (verdict?.kind === 'placed')
				record(pending, {
					outcome: 'placed',
					result: kind.stored(verdict.result, pending.write),
				});
		}
		for (const [position, pending] of group.entries()) await apply(pending, verdicts[position]);
		hooks.afterRequest?.(group, requestsLeft());
	};
	for (let round = 0; round < 2 && toSend.length > 0 && stop === undefined; round++) {
		const groups = kind.groups(toSend);
		let started = 0;
		await inLanes(
			groups.length,
			hooks.parallel ?? 1,
			async (index) => {
				started = Math.max(started, index + 1);
				try {
					await send(groups[index], () => groups.length - started);
				} catch (error) {
					stop ??= { error };
				}
			},
			{ stopped: () => stop !== undefined },
		);
		toSend = resend.splice(0);
	}
	if (stop !== undefined) throw stop.error;
	for (const pending of toSend) unknown(pending, NOT_A_THIRD_TIME);
}

/** The kind's reading of an answer; an answer it cannot read leaves every write of the group unknown. */
function readAnswer<W>(
	kind: WriteKind<W>,
	body: unknown,
	group: Array<PendingWrite<W>>,
): Verdict[] {
	try {
		return kind.read(body, group);
	} catch (error) {
		const reason = `its answer could not be read: ${(error as Error).message}`;
		return group.map(() => ({ kind: 'unknown', reason }));
	}
}
