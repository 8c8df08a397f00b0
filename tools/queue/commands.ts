/**
 * Short system commands for the queue suite's servers (initdb, pg_ctl, psql, redis-cli, id) and
 * looking at the processes they leave: pid files, liveness, names.
 */
import * as fs from 'fs';
import * as path from 'path';

import { runProcess } from '../n8n/processes';

export interface CommandResult {
	code: number;
	stdout: string;
	stderr: string;
}

/** Runs a short command (no shell); never throws for a non-zero exit. */
export async function run(
	command: string,
	args: string[],
	options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandResult> {
	try {
		const result = await runProcess(command, args, {
			env: options.env ?? process.env,
			timeoutMs: options.timeoutMs ?? 60_000,
		});
		// Killed (timeout) counts as exit 1; say what failed when the command itself said nothing.
		const code = result.exitCode ?? 1;
		const failure =
			code === 1 && !result.stderr
				? `Command failed: ${[command, ...args].join(' ')}${result.timedOut ? ' (timed out)' : ''}`
				: '';
		return { code, stdout: result.stdout, stderr: result.stderr + failure };
	} catch (error) {
		return { code: 1, stdout: '', stderr: (error as Error).message };
	}
}

export async function runOrThrow(
	command: string,
	args: string[],
	what: string,
	options: { timeoutMs?: number } = {},
): Promise<CommandResult> {
	const result = await run(command, args, options);
	if (result.code !== 0) {
		throw new Error(
			`${what} failed (exit ${result.code}): ${command} ${args.join(' ')}\n${(result.stderr + result.stdout).trim().slice(-3000)}`,
		);
	}
	return result;
}

export function isRoot(): boolean {
	return typeof process.getuid === 'function' && process.getuid() === 0;
}

export function isAlive(pid: number): boolean {
	if (!(pid > 0)) return false;
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

export function onPath(name: string): string | undefined {
	for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
		if (dir && fs.existsSync(path.join(dir, name))) return path.join(dir, name);
	}
	return undefined;
}

export function readPidFile(file: string): number | undefined {
	try {
		const pid = Number(fs.readFileSync(file, 'utf8').split('\n')[0].trim());
		return pid > 0 ? pid : undefined;
	} catch {
		return undefined;
	}
}

export function processName(pid: number): string {
	try {
		return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
	} catch {
		return '';
	}
}
