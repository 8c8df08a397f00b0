/**
 * Throwaway PostgreSQL and Redis servers for n8n's queue mode, from the Debian packages
 * (`apt-get install -y postgresql redis-server`; `.ci/run` installs them when missing).
 *
 * Everything lives in one state directory under the system temp dir (`n8n-queue-XXXXXX`): the
 * Postgres cluster, its socket and log, Redis's pid file and log, and the n8n user folders the
 * cluster module adds. Redis keeps nothing on disk (`--save ''`, no AOF). Both servers are stopped
 * and the directory removed by the caller's cleanup; a run that was killed before it could clean
 * up leaves a directory whose `owner.pid` is dead, and the next run's sweepStaleStateDirs() stops
 * what is still running there and removes it.
 *
 * PostgreSQL refuses to run as root: as root, every Postgres command runs as the `postgres` user
 * (`runuser -u postgres --`), and the directories it writes are handed to that user.
 */
import { execFile } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as fsp from 'fs/promises';
import * as os from 'os';
import * as path from 'path';

import { getFreePort } from '../n8n/n8n';

/** Prefix of the state directories under os.tmpdir(). */
export const STATE_DIR_PREFIX = 'n8n-queue-';

const OWNER_FILE = 'owner.pid';

export interface CommandResult {
	code: number;
	stdout: string;
	stderr: string;
}

