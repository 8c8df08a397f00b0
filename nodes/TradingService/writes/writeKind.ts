import type { IDataObject, INode } from 'n8n-workflow';

import type { AccountScope } from '../helpers/accountScope';
import type { Endpoint, EndpointRequest, ServiceClient } from '../transport';
import type { WriteWording } from './outcomes';
import type { NodeError, PendingWrite, Refusal, Verdict } from './pendingWrite';
import type { LostRun } from './writeRun';

// What a kind of write (an order, a cancel, a transfer) tells the engine, and what the engine
// uses of the run: the contract between engine.ts and the rooms that plug into it.

/** What the engine needs to know of one kind of write (orders/orderWrites.ts, orders/cancelWrites.ts, transfers/transferWrites.ts). */
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
	/**
	 * Looks many writes up at once, from lists (open and past orders) instead of one query each:
	 * the writes of the run waiting for a lookup are handed over together (writes/settling.ts
	 * RunLookups). A verdict per write, in order; undefined where the lists cannot tell, which is
	 * then looked up on its own (`lookup`). `key`: kinds with one key share their lookups.
	 */
	lookupMany?: {
		key: string;
		lookUp(entries: Array<LookupEntry<W>>): Promise<Array<Verdict | undefined>>;
	};
	/**
	 * What the write does, when two writes of one run may do the very same thing (a cancel of one
	 * order named by two items): the first is sent, the others take its outcome
	 * (writes/sameWrites.ts). Undefined: the write is its own.
	 */
	sameWrite?(write: W): string | undefined;
	/** The same, read from what the ledger keeps of a placed write of an earlier try. */
	sameWriteOfStored?(stored: IDataObject): string | undefined;
}

/** A write to look up, and the refusal that asks for the lookup (`lookup`'s `duplicate`). */
export interface LookupEntry<W> {
	pending: PendingWrite<W>;
	said?: Refusal;
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
	/** Set when an earlier run of this node may have been cut short by a crash (writes/writeRun.ts). */
	readonly lostRun: LostRun | undefined;
	/** The trading account the item's order lookups, lists and cancels act on (helpers/accountScope.ts). */
	account(itemIndex: number): Promise<AccountScope>;
	/** Every write an earlier try of this node run placed, by item where its slot names one (writes/ledger.ts). */
	placedBefore?(): Array<{ itemIndex: number | undefined; result: IDataObject }>;
}
