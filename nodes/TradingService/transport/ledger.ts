import { createHash } from 'node:crypto';

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { WriteOutcome } from './errors';

/**
 * The write ledger: what became of each write this node sent, kept in the node's execution context
 * (`getContext('node')`). n8n keeps that context across Retry On Fail (which re-runs the node with
 * the same input, also when Continue On Fail put an error in output item 0) and across a retry of
 * the failed execution, and saves it with the execution. So when the node runs again it knows:
 *
 * - placed: the write was executed; its stored result is returned, nothing is sent;
 * - unknown: it may have been executed; orders are looked up by client order ID, transfers refused;
 * - nothing recorded (or rejected, which executed nothing): the write is sent.
 *
 * Entries are keyed by the node's run index (a node in a loop runs many times per execution), the
 * slot of the write (its item, and its position among the item's orders) and a fingerprint of the
 * request: a changed request is a new write. The context is saved with every execution, so an entry
 * holds the outcome and the few fields needed to answer again, never whole responses.
 *
 * Limit: the context is saved when the node finishes. A process killed while the node runs loses
 * what this run recorded (docs/safety.md).
 */

/** One write's record. Short keys: the ledger is saved with every execution. */
export interface LedgerEntry {
	/** Outcome: placed, or unknown (rejected writes are not kept: they executed nothing). */
	o: Exclude<WriteOutcome, 'rejected'>;
	/** Placed: the fields the service assigned (order ID, status, time), to answer a re-run with. */
	r?: IDataObject;
	/** Unknown: local time before its first attempt (a service record of it cannot be older). */
	s?: number;
	/** Unknown: local time after which none of its attempts can still be accepted by the service. */
	u?: number;
	/** The slot's version of this request (see LedgerSlot.version); absent for 0. */
	v?: number;
}

/** Where the ledger lives in the node's execution context. */
const LEDGER_KEY = 'writeLedger';

type SlotRecords = Record<string, LedgerEntry>;

/** A request's fingerprint: the hash of what it asks the service to do. */
export function fingerprint(what: string, request: IDataObject): string {
	return createHash('sha256').update(stableJson([what, request])).digest('base64url').slice(0, 16);
}

function stableJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.entries(value as IDataObject)
			.filter(([, field]) => field !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${stableJson(field)}`).join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

/** One write in the ledger: read its record, and record what became of it. */
export interface LedgerSlot {
	/** The record of this request, if an earlier run of the node sent it. */
	readonly entry: LedgerEntry | undefined;
	/**
	 * 0 for the first request recorded in this slot, then 1, 2, … for each changed request: a
	 * generated client order ID carries it, so a changed order never reuses the ID of one that may
	 * have been placed.
	 */
	readonly version: number;
	record(entry: Omit<LedgerEntry, 'v'>): void;
	/** The write executed nothing: forget it, so that it may be sent again. */
	forget(): void;
}

export class WriteLedger {
	private readonly records: Record<string, SlotRecords>;

	constructor(context: IExecuteFunctions) {
		// Outside a real execution (no context), the ledger lives for this run only.
		const nodeContext: IDataObject = typeof context.getContext === 'function' ? context.getContext('node') : {};
		const runIndex = String(context.getWorkflowDataProxy(0).$runIndex ?? 0);
		const ledger = (nodeContext[LEDGER_KEY] ??= {}) as Record<string, Record<string, SlotRecords>>;
		this.records = ledger[runIndex] ??= {};
	}

	/** The ledger slot of one write: `slot` names it within the run ("3" = item 3, "3.1" = its second order). */
	slot(slot: string, requestFingerprint: string): LedgerSlot {
		const records = this.records[slot] ?? {};
		const entry = records[requestFingerprint];
		const others = Object.values(records).map((other) => other.v ?? 0);
		// A recorded request keeps its version (absent: 0); a new one takes the next.
		const version = entry !== undefined ? (entry.v ?? 0) : others.length === 0 ? 0 : Math.max(...others) + 1;
		return {
			entry,
			version,
			record: (update) => {
				this.records[slot] = { ...(this.records[slot] ?? {}), [requestFingerprint]: version === 0 ? { ...update } : { ...update, v: version } };
			},
			forget: () => {
				const current = this.records[slot];
				if (current === undefined) return;
				delete current[requestFingerprint];
				if (Object.keys(current).length === 0) delete this.records[slot];
			},
		};
	}
}
