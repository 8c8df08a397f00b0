/**
 * n8n in queue mode on one machine, the way it is deployed on several: PostgreSQL and Redis
 * (tools/queue/postgres.ts and redis.ts), one n8n main process (`n8n start`: editor, REST API,
 * webhooks, triggers and polls) and N `n8n worker` processes that take executions from the Redis
 * queue.
 *
 * Each n8n process gets its own user folder (as on separate hosts) with the package unpacked into
 * `.n8n/nodes` from `npm pack`, as tools/n8n/package.ts does for one process; they share the
 * database, the queue and the encryption key through the environment below (queueEnv). Each has
 * its own task-runner broker port; each worker its own health-check port.
 *
 *   const cluster = await startQueueCluster({ credentials, workflows });
 *   try {
 *     const cookie = await cluster.main.login();
 *     ...
 *     cluster.workerOf(executionId);                  // 'worker-1' | 'worker-2' | undefined
 *     await cluster.restartMain(async () => { ... });   // main down while the callback runs
 *     await cluster.killMain(async () => { ... });      // SIGKILL main's process group, then the same
 *     await cluster.workers[0].kill();                   // SIGKILL its process group (a crash)
 *     await cluster.workers[0].start();                  // and back
 *   } finally {
 *     await cluster.stop();                            // every process, the database, the state dir
 *   }
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as fsp from 'fs/promises';
import * as path from 'path';

import { QUIET_N8N_ENV } from '../n8n/fixture';
import { importCredentials, importWorkflow, type N8nCredential } from '../n8n/cli';
import { createN8nEnv, type N8nEnv } from '../n8n/environment';
import { packAndInstallPackage } from '../n8n/package';
import { getFreePort } from '../n8n/processes';
import { ensureRuntime } from '../n8n/runtime';
import { spawnN8n, startN8n, type N8nInstance, type N8nProcess } from '../n8n/server';
import { isAlive } from './commands';
import { startPostgres, stopPostgresNow, type PostgresServer } from './postgres';
import { startRedis, type RedisServer } from './redis';
import { createStateDir, sweepStaleStateDirs } from './state-dir';

export interface QueueClusterOptions {
	/** Workflows and credentials imported (CLI) before the main process starts. */
	credentials: N8nCredential[];
	workflows: object[];
	/** Default 2. */
	workers?: number;
	/** `n8n worker --concurrency=N`; default 1. */
	concurrency?: number;
	/** Variables only the workers get, besides the shared ones (e.g. QUEUE_WORKER_LOCK_DURATION). */
	workerEnv?: Record<string, string>;
	/** Progress lines. */
	log?: (line: string) => void;
}

export interface QueueWorker {
	/** `worker-1`, `worker-2`, … */
	name: string;
	userFolder: string;
	/** QUEUE_HEALTH_CHECK_PORT: /healthz and /healthz/readiness on 127.0.0.1. */
	healthPort: number;
	/** N8N_RUNNERS_BROKER_PORT of this worker. */
	brokerPort: number;
	/** The env it runs with (N8N_E2E_* private keys included; spawnN8n strips them). */
	env: N8nEnv;
	readonly running: boolean;
	/** Everything its processes printed, across restarts. */
	logs(): string;
	/** Ids of the executions it started ("Worker started execution <id>" in its log). */
	executions(): string[];
	/** `n8n worker --concurrency=N`; resolves when /healthz/readiness answers 200. */
	start(): Promise<void>;
	/** Graceful: SIGTERM (n8n drains its running executions), SIGKILL after 10 s. */
	stop(): Promise<void>;
	/**
	 * A crash (an OOM kill, a lost host): SIGKILL to the worker's whole process group (n8n and its
	 * task runner) at once, sent synchronously before this returns, so a test may call it from
	 * inside a synchronous hook; the promise resolves once the group is gone. No shutdown code
	 * runs: the Bull job keeps its lock until the lock expires, the execution stays `running` in
	 * the database. `start()` brings the worker back (same env, ports and user folder).
	 */
	kill(): Promise<void>;
	pid(): number | undefined;
}

export interface QueueCluster {
	/** The state directory (database, Redis files, user folders); removed by stop(). */
	root: string;
	postgres: PostgresServer;
	redis: RedisServer;
	/** The variables every n8n process of the cluster shares (database, queue, key, modes). */
	queueEnv: Record<string, string>;
	/** The main process's env. */
	mainEnv: N8nEnv;
	mainPort: number;
	/** The running main process (a new object after restartMain()). */
	readonly main: N8nInstance;
	workers: QueueWorker[];
	/** Everything the main processes printed, across restarts. */
	mainLogs(): string;
	/** Stops the main process, runs `whileStopped`, starts it again (same env and port). */
	restartMain(whileStopped?: () => Promise<void> | void): Promise<void>;
	/**
	 * A crash of the main process: SIGKILL to its whole process group (n8n and its task runner),
	 * sent synchronously before this returns, so no shutdown code runs (triggers are not closed,
	 * nothing more is saved); once the group is gone, runs `whileDown`, then starts the main
	 * process again (same env and port).
	 */
	killMain(whileDown?: () => Promise<void> | void): Promise<void>;
	/** The worker whose log says it started the execution, if any. */
	workerOf(executionId: string): string | undefined;
	/** What is still running or on disk (empty after a clean stop()). */
	leftovers(): string[];
	/** Stops every n8n process, Postgres and Redis, and removes the state directory. Idempotent. */
	stop(): Promise<void>;
}

