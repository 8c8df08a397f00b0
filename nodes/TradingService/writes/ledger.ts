import { createHash } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

// The write ledger (docs/safety.md, "n8n's re-runs"): what became of each write this node sent,
// in the node's execution context, keyed by run index, slot and request fingerprint. It is saved
// with every execution, so a record holds only the outcome and the fields needed to answer again,
// under one-letter keys.

/** One write's record, as the engine reads and writes it. */
export interface LedgerRecord {
	/** Placed, or unknown (rejected writes are not kept: they executed nothing). */
	outcome: 'placed' | 'unknown';
	/** Placed: the fields the service assigned (order ID, status, time), to answer a re-run with. */
	result?: IDataObject;
	/** Unknown: local time before its first attempt (a service record of it cannot be older). */
	firstSentAt?: number;
	/** Unknown: local time after which none of its attempts can still be accepted by the service. */
	acceptableUntil?: number;
}

interface StoredRecord {
	o: LedgerRecord['outcome'];
	r?: IDataObject;
	s?: number;
	u?: number;
	/** The slot's version of this request (see LedgerSlot.version); absent for 0. */
	v?: number;
	/** The item of a write whose slot its name does not give (Cancel Many by symbol's orders). */
	i?: number;
}

type SlotRecords = Record<string, StoredRecord>;

const LEDGER_KEY = 'writeLedger';
/** Run indexes whose run ended (recorded in the context, so only saved once the run ended). */
const FINISHED_KEY = 'writeLedgerFinished';

/** A request's fingerprint: the hash of what it asks the service to do. */
export function fingerprint(what: string, request: IDataObject): string {
	return createHash('sha256')
		.update(stableJson([what, request]))
		.digest('base64url')
		.slice(0, 16);
}

/** JSON with object keys in order: the same text for the same value, whatever order it was built in. */
export function stableJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.entries(value as IDataObject)
			.filter(([, field]) => field !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${stableJson(field)}`).join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

/** The item a slot's name gives ("3.1": 3); none for a slot named otherwise ("symbol …"). */
function namedItem(slot: string): number | undefined {
	return /^\d+(?:\.|$)/.test(slot) ? Number(slot.split('.')[0]) : undefined;
}

function toStored(record: LedgerRecord, version: number, item?: number): StoredRecord {
	const stored: StoredRecord = { o: record.outcome };
	if (record.result !== undefined) stored.r = record.result;
	if (record.firstSentAt !== undefined) stored.s = record.firstSentAt;
	if (record.acceptableUntil !== undefined) stored.u = record.acceptableUntil;
	if (version > 0) stored.v = version;
	if (item !== undefined) stored.i = item;
	return stored;
}

function fromStored(stored: StoredRecord): LedgerRecord {
	return { outcome: stored.o, result: stored.r, firstSentAt: stored.s, acceptableUntil: stored.u };
}

/** One write in the ledger: read its record, and record what became of it. */
export interface LedgerSlot {
	/** The record of this request, if an earlier try of this node run sent it. */
	readonly recorded: LedgerRecord | undefined;
	/** 0, then 1, 2, … for each changed request: a generated ID carries it, so none is reused. */
	readonly version: number;
	/** What the ledger holds of this request now, with what this try recorded (nothing: never sent, or refused). */
	readonly held: LedgerRecord['outcome'] | undefined;
	record(record: LedgerRecord): void;
	/** The write executed nothing: forget it, so that it may be sent again. */
	forget(): void;
}

export class WriteLedger {
	private readonly records: Record<string, SlotRecords>;
	private readonly nodeContext: IDataObject;
	private readonly runKey: string;

	/** `nodeContext`: `getContext('node')`, or a plain object outside a real execution (then it lives for this run only). */
	constructor(nodeContext: IDataObject, runIndex: number) {
		const ledger = (nodeContext[LEDGER_KEY] ??= {}) as Record<string, Record<string, SlotRecords>>;
		this.runKey = String(runIndex);
		this.records = ledger[this.runKey] ??= {};
		this.nodeContext = nodeContext;
	}

	/** Whether a try of this node run ended in a process whose context was kept (writeSession.ts). */
	get finished(): boolean {
		return (this.nodeContext[FINISHED_KEY] as Record<string, 1> | undefined)?.[this.runKey] === 1;
	}

	/** Marks this node run as ended: called when a try ends, whatever its outcome. */
	markFinished(): void {
		((this.nodeContext[FINISHED_KEY] ??= {}) as Record<string, 1>)[this.runKey] = 1;
	}

	/** Whether an earlier try of this node run recorded a write in `slot`, whatever its request. */
	holds(slot: string): boolean {
		return Object.keys(this.records[slot] ?? {}).length > 0;
	}

	/**
	 * What the ledger holds of each item, from every try of this node run: placed when one of its
	 * writes was placed, else unknown. Items it does not list executed nothing.
	 */
	itemOutcomes(): Map<number, 'placed' | 'unknown'> {
		const outcomes = new Map<number, 'placed' | 'unknown'>();
		for (const [slot, records] of Object.entries(this.records))
			for (const { o, i: item = namedItem(slot) } of Object.values(records)) {
				if (item === undefined) continue;
				if (o === 'placed') outcomes.set(item, 'placed');
				else if (!outcomes.has(item)) outcomes.set(item, 'unknown');
			}
		return outcomes;
	}

	/** Every write a try of this node run placed: its item ("3.1": 3, or as kept), and its result. */
	placedRecords(): Array<{ itemIndex: number | undefined; result: IDataObject }> {
		const placed: Array<{ itemIndex: number | undefined; result: IDataObject }> = [];
		for (const [slot, records] of Object.entries(this.records))
			for (const { o, r, i = namedItem(slot) } of Object.values(records))
				if (o === 'placed') placed.push({ itemIndex: i, result: r ?? {} });
		return placed;
	}

	/** The ledger slot of one write: `slot` names it ("3" = item 3, "3.1" = its second write), or `itemIndex` does. */
	slot(slot: string, requestFingerprint: string, itemIndex?: number): LedgerSlot {
		const item = itemIndex === namedItem(slot) ? undefined : itemIndex;
		const records = this.records[slot] ?? {};
		const stored = records[requestFingerprint];
		const others = Object.values(records).map((other) => other.v ?? 0);
		const version =
			stored !== undefined ? (stored.v ?? 0) : others.length === 0 ? 0 : Math.max(...others) + 1;
		const runRecords = this.records;
		return {
			recorded: stored === undefined ? undefined : fromStored(stored),
			version,
			get held() {
				return runRecords[slot]?.[requestFingerprint]?.o;
			},
			record: (record) => {
				this.records[slot] = {
					...(this.records[slot] ?? {}),
					[requestFingerprint]: toStored(record, version, item),
				};
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
