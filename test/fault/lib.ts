/**
 * Shared tools of the fault / bad-input / secret-hygiene suite (test/fault/*.test.ts): the
 * seeded generator, secret hygiene, running the node while booking requests and faults, and
 * reading the sandbox's ledger. Beside it: matrix.ts (one run of the money-safety matrix),
 * moneySafety.ts (the matrix's checks), totals.ts (each file's share of the suite's totals),
 * history.ts (history oracles) and badInputCases.ts (the generated bad inputs).
 *
 * Everything here is deterministic: generators take explicit seeds, and each scenario has a
 * sandbox to itself (its own, or its file's, reset first) and sends one request at a time, so the
 * sandbox's seeded fault generator assigns the same faults to the same requests on every run. A
 * run with requests in flight at once draws its faults per write instead (drawFaultsByWrite).
 */
import type { NodeRun, NodeRunOptions } from '../../tools/harness/node';
import { DEMO_KEYS, type FaultPlan, type LedgerRequest, type Sandbox } from '../../sandbox';
import type { ActiveFault } from '../../sandbox/faults';
import { FaultInjector } from '../../sandbox/faultInjector';
import { mulberry32 } from '../../sandbox/prng';
import { HOUR, runCounting, type CountedRun } from '../support/runs';

// The endpoints, the hour and the item readers are shared with the node tests (test/support/runs.ts).
export { HOUR, PATHS, byInputItem, errorOf } from '../support/runs';

export const DAY = 24 * HOUR;

/** Every secret the suite's credentials hold: none may ever show up in anything the node produces. */
export const SECRETS = Object.values(DEMO_KEYS).map((key) => key.secret);

// ------------------------------------------------------------------ seeded generator

export class Rng {
	private readonly next: () => number;

	constructor(seed: number) {
		this.next = mulberry32(seed);
	}

	float(): number {
		return this.next();
	}

	int(minInclusive: number, maxInclusive: number): number {
		return minInclusive + Math.floor(this.next() * (maxInclusive - minInclusive + 1));
	}

	pick<T>(values: readonly T[]): T {
		return values[Math.floor(this.next() * values.length)];
	}

	chance(probability: number): boolean {
		return this.next() < probability;
	}
}

// ------------------------------------------------------------------ secret hygiene

/**
 * What of a secret must never show: a plain secret whole; a PEM secret (the Ed25519 private key)
 * each of its lines but the armour (-----BEGIN/END …-----), since its line breaks are escaped in
 * JSON text ("\n") and one leaked Base64 line gives the key away (a line under 16 characters, a
 * PEM's short last one, is left out: it would match by chance). Each also percent-encoded, as a
 * query would carry it.
 */
export function secretFragments(secret: string): string[] {
	const parts = /-----BEGIN [A-Z0-9 ]+-----/.test(secret)
		? secret
				.split(/\r?\n/)
				.map((line) => line.trim())
				.filter((line) => line.length >= 16 && !/^-----(BEGIN|END) /.test(line))
		: [secret];
	return [...new Set(parts.flatMap((part) => [part, encodeURIComponent(part)]))];
}

/** Finds any secret in a text; returns the offending secret or undefined. */
export function secretIn(text: string): string | undefined {
	return SECRETS.find((secret) =>
		secretFragments(secret).some((fragment) => text.includes(fragment)),
	);
}

/** Everything a user or a log could see of a run: items, the run data, the error and its description. */
export function visibleText(run: NodeRun): string {
	const error = run.error as
		| (Error & { description?: unknown; context?: unknown; stack?: string })
		| undefined;
	const parts = [run.serialised, JSON.stringify(run.items)];
	if (error) {
		parts.push(String(error.message), String(error.description ?? ''), String(error.stack ?? ''));
		parts.push(JSON.stringify(error.context ?? {}));
		try {
			parts.push(JSON.stringify(error));
		} catch {
			parts.push(String(error));
		}
	}
	return parts.join('\n');
}

/** What the sandbox received: the secret must never travel, only signatures made with it. */
export function requestText(request: LedgerRequest): string {
	return `${request.method} ${request.path}?${request.query}\n${request.apiKey ?? ''}\n${request.body}`;
}

// ------------------------------------------------------------------ running the node

/** A run with the requests the sandbox saw during it (in order). */
export type SuiteRun = CountedRun;

/** Tally of one scenario, summed over the suite. */
export interface Tally {
	runs: number;
	requests: number;
	faults: Record<string, number>;
	secretLeaks: string[];
}

