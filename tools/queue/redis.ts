/**
 * A throwaway Redis server for n8n's queue, from the Debian package
 * (`apt-get install -y redis-server`; `.ci/run` installs it when missing). It keeps nothing on
 * disk (`--save ''`, no AOF); its pid file and log are in the state directory.
 */
import * as fsp from 'fs/promises';
import * as path from 'path';
import { setTimeout as sleep } from 'timers/promises';

import { getFreePort } from '../n8n/processes';
import { isAlive, onPath, readPidFile, run, runOrThrow } from './commands';

export function findRedisServer(): string {
	const bin = onPath('redis-server');
	if (!bin)
		throw new Error(
			'Redis is not installed (no redis-server): apt-get install -y redis-server (.ci/run installs it when missing)',
		);
	return bin;
}

export interface RedisServer {
	host: string;
	port: number;
	pid(): number | undefined;
	/**
	 * One command through `redis-cli` (e.g. `['LRANGE', 'bull:jobs:active', '0', '-1']`); resolves
	 * to its raw output (one line per list element). Throws when Redis answers an error.
	 */
	command(args: string[]): Promise<string>;
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
		command: async (args) => {
			const result = await run(cli, ['-h', '127.0.0.1', '-p', String(port), ...args], {
				timeoutMs: 10_000,
			});
			// Without a terminal redis-cli prints Redis's errors on stdout and exits 0.
			if (result.code !== 0 || /^(ERR|WRONGTYPE|NOSCRIPT|BUSY|LOADING)\b/.test(result.stdout))
				throw new Error(
					`redis-cli ${args[0]} failed: ${(result.stderr + result.stdout).trim().slice(0, 500)}`,
				);
			return result.stdout;
		},
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
