/**
 * Shared tools of the fault / bad-input / secret-hygiene suite (test/fault/*.test.ts).
 *
 * Everything here is deterministic: generators take explicit seeds, and each scenario talks to
 * its own sandbox one request at a time, so the sandbox's seeded fault generator assigns the
 * same faults to the same requests on every run.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { runTradingService, type NodeRun, type NodeRunOptions } from '../../tools/harness/node';
import { DEMO_KEYS, type LedgerRequest, type Sandbox } from '../../sandbox';
import { mulberry32 } from '../../sandbox/prng';

export const PATHS = {
	history: '/api/v1/account/balanceFlow',
	transfer: '/api/v1/account/assetTransfer',
	order: '/api/v1/spot/new/order',
	batch: '/api/v1/spot/batchOrders',
	time: '/api/v1/time',
} as const;

export const HOUR = 3_600_000;
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

/** Finds any secret in a text; returns the offending secret or undefined. */
export function secretIn(text: string): string | undefined {
	return SECRETS.find((secret) => text.includes(secret));
}

/** Everything a user or a log could see of a run: items, the run data, the error and its description. */
export function visibleText(run: NodeRun): string {
	const error = run.error as (Error & { description?: unknown; context?: unknown; stack?: string }) | undefined;
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

export interface SuiteRun extends NodeRun {
	/** Requests the sandbox saw during this run (in order). */
	requests: LedgerRequest[];
}

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
		for (const [kind, count] of Object.entries(tally.faults)) total.faults[kind] = (total.faults[kind] ?? 0) + count;
	}
	return total;
}

/**
 * Runs the node against the sandbox and books what happened: requests and faults from the
 * sandbox's own ledger, and any secret in what the run produced or sent.
 */
export async function runAndTally(sandbox: Sandbox, tally: Tally, options: NodeRunOptions): Promise<SuiteRun> {
	const before = sandbox.ledger.requests.length;
	const run = await runTradingService(sandbox, options);
	const requests = sandbox.ledger.requests.slice(before);
	tally.runs++;
	tally.requests += requests.length;
	for (const request of requests) {
		if (request.fault !== undefined) tally.faults[request.fault] = (tally.faults[request.fault] ?? 0) + 1;
		if (request.code === '-1021') tally.faults.clockRejected = (tally.faults.clockRejected ?? 0) + 1;
		const leaked = secretIn(requestText(request));
		if (leaked) tally.secretLeaks.push(`request ${request.method} ${request.path} carried a secret`);
	}
	const leaked = secretIn(visibleText(run));
	if (leaked) tally.secretLeaks.push(`run ${tally.runs}: output or error contains a secret`);
	return { ...run, requests };
}

// ------------------------------------------------------------------ ledger helpers

/** The decoded query parameters of a request the sandbox saw. */
export function queryOf(request: LedgerRequest): URLSearchParams {
	return new URLSearchParams(request.query);
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

/** Output items grouped by the input item they are paired with. */
export function byInputItem(items: INodeExecutionData[]): Map<number, INodeExecutionData[]> {
	const grouped = new Map<number, INodeExecutionData[]>();
	for (const item of items) {
		const paired = Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem;
		const index = typeof paired === 'number' ? paired : (paired?.item ?? -1);
		const list = grouped.get(index) ?? [];
		list.push(item);
		grouped.set(index, list);
	}
	return grouped;
}

export function errorOf(item: INodeExecutionData | undefined): string | undefined {
	const error = item?.json.error;
	return typeof error === 'string' ? error : undefined;
}
