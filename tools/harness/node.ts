import type { IDataObject, INode, INodeExecutionData, WorkflowExecuteMode } from 'n8n-workflow';

import { TradingServiceApi } from '../../credentials/TradingServiceApi.credentials';
import { LIMITS } from '../../nodes/TradingService/constants';
import { TradingService } from '../../nodes/TradingService/TradingService.node';
import { runWorkflow, type WorkflowRunResult } from './workflow';
import { DEMO_KEYS, type DemoKey, type Sandbox } from '../../sandbox';

export const NODE_TYPE = 'n8n-nodes-trading-service.tradingService';
export const NODE_NAME = 'Trading Service';

export interface NodeRun {
	items: INodeExecutionData[];
	error: WorkflowRunResult['error'] extends (name: string) => infer E ? E : never;
	result: WorkflowRunResult;
	/** Everything the run produced, serialised: for "the secret never appears" checks. */
	serialised: string;
}

export interface NodeRunOptions {
	parameters: IDataObject;
	inputItems?: INodeExecutionData[];
	key?: DemoKey;
	/** Overrides of the credential data (e.g. a wrong secret, another base URL). */
	credentials?: IDataObject;
	continueOnFail?: boolean;
	executionId?: string;
	nodeName?: string;
	node?: Partial<INode>;
	/** Start from an earlier run's execution context: a retry of that (failed) execution. */
	retryOf?: NodeRun;
	/**
	 * Run again the execution of an earlier run whose node context a crash lost: n8n's established
	 * execution context (its start time) is carried over, the node context is not.
	 */
	lostRunOf?: NodeRun;
	/** The execution context n8n established (overrides lostRunOf's): e.g. a start 10 s ago. */
	runtimeData?: IDataObject;
	/** The execution's mode (default manual); a retried execution's is `retry`. */
	mode?: WorkflowExecuteMode;
}

/**
 * The credential of a demo key, told the sandbox's request rates as a user tells it their
 * account's: the documented 20 and 5 a second by default; a sandbox a test started without
 * request-rate limits (its options say so, in the test file) gets the most the credential takes,
 * so the node does not pace a test about something else.
 */
export function credentialsFor(sandbox: Sandbox, key: DemoKey = DEMO_KEYS.master): IDataObject {
	const rates = sandbox.requestRates();
	return {
		apiKey: key.apiKey,
		secretKey: key.secret,
		baseUrl: sandbox.baseUrl,
		recvWindow: 5000,
		orderRequestsPerSecond: rates === false ? LIMITS.maxRequestsPerSecond : rates.orderPerSecond,
		queryRequestsPerSecond: rates === false ? LIMITS.maxRequestsPerSecond : rates.queryPerSecond,
	};
}

/** Runs one Trading Service node in-process with n8n's real helpers against the sandbox. */
export async function runTradingService(
	sandbox: Sandbox,
	options: NodeRunOptions,
): Promise<NodeRun> {
	const name = options.nodeName ?? NODE_NAME;
	const node: INode = {
		id: 'trading-service-node',
		name,
		type: NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: options.parameters as INode['parameters'],
		credentials: { tradingServiceApi: { id: '1', name: 'Sandbox' } },
		...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
		...options.node,
	};
	const result = await runWorkflow({
		nodes: [node],
		nodeTypes: { [NODE_TYPE]: new TradingService() },
		credentialTypes: { tradingServiceApi: new TradingServiceApi() },
		credentials: {
			tradingServiceApi: {
				...credentialsFor(sandbox, options.key),
				...options.credentials,
			} as never,
		},
		inputItems: options.inputItems,
		executionId: options.executionId,
		contextData: options.retryOf?.result.run.data.executionData?.contextData as
			| IDataObject
			| undefined,
		runtimeData:
			options.runtimeData ??
			(options.lostRunOf?.result.run.data.executionData?.runtimeData as IDataObject | undefined),
		mode: options.mode,
	});
	const error = result.error(name);
	return {
		items: result.output(name),
		error,
		result,
		serialised:
			JSON.stringify(result.run) +
			(error
				? JSON.stringify({
						...error,
						message: error.message,
						description: error.description,
						stack: error.stack,
					})
				: ''),
	};
}

/** Requests the sandbox received on a path (all methods), optionally since an index. */
export function requestsTo(sandbox: Sandbox, path: string, since = 0) {
	return sandbox.ledger.requests.slice(since).filter((request) => request.path === path);
}

/** A client order ID the node generated for order `orderIndex` of item `itemIndex` in run `runIndex` of the node. */
export function generatedClientOrderId(itemIndex: number, orderIndex = 0, runIndex = 0): RegExp {
	return new RegExp(`^n8n-[0-9a-f]{24}-${runIndex}-${itemIndex}-${orderIndex}$`);
}