function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

function groupAlive(pid: number | undefined): boolean {
	if (pid === undefined || pid <= 0) return false;
	try {
		process.kill(-pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

const STARTED_EXECUTION = /Worker started execution (\d+)/g;

/**
 * The environment shared by the main process and every worker: queue mode, the Postgres
 * database, the Redis queue, the encryption key (credentials are decrypted on the workers), and
 * manual executions sent to the workers too.
 */
export function buildQueueEnv(
	postgres: PostgresServer,
	redis: RedisServer,
	encryptionKey: string,
): Record<string, string> {
	return {
		EXECUTIONS_MODE: 'queue',
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: postgres.host,
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: postgres.database,
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: postgres.password,
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		N8N_ENCRYPTION_KEY: encryptionKey,
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		...QUIET_N8N_ENV,
	};
}

export async function startQueueCluster(options: QueueClusterOptions): Promise<QueueCluster> {
	const log = options.log ?? (() => undefined);
	const workerCount = options.workers ?? 2;
	const concurrency = options.concurrency ?? 1;
	await ensureRuntime({ quiet: true });
	const swept = await sweepStaleStateDirs();
	if (swept.length > 0)
		log(`removed ${swept.length} state dir(s) left by killed runs: ${swept.join(', ')}`);

	const root = await createStateDir();
	let postgres: PostgresServer | undefined;
	let redis: RedisServer | undefined;
	let main: N8nInstance | undefined;
	let mainLogsBefore = '';
	const workers: QueueWorker[] = [];
	let stopped = false;

	// Last resort when this process exits without stop() (an uncaught error, process.exit): n8n's
	// own children are killed by tools/n8n/processes.ts; Postgres and Redis are daemons, stop them
	// here.
	const exitHook = () => {
		if (stopped) return;
		try {
			if (postgres) stopPostgresNow(postgres);
			const redisPid = redis?.pid();
			if (redisPid !== undefined && isAlive(redisPid)) process.kill(redisPid, 'SIGKILL');
		} catch {
			/* best effort */
		}
		fs.rmSync(root, { recursive: true, force: true });
	};
	process.on('exit', exitHook);

	const stopAll = async (): Promise<void> => {
		if (stopped) return;
		await main?.stop();
		await Promise.all(workers.map((w) => w.stop()));
		await postgres?.stop();
		await redis?.stop();
		await fsp.rm(root, { recursive: true, force: true });
		stopped = true;
		process.removeListener('exit', exitHook);
	};

	try {
		const encryptionKey = randomBytes(32).toString('hex');
		log(`state dir ${root}`);
		[postgres, redis] = await Promise.all([startPostgres(root), startRedis(root)]);
		log(
			`postgres on ${postgres.host}:${postgres.port} (database ${postgres.database}), redis on ${redis.host}:${redis.port}`,
		);
		const queueEnv = buildQueueEnv(postgres, redis, encryptionKey);

		const mainFolder = path.join(root, 'main');
		const mainPort = await getFreePort();
		await packAndInstallPackage(mainFolder);
		const mainEnv = await createN8nEnv({
			userFolder: mainFolder,
			encryptionKey,
			extra: { ...queueEnv, N8N_WEBHOOK_URL: `http://127.0.0.1:${mainPort}/` },
		});

		for (let i = 1; i <= workerCount; i++) {
			const name = `worker-${i}`;
			const userFolder = path.join(root, name);
			await packAndInstallPackage(userFolder);
			const healthPort = await getFreePort();
			const brokerPort = await getFreePort();
			const env = await createN8nEnv({
				userFolder,
				encryptionKey,
				extra: {
					...queueEnv,
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(healthPort),
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
					N8N_RUNNERS_BROKER_PORT: String(brokerPort),
					...options.workerEnv,
				},
			});
			workers.push(makeWorker(name, userFolder, env, healthPort, brokerPort, concurrency));
		}
		log(`package unpacked into ${1 + workerCount} user folders (.n8n/nodes)`);

		// The CLI migrates the empty database on its first run, then imports.
		await importCredentials(mainEnv, options.credentials, { timeoutMs: 300_000 });
		if (options.workflows.length > 0)
			await importWorkflow(mainEnv, options.workflows, { timeoutMs: 300_000 });
		log(
			`imported ${options.credentials.length} credential(s) and ${options.workflows.length} workflow(s)`,
		);

		const started = Date.now();
		[main] = await Promise.all([
			startN8n(mainEnv, { port: mainPort, timeoutMs: 180_000 }),
			...workers.map((w) => w.start()),
		]);
		log(
			`main on http://127.0.0.1:${mainPort} and ${workerCount} workers (concurrency ${concurrency}) ready in ${((Date.now() - started) / 1000).toFixed(1)} s`,
		);

		const cluster: QueueCluster = {
			root,
			postgres,
			redis,
			queueEnv,
			mainEnv,
			mainPort,
			get main() {
				if (!main) throw new Error('the main process is not running');
				return main;
			},
			workers,
			mainLogs: () => mainLogsBefore + (main?.logs() ?? ''),
			async restartMain(whileStopped) {
				if (main) {
					await main.stop();
					mainLogsBefore += main.logs();
				}
				main = undefined;
				await whileStopped?.();
				main = await startN8n(mainEnv, { port: mainPort, timeoutMs: 180_000 });
			},
			killMain(whileDown) {
				const killed = main;
				if (killed && groupAlive(killed.pid)) {
					try {
						process.kill(-killed.pid, 'SIGKILL');
					} catch {
						/* the group is already gone */
					}
				}
				return (async () => {
					if (killed) {
						const deadline = Date.now() + 15_000;
						while (groupAlive(killed.pid) && Date.now() < deadline) await sleep(20);
						if (groupAlive(killed.pid))
							throw new Error(`main: process group ${killed.pid} still alive 15 s after SIGKILL`);
						// Forget the child (stop() on an exited process only sweeps its group).
						await killed.stop();
						mainLogsBefore += killed.logs();
					}
					main = undefined;
					await whileDown?.();
					main = await startN8n(mainEnv, { port: mainPort, timeoutMs: 180_000 });
				})();
			},
			workerOf(executionId) {
				return workers.find((w) => w.executions().includes(executionId))?.name;
			},
			leftovers() {
				const left: string[] = [];
				if (main && groupAlive(main.pid)) left.push(`n8n main (process group ${main.pid})`);
				for (const w of workers)
					if (groupAlive(w.pid())) left.push(`n8n ${w.name} (process group ${w.pid()})`);
				const pgPid = postgres?.pid();
				if (pgPid !== undefined && isAlive(pgPid)) left.push(`postgres (pid ${pgPid})`);
				const redisPid = redis?.pid();
				if (redisPid !== undefined && isAlive(redisPid))
					left.push(`redis-server (pid ${redisPid})`);
				if (fs.existsSync(root)) left.push(`state dir ${root}`);
				return left;
			},
			stop: stopAll,
		};
		return cluster;
	} catch (error) {
		const tails = [
			main ? `--- main ---\n${main.logs().slice(-4000)}` : '',
			...workers.map((w) => `--- ${w.name} ---\n${w.logs().slice(-4000)}`),
		].join('\n');
		await stopAll();
		throw new Error(`${(error as Error).message}\n${tails}`);
	}
}

function makeWorker(
	name: string,
	userFolder: string,
	env: N8nEnv,
	healthPort: number,
	brokerPort: number,
	concurrency: number,
): QueueWorker {
	let proc: N8nProcess | undefined;
	let earlierLogs = '';
	const logs = () => earlierLogs + (proc?.logs() ?? '');
	return {
		name,
		userFolder,
		healthPort,
		brokerPort,
		env,
		get running() {
			return proc !== undefined && !proc.exited;
		},
		logs,
		executions: () => [...logs().matchAll(STARTED_EXECUTION)].map((m) => m[1]),
		pid: () => proc?.pid,
		async start() {
			if (proc && !proc.exited) return;
			if (proc) earlierLogs += proc.logs();
			proc = await spawnN8n(env, ['worker', `--concurrency=${concurrency}`], {
				keepBrokerPort: true,
			});
			const deadline = Date.now() + 180_000;
			for (;;) {
				if (proc.exited)
					throw new Error(`${name} exited before it was ready:\n${proc.logs().slice(-4000)}`);
				try {
					const res = await fetch(`http://127.0.0.1:${healthPort}/healthz/readiness`, {
						signal: AbortSignal.timeout(2_000),
					});
					await res.text();
					if (res.status === 200) return;
				} catch {
					/* not listening yet */
				}
				if (Date.now() > deadline) {
					await proc.stop();
					throw new Error(
						`${name} not ready on port ${healthPort} after 180 s:\n${proc.logs().slice(-4000)}`,
					);
				}
				await sleep(250);
			}
		},
		async stop() {
			await proc?.stop();
		},
		kill() {
			const killed = proc;
			if (!killed || killed.exited) return Promise.resolve();
			try {
				process.kill(-killed.pid, 'SIGKILL');
			} catch {
				/* the group is already gone */
			}
			return (async () => {
				const deadline = Date.now() + 15_000;
				while ((!killed.exited || groupAlive(killed.pid)) && Date.now() < deadline) await sleep(20);
				if (!killed.exited || groupAlive(killed.pid))
					throw new Error(`${name}: process group ${killed.pid} still alive 15 s after SIGKILL`);
				// Forget the child (stop() on an exited process only sweeps its group).
				await killed.stop();
			})();
		},
	};
}
