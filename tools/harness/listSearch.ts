import { mock } from 'jest-mock-extended';
import { LoadOptionsContext } from 'n8n-core';
import {
	Workflow,
	type IDataObject,
	type INode,
	type INodeListSearchResult,
	type IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { TradingServiceApi } from '../../credentials/TradingServiceApi.credentials';
import { TradingService } from '../../nodes/TradingService/TradingService.node';
import type { DemoKey, Sandbox } from '../../sandbox';
import { TestCredentialsHelper } from './credentials';
import { credentialsFor, NODE_NAME, NODE_TYPE } from './node';
import { TestNodeTypes } from './workflow';

export type ListSearchMethod =
	| 'searchSymbols'
	| 'searchCoins'
	| 'searchAccounts'
	| 'searchOpenOrders';

/**
 * Runs one of version 2's list searches as the editor does when a picker opens: through n8n-core's
 * real load-options context and request helpers, with the credential, against the sandbox.
 */
export async function searchList(
	sandbox: Sandbox,
	method: ListSearchMethod,
	options: {
		filter?: string;
		key?: DemoKey;
		parameters?: IDataObject;
		credentials?: IDataObject;
	} = {},
): Promise<INodeListSearchResult> {
	const node: INode = {
		id: 'trading-service-node',
		name: NODE_NAME,
		type: NODE_TYPE,
		typeVersion: 2,
		position: [0, 0],
		parameters: (options.parameters ?? {
			resource: 'order',
			operation: 'create',
		}) as INode['parameters'],
		credentials: { tradingServiceApi: { id: '1', name: 'Sandbox' } },
	};
	const nodeType = new TradingService();
	const workflow = new Workflow({
		id: 'test-workflow',
		name: 'Test Workflow',
		nodes: [node],
		connections: {},
		nodeTypes: new TestNodeTypes({ [NODE_TYPE]: nodeType }),
		active: false,
		settings: {},
	});
	const credentialsHelper = new TestCredentialsHelper(
		{ tradingServiceApi: new TradingServiceApi() },
		{
			tradingServiceApi: {
				...credentialsFor(sandbox, options.key),
				...options.credentials,
			} as never,
		},
	);
	const additionalData = mock<IWorkflowExecuteAdditionalData>() as IWorkflowExecuteAdditionalData;
	Object.assign(additionalData, {
		credentialsHelper,
		currentNodeParameters: node.parameters,
		executionId: undefined,
		executionContext: undefined,
		variables: {},
	});
	const context = new LoadOptionsContext(workflow, node, additionalData, 'parameters.symbol');
	const search = nodeType.getNodeType(2).methods?.listSearch?.[method];
	if (search === undefined) throw new Error(`Test harness: no list search ${method}`);
	return await search.call(context, options.filter);
}
