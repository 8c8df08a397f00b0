/**
 * n8n's job queue in Redis, as the queue suite needs to look at it and to re-deliver a job the
 * way Bull does.
 *
 * n8n 2.41.1 queues executions with Bull 4 (`node_modules/n8n/dist/scaling/scaling.service.js`):
 * prefix `QUEUE_BULL_PREFIX` (default `bull`), queue `jobs` (`resolveQueueName` in
 * `scaling/queue-name.js`: `jobs` for the main process and for a worker outside a worker pool), so
 * the keys are `bull:jobs:wait` (list), `bull:jobs:active` (list), `bull:jobs:<jobId>` (hash; its
 * `data` field is the job's JSON with `executionId`), `bull:jobs:<jobId>:lock` (the worker's lock,
 * renewed while it runs), `bull:jobs:stalled` (set).
 *
 * Re-delivery: Bull's stalled-job check (`moveStalledJobsToWait-7.lua`, every
 * QUEUE_WORKER_STALLED_INTERVAL) takes an active job whose lock has expired off `active` and, while
 * its `stalledCounter` stays within `maxStalledCount`, pushes it back onto `wait` (RPUSH: the next
 * job a worker takes), where another worker takes the same job, with the same execution ID. n8n
 * 2.41.1 sets `maxStalledCount: 0` in its Bull settings, so it fails such a job instead;
 * redeliverJob() does what Bull does with `maxStalledCount` ≥ 1 (older n8n versions), and
 * redeliverWhenLockExpires() does it when Bull could: once the dead worker's lock runs out
 * (QUEUE_WORKER_LOCK_DURATION after its last renewal), before Bull's own stall check fails the job.
 */
import type { RedisServer } from './redis';

/** n8n's Bull prefix (QUEUE_BULL_PREFIX, default) and queue name (scaling/queue-name.js). */
export const BULL_PREFIX = 'bull';
export const BULL_QUEUE = 'jobs';

function key(name: string): string {
	return `${BULL_PREFIX}:${BULL_QUEUE}:${name}`;
}

/** The ids of the jobs in the queue's `active` list. */
export async function activeJobIds(redis: RedisServer): Promise<string[]> {
	const out = await redis.command(['LRANGE', key('active'), '0', '-1']);
	return out.split('\n').filter((line) => line.trim() !== '');
}

/** The execution ID a job carries (its `data.executionId`), if the job exists. */
export async function executionOfJob(
	redis: RedisServer,
	jobId: string,
): Promise<string | undefined> {
	const data = (await redis.command(['HGET', key(jobId), 'data'])).trim();
	if (data === '') return undefined;
	try {
		const parsed = JSON.parse(data) as { executionId?: unknown };
		return parsed.executionId === undefined ? undefined : String(parsed.executionId);
	} catch {
		return undefined;
	}
}

/** The active job that runs `executionId`, if any. */
export async function findActiveJob(
	redis: RedisServer,
	executionId: string,
): Promise<string | undefined> {
	for (const jobId of await activeJobIds(redis)) {
		if ((await executionOfJob(redis, jobId)) === executionId) return jobId;
	}
	return undefined;
}

/**
 * Bull's re-delivery of one stalled job, atomically (one Lua script, as Bull's own): off `active`,
 * its lock deleted (the dead worker's; Bull waits for it to expire), out of the `stalled` set
 * (Bull's script empties that set), `stalledCounter` + 1, RPUSH onto `wait` (or `paused` when the
 * queue is paused, as Bull's getTargetQueueList), and the `stalled` event published. Returns false
 * when the job was not in `active`.
 */
const REDELIVER_LUA = `
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then return 0 end
redis.call('DEL', KEYS[2])
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('HINCRBY', KEYS[4], 'stalledCounter', 1)
local target = KEYS[5]
if redis.call('EXISTS', KEYS[6]) == 1 then target = KEYS[7] end
redis.call('RPUSH', target, ARGV[1])
redis.call('PUBLISH', KEYS[3] .. '@', ARGV[1])
return 1
`;

export async function redeliverJob(redis: RedisServer, jobId: string): Promise<boolean> {
	const keys = [
		key('active'),
		key(`${jobId}:lock`),
		key('stalled'),
		key(jobId),
		key('wait'),
		key('meta-paused'),
		key('paused'),
	];
	const out = await redis.command(['EVAL', REDELIVER_LUA, String(keys.length), ...keys, jobId]);
	return out.trim() === '1';
}

/** Milliseconds the job's lock has left; -2 when there is none (Redis's PTTL). */
export async function lockTtlMs(redis: RedisServer, jobId: string): Promise<number> {
	return Number((await redis.command(['PTTL', key(`${jobId}:lock`)])).trim());
}

/**
 * Waits until the job's lock has at most `marginMs` left (the dead worker can no longer renew it),
 * then re-delivers the job (redeliverJob, which deletes what is left of the lock in the same
 * script): the earliest moment Bull's stall check could have done it, and before n8n 2.41.1's
 * stall check (every QUEUE_WORKER_STALLED_INTERVAL) fails it. Returns how long it waited, or
 * throws when the job left `active` meanwhile.
 */
export async function redeliverWhenLockExpires(
	redis: RedisServer,
	jobId: string,
	options: { marginMs?: number; timeoutMs?: number } = {},
): Promise<{ waitedMs: number; lockTtlMs: number }> {
	const margin = options.marginMs ?? 100;
	const started = Date.now();
	const first = await lockTtlMs(redis, jobId);
	const deadline = started + (options.timeoutMs ?? 300_000);
	for (;;) {
		const ttl = await lockTtlMs(redis, jobId);
		if (ttl === -1) throw new Error(`job ${jobId}: its lock has no expiry`);
		if (ttl <= margin) break;
		if (Date.now() > deadline)
			throw new Error(`job ${jobId}: its lock is still held (${ttl} ms left)`);
		await new Promise((resolve) =>
			setTimeout(resolve, Math.min(1_000, Math.max(10, ttl - margin - 200))),
		);
	}
	if (!(await redeliverJob(redis, jobId)))
		throw new Error(
			`job ${jobId} was no longer in ${key('active')} when its lock expired (n8n's stall check failed it first?)`,
		);
	return { waitedMs: Date.now() - started, lockTtlMs: first };
}