export function newTally(): Tally {
	return { runs: 0, requests: 0, faults: {}, secretLeaks: [] };
}

export function mergeTallies(tallies: Tally[]): Tally {
	const total = newTally();
	for (const tally of tallies) {
		total.runs += tally.runs;
		total.requests += tally.requests;
		total.secretLeaks.push(...tally.secretLeaks);
		for (const [kind, count] of Object.entries(tally.faults))
			total.faults[kind] = (total.faults[kind] ?? 0) + count;
	}
	return total;
}

/**
 * Books the requests of one run into a tally: their count, the faults the sandbox injected (and
 * clock rejections), and, under `leakMessage`, any request that carried a secret.
 */
export function bookRequests(
	tally: Tally,
	requests: LedgerRequest[],
	leakMessage: (request: LedgerRequest) => string,
): void {
	tally.requests += requests.length;
	for (const request of requests) {
		if (request.fault !== undefined)
			tally.faults[request.fault] = (tally.faults[request.fault] ?? 0) + 1;
		if (request.code === '-1021')
			tally.faults.clockRejected = (tally.faults.clockRejected ?? 0) + 1;
		if (secretIn(requestText(request))) tally.secretLeaks.push(leakMessage(request));
	}
}

/**
 * Runs the node against the sandbox and books what happened: requests and faults from the
 * sandbox's own ledger, and any secret in what the run produced or sent.
 */
export async function runAndTally(
	sandbox: Sandbox,
	tally: Tally,
	options: NodeRunOptions,
): Promise<SuiteRun> {
	const run = await runCounting(sandbox, options);
	const { requests } = run;
	tally.runs++;
	bookRequests(
		tally,
		requests,
		(request) => `request ${request.method} ${request.path} carried a secret`,
	);
	const leaked = secretIn(visibleText(run));
	if (leaked) tally.secretLeaks.push(`run ${tally.runs}: output or error contains a secret`);
	return run;
}

// ------------------------------------------------------------------ ledger helpers

/** The decoded query parameters of a request the sandbox saw. */
export function queryOf(request: LedgerRequest): URLSearchParams {
	return new URLSearchParams(request.query);
}

/**
 * The attempts of one write among a run's requests to the write's endpoint, told apart by their
 * unique quantity, with the Retry-After the sandbox sent with each 429 attempt: 0 for the run's
 * first request (the scenario's rule), 1 s for a random one.
 */
export function attemptsByQuantity(
	requests: LedgerRequest[],
	quantity: string,
): { attempts: LedgerRequest[]; retryAfterMs: Map<LedgerRequest, number> } {
	const attempts = requests.filter((request) => queryOf(request).get('quantity') === quantity);
	const retryAfterMs = new Map<LedgerRequest, number>();
	for (const attempt of attempts) {
		if (attempt.fault === 'rateLimit')
			retryAfterMs.set(attempt, attempt === requests[0] ? 0 : 1000);
	}
	return { attempts, retryAfterMs };
}

/** Expects each attempt after a 429 to wait the Retry-After it asked for; returns how many did. */
export function expectRetryAfterHonoured(
	attempts: LedgerRequest[],
	retryAfterMs: Map<LedgerRequest, number>,
): number {
	let honoured = 0;
	attempts.forEach((attempt, index) => {
		const wait = retryAfterMs.get(attempt);
		if (wait === undefined || index === attempts.length - 1) return;
		expect(attempts[index + 1].at - attempt.at).toBeGreaterThanOrEqual(wait - 5);
		honoured++;
	});
	return honoured;
}

/** Values that occur more than once, with their counts. */
export function duplicates<T>(values: T[]): Array<[T, number]> {
	const counts = new Map<T, number>();
	for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
	return [...counts].filter(([, count]) => count > 1);
}

export const WRITE_UNKNOWN_FAULTS = ['http500', 'http502', 'http503', 'dropBefore', 'dropAfter'];

/** A fault that leaves a write's outcome unknown to the client (it may or may not have been applied). */
export function isUnknownOutcomeFault(request: LedgerRequest): boolean {
	return request.fault !== undefined && WRITE_UNKNOWN_FAULTS.includes(request.fault);
}

/** The sandbox applied the request: it processed it (no fault or dropAfter) and answered 200. */
export function wasApplied(request: LedgerRequest): boolean {
	return (request.fault === undefined || request.fault === 'dropAfter') && request.status === 200;
}

/** The error of an item whose write's outcome is unknown. */
export const UNKNOWN_OUTCOME = /^Unknown outcome: /;

