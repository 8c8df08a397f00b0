import type { IDataObject } from 'n8n-workflow';

import type { EngineSession, PendingWrite, Settled, WriteKind } from './writeKind';

// Writes of one run that do the very same thing (WriteKind.sameWrite; docs/safety.md, "Two items
// of one run cancelling one order"): the first to claim it sends it, every other takes its outcome
// instead of being sent, and says so (`sharedWith`). A write an earlier try placed holds its claim
// from the start, from the ledger.

/** The engine's Settling (engine.ts), through which a follower takes its claim's outcome. */
interface Settling<W> {
	readonly kind: WriteKind<W>;
	settle(pending: PendingWrite<W>, settled: Settled): void;
	unknown(pending: PendingWrite<W>, reason: string, ...rest: [undefined, undefined, number?]): void;
}

interface Claim {
	/** The item of the claimed write (unknown for some from the ledger: Cancel Many by symbol's). */
	itemIndex: number | undefined;
	/** What became of the claimed write, once released. */
	settled(): Settled | undefined;
	/** The claiming write itself (none for a claim from the ledger). */
	owner?: PendingWrite<unknown>;
	released: boolean;
	done: Promise<void>;
	release(): void;
}

function claimOf(owner: PendingWrite<unknown>): Claim {
	let release = () => {};
	const done = new Promise<void>((resolve) => {
		release = resolve;
	});
	const claim: Claim = {
		itemIndex: owner.itemIndex,
		settled: () => owner.settled,
		owner,
		released: false,
		done,
		release: () => {
			claim.released = true;
			release();
		},
	};
	return claim;
}

/** A claim held by a write an earlier try placed, as the ledger keeps it. */
function claimFromLedger(itemIndex: number | undefined, stored: IDataObject): Claim {
	const settled: Settled = {
		outcome: 'placed',
		result: stored,
		via: 'ledger',
		alreadyPlaced: false,
	};
	return {
		itemIndex,
		settled: () => settled,
		released: true,
		done: Promise.resolve(),
		release: () => {},
	};
}

export class SameWrites<W> {
	private readonly claims = new Map<string, Claim>();
	private readonly following = new Map<PendingWrite<W>, Claim>();

	constructor(
		private readonly kind: WriteKind<W>,
		placedBefore: Array<{ itemIndex: number | undefined; result: IDataObject }>,
	) {
		for (const { itemIndex, result } of placedBefore) {
			const key = kind.sameWriteOfStored?.(result);
			if (key !== undefined && !this.claims.has(key))
				this.claims.set(key, claimFromLedger(itemIndex, result));
		}
	}

	/**
	 * The writes this settling does itself: unclaimed, known to its ledger, or whose claimer stopped
	 * before settling them. The others follow their claim (`follow`).
	 */
	claim(writes: Array<PendingWrite<W>>): Array<PendingWrite<W>> {
		const own: Array<PendingWrite<W>> = [];
		for (const pending of writes) {
			const key = this.kind.sameWrite?.(pending.write);
			const claim = key === undefined ? undefined : this.claims.get(key);
			const open = claim === undefined || (claim.released && claim.settled() === undefined);
			if (key === undefined || open || claim.owner === pending || pending.slot.recorded) {
				if (key !== undefined && open) this.claims.set(key, claimOf(pending));
				own.push(pending);
			} else {
				this.following.set(pending, claim);
			}
		}
		return own;
	}

	/** The settling of `own` ended (or stopped): the writes following their claims may go on. */
	release(own: Array<PendingWrite<W>>): void {
		for (const pending of own) {
			const key = this.kind.sameWrite?.(pending.write);
			const claim = key === undefined ? undefined : this.claims.get(key);
			if (claim?.owner === pending) claim.release();
		}
	}

	/** Settles each follower of `writes` as its claimer's ended; returns those its claimer left unsettled. */
	async follow(
		settling: Settling<W>,
		writes: Array<PendingWrite<W>>,
	): Promise<Array<PendingWrite<W>>> {
		const orphans: Array<PendingWrite<W>> = [];
		for (const pending of writes) {
			const claim = this.following.get(pending);
			if (claim === undefined) continue;
			this.following.delete(pending);
			await claim.done;
			const settled = claim.settled();
			if (settled === undefined) orphans.push(pending);
			else take(settling, pending, settled, claim);
		}
		return orphans;
	}
}

/** The follower takes the claimed write's outcome, in its item and in its own ledger slot. */
function take<W>(
	settling: Settling<W>,
	pending: PendingWrite<W>,
	settled: Settled,
	claim: Claim,
): void {
	const sharedWith = claim.itemIndex;
	const shared = sharedWith === undefined ? {} : { sharedWith };
	if (settled.outcome !== 'unknown') {
		// settle() keeps a placed outcome in the ledger, but not one answered from it: kept here.
		if (settled.outcome === 'placed' && settled.via === 'ledger')
			pending.slot.record({
				outcome: 'placed',
				result: settling.kind.stored(settled.result, pending.write),
			});
		settling.settle(pending, { ...settled, ...shared });
		return;
	}
	// It may have been executed: a later try looks it up, from when the claimed write was sent.
	pending.maybeExecuted = true;
	if (claim.owner !== undefined) Object.assign(pending.window, claim.owner.window);
	settling.unknown(
		pending,
		`${sharedWith === undefined ? 'another item' : `item ${sharedWith}`} of this run sent this very request, and ${settled.reason}`,
		undefined,
		undefined,
		sharedWith,
	);
}

const sameWritesOfSession = new WeakMap<EngineSession, SameWrites<unknown>>();

/** The claims of a write session (one per session: every settling of its writes shares them). */
export function sameWrites<W>(session: EngineSession, kind: WriteKind<W>): SameWrites<W> {
	let same = sameWritesOfSession.get(session);
	if (same === undefined) {
		same = new SameWrites(kind as WriteKind<unknown>, session.placedBefore?.() ?? []);
		sameWritesOfSession.set(session, same);
	}
	return same as SameWrites<W>;
}
