/**
 * Running a workflow in the e2e suites' real n8n (`n8n execute`), with the checks every run gets:
 * it printed run data (else n8n's output is the failure), no secret shows in n8n's output or
 * the run data, and the sandbox (at its default, the exchange's documented request rates) refused
 * no request for its rate since its last reset: the node paces by itself.
 */
import { executeWorkflow, type ExecuteResult } from '../../tools/n8n/cli';
import { leakedSecrets, type E2eFixture } from '../../tools/n8n/fixture';
import type { N8nRun } from '../../tools/n8n/run-data';

export type CheckedRun = ExecuteResult & { run: N8nRun };

export async function runWorkflow(
	fx: E2eFixture,
	workflowId: string,
	secrets: string[] = fx.secrets,
): Promise<CheckedRun> {
	const result = await executeWorkflow(fx.env, workflowId);
	if (!result.run) {
		throw new Error(
			`n8n execute ${workflowId} printed no run data (exit ${result.exitCode}):\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`,
		);
	}
	const everything = `${result.stdout}\n${result.stderr}\n${JSON.stringify(result.run)}`;
	expect(leakedSecrets(everything, secrets)).toEqual([]);
	expect(fx.sb.rateLimitStats()).toEqual({ rateLimited: 0, intoSuspension: 0 });
	return result as CheckedRun;
}

/** Fails with n8n's error and output unless the workflow succeeded. */
export function expectWorkflowOk(result: ExecuteResult, workflowId = ''): void {
	if (!result.ok) {
		throw new Error(
			`workflow ${workflowId} failed (exit ${result.exitCode}): ${JSON.stringify(result.error, null, 2)}\n${result.stderr.slice(-3000)}`,
		);
	}
}
