import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type NodeParameterValueType,
} from 'n8n-workflow';

import type { NodeVersion } from '../descriptions/pickers';
import { accountScope, type AccountScope } from '../helpers/accountScope';
import { resolveFromItem } from '../helpers/itemReference';
import { locatorValue } from '../helpers/locator';
import { DEFAULT_RETRY_POLICY, ServiceClient } from '../transport';
import { WriteLedger } from '../writes/ledger';
import { clientOrderIdPrefix } from '../orders/orderWrites';
import { rateLimitWaitMs } from './waitAfterRateLimit';
import { executionSeed, lostRunCheck, type ExecutionFacts, type LostRun } from '../writes/recovery';

/** A parameter's stored value by its path ("options.stpMode" reads inside the Options collection). */
function storedValue(parameters: INode['parameters'], path: string): unknown {
	let value: unknown = parameters;
	for (const key of path.split('.')) {
		if (value === null || typeof value !== 'object') return undefined;
		value = (value as IDataObject)[key];
	}
	return value;
}

/** Whether a parameter's stored value holds an expression anywhere (n8n marks them with a leading "="). */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (value !== null && typeof value === 'object')
		return Object.values(value).some(holdsExpression);
	return false;
}

/**
 * What one run of the node reads once, not once per item, built by the router and handed to every
 * operation: the node, the service client (which reads the credential once), parameters without
 * expressions, the options, the write ledger and the prefix of generated client order IDs.
 *
 * n8n hands every item of a run the same execute functions, and new ones to each run and each Retry
 * On Fail try, so a run context lives exactly one run (try). Everything it holds is read or made
 * synchronously, or is a promise shared by all (the credential), so items of one run may be in
 * flight at once.
 */
export class RunContext {
	readonly node: INode;
	readonly client: ServiceClient;
	readonly continueOnFail: boolean;
	/** The node's version (1: typed IDs; 2: pickers, see v2/TradingServiceV2.ts). */
	readonly version: NodeVersion;
	/** Parameters without any expression: the same for every item, so read once. */
	private readonly fixed = new Map<string, unknown>();
	private checkedOptions?: unknown;
	private nodeContext?: IDataObject;
	private dataProxy?: ReturnType<IExecuteFunctions['getWorkflowDataProxy']>;
	private ledgerOpened?: WriteLedger;
	private seedMade?: { seed: string; recoverable: boolean };
	private factsRead?: { facts: ExecutionFacts | undefined };
	private lostRunChecked?: { lostRun: LostRun | undefined };
	private inputItems?: INodeExecutionData[];
	/** When this run (try) started: a retry's lookups wait out the receive window from here. */
	private readonly startedAt = Date.now();

	constructor(readonly functions: IExecuteFunctions) {
		this.node = functions.getNode();
		this.client = new ServiceClient(functions, DEFAULT_RETRY_POLICY, () => rateLimitWaitMs(this));
		this.continueOnFail = functions.continueOnFail();
		this.version = this.node.typeVersion >= 2 ? 2 : 1;
	}

	/**
	 * A parameter of one item. One without an expression (a fixed value, or left at its default) has
	 * the same value for every item, so it is read once per run; one with an expression is evaluated
	 * for the item, as n8n would. A picker gives the value it holds (the symbol, the ID), whichever
	 * way it was chosen, so operations read pickers and plain fields alike. `name` may be a path into
	 * a collection ("options.stpMode").
	 */
	parameter(name: string, itemIndex: number, fallback?: unknown): unknown {
		if (this.fixed.has(name)) return this.fixed.get(name);
		const stored = storedValue(this.node.parameters, name);
		if (!holdsExpression(stored)) {
			const value = locatorValue(
				this.functions.getNodeParameter(name, itemIndex, fallback as NodeParameterValueType),
			);
			this.fixed.set(name, value);
			return value;
		}
		// Plain references to the item (`={{ $json.price }}`) are read from it, where that gives
		// exactly what n8n's expression engine would (helpers/itemReference.ts).
		const json = (this.inputItems ??= this.functions.getInputData())[itemIndex]?.json;
		const direct = json === undefined ? undefined : resolveFromItem(stored, json);
		if (direct !== undefined) return locatorValue(direct);
		return locatorValue(
			this.functions.getNodeParameter(name, itemIndex, fallback as NodeParameterValueType),
		);
	}

