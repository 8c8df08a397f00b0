/**
 * Long-running n8n processes: `n8n start` (startN8n: the server, ready to take REST calls) and
 * other commands such as `n8n worker` (spawnN8n). Each runs under the watchdog in its own process
 * group, so that stopping it stops its task runner too; always `stop()` it (try/finally).
 */
import { setTimeout as sleep } from 'timers/promises';

import { n8nProcessEnv, ownerLogin, type N8nEnv } from './environment';
import { getFreePort, startProcess, tail, type RunningProcess } from './processes';
import { createRestClient, type N8nRestClient } from './rest';
import { requireN8n, type N8nRuntime } from './runtime';

/** A long-running n8n command, see spawnN8n. */
export interface N8nProcess extends RunningProcess {
	/** The env it was started with (N8N_E2E_* removed), broker port included. */
	readonly env: N8nEnv;
}

/**
 * `n8n <args>` (e.g. `['worker', '--concurrency=1']`) as a long-running process. Readiness is
 * the caller's (a worker answers on its QUEUE_HEALTH_CHECK_PORT). Keeps the env's
 * N8N_RUNNERS_BROKER_PORT when `keepBrokerPort` (the caller chose one), else gives it a fresh one.
 */
export async function spawnN8n(
	env: N8nEnv,
	args: string[],
	options: {
		runtime?: N8nRuntime;
		onOutput?: (chunk: string) => void;
		keepBrokerPort?: boolean;
	} = {},
): Promise<N8nProcess> {
	const runtime = requireN8n(options.runtime);
	const processEnv = await n8nProcessEnv(env, options.keepBrokerPort === true);
	const proc = startProcess(runtime.nodeBin, [runtime.n8nBin, ...args], {
		env: processEnv,
		cwd: env.N8N_USER_FOLDER,
		underWatchdog: true,
		onOutput: options.onOutput,
	});
	return Object.assign(proc, { env: processEnv });
}

export interface StartN8nOptions {
	/** Default: a free port. */
	port?: number;
	/** Until /healthz/readiness answers 200. Default 120 s. */
	timeoutMs?: number;
	runtime?: N8nRuntime;
	/** Stream n8n's output while it runs. */
	onOutput?: (chunk: string) => void;
}

/** A running `n8n start` and a REST client logged in as the env's owner. */
export interface N8nInstance extends N8nRestClient {
	port: number;
	pid: number;
	env: N8nEnv;
	/** Everything n8n printed so far. */
	logs(): string;
	/** SIGTERM n8n's process group, SIGKILL after 10 s; resolves once it has exited. Idempotent. */
	stop(): Promise<void>;
}

/**
 * `n8n start` on 127.0.0.1:<port> in the env's user folder; resolves once
 * /healthz/readiness answers 200 (typically ~15 s). Rejects (after killing it) if n8n exits
 * early or is not ready in time, with its output. Always `stop()` it (try/finally).
 */
export async function startN8n(env: N8nEnv, options: StartN8nOptions = {}): Promise<N8nInstance> {
	const runtime = requireN8n(options.runtime);
	const port = options.port ?? (await getFreePort());
	const baseUrl = `http://127.0.0.1:${port}`;
	const proc = await spawnN8n(
		{ ...env, N8N_PORT: String(port), N8N_LISTEN_ADDRESS: '127.0.0.1' },
		['start'],
		{ runtime, onOutput: options.onOutput },
	);
	const instance: N8nInstance = {
		...createRestClient(baseUrl, ownerLogin(env), { n8nMajor: runtime.major }),
		port,
		get pid() {
			return proc.pid;
		},
		env,
		logs: proc.logs,
		stop: () => proc.stop(),
	};

	const timeoutMs = options.timeoutMs ?? 120_000;
	try {
		await waitUntilReady(proc, baseUrl, timeoutMs);
		if (runtime.major === 1) await setUpOwner(instance, env, timeoutMs);
	} catch (err) {
		await proc.stop();
		throw new Error(
			`${(err as Error).message}\n----- n8n output (tail) -----\n${tail(proc.logs(), 60)}`,
		);
	}
	return instance;
}

/**
 * n8n 1.x does not read N8N_INSTANCE_OWNER_* (2.x creates the owner from them): set the owner up
 * as the setup screen does, POST /rest/owner/setup, once per user folder (a restarted n8n answers
 * 400 "Instance owner already setup"). Also what makes startN8n wait for 1.x's REST routes.
 */
async function setUpOwner(instance: N8nInstance, env: N8nEnv, timeoutMs: number): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const res = await instance.request('POST', '/rest/owner/setup', {
			body: {
				...ownerLogin(env),
				firstName: env.N8N_INSTANCE_OWNER_FIRST_NAME,
				lastName: env.N8N_INSTANCE_OWNER_LAST_NAME,
			},
		});
		if (res.status === 200 || (res.status === 400 && res.text.includes('already setup'))) return;
		// n8n 1.x answers /healthz/readiness before it has registered its REST routes (404) or
		// while its database is not ready (503).
		if ((res.status !== 404 && res.status !== 503) || Date.now() > deadline)
			throw new Error(`owner setup failed: HTTP ${res.status}: ${res.text.slice(0, 500)}`);
		await sleep(250);
	}
}

/** Until /healthz/readiness answers 200; throws if n8n exits first or after `timeoutMs`. */
async function waitUntilReady(
	proc: RunningProcess,
	baseUrl: string,
	timeoutMs: number,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (proc.exited)
			throw new Error(`n8n exited before it was ready (exit ${proc.exitCode ?? proc.signalCode})`);
		try {
			const res = await fetch(`${baseUrl}/healthz/readiness`, {
				signal: AbortSignal.timeout(2_000),
			});
			await res.text();
			if (res.status === 200) return;
		} catch {
			/* not listening yet */
		}
		if (Date.now() > deadline) throw new Error(`n8n not ready on ${baseUrl} after ${timeoutMs} ms`);
		await sleep(250);
	}
}
