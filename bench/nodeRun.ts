/**
 * Runs the Trading Service node through the test harness (tools/harness/workflow.ts: n8n-core's
 * real WorkflowExecute and request helpers), like tools/harness/node.ts's runTradingService but
 * without its JSON serialisation of the whole run (a test-only step that would be charged to the
 * node: ~10 ms per 10,000 output items).
 */
import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { TradingServiceApi } from '../credentials/TradingServiceApi.credentials';
import { TradingService } from '../nodes/TradingService/TradingService.node';
import { runWorkflow } from '../tools/harness/workflow';
import { NODE_NAME, NODE_TYPE, credentialsFor } from '../tools/harness/node';
import type { Sandbox } from '../sandbox';
import { FLOOR_NODE_TYPE, FloorNode } from './floorNode';

export interface BenchNodeRun {
	items: INodeExecutionData[];
	error?: Error;
}

export async function runNode(
	sandbox: Pick<Sandbox, 'baseUrl'>,
	parameters: IDataObject,
	inputItems: INodeExecutionData[] = [{ json: {} }],
	executionId?: string,
	type: string = NODE_TYPE,
): Promise<BenchNodeRun> {
	const node: INode = {
		id: 'trading-service-node',
		name: NODE_NAME,
		type,
		typeVersion: 1,
		position: [0, 0],
		parameters: parameters as INode['parameters'],
		credentials: { tradingServiceApi: { id: '1', name: 'Sandbox' } },
	};
	const result = await runWorkflow({
		nodes: [node],
		nodeTypes: { [NODE_TYPE]: new TradingService(), [FLOOR_NODE_TYPE]: new FloorNode() },
		credentialTypes: { tradingServiceApi: new TradingServiceApi() },
		credentials: { tradingServiceApi: credentialsFor(sandbox as Sandbox) as never },
		inputItems,
		executionId,
	});
	return { items: result.output(NODE_NAME), error: result.error(NODE_NAME) };
}

/** Runs the floor node (bench/floorNode.ts) the same way. */
export async function runFloorNode(
	sandbox: Pick<Sandbox, 'baseUrl'>,
	query: IDataObject,
	inputItems: INodeExecutionData[],
): Promise<BenchNodeRun> {
	return runNode(sandbox, { query: JSON.stringify(query) }, inputItems, undefined, FLOOR_NODE_TYPE);
}
