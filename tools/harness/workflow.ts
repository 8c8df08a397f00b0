import { mock } from 'jest-mock-extended';
import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import {
	NodeHelpers,
	Workflow,
	createRunExecutionData,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type IConnections,
	type IDataObject,
	type IExecuteContextData,
	type INode,
	type INodeExecutionData,
	type INodeType,
	type INodeTypes,
	type IRun,
	type IVersionedNodeType,
	type IWorkflowExecuteAdditionalData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { TestCredentialsHelper } from './credentials';

export class TestNodeTypes implements INodeTypes {
	constructor(private readonly types: Record<string, INodeType | IVersionedNodeType>) {}

	getByName(type: string): INodeType | IVersionedNodeType {
		const nodeType = this.types[type];
		if (nodeType === undefined) throw new Error(`Test harness: unknown node type ${type}`);
		return nodeType;
	}

	getByNameAndVersion(type: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(type), version);
	}

	getKnownTypes() {
		return {};
	}
}

export interface WorkflowRunOptions {
	nodes: INode[];
	connections?: IConnections;
	/** Node types by type name. */
	nodeTypes: Record<string, INodeType | IVersionedNodeType>;
	credentialTypes: Record<string, ICredentialType>;
	/** Decrypted credential data by credential type name. */
	credentials: Record<string, ICredentialDataDecryptedObject>;
	/** Items handed to the first node (the start of the run). */
	inputItems?: INodeExecutionData[];
	mode?: WorkflowExecuteMode;
	executionId?: string;
	staticData?: IDataObject;
	/**
	 * The execution's context data to start from (`run.data.executionData.contextData` of an earlier
	 * run): a retried execution starts with what the failed one saved, the nodes' write ledgers
	 * among it.
	 */
	contextData?: IDataObject;
	/**
	 * The execution context n8n established for the execution (`executionData.runtimeData`): a
	 * retried or re-delivered execution carries the one it was created with.
	 */
	runtimeData?: IDataObject;
}

export interface WorkflowRunResult {
	run: IRun;
	/** Items of the node's first output, last run. */
	output(nodeName: string, outputIndex?: number): INodeExecutionData[];
	/** The error a node stopped with, if any. */
	error(
		nodeName: string,
	): (Error & { description?: string | null; context?: IDataObject }) | undefined;
	credentialsHelper: TestCredentialsHelper;
	workflow: Workflow;
}

/** Runs a workflow in-process through n8n-core's real WorkflowExecute and request helpers. */
export async function runWorkflow(options: WorkflowRunOptions): Promise<WorkflowRunResult> {
	const nodeTypes = new TestNodeTypes(options.nodeTypes);
	const workflow = new Workflow({
		id: 'test-workflow',
		name: 'Test Workflow',
		nodes: options.nodes,
		connections: options.connections ?? {},
		nodeTypes,
		active: false,
		staticData: options.staticData,
		settings: {},
	});
	const credentialsHelper = new TestCredentialsHelper(options.credentialTypes, options.credentials);

	const hooks = new ExecutionLifecycleHooks('trigger', 'test-workflow', mock());
	let finishRun!: (run: IRun) => void;
	const finished = new Promise<IRun>((resolve) => (finishRun = resolve));
	hooks.addHandler('workflowExecuteAfter', (run) => finishRun(run));

	// A deep mock: only what the run reads is set. Fields a mock would fill with functions but
	// n8n reads as values must be set explicitly, or execution fails.
	const additionalData = mock<IWorkflowExecuteAdditionalData>() as IWorkflowExecuteAdditionalData;
	Object.assign(additionalData, {
		hooks,
		credentialsHelper,
		currentNodeParameters: undefined,
		executionId: options.executionId ?? 'harness-execution-1',
		encryptedRunnerIdentity: undefined,
		executionContext: undefined,
		evaluationRunId: undefined,
		evalLlmMockHandler: undefined,
		variables: {},
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
	});

	const startNode = options.nodes[0];
	const runExecutionData = createRunExecutionData({
		executionData: {
			...(options.contextData === undefined
				? {}
				: { contextData: structuredClone(options.contextData) as IExecuteContextData }),
			...(options.runtimeData === undefined
				? {}
				: { runtimeData: structuredClone(options.runtimeData) as never }),
			nodeExecutionStack: [
				{ node: startNode, data: { main: [options.inputItems ?? [{ json: {} }]] }, source: null },
			],
		},
	});
	const workflowExecute = new WorkflowExecute(
		additionalData,
		options.mode ?? 'manual',
		runExecutionData,
	);
	await workflowExecute.processRunExecutionData(workflow);
	const run = await finished;

	const taskOf = (nodeName: string) => {
		const tasks = run.data.resultData.runData[nodeName];
		return tasks?.[tasks.length - 1];
	};
	return {
		run,
		workflow,
		credentialsHelper,
		output: (nodeName, outputIndex = 0) => taskOf(nodeName)?.data?.main?.[outputIndex] ?? [],
		error: (nodeName) =>
			taskOf(nodeName)?.error as WorkflowRunResult['error'] extends (n: string) => infer R
				? R
				: never,
	};
}