/** Runs a short command (no shell); never throws for a non-zero exit. */
export function run(
	command: string,
	args: string[],
	options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandResult> {
	return new Promise((resolve) => {
		execFile(
			command,
			args,
			{
				timeout: options.timeoutMs ?? 60_000,
				env: options.env ?? process.env,
				maxBuffer: 16 * 1024 * 1024,
			},
			(error, stdout, stderr) => {
				const code = error
					? typeof (error as { code?: unknown }).code === 'number'
						? (error as { code: number }).code
						: 1
					: 0;
				resolve({
					code,
					stdout: String(stdout),
					stderr: String(stderr) + (error && code === 1 && !stderr ? error.message : ''),
				});
			},
		);
	});
}

async function runOrThrow(
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

function isRoot(): boolean {
	return typeof process.getuid === 'function' && process.getuid() === 0;
}

function isAlive(pid: number): boolean {
	if (!(pid > 0)) return false;
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------------------------------------
// Finding the binaries
// ---------------------------------------------------------------------------------------------

function onPath(name: string): string | undefined {
	for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
		if (dir && fs.existsSync(path.join(dir, name))) return path.join(dir, name);
	}
	return undefined;
}

/**
 * Directory of the PostgreSQL server binaries (initdb, pg_ctl, psql, createdb). Debian keeps them
 * in /usr/lib/postgresql/<major>/bin, off PATH (its /usr/bin wrappers need a configured cluster);
 * the newest major wins. Elsewhere, the directory of `initdb` on PATH.
 */
export function findPostgresBinDir(): string {
	const debianRoot = '/usr/lib/postgresql';
	if (fs.existsSync(debianRoot)) {
		const majors = fs
			.readdirSync(debianRoot)
			.filter(
				(v) => /^\d+(\.\d+)?$/.test(v) && fs.existsSync(path.join(debianRoot, v, 'bin', 'initdb')),
			)
			.sort((a, b) => Number(b) - Number(a));
		if (majors.length > 0) return path.join(debianRoot, majors[0], 'bin');
	}
	const initdb = onPath('initdb');
	if (initdb) return path.dirname(fs.realpathSync(initdb));
	throw new Error(
		'PostgreSQL is not installed (no initdb): apt-get install -y postgresql (.ci/run installs it when missing)',
	);
}

export function findRedisServer(): string {
	const bin = onPath('redis-server');
	if (!bin)
		throw new Error(
			'Redis is not installed (no redis-server): apt-get install -y redis-server (.ci/run installs it when missing)',
		);
	return bin;
}

// ---------------------------------------------------------------------------------------------
// State directory
// ---------------------------------------------------------------------------------------------

/** A fresh state directory (mode 0755 so that the postgres user can reach its own subfolder). */
export async function createStateDir(): Promise<string> {
	const root = await fsp.mkdtemp(path.join(os.tmpdir(), STATE_DIR_PREFIX));
	await fsp.chmod(root, 0o755);
	await fsp.writeFile(path.join(root, OWNER_FILE), `${process.pid}\n`);
	return root;
}

/**
 * Stops what a killed earlier run left behind (its owner process is gone): the Postgres cluster
 * and the Redis server of each such state directory, then removes the directory. Returns the
 * directories removed.
 */
export async function sweepStaleStateDirs(): Promise<string[]> {
	const removed: string[] = [];
	let entries: string[] = [];
	try {
		entries = await fsp.readdir(os.tmpdir());
	} catch {
		return removed;
	}
	for (const name of entries) {
		if (!name.startsWith(STATE_DIR_PREFIX)) continue;
		const root = path.join(os.tmpdir(), name);
		let owner = 0;
		try {
			owner = Number((await fsp.readFile(path.join(root, OWNER_FILE), 'utf8')).trim());
		} catch {
			continue; // not one of ours, or still being created
		}
		if (isAlive(owner)) continue;
		const pgData = path.join(root, 'postgres', 'data');
		if (fs.existsSync(path.join(pgData, 'postmaster.pid'))) {
			try {
				await stopPostgresCluster(findPostgresBinDir(), pgData, 'immediate');
			} catch {
				/* best effort; the directory goes anyway */
			}
		}
		const redisPid = readPidFile(path.join(root, 'redis', 'redis.pid'));
		if (redisPid !== undefined && isAlive(redisPid) && processName(redisPid).startsWith('redis')) {
			try {
				process.kill(redisPid, 'SIGKILL');
			} catch {
				/* gone */
			}
		}
		await fsp.rm(root, { recursive: true, force: true });
		removed.push(root);
	}
	return removed;
}

function readPidFile(file: string): number | undefined {
	try {
		const pid = Number(fs.readFileSync(file, 'utf8').split('\n')[0].trim());
		return pid > 0 ? pid : undefined;
	} catch {
		return undefined;
	}
}

function processName(pid: number): string {
	try {
		return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
	} catch {
		return '';
	}
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL
// ---------------------------------------------------------------------------------------------

export interface PostgresServer {
	host: string;
	port: number;
	database: string;
	user: string;
	password: string;
	/** The cluster's data directory (removed by stop()). */
	dataDir: string;
	/** Pid of the postmaster (from postmaster.pid), for leftover checks. */
	pid(): number | undefined;
	/** Fast shutdown, then the cluster's files are deleted. Idempotent. */
	stop(): Promise<void>;
}

/** Runs a Postgres binary as the `postgres` user when we are root. */
function pgCommand(binDir: string, name: string, args: string[]): [string, string[]] {
	const bin = path.join(binDir, name);
	return isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
}

async function stopPostgresCluster(
	binDir: string,
	dataDir: string,
	mode: 'fast' | 'immediate',
): Promise<void> {
	const [cmd, args] = pgCommand(binDir, 'pg_ctl', [
		'-D',
		dataDir,
		'-m',
		mode,
		'-w',
		'-t',
		'30',
		'stop',
	]);
	const result = await run(cmd, args, { timeoutMs: 40_000 });
	if (result.code !== 0 && fs.existsSync(path.join(dataDir, 'postmaster.pid'))) {
		throw new Error(`pg_ctl stop failed: ${(result.stderr + result.stdout).trim()}`);
	}
}

async function giveToPostgresUser(dir: string): Promise<void> {
	if (!isRoot()) return;
	const uid = Number(
		(await runOrThrow('id', ['-u', 'postgres'], 'looking up the postgres user')).stdout.trim(),
	);
	const gid = Number(
		(await runOrThrow('id', ['-g', 'postgres'], 'looking up the postgres group')).stdout.trim(),
	);
	await fsp.chown(dir, uid, gid);
}

/**
 * A new PostgreSQL cluster in `<root>/postgres` listening on 127.0.0.1:<free port>, with a login
 * role and a database for n8n (both `n8n`, password-authenticated over TCP as n8n connects in
 * production; the superuser only over the private Unix socket). Durability is off (fsync,
 * synchronous_commit, full_page_writes): the cluster is deleted after the run.
 */
export async function startPostgres(root: string): Promise<PostgresServer> {
	const binDir = findPostgresBinDir();
	const base = path.join(root, 'postgres');
	const dataDir = path.join(base, 'data');
	const socketDir = path.join(base, 'socket');
	const logFile = path.join(base, 'postgres.log');
	await fsp.mkdir(socketDir, { recursive: true });
	for (const dir of [base, socketDir]) await giveToPostgresUser(dir);
	const port = await getFreePort();
	const password = randomBytes(12).toString('hex');

	const initdb = pgCommand(binDir, 'initdb', [
		'-D',
		dataDir,
		'-U',
		'postgres',
		'--auth-local=trust',
		'--auth-host=scram-sha-256',
		'-E',
		'UTF8',
		'--locale=C',
		'--no-sync',
		'--no-instructions',
	]);
	await runOrThrow(initdb[0], initdb[1], 'initdb', { timeoutMs: 120_000 });

	const serverOptions = [
		`-p ${port}`,
		`-k ${socketDir}`,
		'-h 127.0.0.1',
		'-c fsync=off',
		'-c synchronous_commit=off',
		'-c full_page_writes=off',
		'-c max_connections=100',
	].join(' ');
	const start = pgCommand(binDir, 'pg_ctl', [
		'-D',
		dataDir,
		'-o',
		serverOptions,
		'-l',
		logFile,
		'-w',
		'-t',
		'60',
		'start',
	]);
	const started = await run(start[0], start[1], { timeoutMs: 90_000 });
	if (started.code !== 0) {
		const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-3000) : '';
		throw new Error(
			`pg_ctl start failed (exit ${started.code}): ${started.stderr}${started.stdout}\n${log}`,
		);
	}

	const server: PostgresServer = {
		host: '127.0.0.1',
		port,
		database: 'n8n',
		user: 'n8n',
		password,
		dataDir,
		pid: () => readPidFile(path.join(dataDir, 'postmaster.pid')),
		stop: async () => {
			if (fs.existsSync(path.join(dataDir, 'postmaster.pid'))) {
				try {
					await stopPostgresCluster(binDir, dataDir, 'fast');
				} catch {
					await stopPostgresCluster(binDir, dataDir, 'immediate');
				}
			}
			await fsp.rm(base, { recursive: true, force: true });
		},
	};
	try {
		// As the superuser over the Unix socket (local trust), whoever we are.
		const psql = path.join(binDir, 'psql');
		const su = [
			'-h',
			socketDir,
			'-p',
			String(port),
			'-U',
			'postgres',
			'-v',
			'ON_ERROR_STOP=1',
			'-q',
		];
		await runOrThrow(
			psql,
			[...su, '-d', 'postgres', '-c', `CREATE ROLE n8n LOGIN PASSWORD '${password}'`],
			'creating the n8n role',
		);
		await runOrThrow(
			psql,
			[...su, '-d', 'postgres', '-c', 'CREATE DATABASE n8n OWNER n8n'],
			'creating the n8n database',
		);
	} catch (error) {
		await server.stop();
		throw error;
	}
	return server;
}

// ---------------------------------------------------------------------------------------------
// Redis
// ---------------------------------------------------------------------------------------------

export interface RedisServer {
	host: string;
	port: number;
	pid(): number | undefined;
	/** SHUTDOWN NOSAVE (SIGKILL if it does not go), then its files are deleted. Idempotent. */
	stop(): Promise<void>;
}

/** redis-server on 127.0.0.1:<free port>, in memory only, daemonized with a pid file in `<root>/redis`. */
export async function startRedis(root: string): Promise<RedisServer> {
	const bin = findRedisServer();
	const cli = path.join(path.dirname(bin), 'redis-cli');
	const dir = path.join(root, 'redis');
	await fsp.mkdir(dir, { recursive: true });
	const port = await getFreePort();
	const pidFile = path.join(dir, 'redis.pid');
	await runOrThrow(
		bin,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--daemonize',
			'yes',
			'--pidfile',
			pidFile,
			'--logfile',
			path.join(dir, 'redis.log'),
			'--dir',
			dir,
		],
		'redis-server',
	);
	const deadline = Date.now() + 20_000;
	for (;;) {
		const ping = await run(cli, ['-h', '127.0.0.1', '-p', String(port), 'ping'], {
			timeoutMs: 5_000,
		});
		if (ping.stdout.trim() === 'PONG') break;
		if (Date.now() > deadline)
			throw new Error(`redis-server on port ${port} did not answer PING: ${ping.stderr}`);
		await sleep(100);
	}
	const pid = () => readPidFile(pidFile);
	const started = pid();
	return {
		host: '127.0.0.1',
		port,
		pid,
		stop: async () => {
			if (started !== undefined && isAlive(started)) {
				await run(cli, ['-h', '127.0.0.1', '-p', String(port), 'shutdown', 'nosave'], {
					timeoutMs: 10_000,
				});
				const until = Date.now() + 10_000;
				while (isAlive(started) && Date.now() < until) await sleep(100);
				if (isAlive(started)) process.kill(started, 'SIGKILL');
			}
			await fsp.rm(dir, { recursive: true, force: true });
		},
	};
}

export { isAlive };
