import type { IDataObject, INode, NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { AccountScope } from '../helpers/accountScope';
import type { Endpoint, EndpointRequest, SendWindow, ServiceClient } from '../transport';
import type { LedgerSlot } from './ledger';
import type { LostRun } from './writeSession';

// The contract between the write engine (engine.ts) and the kinds of write that plug into it.

export type NodeError = NodeApiError | NodeOperationError;

/** How a write is named to the user, and what to look at when its outcome is unknown. */
export interface WriteWording {
	/** "transfer of 5 USDT from 1 to 2", "BUY LIMIT order for BTCUSDT". */
	what: string;
	/** "Check your open orders … for BTCUSDT". */
	howToCheck: string;
}

/** Why a write was not executed. */
export interface Refusal {
	/** The error, when the request as a whole was refused. */
	error?: NodeError;
	/** The service's own, when its answer (or a lookup) says why for this write alone. */
	code?: string;
	msg?: string;
	/** What a lookup found, or the kind's reason in words (a cancel's "already filled"). */
	detail?: IDataObject;
}

/** What an answer or a lookup says of one write. */
export type Verdict =
	| { kind: 'placed'; result: IDataObject; alreadyPlaced?: boolean; entry?: IDataObject }
	| { kind: 'rejected'; refusal: Refusal }
	/** Refused because another write holds its ID, which may be this very write: looked up. */
	| { kind: 'duplicate'; refusal: Refusal }
	/** `wording`: the request's own, when the whole request's outcome is unknown. */
	| {
			kind: 'unknown';
			reason: string;
			detail?: string;
			unusable?: { problem: string; body: unknown };
			wording?: WriteWording;
			/** A lookup's request failed (after its retries): the service cannot be asked now. */
			failed?: true;
	  }
	/** A lookup proved it was not executed, and no attempt of it can be accepted any more. */
	| { kind: 'notDone' };

/**
 * How a write ended. `via`: how a placed write is known to be. `sharedWith`: the item whose write
 * did the very same thing, and whose outcome this one took instead of being sent (sameWrites.ts).
 */
export type Settled = (
	| {
			outcome: 'placed';
			result: IDataObject;
			via: 'answer' | 'lookup' | 'ledger';
			alreadyPlaced: boolean;
			entry?: IDataObject;
	  }
	| { outcome: 'rejected'; refusal: Refusal }
	| { outcome: 'unknown'; reason: string; error: NodeError }
) & { sharedWith?: number };

/** One write of the run and what is known of it (made by engine.ts pendingWrite). */
export interface PendingWrite<W> {
	readonly write: W;
	readonly itemIndex: number;
	readonly slot: LedgerSlot;
	/** When its attempts may have reached the service, over every try of this node run. */
	readonly window: SendWindow;
	/** Whether an attempt may have been executed: it is then looked up before it is sent again. */
	maybeExecuted: boolean;
	/** Whether it was sent again after a lookup proved it was not executed (once per run at most). */
	resent: boolean;
	settled?: Settled;
}

/** What the engine needs to know of one kind of write (orders/orderWrites.ts, orders/cancelWrites.ts, transfers/transferWrites.ts). */
export interface WriteKind<W> {
	wording(write: W): WriteWording;
	/** How a request of several writes is named, when its outcome as a whole is unknown (default: each write's own). */
	requestWording?(group: Array<PendingWrite<W>>): WriteWording | undefined;
	/** Undefined when a write can be looked up. */
	whyNoLookup(write: W): string | undefined;
	/** Said of a write whose lookup could not settle it. */
	unknownDetail(write: W): string;
	/** What the ledger keeps of a placed write's result: the fields needed to answer a re-run. */
	stored(result: IDataObject, write?: W): IDataObject;
	/** The requests to send: the writes of each, in order. */
	groups(pending: Array<PendingWrite<W>>): Array<Array<PendingWrite<W>>>;
	request(group: Array<PendingWrite<W>>): { endpoint: Endpoint; request: EndpointRequest };
	/** What a usable answer says of each write of the group, in the group's order. */
	read(body: unknown, group: Array<PendingWrite<W>>): Verdict[];
	/** What a refusal of the whole request says of each of its writes (default: rejected). */
	refused?(error: NodeError): Verdict;
	/**
	 * Checks unsent writes against what the service holds (a business key's order; after a lost run,
	 * what that run sent): a verdict settles the write unsent; undefined lets it be sent.
	 */
	precheck?(pending: Array<PendingWrite<W>>): Promise<Array<Verdict | undefined>>;
	/** `duplicate`: the answer said another write holds its ID. */
	lookup(pending: PendingWrite<W>, duplicate?: Refusal): Promise<Verdict>;
	/**
	 * Looks many writes up at once from lists (lookups.ts): a verdict per write, in order; undefined
	 * where the lists cannot tell (then `lookup`). `key`: kinds with one key share their lookups.
	 */
	lookupMany?: {
		key: string;
		lookUp(entries: Array<LookupEntry<W>>): Promise<Array<Verdict | undefined>>;
	};
	/** What the write does, when two of one run may do the very same thing (sameWrites.ts). */
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
	/** Requests in flight at once (default 1). A hook that throws stops new ones; those in flight settle first. */
	parallel?: number;
	/** Called as each write settles; may throw to stop the run: nothing further is sent. */
	onSettled?(pending: PendingWrite<W>): void;
	/** Called after the writes of each request are settled; may throw to stop before the next request. */
	afterRequest?(group: Array<PendingWrite<W>>, requestsLeft: number): void;
}

/** What the engine uses of the write session (writeSession.ts). */
export interface EngineSession {
	readonly node: INode;
	readonly client: ServiceClient;
	/** Set when an earlier run of this node may have been cut short by a crash. */
	readonly lostRun: LostRun | undefined;
	/** The trading account the item's order lookups, lists and cancels act on (helpers/accountScope.ts). */
	account(itemIndex: number): Promise<AccountScope>;
	/** Every write an earlier try of this node run placed, by item where its slot names one (ledger.ts). */
	placedBefore?(): Array<{ itemIndex: number | undefined; result: IDataObject }>;
}
