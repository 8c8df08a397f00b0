/**
 * A throwaway PostgreSQL cluster for n8n's queue mode, from the Debian packages
 * (`apt-get install -y postgresql`; `.ci/run` installs it when missing), in the state directory.
 *
 * PostgreSQL refuses to run as root: as root, every Postgres command runs as the `postgres` user
 * (`runuser -u postgres --`), and the directories it writes are handed to that user.
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as fsp from 'fs/promises';
import * as path from 'path';

import { getFreePort } from '../n8n/processes';
import { isAlive, isRoot, onPath, readPidFile, run, runOrThrow } from './commands';

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

export async function stopPostgresCluster(
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

/**
 * For exit hooks, where nothing asynchronous runs any more: what `pg_ctl -m immediate stop` does,
 * SIGQUIT to the postmaster, then up to 20 s until it has removed its pid file.
 */
export function stopPostgresNow(server: PostgresServer): void {
	const pid = server.pid();
	if (pid === undefined || !isAlive(pid)) return;
	try {
		process.kill(pid, 'SIGQUIT');
	} catch {
		return; // gone meanwhile
	}
	const pause = new Int32Array(new SharedArrayBuffer(4));
	const until = Date.now() + 20_000;
	while (server.pid() !== undefined && Date.now() < until) Atomics.wait(pause, 0, 0, 50);
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

/**
 * Runs one SQL statement as the n8n role over TCP (what n8n itself sees) and returns psql's
 * unaligned, tuples-only output (`-At`, fields separated by `|`). Throws with psql's message.
 */
export async function queryPostgres(server: PostgresServer, sql: string): Promise<string> {
	const psql = path.join(findPostgresBinDir(), 'psql');
	const args = [
		'-h',
		server.host,
		'-p',
		String(server.port),
		'-U',
		server.user,
		'-d',
		server.database,
		'-v',
		'ON_ERROR_STOP=1',
		'-At',
		'-c',
		sql,
	];
	const result = await run(psql, args, { env: { ...process.env, PGPASSWORD: server.password } });
	if (result.code !== 0) throw new Error(`psql failed (exit ${result.code}): ${result.stderr}`);
	return result.stdout;
}
