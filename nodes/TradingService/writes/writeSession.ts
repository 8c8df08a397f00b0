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

/** A node run's client order ID prefix: the seed tells executions apart, the run index loops. */
export function clientOrderIdPrefix(seed: string, runIndex: number): string {
	return `n8n-${seed}-${runIndex}`;
}

/**
 * The write session of one node run, opened by its first write (reads never open it): the ledger,
 * the prefix of the client order IDs it generates, and whether a crash may have cut a run short.
 */
export class WriteSession {
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

	get idPrefix(): string {
		return clientOrderIdPrefix(this.seed.seed, this.runIndex);
	}

	/** Set when an earlier run of this node in this execution may have been cut short by a crash. */
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

	/** What n8n says of this execution that survives a retry and a re-delivery. */
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

	/** The trigger's items, else the node's own input: two executions of one millisecond still differ. */
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

const opened = new WeakMap<WriteHost, WriteSession>();

/** The write session of a node run: opened once, by the first write that asks for it. */
export function writeSessionOf(host: WriteHost): WriteSession {
	let session = opened.get(host);
	if (session === undefined) {
		session = new WriteSession(host);
		opened.set(host, session);
	}
	return session;
}

/** Marks a node run as ended in its ledger, if it wrote; the router calls it when the run ends. */
export function finishWriteSession(host: WriteHost): void {
	opened.get(host)?.ledger.markFinished();
}

// Runs that a crash may have cut short with their ledger (docs/safety.md, "After a crash"): the
// run after one derives the same IDs from the execution, and looks up what its ledger lacks.

/**
 * A run starting this soon after its execution was established cannot be a re-delivered one: a
 * queue re-delivers after the dead worker's lock expired (n8n 2.x: 60 s; 1.x: 30 s), clocks apart.
 */
export const FRESH_RUN_MS = 20_000;

/** How far before the execution's start a lost run's order may be listed (the exchange's clock may differ). */
export const LOST_RUN_CLOCK_MARGIN_MS = 10 * 60_000;

/** What a run that may follow a lost one checks before sending. */
export interface LostRun {
	/** When n8n established the execution: nothing of it can have reached the exchange before. */
	since: number;
	/**
	 * The local time from which "not found" proves the lost run's attempt can no longer be accepted
	 * (a retry may start within the dead process's receive window); 0: no wait (a re-delivery).
	 */
	settledFrom: number;
	/** Why, as items and errors say: `retry`, a sign of a lost run; `late`, no sign but its start. */
	why: 'retry' | 'late';
}

/** What n8n gives the node about its execution, as the recovery reads it (readExecutionFacts). */
export interface ExecutionFacts {
	establishedAt?: number;
	triggerNode?: string;
	triggerItems?: unknown;
	instanceId: string;
	workflowId: string;
	nodeId: string;
	mode: string;
}

/** Where the execution's ID seed is kept in the node's execution context. */
const SEED_KEY = 'clientOrderIdNonce';

/**
 * The seed of the client order IDs this node generates in this execution: the one kept in the
 * context, else derived from the execution's facts, else random (then a crashed run cannot be
 * recognised: `recoverable` false).
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

/** Whether this run may follow a lost one, and what it then checks. */
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
