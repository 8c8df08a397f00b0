/**
 * The one way to run the Trading Service Trigger in-process: its node, node type and credential
 * wired into n8n-core's real poll path (PollRunner) against a sandbox. Tests and benches use it.
 */
import type { IDataObject, INode } from 'n8n-workflow';

import { TradingServiceApi } from '../../credentials/TradingServiceApi.credentials';
import { TradingServiceTrigger } from '../../nodes/TradingService/TradingServiceTrigger.node';
import type { Sandbox } from '../../sandbox';
import type { TestCredentialsHelper } from './credentials';
import { credentialsFor } from './node';
import { PollRunner } from './poll';

export const TRIGGER_TYPE = 'n8n-nodes-trading-service.tradingServiceTrigger';

export interface TriggerRunnerOptions {
	/** The trigger's version (default 1; version 2 picks the Coin filter from a list). */
	typeVersion?: number;
	parameters?: IDataObject;
	staticData?: IDataObject;
	pollBudgetMs?: number;
	/** Overrides of the credential data (e.g. a wrong secret). */
	credentials?: IDataObject;
	credentialsHelper?: TestCredentialsHelper;
}

export const triggerCredentialTypes = { tradingServiceApi: new TradingServiceApi() };
export const triggerNodeTypes = { [TRIGGER_TYPE]: new TradingServiceTrigger() };

/** The trigger node of a workflow; the event defaults to funding fees. */
export function triggerNode(parameters: IDataObject = {}, typeVersion = 1): INode {
	return {
		id: 'trigger-node-1',
		name: 'Trading Service Trigger',
		type: TRIGGER_TYPE,
		typeVersion,
		position: [0, 0],
		parameters: { event: 32, ...parameters } as INode['parameters'],
		credentials: { tradingServiceApi: { id: '1', name: 'Trading Service account' } },
	};
}

/** One active workflow with the trigger, polling the sandbox through n8n-core. */
export function triggerRunner(sandbox: Sandbox, options: TriggerRunnerOptions = {}): PollRunner {
	return new PollRunner({
		node: triggerNode(options.parameters, options.typeVersion),
		nodeTypes: triggerNodeTypes,
		credentialTypes: triggerCredentialTypes,
		credentials: {
			tradingServiceApi: { ...credentialsFor(sandbox), ...options.credentials } as never,
		},
		credentialsHelper: options.credentialsHelper,
		staticData: options.staticData,
		pollBudgetMs: options.pollBudgetMs,
	});
}
