import { mock } from 'jest-mock-extended';
import { PollContext, PollTriggerExecutor, TriggersAndPollers } from 'n8n-core';
import {
	Workflow,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type INodeType,
	type IVersionedNodeType,
	type IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { TestCredentialsHelper } from './credentials';
import { TestNodeTypes } from './workflow';

export interface PollRunnerOptions {
	/** The trigger node (parameters, credentials reference). */
	node: INode;
	/** Node types by type name. */
	nodeTypes: Record<string, INodeType | IVersionedNodeType>;
	credentialTypes: Record<string, ICredentialType>;
	/** Decrypted credential data by credential type name. */
	credentials: Record<string, ICredentialDataDecryptedObject>;
	/** Replaces the default credentials helper, e.g. to fail a chosen request. */
	credentialsHelper?: TestCredentialsHelper;
	/** The workflow's static data to start from, e.g. a JSON copy taken from another runner (a "restart"). */
	staticData?: IDataObject;
	/** What the node sees from `getPollBudgetMs()`; n8n-core's default (5 minutes) otherwise. */
	pollBudgetMs?: number;
}

export interface PollOutcome {
	/** What reached `__emit` (the poll's return value when not null); null when nothing was emitted. */
	emitted: INodeExecutionData[][] | null;
	/** Items of the first output, [] when nothing was emitted. */
	items: INodeExecutionData[];
	/** The error the poll ended with: handed to `__emitError` for active polls, thrown for manual ones. */
	error?: Error & { description?: string | null };
	/** Whether n8n asked to commit the cursor (the poll returned null without error). */
	committed: boolean;
}

const silentLogger = () => {
	const logger = mock<PollTriggerExecutor['logger']>();
	logger.scoped.mockReturnValue(logger);
	return logger;
};

/**
 * Runs a polling trigger's `poll()` the way n8n-core does: a real `PollContext` (real request
 * helpers, credentials applied by the credential type's own `authenticate`, static data from a
 * real `Workflow`) driven by n8n-core's `PollTriggerExecutor` and `TriggersAndPollers`. Only the
 * logger, tracing and error reporter around it are mocks.
 *
 * One runner is one active workflow: its static data lives on across polls in memory, as in n8n,
 * so whatever a failed poll changed would stay visible to the next one.
 */
export class PollRunner {
	readonly workflow: Workflow;
	readonly credentialsHelper: TestCredentialsHelper;
	private readonly executor: PollTriggerExecutor;

	constructor(private readonly options: PollRunnerOptions) {
		this.workflow = new Workflow({
			id: 'poll-test-workflow',
			name: 'Poll Test Workflow',
			nodes: [options.node],
			connections: {},
			nodeTypes: new TestNodeTypes(options.nodeTypes),
			active: true,
			staticData:
				options.staticData === undefined ? undefined : structuredClone(options.staticData),
			settings: {},
		});
		this.credentialsHelper =
			options.credentialsHelper ??
			new TestCredentialsHelper(options.credentialTypes, options.credentials);
		const tracing = mock<ConstructorParameters<typeof PollTriggerExecutor>[2]>();
		const runSpan = async (_options: unknown, run: (span: unknown) => unknown) =>
			await run({ setStatus: () => undefined });
		tracing.startSpan.mockImplementation(runSpan as never);
		tracing.startNewTraceSpan.mockImplementation(runSpan as never);
		tracing.pickWorkflowAttributes.mockReturnValue({});
		tracing.pickNodeAttributes.mockReturnValue({});
		this.executor = new PollTriggerExecutor(
			silentLogger(),
			new TriggersAndPollers(),
			tracing,
			mock<ConstructorParameters<typeof PollTriggerExecutor>[3]>(),
		);
	}

	private additionalData(): IWorkflowExecuteAdditionalData {
		const additionalData = mock<IWorkflowExecuteAdditionalData>() as IWorkflowExecuteAdditionalData;
		Object.assign(additionalData, {
			credentialsHelper: this.credentialsHelper,
			currentNodeParameters: undefined,
			executionId: undefined,
			encryptedRunnerIdentity: undefined,
			executionContext: undefined,
			evalLlmMockHandler: undefined,
		});
		return additionalData;
	}

	/**
	 * One poll. `trigger`: an active workflow's scheduled poll (errors go to `__emitError`).
	 * `manual`: "Fetch Test Event" (errors are thrown, as n8n does for a test run, and caught here).
	 */
	async poll(mode: 'trigger' | 'manual' = 'trigger'): Promise<PollOutcome> {
		const outcome: PollOutcome = { emitted: null, items: [], committed: false };
		const budget = this.options.pollBudgetMs;
		const context = new PollContext(
			this.workflow,
			this.options.node,
			this.additionalData(),
			mode,
			mode === 'manual' ? 'manual' : 'activate',
			(data) => {
				outcome.emitted = data;
				outcome.items = data[0] ?? [];
			},
			(error) => {
				outcome.error = error;
			},
			async () => {
				outcome.committed = true;
			},
			undefined,
			undefined,
			budget === undefined ? undefined : () => budget,
		);
		const run = this.executor.create(this.workflow, this.options.node, context, () => true);
		try {
			await run(mode === 'manual');
		} catch (error) {
			outcome.error = error as PollOutcome['error'];
		}
		return outcome;
	}

	/** Whether the static data changed since the last `markSaved()` (n8n saves it only then). */
	staticDataChanged(): boolean {
		return this.workflow.staticData.__dataChanged === true;
	}

	/** What n8n does once it has saved the static data. */
	markSaved(): void {
		this.workflow.staticData.__dataChanged = false;
	}

	/** The node's static data, as a deep copy. */
	nodeStaticData(): IDataObject {
		return JSON.parse(
			JSON.stringify(this.workflow.getStaticData('node', this.options.node)),
		) as IDataObject;
	}

	/** The workflow's static data as n8n would store it (JSON), to start another runner from. */
	savedStaticData(): IDataObject {
		return JSON.parse(JSON.stringify(this.workflow.staticData)) as IDataObject;
	}
}
