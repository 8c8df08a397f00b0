/** What the queue suite's checks share: the sandbox, the cluster, the main process and its login. */
import type { Sandbox } from '../../sandbox';
import type { RestExecution } from '../../tools/n8n/rest';
import { getNodeItems } from '../../tools/n8n/run-data';
import type { N8nInstance } from '../../tools/n8n/server';
import type { QueueCluster } from '../../tools/queue/cluster';

export interface QueueSuite {
	sb: Sandbox;
	cluster: QueueCluster;
	/** The running main process (a new one after a restart). */
	main(): N8nInstance;
	/** The owner's login cookie for the running main process. */
	cookie(): string;
	/** Logs in to the running main process again (after a restart); the new cookie is cookie()'s. */
	login(): Promise<string>;
}

/** The output items (their json) of a node in an execution read from the REST API. */
export function itemsOf(exec: RestExecution, node: string): Array<Record<string, unknown>> {
	return getNodeItems({ data: exec.data! }, node);
}

/** The status line of an execution, and its error message if it failed. */
export function describeExecution(e: RestExecution): string {
	const error = e.data?.resultData?.error;
	return `${e.id} ${e.status}${error ? ` (${error.message ?? ''})` : ''}`;
}
