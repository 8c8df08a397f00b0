import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import type { AccountScope } from '../helpers/accountScope';
import type { ServiceClient } from '../transport';
import type { EngineRun } from './writeKind';
import { WriteLedger } from './ledger';
import { executionSeed, lostRunCheck, type ExecutionFacts, type LostRun } from './recovery';

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
 * The client order ID prefix of one node run: the execution's seed (writes/recovery.ts) tells
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
export class WriteRun implements EngineRun {
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

	/** The prefix of the client order IDs this run generates. */
	get idPrefix(): string {
		return clientOrderIdPrefix(this.seed.seed, this.runIndex);
	}

	/**
	 * Set when an earlier run of this node in this execution may have been cut short by a crash: the
	 * engine then looks up every write the ledger does not know before sending it
	 * (writes/recovery.ts). Undefined for a fresh run, and for one whose earlier try ended.
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

	/** What n8n says of this execution that survives a retry and a re-delivery (writes/recovery.ts). */
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
