/**
 * Shared tools of the fault / bad-input / secret-hygiene suite (test/fault/*.test.ts).
 *
 * Everything here is deterministic: generators take explicit seeds, and each scenario talks to
 * its own sandbox one request at a time, so the sandbox's seeded fault generator assigns the
 * same faults to the same requests on every run.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { runTradingService, type NodeRun, type NodeRunOptions } from '../../tools/harness/node';
import {
	DEMO_ACCOUNTS,
	DEMO_KEYS,
	type FaultKind,
	type FaultRule,
	type LedgerRequest,
	type Sandbox,
} from '../../sandbox';
import { MALFORMED_KINDS, REDIRECT_KINDS } from '../../sandbox/faults';
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
		for (const [kind, count] of Object.entries(tally.faults))
			total.faults[kind] = (total.faults[kind] ?? 0) + count;
	}
	return total;
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
	const before = sandbox.ledger.requests.length;
	const run = await runTradingService(sandbox, options);
	const requests = sandbox.ledger.requests.slice(before);
	tally.runs++;
	tally.requests += requests.length;
	for (const request of requests) {
		if (request.fault !== undefined)
			tally.faults[request.fault] = (tally.faults[request.fault] ?? 0) + 1;
		if (request.code === '-1021')
			tally.faults.clockRejected = (tally.faults.clockRejected ?? 0) + 1;
		const leaked = secretIn(requestText(request));
		if (leaked)
			tally.secretLeaks.push(`request ${request.method} ${request.path} carried a secret`);
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

// ------------------------------------------------------------------ money safety matrix (issue 11)

/**
 * The write kinds of the money-safety matrix: transfers and orders (Create, Create Many) with the
 * node's generated client order IDs, with the user's own, and with none.
 */
export const WRITE_KINDS = [
	'transfer',
	'createGenerated',
	'createUserId',
	'createPlain',
	'createManyGenerated',
	'createManyUserId',
	'createManyPlain',
] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];

/** Faults forced on a run's first write request: each leaves the write's outcome unknown to the client, or scrambles a batch. */
export const FORCED_FAULTS = [
	'dropAfter',
	'http500After',
	'http502After',
	'http503After',
	'unknownAfter',
	'unknownBefore',
	'dropBefore',
	'http500',
	'http503',
	// issue 12: answers that must not become results (redirects not followed, malformed or
	// drip-fed answers to a write that was applied)
	...REDIRECT_KINDS,
	'dripFeed',
	...MALFORMED_KINDS,
] as readonly FaultKind[];

export type Reported = 'placed' | 'rejected' | 'unknown' | 'none' | 'missing';

/** One intended write (one input item) of one run, with what the ledger holds and what the node said. */
export interface WriteVerdict {
	run: string;
	kind: WriteKind;
	retryOnFail: boolean;
	continueOnFail: boolean;
	itemIndex: number;
	/** Writes of this item the sandbox committed (ledger transfers / orders). */
	committed: number;
	reported: Reported;
	/** The report's text says nothing was executed. */
	claimsNothingExecuted: boolean;
	/** For an order reported placed: the order ID the report names, if any. */
	reportedOrderId?: string;
	/** The ledger's order ID for this item, if it committed one. */
	ledgerOrderId?: string;
	/** A fault hit a write request of this item that the sandbox applied (committed, answer lost or garbled). */
	faultAfterCommit: boolean;
	/** The report comes from a re-run of the node (n8n's Retry On Fail): a replayed result or the ledger's refusal. */
	fromRerun: boolean;
	detail: string;
}

export interface MatrixRun {
	name: string;
	kind: WriteKind;
	retryOnFail: boolean;
	continueOnFail: boolean;
	faults: string[];
	/** Write requests sent (all tries of the node). */
	writeRequests: number;
	/** Every request of the run, for a reproduction. */
	requests: LedgerRequest[];
	inputs: Array<Record<string, string>>;
	verdicts: WriteVerdict[];
	/** Requests that reached the other host of a redirect (the API key must never go there). */
	reachedOtherHost: number;
}

const ORDER_QUERY_PATH = '/api/v1/spot/order';
/** Faults after which the write was applied (committed) although its answer was lost or garbled. */
const FAULTS_AFTER_COMMIT = new Set<string>([
	'dropAfter',
	'http500After',
	'http502After',
	'http503After',
	'unknownAfter',
	'dripFeed',
	...MALFORMED_KINDS,
]);

