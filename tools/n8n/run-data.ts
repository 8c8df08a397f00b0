/**
 * n8n's run data (its IRun as JSON, printed by `n8n execute` and returned by the REST API) and
 * readers for the tests: a node's output items, a node's error.
 */

/** n8n's IRun as JSON, as far as the tests need it. */
export interface N8nRun {
	data: {
		resultData: {
			runData: Record<string, N8nTaskData[]>;
			lastNodeExecuted?: string;
			error?: N8nError;
		};
		[key: string]: unknown;
	};
	mode?: string;
	status?: string;
	finished?: boolean;
	startedAt?: string;
	stoppedAt?: string;
	[key: string]: unknown;
}

export interface N8nTaskData {
	startTime?: number;
	executionTime?: number;
	executionStatus?: string;
	data?: {
		main?: Array<Array<{
			json: Record<string, unknown>;
			pairedItem?: unknown;
			[k: string]: unknown;
		}> | null>;
	};
	error?: N8nError;
	[key: string]: unknown;
}

export interface N8nError {
	message?: string;
	description?: string | null;
	name?: string;
	node?: { name?: string; type?: string };
	[key: string]: unknown;
}

/** Output items (their `json`) of a node in a run: `runIndex`-th run, `outputIndex`-th output. */
export function getNodeItems(
	run: N8nRun | undefined,
	nodeName: string,
	runIndex = 0,
	outputIndex = 0,
): Array<Record<string, unknown>> {
	const task = run?.data?.resultData?.runData?.[nodeName]?.[runIndex];
	if (!task) {
		const known = Object.keys(run?.data?.resultData?.runData ?? {});
		throw new Error(`node "${nodeName}" did not run (ran: ${known.join(', ') || 'none'})`);
	}
	return (task.data?.main?.[outputIndex] ?? []).map((item) => item.json);
}

/** A node's error in a run (task-level), if it failed. */
export function getNodeError(
	run: N8nRun | undefined,
	nodeName: string,
	runIndex = 0,
): N8nError | undefined {
	return run?.data?.resultData?.runData?.[nodeName]?.[runIndex]?.error;
}
