/** Test-only helpers around the one trigger runner (tools/harness/trigger.ts). */
import type { IDataObject } from 'n8n-workflow';

import { TestCredentialsHelper } from '../../tools/harness/credentials';
import { credentialsFor } from '../../tools/harness/node';
import type { PollOutcome, PollRunner } from '../../tools/harness/poll';
import { triggerCredentialTypes } from '../../tools/harness/trigger';
import type { LedgerRequest, Sandbox } from '../../sandbox';

export {
	TRIGGER_TYPE,
	triggerNode,
	triggerRunner,
	triggerNodeTypes,
	triggerCredentialTypes,
} from '../../tools/harness/trigger';

export const HISTORY_PATH = '/api/v1/account/balanceFlow';

/** Credential data by credential type, as n8n-core's runWorkflow takes it. */
export function triggerCredentials(sandbox: Sandbox) {
	return { tradingServiceApi: credentialsFor(sandbox) as never };
}

/** Signs chosen requests (counted from 1 across the helper's life) with a wrong secret. */
export class FlakyCredentialsHelper extends TestCredentialsHelper {
	private calls = 0;
	readonly breakCalls = new Set<number>();

	constructor(sandbox: Sandbox) {
		super(triggerCredentialTypes, triggerCredentials(sandbox));
	}

	/** Breaks the n-th request from now on (1 = the next one). */
	breakRequest(n: number): void {
		this.breakCalls.add(this.calls + n);
	}

	async authenticate(
		...[credentials, typeName, requestOptions]: Parameters<TestCredentialsHelper['authenticate']>
	): ReturnType<TestCredentialsHelper['authenticate']> {
		this.calls++;
		const used = this.breakCalls.has(this.calls)
			? { ...credentials, secretKey: 'not-the-secret' }
			: credentials;
		return await super.authenticate(used, typeName, requestOptions);
	}
}
export function historyRequests(sandbox: Sandbox): LedgerRequest[] {
	return sandbox.ledger.requests.filter((request) => request.path === HISTORY_PATH);
}

/** Polls and returns the outcome plus the requests that poll sent. */
export async function pollCounting(
	sandbox: Sandbox,
	runner: PollRunner,
	mode: 'trigger' | 'manual' = 'trigger',
) {
	const before = sandbox.ledger.requests.length;
	const outcome: PollOutcome = await runner.poll(mode);
	return { ...outcome, requests: sandbox.ledger.requests.slice(before) };
}

export const ids = (outcome: { items: Array<{ json: IDataObject }> }) =>
	outcome.items.map((item) => String(item.json.id));

export function queryParam(request: LedgerRequest, name: string): string | undefined {
	return new URLSearchParams(request.query).get(name) ?? undefined;
}
