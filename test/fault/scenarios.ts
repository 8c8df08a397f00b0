/**
 * The frame of a fault file: its sandbox (no rate limit, a long timeout) and its scenarios, run
 * one after the other in beforeAll, each with a tally of its own for the file's totals
 * (totals.ts). The tests then check what each scenario produced.
 */
import type { Sandbox } from '../../sandbox';
import { useSandbox } from '../support/sandbox';
import { newTally, type Tally } from './lib';

/** The file's sandbox (rate limit off) and Jest's timeout for its slow scenarios. */
export function useFaultSandbox(timeoutMs = 180_000): () => Sandbox {
	jest.setTimeout(timeoutMs);
	return useSandbox({ rateLimit: false });
}

type Scenario = (sb: Sandbox, tally: Tally) => Promise<unknown>;

export interface ScenarioRuns<T extends Record<string, Scenario>> {
	/** What each scenario returned (filled in by beforeAll). */
	results: { [K in keyof T]: Awaited<ReturnType<T[K]>> };
	/** Each scenario's tally, for describeTotals. */
	tallies: Record<keyof T, Tally>;
	/** How long the scenarios took together. */
	wallMs: () => number;
}

/** Runs the scenarios one after the other in beforeAll, each on the file's sandbox. */
export function runScenarios<T extends Record<string, Scenario>>(
	sandbox: () => Sandbox,
	scenarios: T,
): ScenarioRuns<T> {
	const names = Object.keys(scenarios) as Array<keyof T>;
	const tallies = Object.fromEntries(names.map((name) => [name, newTally()])) as Record<
		keyof T,
		Tally
	>;
	const results = {} as ScenarioRuns<T>['results'];
	let wallMs = 0;
	beforeAll(async () => {
		const started = Date.now();
		for (const name of names)
			results[name] = (await scenarios[name](sandbox(), tallies[name])) as Awaited<
				ReturnType<T[typeof name]>
			>;
		wallMs = Date.now() - started;
	});
	return { results, tallies, wallMs: () => wallMs };
}