function parametersFor(kind: WriteKind, runName: string): Record<string, unknown> {
	if (kind === 'transfer') {
		return {
			resource: 'account',
			operation: 'transferAsset',
			fromAccountId: '={{ $json.from }}',
			toAccountId: '={{ $json.to }}',
			coin: 'USDT',
			quantity: '={{ $json.quantity }}',
		};
	}
	const many = kind.startsWith('createMany');
	const order: Record<string, unknown> = {
		resource: 'order',
		operation: many ? 'createMany' : 'create',
		...(many ? { inputMode: 'items' } : {}),
		symbol: '={{ $json.symbol }}',
		side: '={{ $json.side }}',
		type: '={{ $json.type }}',
		price: '={{ $json.price }}',
		quantity: '={{ $json.quantity }}',
	};
	if (kind.endsWith('UserId')) order.newClientOrderId = `={{ "${runName}-" + $json.quantity }}`;
	if (kind.endsWith('Plain')) order.options = { generateClientOrderId: false };
	return order;
}

/** The outcome an item or error reports, and whether its text claims nothing was executed. */
function reportOf(json: Record<string, unknown>): {
	reported: Reported;
	claimsNothingExecuted: boolean;
	text: string;
} {
	const outcome = json.outcome;
	const text = `${String(json.error ?? '')} ${String(json.description ?? '')} ${String(json.message ?? '')}`;
	const reported: Reported =
		outcome === 'placed' || outcome === 'rejected' || outcome === 'unknown' ? outcome : 'missing';
	return { reported, claimsNothingExecuted: /nothing was executed/i.test(text), text };
}

function reportedOrderIdOf(json: Record<string, unknown>): string | undefined {
	const order = json.order as Record<string, unknown> | null | undefined;
	const id = order?.orderId ?? json.orderId;
	return id === undefined || id === null ? undefined : String(id);
}

export interface MatrixRunOptions {
	kind: WriteKind;
	retryOnFail: boolean;
	continueOnFail: boolean;
	seed: number;
	name: string;
}

/**
 * One faulted node run of the matrix: 2 or 3 items (one write each, some bound to be refused),
 * a fault forced on the first write request, seeded random faults on the write path after it,
 * sometimes failing order lookups; then each item's ledger count against its report.
 */