	/** Whether a parameter holds an expression, i.e. may differ from item to item. */
	varies(name: string): boolean {
		return holdsExpression(storedValue(this.node.parameters, name));
	}

	/**
	 * The Options collection of one item, checked by `check` before anything is sent: checked once
	 * per run unless an option is an expression.
	 */
	options<T>(itemIndex: number, check: (options: IDataObject) => T): T {
		if (this.checkedOptions !== undefined) return this.checkedOptions as T;
		const checked = check(this.parameter('options', itemIndex, {}) as IDataObject);
		if (!this.varies('options')) this.checkedOptions = checked;
		return checked;
	}

	/** What `shared` has started in this run, by key. */
	private readonly sharedWork = new Map<string, Promise<unknown>>();

	/**
	 * One promise per key for the whole run: the first item to ask starts `make`, every other item
	 * (in any lane) awaits that same promise, its answer or its error. For a read whose answer
	 * serves many items (Market › Get Price: one all-symbols request for every item). It lives one
	 * run (try), like the context, so a Retry On Fail try reads afresh.
	 */
	shared<T>(key: string, make: () => Promise<T>): Promise<T> {
		let work = this.sharedWork.get(key) as Promise<T> | undefined;
		if (work === undefined) {
			work = make();
			this.sharedWork.set(key, work);
		}
		return work;
	}

	/**
	 * The trading account this item's order requests act on (helpers/accountScope.ts): the one the
	 * Account option names where the operation has it, else the API key's own trading account.
	 */
	account(itemIndex: number): Promise<AccountScope> {
		const raw = this.parameter('options.account', itemIndex, '');
		const chosen = raw === undefined || raw === null ? '' : String(raw).trim();
		if (chosen !== '' && !/^\d{1,20}$/.test(chosen))
			return Promise.reject(
				new NodeOperationError(this.node, `Account "${chosen}" is not an account ID`, {
					description:
						'An account ID is a number of up to 20 digits. Pick the account from the list in the Account option, or leave it empty for the API key’s own trading account.',
					itemIndex,
				}),
			);
		return this.shared(`account ${chosen}`, () =>
			accountScope(this.client, this.node, chosen, itemIndex),
		);
	}

	/** The node's execution context, which n8n keeps across Retry On Fail and retried executions. */
	private get executionContext(): IDataObject {
		// Outside a real execution (no context) the ledger and the ID nonce live for this run only.
		return (this.nodeContext ??=
			typeof this.functions.getContext === 'function' ? this.functions.getContext('node') : {});
	}

	/** The workflow data proxy: built once per run, since n8n builds it anew on every call. */
	private get proxy(): ReturnType<IExecuteFunctions['getWorkflowDataProxy']> {
		return (this.dataProxy ??= this.functions.getWorkflowDataProxy(0));
	}

	/** The node's run index (a node in a loop runs many times per execution). */
	private get runIndex(): number {
		return Number(this.proxy.$runIndex ?? 0);
	}

	/** The write ledger of this run (writes/ledger.ts). */
	get ledger(): WriteLedger {
		return (this.ledgerOpened ??= new WriteLedger(this.executionContext, this.runIndex));
	}

	/** The prefix of the client order IDs this run generates (orders/orderWrites.ts). */
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
				this.startedAt,
			),
		}).lostRun;
	}

	/** Marks this node run as ended in the ledger; the router calls it when the run ends. */
	finish(): void {
		if (this.ledgerOpened !== undefined) this.ledgerOpened.markFinished();
	}

	private get seed(): { seed: string; recoverable: boolean } {
		return (this.seedMade ??= executionSeed(this.executionContext, this.executionFacts));
	}

	/** What n8n says of this execution that survives a retry and a re-delivery (writes/recovery.ts). */
	private get executionFacts(): ExecutionFacts | undefined {
		return (this.factsRead ??= { facts: this.readExecutionFacts() }).facts;
	}

	private readExecutionFacts(): ExecutionFacts | undefined {
		const functions = this.functions;
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
		return { input: (this.inputItems ??= this.functions.getInputData()).map((item) => item.json) };
	}
}
