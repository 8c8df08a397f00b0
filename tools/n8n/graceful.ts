/**
 * A graceful stop of a started n8n, as a service manager stops it: one SIGTERM, then n8n's own
 * shutdown (triggers closed with their closeFunction, running executions finished, static data
 * saved), then exit.
 *
 * `N8nInstance.stop()` stops the same way (one SIGTERM, relayed once by the watchdog: n8n 2.41.1
 * listens with `process.once('SIGTERM', …)`, so a second SIGTERM would kill it a few milliseconds
 * into its shutdown, before its triggers close); this one also says how long n8n took.
 */
import { setTimeout as sleep } from 'timers/promises';

import type { N8nInstance } from './server';

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/**
 * SIGTERM to n8n only (through its watchdog), then waits until it has exited; after `timeoutMs`
 * (default 30 s, n8n's own graceful shutdown timeout) `instance.stop()` kills what is left. Either
 * way the process group is gone when this resolves. Returns how long n8n took to exit.
 */
export async function stopN8nGracefully(
	instance: N8nInstance,
	options: { timeoutMs?: number } = {},
): Promise<{ exitedAfterMs: number; graceful: boolean }> {
	const started = Date.now();
	const deadline = started + (options.timeoutMs ?? 30_000);
	const pid = instance.pid;
	if (pid > 0 && alive(pid)) {
		process.kill(pid, 'SIGTERM');
		while (alive(pid) && Date.now() < deadline) await sleep(50);
	}
	const graceful = !alive(pid);
	const exitedAfterMs = Date.now() - started;
	// Leftovers (the task runner), and the bookkeeping of the child; immediate when it has exited.
	await instance.stop();
	return { exitedAfterMs, graceful };
}