export async function matrixRun(sb: Sandbox, options: MatrixRunOptions): Promise<MatrixRun> {
	const { kind, retryOnFail, continueOnFail, name } = options;
	const rng = new Rng(options.seed);
	sb.reset();
	const isTransfer = kind === 'transfer';
	const isMany = kind.startsWith('createMany');
	const writePath = isTransfer ? PATHS.transfer : isMany ? PATHS.batch : PATHS.order;
	const forced = isMany && rng.chance(0.25) ? 'batchReorder' : rng.pick(FORCED_FAULTS);
	const rules: FaultRule[] = [
		{
			kind: forced as FaultRule['kind'],
			times: 1,
			path: writePath,
			redirectStatus: rng.chance(0.5) ? 303 : 307,
		},
	];
	if (!isTransfer && rng.chance(0.06))
		rules.push({ kind: 'http500', times: 8, path: ORDER_QUERY_PATH, method: 'GET' });
	sb.setFaults({
		rules,
		random: {
			seed: options.seed,
			http5xx: 0.05,
			dropBefore: 0.03,
			dropAfter: 0.1,
			http5xxAfter: 0.1,
			unknownBefore: 0.04,
			unknownAfter: 0.08,
			batchReorder: isMany ? 0.3 : 0,
			redirect: 0.03,
			malformed: 0.05,
			dripFeed: 0.02,
			paths: [writePath],
		},
	});

	const itemCount = rng.int(2, 3);
	const inputs = Array.from({ length: itemCount }, (_, index): Record<string, string> => {
		// A unique quantity names the item's write in the ledger; a huge one is refused (balance).
		const refused = rng.chance(0.2);
		const quantity = refused ? `9999999.${index + 1}` : `0.0${index + 1}${rng.int(1, 9)}`;
		if (isTransfer)
			return {
				from: DEMO_ACCOUNTS.mainTrading,
				to: rng.pick([DEMO_ACCOUNTS.custody, DEMO_ACCOUNTS.subTrading]),
				quantity,
			};
		const type = rng.pick(['LIMIT', 'MARKET']);
		// LIMIT orders rest (buy far below, sell far above the last price); MARKET orders fill at once.
		const side = rng.pick(['BUY', 'SELL']);
		return {
			symbol: 'ETHUSDT',
			side,
			type,
			price: type === 'LIMIT' ? (side === 'BUY' ? '100' : '90000') : '',
			quantity,
		};
	});

	const before = sb.ledger.requests.length;
	const run = await runTradingService(sb, {
		parameters: parametersFor(kind, name) as never,
		inputItems: inputs.map((json) => ({ json })),
		continueOnFail,
		executionId: name,
		// The reconcile waits out the receive window before it concludes "not placed": keep it short.
		credentials: { recvWindow: 200 },
		node: retryOnFail ? { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 } : {},
	});
	const requests = sb.ledger.requests.slice(before);
	const writes = requests.filter((request) => request.path === writePath);

	const error = run.error as
		| (Error & { description?: string | null; context?: Record<string, unknown> })
		| undefined;
	const errorItem = error?.context?.itemIndex;
	const outputs = byInputItem(run.items);
	const verdicts = inputs.map((input, itemIndex): WriteVerdict => {
		const committedOrders = isTransfer
			? []
			: sb.ledger.orders.filter((order) => order.origQty === input.quantity);
		const committed = isTransfer
			? sb.ledger.transfers.filter((transfer) => transfer.quantity === input.quantity).length
			: committedOrders.length;
		const itemWrites = writes.filter((request) =>
			isMany
				? request.body.includes(`"${input.quantity}"`)
				: queryOf(request).get('quantity') === input.quantity ||
					request.body.includes(`quantity=${input.quantity}`),
		);
		const faultAfterCommit = itemWrites.some(
			(request) =>
				request.fault !== undefined &&
				FAULTS_AFTER_COMMIT.has(request.fault) &&
				request.appliedStatus === 200,
		);
		let reported: Reported = 'none';
		let claimsNothingExecuted = false;
		let reportedOrderId: string | undefined;
		let detail = '';
		let fromRerun = false;
		const items = outputs.get(itemIndex) ?? [];
		if (items.length > 0) {
			const report = reportOf(items[0].json as Record<string, unknown>);
			reported = items.length === 1 ? report.reported : 'missing';
			claimsNothingExecuted = report.claimsNothingExecuted;
			reportedOrderId =
				report.reported === 'placed'
					? reportedOrderIdOf(items[0].json as Record<string, unknown>)
					: undefined;
			detail = items.length === 1 ? report.text.trim() : `${items.length} items for one write`;
			fromRerun =
				items[0].json.replayed === true || /an earlier try of this node run/.test(report.text);
		} else if (error !== undefined && errorItem === itemIndex) {
			const report = reportOf({
				outcome: error.context?.outcome,
				error: error.message,
				description: error.description,
			});
			reported = report.reported;
			claimsNothingExecuted = report.claimsNothingExecuted;
			detail = report.text.trim();
			fromRerun = /an earlier try of this node run/.test(report.text);
		} else if (error !== undefined && errorItem === undefined) {
			reported = 'missing';
			detail = `the run failed without naming an item: ${error.message}`;
		}
		return {
			run: name,
			kind,
			retryOnFail,
			continueOnFail,
			itemIndex,
			committed,
			reported,
			claimsNothingExecuted,
			reportedOrderId,
			ledgerOrderId: isTransfer
				? sb.ledger.transfers.find((transfer) => transfer.quantity === input.quantity)?.id
				: committedOrders[0]?.orderId,
			faultAfterCommit,
			fromRerun,
			detail,
		};
	});
	return {
		name,
		kind,
		retryOnFail,
		continueOnFail,
		faults: requests
			.filter((request) => request.fault !== undefined)
			.map((request) => request.fault as string),
		writeRequests: writes.length,
		requests,
		inputs,
		verdicts,
		reachedOtherHost: sb.otherHost.requests.length,
	};
}

/** What a verdict breaks, if anything: the three money-safety promises. */
export function violationOf(
	verdict: WriteVerdict,
): 'committedTwice' | 'placedNotPlaced' | 'rejectedButPlaced' | 'noOutcome' | undefined {
	if (verdict.committed > 1) return 'committedTwice';
	if (
		verdict.reported === 'placed' &&
		(verdict.committed !== 1 ||
			(verdict.reportedOrderId !== undefined && verdict.reportedOrderId !== verdict.ledgerOrderId))
	) {
		return 'placedNotPlaced';
	}
	if ((verdict.reported === 'rejected' || verdict.claimsNothingExecuted) && verdict.committed > 0)
		return 'rejectedButPlaced';
	if (verdict.reported === 'missing') return 'noOutcome';
	return undefined;
}
