/**
 * The frame of a fault file: its sandbox (no rate limit, a long timeout) and its scenarios, run
 * in beforeAll one after the other (or at once, each on a sandbox of its own), each with a tally of its own for the file's totals
 * (totals.ts). The tests then check what each scenario produced.
 */
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';
import { useSandbox } from '../support/sandbox';
import { newTally, type Tally } from './lib';

/** The options of a fault file's sandbox: no weight limit, the documented request rates. */
const FAULT_SANDBOX: SandboxOptions = { rateLimit: false };

/** The file's sandbox (rate limit off) and Jest's timeout for its slow scenarios. */
export function useFaultSandbox(timeoutMs = 180_000): () => Sandbox {
	jest.setTimeout(timeoutMs);
	return useSandbox(FAULT_SANDBOX);
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

/**
 * Runs the scenarios in beforeAll, each on the file's sandbox, one after the other; or, `atOnce`,
 * all at the same time, the first on the file's sandbox and each other on a sandbox of its own
 * (started as the file's, stopped after): a scenario resets its sandbox and sends one request at a
 * time, so it draws the same faults either way, and the scenarios overlap while each waits.
 */
export function runScenarios<T extends Record<string, Scenario>>(
	sandbox: () => Sandbox,
	scenarios: T,
	{ atOnce = false }: { atOnce?: boolean } = {},
): ScenarioRuns<T> {
	const names = Object.keys(scenarios) as Array<keyof T>;
	const tallies = Object.fromEntries(names.map((name) => [name, newTally()])) as Record<
		keyof T,
		Tally
	>;
	const results = {} as ScenarioRuns<T>['results'];
	let wallMs = 0;
	const run = async (name: keyof T, sb: Sandbox) => {
		results[name] = (await scenarios[name](sb, tallies[name])) as Awaited<
			ReturnType<T[typeof name]>
		>;
	};
	beforeAll(async () => {
		const started = Date.now();
		if (atOnce) {
			const own: Sandbox[] = [];
			try {
				for (let index = 1; index < names.length; index++)
					own.push(await startSandbox({ symbolRules: 'lenient', ...FAULT_SANDBOX }));
				await Promise.all(
					names.map((name, index) => run(name, index === 0 ? sandbox() : own[index - 1])),
				);
			} finally {
				await Promise.all(own.map((sb) => sb.stop()));
			}
		} else {
			for (const name of names) await run(name, sandbox());
		}
		wallMs = Date.now() - started;
	});
	return { results, tallies, wallMs: () => wallMs };
}
