/**
 * The queue suite's small runner: named checks with their figures and seconds; a failed check is
 * recorded and the suite goes on (never stops at the first failure). Shared by run.ts and the
 * checks it imports (orderExamples.ts, kills.ts).
 */

export interface CheckResult {
	name: string;
	ok: boolean;
	seconds: number;
	error?: string;
}

export const results: CheckResult[] = [];
export const suiteStarted = Date.now();

export function elapsed(): string {
	return `${((Date.now() - suiteStarted) / 1000).toFixed(1)}s`;
}

export function say(line: string): void {
	process.stdout.write(`${line}\n`);
}

/** A figure of the running check, indented under its name. */
export function figure(line: string): void {
	say(`      ${line}`);
}

export class CheckFailed extends Error {}

export function fail(message: string): never {
	throw new CheckFailed(message);
}

export function expectEqual<T>(label: string, actual: T, expected: T): void {
	if (JSON.stringify(actual) !== JSON.stringify(expected)) {
		fail(`${label}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
	}
}

export function expectTrue(label: string, condition: boolean, detail = ''): void {
	if (!condition) fail(`${label}${detail ? `: ${detail}` : ''}`);
}

/**
 * QUEUE_CHECKS=7,8 runs only the checks whose names start with those numbers (8 runs 8a and 8b),
 * besides start-up and clean shutdown; unset: every check.
 */
const onlyChecks = process.env.QUEUE_CHECKS?.split(',')
	.map((n) => n.trim())
	.filter((n) => n !== '');

/** Whether QUEUE_CHECKS leaves out the check of this name (the others then skip their set-up too). */
export function skipped(name: string): boolean {
	const number = /^(\d+)[a-z]?\./.exec(name)?.[1];
	return onlyChecks !== undefined && number !== undefined && !onlyChecks.includes(number);
}

/**
 * Runs one named check: prints its name, its figures (figure()) and PASS or FAIL with its seconds;
 * a failure is recorded and returned, never thrown. Start-up and clean shutdown always run; a
 * check left out by QUEUE_CHECKS prints SKIP and counts as neither.
 */
export async function check(
	name: string,
	body: () => Promise<void>,
	options: { always?: boolean } = {},
): Promise<boolean> {
	if (!options.always && skipped(name)) {
		say(`\n[${elapsed()}] SKIP ${name} (QUEUE_CHECKS=${process.env.QUEUE_CHECKS ?? ''})`);
		return true;
	}
	const started = Date.now();
	say(`\n[${elapsed()}] ${name}`);
	try {
		await body();
		const seconds = (Date.now() - started) / 1000;
		results.push({ name, ok: true, seconds });
		say(`  PASS ${name} (${seconds.toFixed(1)} s)`);
		return true;
	} catch (error) {
		const seconds = (Date.now() - started) / 1000;
		const message =
			error instanceof CheckFailed ? error.message : `${(error as Error).stack ?? String(error)}`;
		results.push({ name, ok: false, seconds, error: message });
		say(`  FAIL ${name} (${seconds.toFixed(1)} s)\n${message.replace(/^/gm, '      ')}`);
		return false;
	}
}

export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function waitUntil<T>(
	what: string,
	probe: () => T | undefined | Promise<T | undefined>,
	timeoutMs: number,
	pollMs = 200,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline) fail(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
		await sleep(pollMs);
	}
}
