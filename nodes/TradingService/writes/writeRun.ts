import { createHash, randomBytes } from 'node:crypto';

import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import { LIMITS } from '../constants';

import type { AccountScope } from '../helpers/accountScope';
import type { ServiceClient } from '../transport';
import { WriteLedger, stableJson } from './ledger';

/** What a write needs of the node run it belongs to (the router's RunContext is one). */
export interface WriteHost {
	readonly functions: IExecuteFunctions;
	readonly node: INode;
	readonly client: ServiceClient;
	/** When this run (try) started: a retry's lookups wait out the receive window from here. */
	readonly startedAt: number;
	account(itemIndex: number): Promise<AccountScope>;
}

/**
 * The client order ID prefix of one node run: the execution's seed (writes/writeRun.ts) tells
 * executions and n8n instances apart, the run index a node in a loop. Orders and transfers
 * generate their IDs under it.
 */
export function clientOrderIdPrefix(seed: string, runIndex: number): string {
	return `n8n-${seed}-${runIndex}`;
}

/**
 * The write side of one node run, opened when its first write asks for it: the ledger in the
 * node's execution context (kept across Retry On Fail and retried executions), the prefix of the
 * client order IDs it generates, and whether a crash may have cut an earlier run short. Reads never
 * open it, so a run that writes nothing loads none of this.
 */
export class WriteRun {
	readonly node: INode;
	readonly client: ServiceClient;
	readonly ledger: WriteLedger;
	private readonly executionContext: IDataObject;
	private readonly runIndex: number;
	private seedMade?: { seed: string; recoverable: boolean };
	private factsRead?: { facts: ExecutionFacts | undefined };
	private lostRunChecked?: { lostRun: LostRun | undefined };

	constructor(private readonly host: WriteHost) {
		this.node = host.node;
		this.client = host.client;
		const functions = host.functions;
		// Outside a real execution (no context) the ledger and the ID nonce live for this run only.
		this.executionContext =
			typeof functions.getContext === 'function' ? functions.getContext('node') : {};
		this.runIndex = Number(this.proxy.$runIndex ?? 0);
		this.ledger = new WriteLedger(this.executionContext, this.runIndex);
	}

	account(itemIndex: number): Promise<AccountScope> {
		return this.host.account(itemIndex);
	}

	placedBefore(): Array<{ itemIndex: number | undefined; result: IDataObject }> {
		return this.ledger.placedRecords();
	}

	/** The prefix of the client order IDs this run generates. */
	get idPrefix(): string {
		return clientOrderIdPrefix(this.seed.seed, this.runIndex);
	}

	/**
	 * Set when an earlier run of this node in this execution may have been cut short by a crash: the
	 * engine then looks up every write the ledger does not know before sending it
	 * (writes/writeRun.ts). Undefined for a fresh run, and for one whose earlier try ended.
	 */
	get lostRun(): LostRun | undefined {
		return (this.lostRunChecked ??= {
			lostRun: lostRunCheck(
				this.executionFacts,
				this.seed.recoverable,
				this.ledger.finished,
				this.host.startedAt,
			),
		}).lostRun;
	}

	private proxyMade?: ReturnType<IExecuteFunctions['getWorkflowDataProxy']>;

	/** The workflow data proxy: built once, since n8n builds it anew on every call. */
	private get proxy(): ReturnType<IExecuteFunctions['getWorkflowDataProxy']> {
		return (this.proxyMade ??= this.host.functions.getWorkflowDataProxy(0));
	}

	private get seed(): { seed: string; recoverable: boolean } {
		return (this.seedMade ??= executionSeed(this.executionContext, this.executionFacts));
	}

	/** What n8n says of this execution that survives a retry and a re-delivery (writes/writeRun.ts). */
	private get executionFacts(): ExecutionFacts | undefined {
		return (this.factsRead ??= { facts: this.readExecutionFacts() }).facts;
	}

