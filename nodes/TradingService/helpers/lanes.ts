import { sleep } from 'n8n-workflow';

export interface LaneOptions {
	/** Asked before each start: once it says so, nothing more is started. */
	stopped?: () => boolean;
	/**
	 * Whether the lanes open a timer tick apart. A task that fails before its first request (an
	 * item's bad input) has then said so before the next lane starts, so it stops the run with
	 * nothing more sent, as one after the other would; later starts follow an answer, so every such
	 * failure is known by then. Not needed when every task was checked before (Create Many).
	 */
	staggered?: boolean;
}

/**
 * Runs `task` for 0 … count − 1, at most `parallel` at once, starting them in order. Once
 * `stopped` says so, nothing more is started and what is in flight finishes. Resolves when every
 * started task has ended; a task's failure is its own to handle.
 */
export async function inLanes(
	count: number,
	parallel: number,
	task: (index: number) => Promise<void>,
	{ stopped = () => false, staggered = false }: LaneOptions = {},
): Promise<void> {
	let next = 0;
	const lane = async () => {
		while (next < count && !stopped()) await task(next++);
	};
	const lanes: Array<Promise<void>> = [];
	const laneCount = Math.max(1, Math.min(parallel, count));
	for (let opened = 0; opened < laneCount && next < count && !stopped(); opened++) {
		if (opened > 0 && staggered) await sleep(0);
		lanes.push(lane());
	}
	await Promise.all(lanes);
}
