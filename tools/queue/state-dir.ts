/**
 * The queue suite's state directory under the system temp dir (`n8n-queue-XXXXXX`): the Postgres
 * cluster, its socket and log, Redis's pid file and log, and the n8n user folders the cluster
 * module adds. Both servers are stopped and the directory removed by the caller's cleanup; a run
 * that was killed before it could clean up leaves a directory whose `owner.pid` is dead, and the
 * next run's sweepStaleStateDirs() stops what is still running there and removes it.
 */
import * as fs from 'fs';
import * as fsp from 'fs/promises';
import * as os from 'os';
import * as path from 'path';

import { isAlive, processName, readPidFile } from './commands';
import { findPostgresBinDir, stopPostgresCluster } from './postgres';

/** Prefix of the state directories under os.tmpdir(). */
export const STATE_DIR_PREFIX = 'n8n-queue-';

const OWNER_FILE = 'owner.pid';

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
