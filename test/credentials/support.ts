import { mock } from 'jest-mock-extended';
import { ExecuteContext, RoutingNode } from 'n8n-core';
import {
	Workflow,
	createRunExecutionData,
	type ICredentialDataDecryptedObject,
	type INode,
	type INodeType,
	type IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { TradingServiceApi } from '../../credentials/TradingServiceApi.credentials';
import { TestCredentialsHelper } from '../../tools/harness/credentials';
import { TestNodeTypes } from '../../tools/harness/workflow';

const credential = new TradingServiceApi();

/**
 * n8n's credential Test as n8n runs it (CredentialsTester.runRequestTest in n8n's cli package): a
 * temporary node whose one property routes the credential's test request, run by n8n-core's
 * RoutingNode through a real ExecuteContext, so the request is signed by the credential's own
 * `authenticate`; an error answer is then read with the test's `rules`.
 */
export async function runCredentialTest(
	data: ICredentialDataDecryptedObject,
): Promise<{ status: 'OK' | 'Error'; message: string }> {
	const testRequest = credential.test;
	const nodeType: INodeType = {
		description: {
			displayName: 'Temp',
			name: 'temp',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: { name: 'Temp' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: credential.name, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: testRequest.request },
					default: '',
				},
			],
		},
	};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'temp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [credential.name]: { id: '1', name: 'Sandbox' } },
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new TestNodeTypes({ temp: nodeType }),
	});
	const additionalData = mock<IWorkflowExecuteAdditionalData>() as IWorkflowExecuteAdditionalData;
	Object.assign(additionalData, {
		credentialsHelper: new TestCredentialsHelper(
			{ [credential.name]: credential },
			{ [credential.name]: data },
		),
		currentNodeParameters: node.parameters,
		executionId: undefined,
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
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		createRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	const routingNode = new RoutingNode(context, nodeType, {
		id: '1',
		name: 'Sandbox',
		type: credential.name,
		data,
	});
	try {
		await routingNode.runNode();
	} catch (error) {
		const status = (error as { cause?: { response?: { status?: number } } }).cause?.response
			?.status;
		if (status !== undefined) {
			const rule = testRequest.rules?.find(
				(one) => one.type === 'responseCode' && one.properties.value === status,
			);
			return {
				status: 'Error',
				message: rule?.properties.message ?? `Received HTTP status code: ${status}`,
			};
		}
		return { status: 'Error', message: (error as Error).message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
