/**
 * Parallel lanes of sandboxes for the seeded fault files (businessKeys, cancelMany, createLate):
 * each lane is a sandbox of its own running one scenario at a time (reset by the scenario), the
 * lanes overlap while runs wait on lookups, backoff and late writes. A plan's runs are
 * deterministic whatever lane runs them: each run resets its sandbox and carries its own seed.
 * The sandboxes keep the exchange's documented request rates, and no run may meet them.
 */
import { startSandbox, type Sandbox } from '../../sandbox';

export async function runInLanes<P, R>(
	plan: readonly P[],
	lanes: number,
	run: (sb: Sandbox, cell: P) => Promise<R>,
): Promise<R[]> {
	const sandboxes: Sandbox[] = [];
	for (let lane = 0; lane < lanes; lane++)
		sandboxes.push(await startSandbox({ rateLimit: false, symbolRules: 'lenient' }));
	const results: R[] = new Array<R>(plan.length);
	let next = 0;
	try {
		await Promise.all(
			sandboxes.map(async (sb) => {
				for (let index = next++; index < plan.length; index = next++) {
					results[index] = await run(sb, plan[index]);
					// Every lane keeps the exchange's documented request rates (the sandbox's default):
					// a run that met them, or sent into a suspension, fails the file.
					const limits = sb.rateLimitStats();
					if (limits.rateLimited + limits.intoSuspension > 0) {
						const refused = sb.ledger.requests.find((request) => request.limit !== undefined)!;
						const second = sb.ledger.requests
							.filter(
								(request) =>
									request.rateClass === refused.rateClass &&
									request.apiKey === refused.apiKey &&
									request.at > refused.at - 1000 &&
									request.at <= refused.at,
							)
							.map(
								(request) => `${request.at} ${request.method} ${request.path} ${request.status}`,
							);
						throw new Error(
							`run ${index} of the plan met the sandbox's request-rate limit: ${JSON.stringify(limits)}; the second before it: ${second.join('; ')}`,
						);
					}
				}
			}),
		);
	} finally {
		await Promise.all(sandboxes.map((sb) => sb.stop()));
	}
	return results;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Counts of values, as a printable object. */
export function countBy<T>(values: T[], key: (value: T) => string): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const value of values) counts[key(value)] = (counts[key(value)] ?? 0) + 1;
	return counts;
}

/** How many more times a run is tried when its own reads came too late to test anything. */
const TOO_LATE_RERUNS = 2;

/**
 * Runs a matrix run again, under a new name, when it ended without a fault and with a request the
 * sandbox refused -1021 (signed too long before it arrived). The matrices use a 200 ms receive
 * window to keep the reconcile's waits short, and a busy machine can take longer than that between
 * signing a lookup and its arrival: the node then refuses its write before sending it (it cannot
 * check whether a client order ID was used), which is right, but such a run tested no write under
 * a fault. Nothing else is run again: a run with a fault counts as it is.
 */
export async function againIfTooLate<
	R extends { faults: string[]; requests: Array<{ code?: string }> },
>(attempt: (name: (base: string) => string) => Promise<R>): Promise<R & { tooLateReruns: number }> {
	for (let rerun = 0; ; rerun++) {
		const run = await attempt((base) => (rerun === 0 ? base : `${base}-again${rerun}`));
		const tooLate =
			run.faults.length === 0 && run.requests.some((request) => request.code === '-1021');
		if (!tooLate || rerun === TOO_LATE_RERUNS) return { ...run, tooLateReruns: rerun };
	}
}
