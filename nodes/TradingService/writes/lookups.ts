import { inLanes } from '../helpers/lanes';
import type { EngineSession, LookupEntry, Verdict, WriteKind } from './writeKind';

/** Single lookups of one gathering in flight at once (weight 1 each). */
const SINGLE_LOOKUPS_AT_ONCE = 10;

interface Waiting {
	kind: WriteKind<unknown>;
	entry: LookupEntry<unknown>;
	resolve: (verdict: Verdict) => void;
}

export function lookupFailed(error: unknown): Verdict {
	const reason = `looking it up failed: ${(error as Error).message}`;
	return { kind: 'unknown', reason, failed: true };
}

/**
 * The lookups of a write session's unknown writes, gathered: a gathering waits for the requests in
 * flight when it opened (their answers may add writes), then looks every write up together, from
 * the kind's lists where it has them (docs/safety.md): 200 lost batch answers cost two list pages
 * per symbol, not 200 queries. A request in flight always ends, so no lookup waits for ever.
 */
export class SessionLookups {
	private sent = 0;
	private readonly inFlight = new Set<number>();
	private gathering: { waiting: Waiting[]; awaited: Set<number> } | undefined;
	private scheduled = false;

	/** A write request of the session leaves; returns what names it to sendEnded. */
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

const lookupsOfSession = new WeakMap<EngineSession, SessionLookups>();

/** The lookups of a write session (one per session: every settling of its writes shares them). */
export function lookupsOf(session: EngineSession): SessionLookups {
	let lookups = lookupsOfSession.get(session);
	if (lookups === undefined) {
		lookups = new SessionLookups();
		lookupsOfSession.set(session, lookups);
	}
	return lookups;
}
