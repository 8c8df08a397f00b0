/**
 * Probe nodes: a test-only node type run as the one node ("Probe") of a workflow through n8n's
 * real executor (tools/harness/workflow.ts), so that a test can drive a piece of the node with the
 * run's real execute functions.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { TradingServiceApi } from '../../credentials/TradingServiceApi.credentials';
import { TradingService } from '../../nodes/TradingService/TradingService.node';
import { credentialsFor } from '../../tools/harness/node';
import { runWorkflow, type WorkflowRunResult } from '../../tools/harness/workflow';
import type { Sandbox } from '../../sandbox';

export const PROBE_NAME = 'Probe';
const PROBE_TYPE = 'test.probe';

/** The Trading Service node's description under the probe's type name. */
export function probeDescription(): INodeTypeDescription {
	return { ...new TradingService().getNodeType(1).description, name: 'probe' };
}

export interface ProbeRunOptions {
	/** The credential data of tradingServiceApi (e.g. credentialsFor(sandbox)). */
	credentials: IDataObject;
	parameters?: IDataObject;
	inputItems?: INodeExecutionData[];
	continueOnFail?: boolean;
}

/** Runs `nodeType` as the one node of a workflow, named "Probe", with a Trading Service credential. */
export async function runProbe(
	nodeType: INodeType,
	{ credentials, parameters = {}, inputItems, continueOnFail = false }: ProbeRunOptions,
): Promise<WorkflowRunResult> {
	return await runWorkflow({
		nodes: [
			{
				id: 'probe',
				name: PROBE_NAME,
				type: PROBE_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters: parameters as never,
				credentials: { tradingServiceApi: { id: '1', name: 'Sandbox' } },
				...(continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
			},
		],
		nodeTypes: { [PROBE_TYPE]: nodeType },
		credentialTypes: { tradingServiceApi: new TradingServiceApi() },
		credentials: { tradingServiceApi: credentials as never },
		inputItems,
	});
}

/**
 * Runs `use` inside a node run of n8n's real executor against the sandbox, with the run's execute
 * functions (credentials: the sandbox's, with `credentials` over them); returns what it returned,
 * or throws what it threw.
 */
export async function withExecuteFunctions<T>(
	sandbox: Sandbox,
	use: (context: IExecuteFunctions) => Promise<T>,
	credentials: IDataObject = {},
): Promise<T> {
	const settled: { value?: T; error?: unknown } = {};
	let ran = false;
	const probe: INodeType = {
		description: probeDescription(),
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			ran = true;
			try {
				settled.value = await use(this);
			} catch (error) {
				settled.error = error;
			}
			return [[{ json: {} }]];
		},
	};
	await runProbe(probe, { credentials: { ...credentialsFor(sandbox), ...credentials } });
	if (!ran) throw new Error('the probe node did not run');
	if (settled.error !== undefined) throw settled.error;
	return settled.value as T;
}