	private readExecutionFacts(): ExecutionFacts | undefined {
		const functions = this.host.functions;
		const established =
			typeof functions.getExecutionContext === 'function'
				? functions.getExecutionContext()
				: undefined;
		if (typeof established?.establishedAt !== 'number') return undefined;
		const triggerNode = established.triggerNode?.name;
		return {
			establishedAt: established.establishedAt,
			triggerNode,
			triggerItems: this.triggerItems(triggerNode ?? this.node.name),
			instanceId: functions.getInstanceId(),
			workflowId: String(functions.getWorkflow().id ?? ''),
			nodeId: this.node.id ?? this.node.name,
			mode: functions.getMode(),
		};
	}

	/**
	 * The JSON of the items the trigger produced. When they cannot be read (this node started the
	 * execution), the node's own input: two executions started in one millisecond still differ.
	 */
	private triggerItems(triggerNode: string): unknown {
		try {
			const items = this.proxy.$items(triggerNode, 0, 0);
			if (Array.isArray(items)) return items.map((item) => item.json);
		} catch {
			// Not run yet in this execution: the node itself is where it started.
		}
		return { input: this.host.functions.getInputData().map((item) => item.json) };
	}
}

const opened = new WeakMap<WriteHost, WriteRun>();

/** The write side of a node run: opened once, by the first write that asks for it. */
export function writeRun(host: WriteHost): WriteRun {
	let writes = opened.get(host);
	if (writes === undefined) {
		writes = new WriteRun(host);
		opened.set(host, writes);
	}
	return writes;
}

/** Marks a node run as ended in its ledger, if it wrote; the router calls it when the run ends. */
export function finishWrites(host: WriteHost): void {
	opened.get(host)?.ledger.markFinished();
}

/**
 * Runs of the node that a crash may have cut short. The write ledger lives in the node's execution
 * context, which n8n saves only when the node finishes: a process killed while the node runs (an
 * out-of-memory kill, a redeploy, a crash) takes the ledger of that run with it. The execution may
 * then run again, on another worker: as a retry (a new execution, mode `retry`, that starts from
 * the crashed one's saved data) or, where the queue re-delivers a stalled job, as the same
 * execution once more. Either way the node must not send again what the lost run sent.
 *
 * Two things make that possible without anything the lost run wrote:
 *
 * - Generated client order IDs are derived from what n8n saved when it created the execution and
 *   carries unchanged into a re-delivery and a retry: the instant n8n established the execution
 *   (`getExecutionContext().establishedAt`, set on the main process before the execution is first
 *   stored), its trigger node and the items that trigger produced; with the instance, the workflow
 *   and the node. The lost run and its re-run therefore name every write alike.
 * - A run that may follow a lost one looks up, before sending, every write the ledger does not
 *   know: orders and cancels by lookup, transfers in the transfer history by client order ID.
 *
 * A run may follow a lost one when this run index has no "finished" mark in the ledger (the mark is
 * saved with the context, so its absence means no finished run of the node was saved) and either
 * the execution is a retry, or the run starts long after the execution was established: a queue
 * hands a dead worker's job to another only once its lock expired, so a re-delivered run cannot
 * start within `FRESH_RUN_MS` of the execution's start. A fresh run of a
 * fresh execution skips the lookups: nothing can have sent its writes before.
 *
 * Late is not lost. A retry is a sign of a lost run; lateness alone is not (a first run after a
 * Wait or a slow step is late too, and n8n 2.x never re-delivers a job), and the node cannot tell
 * a re-delivery from such a run. So a late run's transfer is stopped only by a history record
 * carrying its ID; a lookup it cannot make (a key that may not read the transfer history, a failed
 * read) does not keep it unsent, and the exchange's refusal of the reused client order ID tells a
 * re-delivered run the transfer was made (transfers/transferWrites.ts, docs/safety.md).
 */

/**
 * A run starting this soon after its execution was established cannot be a re-delivered one: a
 * queue re-delivers only after the dead worker's lock expired (n8n 2.x: 60 s; 1.x: 30 s), counted
 * from after the job started. The margin covers clocks of the main process and the worker apart.
 */
export const FRESH_RUN_MS = 20_000;

