import type { IDataObject, INode } from 'n8n-workflow';

import { TradingServiceApi } from '../../credentials/TradingServiceApi.credentials';
import { TradingServiceTrigger } from '../../nodes/TradingService/TradingServiceTrigger.node';
import { TestCredentialsHelper } from '../../tools/harness/credentials';
import { PollRunner, type PollOutcome } from '../../tools/harness/poll';
import { DEMO_KEYS, type LedgerRequest, type Sandbox } from '../../sandbox';

export const HISTORY_PATH = '/api/v1/account/balanceFlow';
export const TRIGGER_TYPE = 'n8n-nodes-trading-service.tradingServiceTrigger';

export interface TriggerRunnerOptions {
	parameters?: IDataObject;
	staticData?: IDataObject;
	pollBudgetMs?: number;
	secretKey?: string;
	credentialsHelper?: TestCredentialsHelper;
}

export function credentialsFor(sandbox: Sandbox, secretKey = DEMO_KEYS.master.secret) {
	return {
		tradingServiceApi: {
			apiKey: DEMO_KEYS.master.apiKey,
			secretKey,
			baseUrl: sandbox.baseUrl,
			recvWindow: 5000,
		},
	};
}

export function triggerNode(parameters: IDataObject = {}): INode {
	return {
		id: 'trigger-node-1',
		name: 'Trading Service Trigger',
		type: TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { event: 32, ...parameters },
		credentials: { tradingServiceApi: { id: '1', name: 'Trading Service account' } },
	};
}

export const credentialTypes = { tradingServiceApi: new TradingServiceApi() };

/** Signs chosen requests (counted from 1 across the helper's life) with a wrong secret. */
export class FlakyCredentialsHelper extends TestCredentialsHelper {
	private calls = 0;
	readonly breakCalls = new Set<number>();

	constructor(sandbox: Sandbox) {
		super(credentialTypes, credentialsFor(sandbox));
	}

	/** Breaks the n-th request from now on (1 = the next one). */
	breakRequest(n: number): void {
		this.breakCalls.add(this.calls + n);
	}

	async authenticate(
		...[credentials, typeName, requestOptions]: Parameters<TestCredentialsHelper['authenticate']>
	): ReturnType<TestCredentialsHelper['authenticate']> {
		this.calls++;
		const used = this.breakCalls.has(this.calls) ? { ...credentials, secretKey: 'not-the-secret' } : credentials;
		return await super.authenticate(used, typeName, requestOptions);
	}
}
export const nodeTypes = { [TRIGGER_TYPE]: new TradingServiceTrigger() };

/** One active workflow with the trigger, polling the sandbox through n8n-core. */
export function triggerRunner(sandbox: Sandbox, options: TriggerRunnerOptions = {}): PollRunner {
	return new PollRunner({
		node: triggerNode(options.parameters),
		nodeTypes,
		credentialTypes,
		credentials: credentialsFor(sandbox, options.secretKey),
		credentialsHelper: options.credentialsHelper,
		staticData: options.staticData,
		pollBudgetMs: options.pollBudgetMs,
	});
}

export function historyRequests(sandbox: Sandbox): LedgerRequest[] {
	return sandbox.ledger.requests.filter((request) => request.path === HISTORY_PATH);
}

/** Polls and returns the outcome plus the requests that poll sent. */
export async function pollCounting(sandbox: Sandbox, runner: PollRunner, mode: 'trigger' | 'manual' = 'trigger') {
	const before = sandbox.ledger.requests.length;
	const outcome: PollOutcome = await runner.poll(mode);
	return { ...outcome, requests: sandbox.ledger.requests.slice(before) };
}

export const ids = (outcome: { items: Array<{ json: IDataObject }> }) => outcome.items.map((item) => String(item.json.id));

export function queryParam(request: LedgerRequest, name: string): string | undefined {
	return new URLSearchParams(request.query).get(name) ?? undefined;
}
