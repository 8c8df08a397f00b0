import type { IDataObject } from 'n8n-workflow';

import { inLanes } from '../helpers/lanes';
import { unexpectedResponseError } from '../transport';
import type { EngineRun, LookupEntry, SettleHooks, WriteKind } from './writeKind';
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
		sharedWith?: number,
	): void {
		const error = outcomeUnknownError(this.run.node, wording, reason, detail, pending.itemIndex);
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
			return await runLookups(this.run).lookUp(this.kind, { pending, said: duplicate });
		} catch (error) {
			return lookupFailed(error);
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

function lookupFailed(error: unknown): Verdict {
	return {
		kind: 'unknown',
		reason: `looking it up failed: ${(error as Error).message}`,
		failed: true,
	};
}

/** Single lookups of one gathering in flight at once (weight 1 each). */
const SINGLE_LOOKUPS_AT_ONCE = 10;

interface Waiting {
	kind: WriteKind<unknown>;
	entry: LookupEntry<unknown>;
	resolve: (verdict: Verdict) => void;
}

/**
 * The lookups of one run's writes whose outcome is unknown, gathered: a write that needs a lookup
 * opens a gathering (or joins the open one), which waits for the write requests of the run in
 * flight when it opened (their answers may leave more writes to look up, which join it), then every
 * write gathered is looked up together, through the kind's lists (lookupMany) where it has them,
 * and one by one only where the lists cannot tell. Requests sent after the gathering opened do not
 * hold it up, and one opened to explain a refusal ("nothing to cancel") waits for none. Settling
 * 200 orders whose batch answers were lost costs a page of open orders and one of past orders per
 * symbol, not 200 queries. A request in flight always ends (the transport's timeouts), so no
 * lookup waits for ever.
 */
export class RunLookups {
	private sent = 0;
	private readonly inFlight = new Set<number>();
	private gathering: { waiting: Waiting[]; awaited: Set<number> } | undefined;
	private scheduled = false;

	/** A write request of the run leaves; returns what names it to sendEnded. */
	sendStarted(): number {
		this.inFlight.add(++this.sent);
		return this.sent;
	}

	/** Its answer was read, and the writes it leaves unknown asked for their lookups. */
	sendEnded(request: number): void {
		this.inFlight.delete(request);
		this.gathering?.awaited.delete(request);
		this.schedule();
	}

	lookUp<W>(kind: WriteKind<W>, entry: LookupEntry<W>): Promise<Verdict> {
		if (kind.lookupMany === undefined) return kind.lookup(entry.pending, entry.said);
		return new Promise((resolve) => {
			// Lost answers come in bursts (a connection lost loses every answer in flight): the
			// gathering of an unknown outcome waits for the requests in flight. A refusal is known
			// now; what explains it is looked up with its request's other writes only.
			this.gathering ??= {
				waiting: [],
				awaited: new Set(entry.said === undefined ? this.inFlight : []),
			};
			this.gathering.waiting.push({
				kind: kind as WriteKind<unknown>,
				entry: entry as LookupEntry<unknown>,
				resolve,
			});
			this.schedule();
		});
	}

	/** Starts the gathering once the code running now has asked for all it will (a microtask later). */
	private schedule(): void {
		if (this.scheduled) return;
		this.scheduled = true;
		void Promise.resolve().then(() => {
			this.scheduled = false;
			const gathering = this.gathering;
			if (gathering === undefined || gathering.awaited.size > 0) return;
			this.gathering = undefined;
			const byKey = new Map<unknown, Waiting[]>();
			for (const one of gathering.waiting) {
				const key = one.kind.lookupMany?.key ?? one.kind;
				byKey.set(key, [...(byKey.get(key) ?? []), one]);
			}
			for (const group of byKey.values()) void settleGathered(group);
		});
	}
}

/** Looks a gathering of one kind up: from the lists first, the rest one by one. Never rejects. */
async function settleGathered(group: Waiting[]): Promise<void> {
	const { kind } = group[0];
	let verdicts: Array<Verdict | undefined> = [];
	try {
		verdicts = (await kind.lookupMany?.lookUp(group.map((one) => one.entry))) ?? [];
	} catch {
		verdicts = []; // every write is looked up on its own instead
	}
	const single: Waiting[] = [];
	group.forEach((one, position) => {
		const verdict = verdicts[position];
		if (verdict === undefined) single.push(one);
		else one.resolve(verdict);
	});
	// Once a lookup failed (after the transport's retries), the service cannot be asked now: the
	// writes not looked up yet stay unknown at once rather than each failing in turn (a retry of
	// the node looks them up). The first goes alone, so that a failing service costs one. A refusal
	// to explain is looked up whatever: what it means unexplained is the kind's to say.
	let failed: string | undefined;
	const lookUpOne = async (index: number) => {
		const { entry, resolve } = single[index];
		if (failed !== undefined && entry.said === undefined)
			return resolve({
				kind: 'unknown',
				reason: `it was not looked up, since looking up another write of this run failed just before (${failed})`,
				failed: true,
			});
		let verdict: Verdict;
		try {
			verdict = await kind.lookup(entry.pending, entry.said);
		} catch (error) {
			verdict = lookupFailed(error);
		}
		if (verdict.kind === 'unknown' && verdict.failed) failed ??= verdict.reason;
		resolve(verdict);
	};
	if (single.length > 0) await lookUpOne(0);
	await inLanes(single.length - 1, SINGLE_LOOKUPS_AT_ONCE, (index) => lookUpOne(index + 1));
}

const lookupsOfRun = new WeakMap<EngineRun, RunLookups>();

/** The lookups of a run (one per run: every settling of its writes shares them). */
export function runLookups(run: EngineRun): RunLookups {
	let lookups = lookupsOfRun.get(run);
	if (lookups === undefined) {
		lookups = new RunLookups();
		lookupsOfRun.set(run, lookups);
	}
	return lookups;
}