/** Attempts of one write: requests before the last one may only be 429s (provably not processed). */
export function splitAttempts(attempts: LedgerRequest[]) {
	const real = attempts.filter((request) => request.fault !== 'rateLimit');
	return { real, last: attempts[attempts.length - 1] };
}

// ------------------------------------------------------------------ faults by write, not by arrival

/** What decides the faults of a run whose requests are in flight at once (faultsByWrite). */
export interface FaultsByWrite {
	/** The seed of the run: with a request's key and attempt, it seeds the request's random draw. */
	seed: number;
	/** The random rates, as in a FaultPlan (its seed is ignored). */
	random: Omit<NonNullable<FaultPlan['random']>, 'seed'>;
	/** The key of a request that may be faulted (the write(s) it carries), or undefined: no fault. */
	keyOf(request: LedgerRequest): string | undefined;
	/** A fault that replaces the random draw for attempt `attempt` of `key` (the forced one). */
	forced?(key: string, attempt: number, request: LedgerRequest): ActiveFault | undefined;
}

/** FNV-1a of a text: a seed that depends on nothing but the text. */
function hashOf(text: string): number {
	let hash = 0x811c9dc5;
	for (let index = 0; index < text.length; index++) {
		hash ^= text.charCodeAt(index);
		hash = Math.imul(hash, 0x01000193);
	}
	return hash >>> 0;
}

/**
 * Gives each request of the sandbox the fault its write draws, whatever order it arrives in: the
 * sandbox's own random faults are drawn in arrival order, and requests in flight at once (version
 * 2's Parallel Requests) arrive in an order that varies from run to run. Here a request's fault
 * depends only on the seed, its key (the write it carries) and which attempt of that key it is,
 * drawn with the sandbox's own draw (its FaultInjector), so a seed reproduces the same faults on
 * the same writes. The sandbox's rules still apply to requests without a key. Returns the undo.
 *
 * The sandbox picks a request's fault right after it books the request in its ledger, with no
 * await between: the ledger's last request is the one being picked for.
 */
export function drawFaultsByWrite(sb: Sandbox, plan: FaultsByWrite): () => void {
	const injector = (sb as unknown as { faults?: FaultInjector }).faults;
	if (!(injector instanceof FaultInjector))
		throw new Error('drawFaultsByWrite: the sandbox no longer keeps its FaultInjector in `faults`');
	const ruled = injector.pick.bind(injector);
	const attempts = new Map<string, number>();
	injector.pick = (method: string, path: string): ActiveFault | null => {
		const request = sb.ledger.requests[sb.ledger.requests.length - 1];
		const key = request?.path === path ? plan.keyOf(request) : undefined;
		if (key === undefined) return ruled(method, path);
		const attempt = attempts.get(key) ?? 0;
		attempts.set(key, attempt + 1);
		const forced = plan.forced?.(key, attempt, request);
		if (forced !== undefined) return forced;
		const draw = new FaultInjector();
		draw.set({ random: { ...plan.random, seed: hashOf(`${plan.seed}|${key}|${attempt}`) } });
		return draw.pick(method, path);
	};
	return () => {
		delete (injector as { pick?: unknown }).pick;
	};
}

// ------------------------------------------------------------------ acting on a request as it arrives

/**
 * Calls `onArrival` with each request the sandbox books, as it arrives: after the ledger has it and
 * before any fault applies (a request dropped before processing still calls it), by wrapping the
 * FaultInjector's `pick` that is in place now (the sandbox's own, or drawFaultsByWrite's: install
 * this one after it, and undo it first). Returns the undo.
 */
export function onRequestArrival(
	sb: Sandbox,
	onArrival: (request: LedgerRequest) => void,
): () => void {
	const injector = (sb as unknown as { faults?: FaultInjector }).faults;
	if (!(injector instanceof FaultInjector))
		throw new Error('onRequestArrival: the sandbox no longer keeps its FaultInjector in `faults`');
	const own = Object.prototype.hasOwnProperty.call(injector, 'pick');
	const previous = injector.pick;
	const chained = previous.bind(injector);
	injector.pick = (method: string, path: string): ActiveFault | null => {
		const request = sb.ledger.requests[sb.ledger.requests.length - 1];
		if (request !== undefined && request.path === path && request.method === method)
			onArrival(request);
		return chained(method, path);
	};
	return () => {
		if (own) injector.pick = previous;
		else delete (injector as { pick?: unknown }).pick;
	};
}
