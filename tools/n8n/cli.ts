/**
 * The n8n CLI against a user folder: `n8n import:credentials`, `import:workflow`,
 * `publish:workflow` and `execute`, each a short-lived n8n process, and the run JSON that
 * `execute` prints.
 */
import * as fsp from 'fs/promises';
import * as os from 'os';
import * as path from 'path';

import { n8nProcessEnv, type N8nEnv } from './environment';
import { runProcess, tail, type ProcessResult } from './processes';
import { requireN8n, type N8nRuntime } from './runtime';
import type { N8nError, N8nRun } from './run-data';

export interface N8nCliOptions {
	timeoutMs?: number;
	runtime?: N8nRuntime;
	/** Stream output (e.g. `(s) => process.stderr.write(s)`) while it runs. */
	onOutput?: (chunk: string) => void;
}

/** Run `n8n <args>` with the runtime's Node in the env's user folder. Does not throw on a non-zero exit. */
export async function runN8nCli(
	env: N8nEnv,
	args: string[],
	options: N8nCliOptions = {},
): Promise<ProcessResult> {
	const runtime = requireN8n(options.runtime);
	return await runProcess(runtime.nodeBin, [runtime.n8nBin, ...args], {
		env: await n8nProcessEnv(env),
		cwd: env.N8N_USER_FOLDER,
		underWatchdog: true,
		timeoutMs: options.timeoutMs ?? 120_000,
		onStdout: options.onOutput,
		onStderr: options.onOutput,
	});
}

async function runN8nCliOrThrow(
	env: N8nEnv,
	args: string[],
	options: N8nCliOptions = {},
): Promise<ProcessResult> {
	const res = await runN8nCli(env, args, options);
	if (res.exitCode !== 0) {
		throw new Error(
			`n8n ${args.join(' ')} failed (exit ${res.exitCode}${res.timedOut ? ', timed out' : ''}):\n${tail(res.stdout + '\n' + res.stderr, 40)}`,
		);
	}
	return res;
}

async function withTempJson<T>(value: unknown, fn: (file: string) => Promise<T>): Promise<T> {
	const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'n8n-import-'));
	const file = path.join(dir, 'input.json');
	try {
		await fsp.writeFile(file, JSON.stringify(value, null, 2));
		return await fn(file);
	} finally {
		await fsp.rm(dir, { recursive: true, force: true });
	}
}

/** A credential as `n8n import:credentials` takes it: plain `data`, n8n encrypts it. */
export interface N8nCredential {
	/** Fixed id, referenced by workflow nodes as `credentials.<type>.id`. */
	id: string;
	name: string;
	/** Credential type name, e.g. 'tradingServiceApi'. */
	type: string;
	data: Record<string, unknown>;
	[key: string]: unknown;
}

/** `n8n import:credentials --input=<tmp file>`; the credentials belong to the owner. */
export async function importCredentials(
	env: N8nEnv,
	credentials: N8nCredential[],
	options: N8nCliOptions = {},
): Promise<ProcessResult> {
	return await withTempJson(credentials, (file) =>
		runN8nCliOrThrow(env, ['import:credentials', `--input=${file}`], options),
	);
}

/**
 * `n8n import:workflow --input=<tmp file>` for one workflow or an array. Keep a fixed string
 * `id` in the JSON to refer to it later. Imported workflows are inactive (unpublished).
 */
export async function importWorkflow(
	env: N8nEnv,
	workflow: object | object[],
	options: N8nCliOptions = {},
): Promise<ProcessResult> {
	return await withTempJson(workflow, (file) =>
		runN8nCliOrThrow(env, ['import:workflow', `--input=${file}`], options),
	);
}

/**
 * `n8n publish:workflow --id=…` (n8n 2.x's "activate"; on n8n 1.x `n8n update:workflow --id=…
 * --active=true`): takes effect at the next `n8n start`, which then registers the workflow's
 * triggers (a polling trigger polls at once, then on its schedule; a Webhook node listens on
 * /webhook/<path>).
 */
export async function publishWorkflow(
	env: N8nEnv,
	workflowId: string,
	options: N8nCliOptions = {},
): Promise<ProcessResult> {
	const args =
		requireN8n(options.runtime).major === 1
			? ['update:workflow', `--id=${workflowId}`, '--active=true']
			: ['publish:workflow', `--id=${workflowId}`];
	return await runN8nCliOrThrow(env, args, options);
}

export interface ExecuteResult extends ProcessResult {
	/** The run data n8n printed (also on a failed run), or undefined if none could be parsed. */
	run?: N8nRun;
	/** The run's error, if any (data.resultData.error). */
	error?: N8nError;
	/** exitCode === 0 and no run error. */
	ok: boolean;
}

/**
 * `n8n execute --id=<id> --rawOutput`. The workflow must start with a Manual Trigger (n8n's CLI
 * cannot start from other triggers; for polling triggers use startN8n().runWorkflowFromTrigger).
 * Never throws for a failed workflow: check `ok`, `error`, and the node's run data.
 */
export async function executeWorkflow(
	env: N8nEnv,
	workflowId: string,
	options: N8nCliOptions = {},
): Promise<ExecuteResult> {
	const res = await runN8nCli(env, ['execute', `--id=${workflowId}`, '--rawOutput'], options);
	const run = parseRunFromOutput(res.stdout) ?? parseRunFromOutput(res.stderr);
	const error = run?.data?.resultData?.error;
	return { ...res, run, error, ok: res.exitCode === 0 && !error && run !== undefined };
}

/**
 * Find n8n's run JSON in CLI output: the run is printed with JSON.stringify(run, null, 2), i.e. a
 * line that is exactly "{" up to the next line that is exactly "}", among log lines.
 */
export function parseRunFromOutput(output: string): N8nRun | undefined {
	const lines = output.split(/\r?\n/);
	for (let start = 0; start < lines.length; start++) {
		if (lines[start] !== '{') continue;
		for (let end = start + 1; end < lines.length; end++) {
			if (lines[end] !== '}') continue;
			try {
				const parsed = JSON.parse(lines.slice(start, end + 1).join('\n')) as N8nRun;
				if (parsed && typeof parsed === 'object' && parsed.data?.resultData) return parsed;
			} catch {
				/* not this block */
			}
			break;
		}
	}
	return undefined;
}