/** How far before the execution's start a lost run's order may be listed (the exchange's clock may differ). */
export const LOST_RUN_CLOCK_MARGIN_MS = 10 * 60_000;

/** What a run that may follow a lost one checks before sending. */
export interface LostRun {
	/** When n8n established the execution: nothing of it can have reached the exchange before. */
	since: number;
	/**
	 * The local time from which "not found" proves the lost run's attempt of a write can no longer
	 * be accepted: a retry may start right after the crash, while a request the dead process sent
	 * is still within its receive window. 0 when no wait is needed (a re-delivered run starts after
	 * the dead worker's lock expired, long after its last request).
	 */
	settledFrom: number;
	/**
	 * Why this run checks, said in the items and errors: `retry`, a sign of a lost run; `late`, no
	 * sign but its start (a re-delivery cannot be told from a late first run).
	 */
	why: 'retry' | 'late';
}

/** What n8n gives the node about its execution, as the recovery reads it. */
export interface ExecutionFacts {
	/** `getExecutionContext().establishedAt`, when n8n provides it. */
	establishedAt?: number;
	/** The name of the node that started the execution (`getExecutionContext().triggerNode`). */
	triggerNode?: string;
	/** The items that trigger produced (run 0, output 0), or undefined when they cannot be read. */
	triggerItems?: unknown;
	instanceId: string;
	workflowId: string;
	/** The node's ID (its name when the workflow has no node IDs). */
	nodeId: string;
	mode: string;
}

/** Where the execution's ID seed is kept in the node's execution context. */
const SEED_KEY = 'clientOrderIdNonce';

/**
 * The seed of the client order IDs this node generates in this execution: kept in the node's
 * execution context once made (an earlier finished run's seed is used again), else derived from
 * the execution's facts, else (n8n gave no establishment time) random: then a crashed run cannot be
 * recognised, and `recoverable` says so.
 */
export function executionSeed(
	nodeContext: IDataObject,
	facts: ExecutionFacts | undefined,
): { seed: string; recoverable: boolean } {
	const derived = facts?.establishedAt === undefined ? undefined : derivedSeed(facts);
	if (typeof nodeContext[SEED_KEY] === 'string') {
		return { seed: nodeContext[SEED_KEY], recoverable: nodeContext[SEED_KEY] === derived };
	}
	nodeContext[SEED_KEY] = derived ?? randomBytes(12).toString('hex');
	return { seed: nodeContext[SEED_KEY] as string, recoverable: derived !== undefined };
}

/** 24 hex characters of a hash of what names the execution for good. */
export function derivedSeed(facts: ExecutionFacts): string {
	return createHash('sha256')
		.update(
			stableJson([
				facts.instanceId,
				facts.workflowId,
				facts.nodeId,
				facts.establishedAt,
				facts.triggerNode ?? null,
				facts.triggerItems ?? null,
			]),
		)
		.digest('hex')
		.slice(0, 24);
}

/**
 * Whether this run may follow a lost one, and what it then checks. `finished`: the ledger holds a
 * finished mark for this run index. `startedAt`: when this run started (local clock).
 */
export function lostRunCheck(
	facts: ExecutionFacts | undefined,
	recoverable: boolean,
	finished: boolean,
	startedAt: number,
): LostRun | undefined {
	if (!recoverable || finished || facts?.establishedAt === undefined) return undefined;
	const since = facts.establishedAt;
	if (facts.mode === 'retry') {
		return {
			since,
			settledFrom: startedAt + LIMITS.maxRecvWindowMs + LIMITS.futureToleranceMs,
			why: 'retry',
		};
	}
	if (startedAt - since > FRESH_RUN_MS) return { since, settledFrom: 0, why: 'late' };
	return undefined;
}

/** The words items and errors use for a write found after a lost run. */
export function lostRunText(lostRun: LostRun): string {
	return lostRun.why === 'retry'
		? 'this is a retry of an execution whose run of this node may have been cut short'
		: 'this run started long after its execution, so an earlier run of it may have been cut short';
}
