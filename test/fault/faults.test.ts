/**
 * Fault injection: every operation of the node against the sandbox's injected 5xx, connection
 * drops before and after a write was applied, 429 + Retry-After, latency and server clock
 * offsets. The sandbox's own ledger is the oracle: no order or transfer may exist twice, no
 * history record may be lost or repeated, every write whose outcome is unknown must be reported
 * as such (or, with client order IDs, retried and reported alreadyPlaced), every transiently
 * failing read must end in success.
 *
 * Determinism: each scenario has its own sandbox and sends one request at a time, so the
 * sandbox's seeded fault generator hits the same requests on every run. The scenarios run
 * concurrently (they wait mostly on the transport's retry backoff), in beforeAll; the tests
 * then check what each produced.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { generatedClientOrderId } from '../../tools/harness/node';
import { triggerRunner } from '../../tools/harness/trigger';
import { DEFAULT_RETRY_POLICY } from '../../nodes/TradingService/transport';
import { MALFORMED_KINDS, REDIRECT_KINDS } from '../../sandbox/faults';
import {
	DEMO_ACCOUNTS,
	startSandbox,
	type FaultKind,
	type HistoryRecord,
	type LedgerRequest,
	type Sandbox,
} from '../../sandbox';
import {
	DAY,
	HOUR,
	PATHS,
	Rng,
	byInputItem,
	duplicates,
	errorOf,
	isUnknownOutcomeFault,
	FORCED_FAULTS,
	WRITE_KINDS,
	matrixRun,
	mergeTallies,
	violationOf,
	type MatrixRun,
	newTally,
	queryOf,
	requestText,
	runAndTally,
	secretIn,
	wasApplied,
	type Tally,
} from './lib';

jest.setTimeout(180_000);

const sandboxes: Sandbox[] = [];
async function sandbox(): Promise<Sandbox> {
	const sb = await startSandbox({ rateLimit: false });
	sandboxes.push(sb);
	return sb;
}

const UNKNOWN = /^Unknown outcome: /;

/** Attempts of one write: requests before the last one may only be 429s (provably not processed). */
function splitAttempts(attempts: LedgerRequest[]) {
	const real = attempts.filter((request) => request.fault !== 'rateLimit');
	return { real, last: attempts[attempts.length - 1] };
}

// ------------------------------------------------------------------ scenario: transfers

interface TransferCase {
	from: string;
	to: string;
	quantity: string;
	attempts: LedgerRequest[];
	output: INodeExecutionData[];
	/** The Retry-After the sandbox sent with each 429 attempt (rules send 0, random faults 1). */
	retryAfterMs: Map<LedgerRequest, number>;
}

async function transferScenario(tally: Tally) {
	const sb = await sandbox();
	const rng = new Rng(101);
	const pairs: Array<[string, string]> = [
		[DEMO_ACCOUNTS.mainTrading, DEMO_ACCOUNTS.custody],
		[DEMO_ACCOUNTS.custody, DEMO_ACCOUNTS.mainTrading],
		[DEMO_ACCOUNTS.mainTrading, DEMO_ACCOUNTS.subTrading],
		[DEMO_ACCOUNTS.mainTrading, DEMO_ACCOUNTS.mainContract],
		[DEMO_ACCOUNTS.mainContract, DEMO_ACCOUNTS.mainTrading],
	];
	const cases: TransferCase[] = [];
	let seq = 0;
	for (let runIndex = 0; runIndex < 15; runIndex++) {
		sb.setFaults({
			latencyMs: runIndex % 3 === 0 ? 5 : 0,
			// The run's first transfer request is answered 429 with Retry-After: 0 ...
			rules: [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 0, path: PATHS.transfer }],
			// ... then seeded random faults; a random 429 carries Retry-After: 1.
			random: {
				seed: 1000 + runIndex,
				http5xx: 0.08,
				dropBefore: 0.06,
				dropAfter: 0.08,
				rateLimit: 0.02,
				paths: [PATHS.transfer],
			},
		});
		const inputs = Array.from({ length: 20 }, () => {
			seq++;
			const [from, to] = rng.pick(pairs);
			// A unique quantity identifies the transfer in the ledger ("0.11", "0.21", ... "0.3001").
			return { from, to, quantity: `0.${seq}1` };
		});
		const run = await runAndTally(sb, tally, {
			parameters: {
				resource: 'account',
				operation: 'transferAsset',
				fromAccountId: '={{ $json.from }}',
				toAccountId: '={{ $json.to }}',
				coin: 'USDT',
				quantity: '={{ $json.quantity }}',
			},
			inputItems: inputs.map((json) => ({ json })),
			continueOnFail: true,
			executionId: `transfers-${runIndex}`,
		});
		const outputs = byInputItem(run.items);
		const transferRequests = run.requests.filter((request) => request.path === PATHS.transfer);
		inputs.forEach((input, index) => {
			const attempts = transferRequests.filter(
				(request) => queryOf(request).get('quantity') === input.quantity,
			);
			const retryAfterMs = new Map<LedgerRequest, number>();
			for (const attempt of attempts) {
				if (attempt.fault === 'rateLimit')
					retryAfterMs.set(attempt, attempt === transferRequests[0] ? 0 : 1000);
			}
			cases.push({ ...input, attempts, output: outputs.get(index) ?? [], retryAfterMs });
		});
	}
	return { sb, cases };
}

// ------------------------------------------------------------------ scenario: single orders, generated client order IDs

interface OrderCase {
	clientOrderId: string;
	attempts: LedgerRequest[];
	output: INodeExecutionData[];
}

async function singleOrderScenario(tally: Tally) {
	const sb = await sandbox();
	const rng = new Rng(202);
	const cases: OrderCase[] = [];
	let seq = 0;
	for (let runIndex = 0; runIndex < 6; runIndex++) {
		sb.setFaults({
			latencyMs: runIndex % 2 === 0 ? 3 : 0,
			rules: [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 0, path: PATHS.order }],
			random: {
				seed: 2000 + runIndex,
				http5xx: 0.07,
				dropBefore: 0.05,
				dropAfter: 0.07,
				paths: [PATHS.order],
			},
		});
		const type = runIndex % 2 === 0 ? 'LIMIT' : 'MARKET';
		const inputs = Array.from({ length: 20 }, () => {
			seq++;
			return {
				symbol: rng.pick(['BTCUSDT', 'ETHUSDT', 'SOLUSDT']),
				side: rng.pick(['BUY', 'SELL']),
				price: '10',
				quantity: `0.0${seq}1`,
			};
		});
		const executionId = `single-orders-${runIndex}`;
		const run = await runAndTally(sb, tally, {
			parameters: {
				resource: 'order',
				operation: 'create',
				symbol: '={{ $json.symbol }}',
				side: '={{ $json.side }}',
				type,
				...(type === 'LIMIT' ? { price: '={{ $json.price }}' } : {}),
				quantity: '={{ $json.quantity }}',
			},
			inputItems: inputs.map((json) => ({ json })),
			continueOnFail: true,
			executionId,
		});
		const outputs = byInputItem(run.items);
		inputs.forEach((_, index) => {
			// The node generated this item's client order ID; every attempt for the item carries it.
			const generated = generatedClientOrderId(index);
			const attempts = run.requests.filter(
				(request) =>
					request.path === PATHS.order &&
					generated.test(queryOf(request).get('newClientOrderId') ?? ''),
			);
			const clientOrderId = queryOf(attempts[0]).get('newClientOrderId') ?? '';
			expect(
				attempts.every((request) => queryOf(request).get('newClientOrderId') === clientOrderId),
			).toBe(true);
			cases.push({ clientOrderId, attempts, output: outputs.get(index) ?? [] });
		});
	}
	return { sb, cases };
}

// ------------------------------------------------------------------ scenario: single orders without client order IDs

interface PlainOrderCase {
	quantity: string;
	attempts: LedgerRequest[];
	output: INodeExecutionData[];
	retryAfterMs: Map<LedgerRequest, number>;
}

async function plainOrderScenario(tally: Tally) {
	const sb = await sandbox();
	const rng = new Rng(303);
	const cases: PlainOrderCase[] = [];
	let seq = 0;
	for (let runIndex = 0; runIndex < 6; runIndex++) {
		sb.setFaults({
			rules: [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 0, path: PATHS.order }],
			random: {
				seed: 3000 + runIndex,
				http5xx: 0.08,
				dropBefore: 0.06,
				dropAfter: 0.08,
				rateLimit: 0.02,
				paths: [PATHS.order],
			},
		});
		const inputs = Array.from({ length: 20 }, () => {
			seq++;
			return {
				symbol: rng.pick(['BTCUSDT', 'ETHUSDT', 'SOLUSDT']),
				side: rng.pick(['BUY', 'SELL']),
				quantity: `0.${seq}1`,
			};
		});
		const run = await runAndTally(sb, tally, {
			parameters: {
				resource: 'order',
				operation: 'create',
				symbol: '={{ $json.symbol }}',
				side: '={{ $json.side }}',
				type: 'LIMIT',
				price: '1',
				quantity: '={{ $json.quantity }}',
				options: { generateClientOrderId: false },
			},
			inputItems: inputs.map((json) => ({ json })),
			continueOnFail: true,
			executionId: `plain-orders-${runIndex}`,
		});
		const outputs = byInputItem(run.items);
		const orderRequests = run.requests.filter((request) => request.path === PATHS.order);
		inputs.forEach((input, index) => {
			const attempts = orderRequests.filter(
				(request) => queryOf(request).get('quantity') === input.quantity,
			);
			const retryAfterMs = new Map<LedgerRequest, number>();
			for (const attempt of attempts) {
				if (attempt.fault === 'rateLimit')
					retryAfterMs.set(attempt, attempt === orderRequests[0] ? 0 : 1000);
			}
			cases.push({
				quantity: input.quantity,
				attempts,
				output: outputs.get(index) ?? [],
				retryAfterMs,
			});
		});
	}
	return { sb, cases };
}

// ------------------------------------------------------------------ scenario: Create Many

interface BatchOrderCase {
	clientOrderId: string;
	symbol: string;
	output: INodeExecutionData[];
}

interface BatchAttempts {
	body: string;
	attempts: LedgerRequest[];
}

async function batchScenario(tally: Tally) {
	const sb = await sandbox();
	const rng = new Rng(404);
	const cases: BatchOrderCase[] = [];
	const batches: BatchAttempts[] = [];
	for (let runIndex = 0; runIndex < 6; runIndex++) {
		sb.setFaults({
			latencyMs: runIndex % 2 === 1 ? 4 : 0,
			rules: [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 0, path: PATHS.batch }],
			random: {
				seed: 4000 + runIndex,
				http5xx: 0.12,
				dropBefore: 0.08,
				dropAfter: 0.12,
				paths: [PATHS.batch],
			},
		});
		const count = rng.int(41, 65);
		const inputs = Array.from({ length: count }, () => ({
			symbol: rng.pick(['BTCUSDT', 'ETHUSDT', 'SOLUSDT']),
			side: rng.pick(['BUY', 'SELL']),
			price: String(rng.int(1, 9)),
			quantity: `0.00${rng.int(1, 99)}`,
		}));
		const executionId = `batches-${runIndex}`;
		const run = await runAndTally(sb, tally, {
			parameters: {
				resource: 'order',
				operation: 'createMany',
				inputMode: 'items',
				symbol: '={{ $json.symbol }}',
				side: '={{ $json.side }}',
				type: 'LIMIT',
				price: '={{ $json.price }}',
				quantity: '={{ $json.quantity }}',
			},
			inputItems: inputs.map((json) => ({ json })),
			continueOnFail: true,
			executionId,
		});
		const outputs = byInputItem(run.items);
		inputs.forEach((input, index) => {
			cases.push({
				clientOrderId: String(outputs.get(index)?.[0]?.json.clientOrderId ?? ''),
				symbol: input.symbol,
				output: outputs.get(index) ?? [],
			});
		});
		// Attempts of one batch carry the same body (the same orders, the same client order IDs).
		for (const request of run.requests.filter((candidate) => candidate.path === PATHS.batch)) {
			const known = batches.find((batch) => batch.body === request.body);
			if (known) known.attempts.push(request);
			else batches.push({ body: request.body, attempts: [request] });
		}
	}

	// The whole workflow run again (a new execution) with a business key mapped into Client Order
	// ID, as the README advises: every order is recognised by its ID, nothing is placed twice.
	// (Retries within one execution reuse the generated IDs: see test/nodes/.../createMany.test.ts.)
	sb.clearFaults();
	const ordersBefore = sb.ledger.orders.length;
	const rerunInputs = Array.from({ length: 45 }, (_, index) => ({
		symbol: ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'][index % 3],
		side: 'BUY',
		price: '2',
		quantity: '0.01',
		rowId: `sheet-row-${index}`,
	}));
	const parameters = {
		resource: 'order',
		operation: 'createMany',
		inputMode: 'items',
		symbol: '={{ $json.symbol }}',
		side: '={{ $json.side }}',
		type: 'LIMIT',
		price: '={{ $json.price }}',
		quantity: '={{ $json.quantity }}',
		newClientOrderId: '={{ $json.rowId }}',
	};
	const first = await runAndTally(sb, tally, {
		parameters,
		inputItems: rerunInputs.map((json) => ({ json })),
		executionId: 'rerun',
	});
	const placedByFirst = sb.ledger.orders.length - ordersBefore;
	const second = await runAndTally(sb, tally, {
		parameters,
		inputItems: rerunInputs.map((json) => ({ json })),
		executionId: 'rerun-2',
	});
	const placedBySecond = sb.ledger.orders.length - ordersBefore - placedByFirst;
	return { sb, cases, batches, rerun: { first, second, placedByFirst, placedBySecond } };
}

// ------------------------------------------------------------------ scenario: history Return All

interface HistoryQuery {
	flowType: number;
	accountType?: number;
	startTime: number;
	endTime: number;
}

/** What the service holds for a query, newest first (created desc, then id desc), from the seeded records. */
function expectedHistory(
	records: HistoryRecord[],
	query: HistoryQuery,
	accountTypeOf: Record<string, number>,
): string[] {
	const cmpId = (a: string, b: string) =>
		a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
	return records
		.filter(
			(record) =>
				record.flowTypeValue === query.flowType &&
				(query.accountType === undefined ||
					accountTypeOf[record.accountId] === query.accountType) &&
				Number(record.created) >= query.startTime &&
				Number(record.created) <= query.endTime,
		)
		.sort((a, b) => Number(b.created) - Number(a.created) || cmpId(b.id, a.id))
		.map((record) => record.id);
}

const ACCOUNT_TYPE_OF: Record<string, number> = {
	[DEMO_ACCOUNTS.mainTrading]: 1,
	[DEMO_ACCOUNTS.mainContract]: 3,
	[DEMO_ACCOUNTS.custody]: 5,
	[DEMO_ACCOUNTS.fiat]: 6,
	[DEMO_ACCOUNTS.subTrading]: 1,
};

interface ReturnAllCase {
	query: HistoryQuery;
	expected: string[];
	got: string[];
	error?: string;
	cleanPages: number;
	requests: LedgerRequest[];
}

function historyParameters(query: HistoryQuery, extra: Record<string, unknown> = {}) {
	return {
		resource: 'account',
		operation: 'getHistory',
		flowType: query.flowType,
		accountType: query.accountType ?? 0,
		startTime: new Date(query.startTime).toISOString(),
		endTime: new Date(query.endTime).toISOString(),
		...extra,
	};
}

async function returnAllScenario(tally: Tally) {
	const sb = await sandbox();
	const rng = new Rng(505);
	const now = sb.now();
	const seeded: HistoryRecord[] = [
		// Three records per millisecond: page boundaries fall inside a millisecond.
		...sb.seedRecords({
			flowType: 32,
			count: 2600,
			startTime: now - 20 * DAY,
			endTime: now - HOUR,
			perMillisecond: 3,
			seed: 1,
		}),
		...sb.seedRecords({
			flowType: 51,
			count: 900,
			startTime: now - 25 * DAY,
			endTime: now - HOUR,
			accountId: DEMO_ACCOUNTS.mainTrading,
			perMillisecond: 2,
			seed: 2,
		}),
		...sb.seedRecords({
			flowType: 51,
			count: 700,
			startTime: now - 25 * DAY,
			endTime: now - HOUR,
			accountId: DEMO_ACCOUNTS.custody,
			perMillisecond: 2,
			seed: 3,
		}),
		...sb.seedRecords({
			flowType: 1,
			count: 1400,
			startTime: now - 6 * DAY,
			endTime: now - HOUR,
			seed: 4,
		}),
	];
	const queries: HistoryQuery[] = [];
	for (let index = 0; index < 12; index++) {
		const flowType = rng.pick([32, 51, 51, 1]);
		const span = (flowType === 1 ? 6 : 25) * DAY;
		const startTime = now - span + rng.int(0, 3) * DAY;
		const endTime = now - rng.int(0, 48) * HOUR;
		const accountType = flowType === 51 ? rng.pick([undefined, 1, 5]) : undefined;
		queries.push({ flowType, accountType, startTime, endTime });
	}
	const cases: ReturnAllCase[] = [];
	for (const [index, query] of queries.entries()) {
		// Fault-free first: how many pages the walk needs.
		sb.clearFaults();
		const clean = await runAndTally(sb, tally, {
			parameters: historyParameters(query, { returnAll: true }),
		});
		sb.setFaults({
			latencyMs: index % 2 === 0 ? 3 : 0,
			// Two 429s (Retry-After: 0) in a row first, then seeded 5xx and drops.
			rules: [{ kind: 'rateLimit', times: 2, retryAfterSeconds: 0, path: PATHS.history }],
			random: {
				seed: 5000 + index,
				http5xx: 0.1,
				dropBefore: 0.05,
				dropAfter: 0.05,
				paths: [PATHS.history],
			},
		});
		const run = await runAndTally(sb, tally, {
			parameters: historyParameters(query, { returnAll: true }),
			executionId: `return-all-${index}`,
		});
		cases.push({
			query,
			expected: expectedHistory(seeded, query, ACCOUNT_TYPE_OF),
			got: run.items.map((item) => String(item.json.id)),
			error: run.error?.message,
			cleanPages: clean.requests.length,
			requests: run.requests,
		});
	}
	sb.clearFaults();
	return { sb, cases };
}

// ------------------------------------------------------------------ scenario: history pages (limit)

interface PageCase {
	limit: number;
	expected: string[];
	got: string[];
	error?: string;
	attempts: LedgerRequest[];
}

async function historyPageScenario(tally: Tally) {
	const sb = await sandbox();
	const rng = new Rng(606);
	const now = sb.now();
	const seeded = sb.seedRecords({
		flowType: 32,
		count: 3000,
		startTime: now - 10 * DAY,
		endTime: now - HOUR,
		perMillisecond: 2,
		seed: 6,
	});
	const cases: PageCase[] = [];
	for (let runIndex = 0; runIndex < 2; runIndex++) {
		sb.setFaults({
			latencyMs: runIndex === 0 ? 2 : 0,
			rules: [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 0, path: PATHS.history }],
			random: {
				seed: 6000 + runIndex,
				http5xx: 0.08,
				dropBefore: 0.04,
				dropAfter: 0.04,
				paths: [PATHS.history],
			},
		});
		const inputs = Array.from({ length: 100 }, (_, index) => {
			// Unique windows (the item index in the milliseconds): requests map back to their item.
			const endTime = now - rng.int(2, 9 * 24) * HOUR - runIndex * 1000 - index;
			return { startTime: endTime - rng.int(1, 24) * HOUR, endTime, limit: rng.int(1, 40) };
		});
		const run = await runAndTally(sb, tally, {
			parameters: {
				resource: 'account',
				operation: 'getHistory',
				flowType: 32,
				startTime: '={{ $json.startTime }}',
				endTime: '={{ $json.endTime }}',
				returnAll: false,
				limit: '={{ $json.limit }}',
			},
			inputItems: inputs.map((json) => ({ json })),
			continueOnFail: true,
			executionId: `pages-${runIndex}`,
		});
		const outputs = byInputItem(run.items);
		inputs.forEach((input, index) => {
			const output = outputs.get(index) ?? [];
			cases.push({
				limit: input.limit,
				expected: expectedHistory(
					seeded,
					{ flowType: 32, startTime: input.startTime, endTime: input.endTime },
					ACCOUNT_TYPE_OF,
				).slice(0, input.limit),
				got: output
					.filter((item) => errorOf(item) === undefined)
					.map((item) => String(item.json.id)),
				error: errorOf(output[0]),
				attempts: run.requests.filter(
					(request) =>
						request.path === PATHS.history &&
						queryOf(request).get('endTime') === String(input.endTime) &&
						queryOf(request).get('startTime') === String(input.startTime),
				),
			});
		});
	}
	sb.clearFaults();
	return { sb, cases };
}

// ------------------------------------------------------------------ scenario: server clock offsets

interface ClockCase {
	offsetMs: number;
	recvWindow: number;
	inside: boolean;
	operation: string;
	outputs: INodeExecutionData[];
	requests: LedgerRequest[];
	ordersPlaced: number;
	transfersMade: number;
}

async function clockScenario(tally: Tally) {
	const sb = await sandbox();
	const now = sb.now();
	sb.seedRecords({
		flowType: 32,
		count: 50,
		startTime: now - 2 * HOUR,
		endTime: now - HOUR,
		seed: 7,
	});
	// Inside: -1000 < offset <= recvWindow; every case keeps ≥ 900 ms from the edges, so a slow
	// machine's travel time cannot move a request across.
	const offsets: Array<[number, number, boolean]> = [
		[0, 5000, true],
		[-600, 5000, true],
		[2500, 5000, true],
		[4000, 5000, true],
		[-2500, 5000, false],
		[-5000, 5000, false],
		[5600, 5000, false],
		[30_000, 5000, false],
		[7000, 10_000, true],
		[12_000, 10_000, false],
		[-2500, 10_000, false],
	];
	const cases: ClockCase[] = [];
	let seq = 0;
	for (const [offsetMs, recvWindow, inside] of offsets) {
		sb.setFaults({ clockOffsetMs: offsetMs, latencyMs: 2 });
		const credentials = { recvWindow };
		const operations: Array<[string, IDataObject, number]> = [
			[
				'getHistory',
				{
					resource: 'account',
					operation: 'getHistory',
					flowType: 32,
					startTime: new Date(now - 3 * HOUR).toISOString(),
					endTime: new Date(now).toISOString(),
					limit: 5,
				},
				2,
			],
			[
				'transferAsset',
				{
					resource: 'account',
					operation: 'transferAsset',
					fromAccountId: '10001',
					toAccountId: '10005',
					coin: 'USDT',
					quantity: '={{ $json.quantity }}',
				},
				2,
			],
			[
				'create',
				{
					resource: 'order',
					operation: 'create',
					symbol: 'BTCUSDT',
					side: 'BUY',
					type: 'LIMIT',
					price: '3',
					quantity: '={{ $json.quantity }}',
				},
				2,
			],
			[
				'createMany',
				{
					resource: 'order',
					operation: 'createMany',
					inputMode: 'items',
					symbol: 'ETHUSDT',
					side: 'BUY',
					type: 'LIMIT',
					price: '3',
					quantity: '={{ $json.quantity }}',
				},
				3,
			],
		];
		for (const [operation, parameters, itemCount] of operations) {
			const ordersBefore = sb.ledger.orders.length;
			const transfersBefore = sb.ledger.transfers.length;
			const run = await runAndTally(sb, tally, {
				parameters,
				credentials,
				inputItems: Array.from({ length: itemCount }, () => ({
					json: { quantity: `0.${++seq}1` },
				})),
				continueOnFail: true,
				executionId: `clock-${offsetMs}-${recvWindow}-${operation}`,
			});
			cases.push({
				offsetMs,
				recvWindow,
				inside,
				operation,
				outputs: run.items,
				requests: run.requests,
				ordersPlaced: sb.ledger.orders.length - ordersBefore,
				transfersMade: sb.ledger.transfers.length - transfersBefore,
			});
		}
	}
	sb.clearFaults();
	return { sb, cases };
}

// ------------------------------------------------------------------ scenario: trigger polls

interface PollCase {
	round: number;
	/** Records added since the previous poll. */
	added: string[];
	emitted: string[];
	error?: string;
	requests: LedgerRequest[];
	stateChanged: boolean;
}

/**
 * An active trigger polling the funding fee history while records keep arriving (bursts larger
 * than a page, up to 3 per millisecond, a few listed up to 3 s late) under seeded 5xx, drops and
 * 429s; some polls fail outright (server clock outside the receive window) and must change
 * nothing, so that the next poll catches up.
 *
 * Records arrive in time order on a timeline of their own (20 minutes ago onwards), so "late"
 * means exactly what the test says. (Records listed late behind more than a page of newer ones:
 * regressions.test.ts.)
 */
async function triggerScenario(tally: Tally) {
	const sb = await sandbox();
	const rng = new Rng(808);
	const runner = triggerRunner(sb);
	let timeline = sb.now() - 20 * 60_000;
	const record = (created: number) => ({
		accountId: DEMO_ACCOUNTS.mainContract,
		flowTypeValue: 32,
		change: `-0.${rng.int(1, 999)}`,
		created: String(created),
	});
	/** `count` records after everything so far, `perMillisecond` at a time, 20-60 ms apart. */
	const createdTimes: number[] = [];
	const store = (records: Array<ReturnType<typeof record>>) => {
		for (const added of records) createdTimes.push(Number(added.created));
		return sb.addRecords(records).map((added) => added.id);
	};
	const arrive = (count: number, perMillisecond = 1): string[] => {
		const records: Array<ReturnType<typeof record>> = [];
		while (records.length < count) {
			timeline += rng.int(20, 60);
			for (let k = 0; k < perMillisecond && records.length < count; k++)
				records.push(record(timeline));
		}
		return store(records);
	};
	/** Records listed late: up to 3 s older than the newest record. */
	const arriveLate = (count: number): string[] =>
		store(Array.from({ length: count }, () => record(timeline - rng.int(1, 3000))));
	const poll = async (round: number, added: string[]): Promise<PollCase> => {
		const before = sb.ledger.requests.length;
		const outcome = await runner.poll();
		const requests = sb.ledger.requests.slice(before);
		tally.runs++;
		tally.requests += requests.length;
		for (const request of requests) {
			if (request.fault !== undefined)
				tally.faults[request.fault] = (tally.faults[request.fault] ?? 0) + 1;
			if (request.code === '-1021')
				tally.faults.clockRejected = (tally.faults.clockRejected ?? 0) + 1;
			if (secretIn(requestText(request)))
				tally.secretLeaks.push('trigger request carried a secret');
		}
		const visible =
			JSON.stringify(outcome.items) +
			String(outcome.error?.message ?? '') +
			String(outcome.error?.description ?? '') +
			String(outcome.error?.stack ?? '');
		if (secretIn(visible))
			tally.secretLeaks.push(`trigger poll ${round}: output or error contains a secret`);
		const stateChanged = runner.staticDataChanged();
		runner.markSaved();
		return {
			round,
			added,
			emitted: outcome.items.map((item) => String(item.json.id)),
			error: outcome.error?.message,
			requests,
			stateChanged,
		};
	};

	// History that exists before activation: never emitted.
	const before = arrive(800, 2);
	const baseline = await poll(0, []);
	const cases: PollCase[] = [];
	for (let round = 1; round <= 40; round++) {
		let added: string[];
		if (round % 10 === 5) added = arrive(1200, 3);
		else if (round % 4 === 0) added = [];
		else if (round % 7 === 3)
			added = [...arrive(rng.int(1, 40), rng.int(1, 3)), ...arriveLate(rng.int(1, 5))];
		else added = arrive(rng.int(1, 60), rng.int(1, 3));
		const fail = round % 9 === 0;
		sb.setFaults({
			latencyMs: round % 3 === 0 ? 3 : 0,
			...(fail ? { clockOffsetMs: 8000 } : {}),
			rules:
				round % 5 === 0
					? [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 0, path: PATHS.history }]
					: [],
			random: {
				seed: 8000 + round,
				http5xx: 0.1,
				dropBefore: 0.05,
				dropAfter: 0.05,
				paths: [PATHS.history],
			},
		});
		cases.push(await poll(round, added));
	}
	// A last clean poll catches up on anything a failed poll left.
	sb.clearFaults();
	cases.push(await poll(41, []));
	// And idle polls: nothing new, no state change. Each reads the late records window again (500
	// records per request), so its cost depends on how many records the window holds.
	const idle: PollCase[] = [];
	for (let round = 42; round < 47; round++) idle.push(await poll(round, []));
	const newest = Math.max(...createdTimes);
	const windowRecords = createdTimes.filter((created) => created >= newest - 10 * 60_000).length;
	return { sb, before, baseline, cases, idle, windowRecords };
}

// ------------------------------------------------------------------ run all scenarios

const tallies = {
	transfers: newTally(),
	singleOrders: newTally(),
	plainOrders: newTally(),
	batches: newTally(),
	returnAll: newTally(),
	pages: newTally(),
	clock: newTally(),
	trigger: newTally(),
};
let transfers: Awaited<ReturnType<typeof transferScenario>>;
let singleOrders: Awaited<ReturnType<typeof singleOrderScenario>>;
let plainOrders: Awaited<ReturnType<typeof plainOrderScenario>>;
let batches: Awaited<ReturnType<typeof batchScenario>>;
let returnAll: Awaited<ReturnType<typeof returnAllScenario>>;
let pages: Awaited<ReturnType<typeof historyPageScenario>>;
let clock: Awaited<ReturnType<typeof clockScenario>>;
let trigger: Awaited<ReturnType<typeof triggerScenario>>;
let wallMs = 0;

beforeAll(async () => {
	const started = Date.now();
	[transfers, singleOrders, plainOrders, batches, returnAll, pages, clock, trigger] =
		await Promise.all([
			transferScenario(tallies.transfers),
			singleOrderScenario(tallies.singleOrders),
			plainOrderScenario(tallies.plainOrders),
			batchScenario(tallies.batches),
			returnAllScenario(tallies.returnAll),
			historyPageScenario(tallies.pages),
			clockScenario(tallies.clock),
			triggerScenario(tallies.trigger),
		]);
	wallMs = Date.now() - started;
});

afterAll(async () => {
	await Promise.all(sandboxes.map((sb) => sb.stop()));
});

describe('transfers under 5xx, drops before/after, 429 + Retry-After and latency', () => {
	it('never moves money twice: at most one processed attempt per transfer, ledger and balances agree', () => {
		expect(duplicates(transfers.sb.ledger.transfers.map((transfer) => transfer.quantity))).toEqual(
			[],
		);
		for (const c of transfers.cases) {
			const { real } = splitAttempts(c.attempts);
			expect(real.length).toBeLessThanOrEqual(1);
			const applied = transfers.sb.ledger.transfers.filter(
				(transfer) => transfer.quantity === c.quantity,
			);
			expect(applied).toHaveLength(real.filter(wasApplied).length);
		}
	});

	it('reports every transfer whose outcome is unknown as such, and every other outcome exactly', () => {
		const outcomes: Record<string, number> = {};
		for (const c of transfers.cases) {
			expect(c.output).toHaveLength(1);
			const { last } = splitAttempts(c.attempts);
			const json = c.output[0].json;
			if (isUnknownOutcomeFault(last)) {
				expect(errorOf(c.output[0])).toMatch(UNKNOWN);
				expect(String(json.description)).toMatch(/Transfer Between Accounts|balances/);
				outcomes[`unknown after ${last.fault}`] =
					(outcomes[`unknown after ${last.fault}`] ?? 0) + 1;
			} else {
				expect(last.status).toBe(200);
				const applied = transfers.sb.ledger.transfers.find(
					(transfer) => transfer.quantity === c.quantity,
				);
				expect(json).toMatchObject({ outcome: 'placed', success: true, orderId: applied?.id });
				outcomes.confirmed = (outcomes.confirmed ?? 0) + 1;
			}
		}
		// The seeds produce every kind of outcome.
		expect(Object.keys(outcomes).sort()).toEqual(
			expect.arrayContaining(['confirmed', 'unknown after dropAfter', 'unknown after dropBefore']),
		);
		expect(Object.keys(outcomes).some((key) => /http50[023]/.test(key))).toBe(true);
	});

	it('retries a 429 only after the Retry-After the service asked for', () => {
		let honoured = 0;
		for (const c of transfers.cases) {
			c.attempts.forEach((attempt, index) => {
				const wait = c.retryAfterMs.get(attempt);
				if (wait === undefined || index === c.attempts.length - 1) return;
				expect(c.attempts[index + 1].at - attempt.at).toBeGreaterThanOrEqual(wait - 5);
				honoured++;
			});
		}
		expect(honoured).toBeGreaterThan(15);
	});
});

describe('single orders with generated client order IDs', () => {
	it('never places an order twice, whatever the faults', () => {
		const ledger = singleOrders.sb.ledger.orders;
		expect(duplicates(ledger.map((order) => order.clientOrderId))).toEqual([]);
		for (const c of singleOrders.cases) {
			const { real } = splitAttempts(c.attempts);
			expect(real.length).toBeGreaterThanOrEqual(1);
			expect(real.length).toBeLessThanOrEqual(3);
			const placed = ledger.filter((order) => order.clientOrderId === c.clientOrderId);
			expect(placed).toHaveLength(real.some(wasApplied) ? 1 : 0);
		}
	});

	it("settles an unknown outcome by looking the order up: placed with the service's order, re-sent only when proven not placed, else unknown", () => {
		const outcomes: Record<string, number> = {};
		for (const c of singleOrders.cases) {
			expect(c.output).toHaveLength(1);
			const { real } = splitAttempts(c.attempts);
			const json = c.output[0].json;
			// An attempt is sent again only after one whose outcome was unknown and which the service did not apply.
			for (const attempt of real.slice(0, -1)) {
				expect(isUnknownOutcomeFault(attempt)).toBe(true);
				expect(wasApplied(attempt)).toBe(false);
			}
			const placed = singleOrders.sb.ledger.orders.filter(
				(order) => order.clientOrderId === c.clientOrderId,
			);
			expect(placed.length).toBeLessThanOrEqual(1);
			if (placed.length === 1) {
				expect(json).toMatchObject({
					outcome: 'placed',
					orderId: placed[0].orderId,
					clientOrderId: c.clientOrderId,
				});
				const lostAnswer = real.some(
					(attempt) => attempt.fault !== undefined && attempt.appliedStatus === 200,
				);
				const kind = lostAnswer
					? 'placed, answer lost'
					: real.length > 1
						? 'placed on re-send'
						: 'placed';
				outcomes[kind] = (outcomes[kind] ?? 0) + 1;
			} else {
				expect(json.outcome).toBe('unknown');
				expect(errorOf(c.output[0])).toMatch(UNKNOWN);
				expect(String(json.description)).toContain(c.clientOrderId);
				outcomes.unknown = (outcomes.unknown ?? 0) + 1;
			}
		}
		expect(Object.keys(outcomes)).toEqual(
			expect.arrayContaining(['placed', 'placed, answer lost']),
		);
	});
});

describe('single orders without client order IDs (generation off)', () => {
	it('never sends an order again after an unknown outcome, and reports it as unknown', () => {
		const ledger = plainOrders.sb.ledger.orders;
		expect(duplicates(ledger.map((order) => order.origQty))).toEqual([]);
		let unknown = 0;
		for (const c of plainOrders.cases) {
			const { real, last } = splitAttempts(c.attempts);
			expect(real).toHaveLength(1);
			expect(c.output).toHaveLength(1);
			const placed = ledger.filter((order) => order.origQty === c.quantity);
			expect(placed).toHaveLength(wasApplied(last) ? 1 : 0);
			if (isUnknownOutcomeFault(last)) {
				expect(errorOf(c.output[0])).toMatch(UNKNOWN);
				unknown++;
			} else {
				expect(c.output[0].json.orderId).toBe(placed[0].orderId);
			}
			c.attempts.forEach((attempt, index) => {
				const wait = c.retryAfterMs.get(attempt);
				if (wait !== undefined && index < c.attempts.length - 1) {
					expect(c.attempts[index + 1].at - attempt.at).toBeGreaterThanOrEqual(wait - 5);
				}
			});
		}
		expect(unknown).toBeGreaterThan(10);
	});
});

describe('Create Many under faults', () => {
	it('sends batches of at most 20 orders of one symbol', () => {
		for (const batch of batches.batches) {
			const orders = JSON.parse(batch.body) as Array<{ symbol: string }>;
			expect(orders.length).toBeGreaterThan(0);
			expect(orders.length).toBeLessThanOrEqual(20);
			expect(new Set(orders.map((order) => order.symbol)).size).toBe(1);
		}
	});

	it('never places an order twice; retries a batch only after an unknown outcome, at most twice', () => {
		const ledger = batches.sb.ledger.orders;
		expect(duplicates(ledger.map((order) => order.clientOrderId))).toEqual([]);
		for (const batch of batches.batches) {
			const { real } = splitAttempts(batch.attempts);
			expect(real.length).toBeLessThanOrEqual(3);
			for (const attempt of real.slice(0, -1)) expect(isUnknownOutcomeFault(attempt)).toBe(true);
			const ids = (JSON.parse(batch.body) as Array<{ newClientOrderId: string }>).map(
				(order) => order.newClientOrderId,
			);
			const placed = ledger.filter((order) => ids.includes(order.clientOrderId));
			expect(placed).toHaveLength(real.some(wasApplied) ? ids.length : 0);
		}
	});

	it('reports each order as the ledger has it: placed with its order (also after a lost answer), else unknown', () => {
		const outcomes: Record<string, number> = {};
		for (const c of batches.cases) {
			expect(c.output).toHaveLength(1);
			const batch = batches.batches.find((candidate) =>
				candidate.body.includes(`"${c.clientOrderId}"`),
			);
			expect(batch).toBeDefined();
			const { real } = splitAttempts(batch!.attempts);
			const json = c.output[0].json;
			const placed = batches.sb.ledger.orders.filter(
				(order) => order.clientOrderId === c.clientOrderId,
			);
			expect(placed.length).toBeLessThanOrEqual(1);
			if (placed.length === 1) {
				expect(json).toMatchObject({
					outcome: 'placed',
					success: true,
					clientOrderId: c.clientOrderId,
					symbol: c.symbol,
				});
				expect((json.order as { orderId?: string }).orderId).toBe(placed[0].orderId);
				const lostAnswer = real.some(
					(attempt) => attempt.fault !== undefined && attempt.appliedStatus === 200,
				);
				outcomes[lostAnswer ? 'placed, answer lost' : 'placed'] =
					(outcomes[lostAnswer ? 'placed, answer lost' : 'placed'] ?? 0) + 1;
			} else {
				expect(json.outcome).toBe('unknown');
				expect(errorOf(c.output[0])).toMatch(UNKNOWN);
				outcomes.unknown = (outcomes.unknown ?? 0) + 1;
			}
		}
		expect(Object.keys(outcomes)).toEqual(
			expect.arrayContaining(['placed', 'placed, answer lost']),
		);
	});

	it('a re-run with a business key as Client Order ID places nothing again and reports every order alreadyPlaced', () => {
		const { first, second, placedByFirst, placedBySecond } = batches.rerun;
		expect(first.error).toBeUndefined();
		expect(placedByFirst).toBe(45);
		expect(first.requests.filter((request) => request.path === PATHS.batch)).toHaveLength(3);
		expect(second.error).toBeUndefined();
		expect(second.items).toHaveLength(45);
		for (const item of second.items)
			expect(item.json).toMatchObject({ outcome: 'placed', success: true, alreadyPlaced: true });
		expect(placedBySecond).toBe(0);
		expect(second.requests.filter((request) => request.path === PATHS.batch)).toHaveLength(3);
	});
});

describe('history Return All under 5xx, drops, 429 and latency', () => {
	it('returns every record exactly once, in order, whatever the faults', () => {
		for (const c of returnAll.cases) {
			expect(c.error).toBeUndefined();
			expect(duplicates(c.got)).toEqual([]);
			expect(c.got).toEqual(c.expected);
		}
		expect(returnAll.cases.reduce((sum, c) => sum + c.expected.length, 0)).toBeGreaterThan(5000);
	});

	it('retries each failed page until it succeeds, and asks for no page more than needed', () => {
		let faulted = 0;
		for (const c of returnAll.cases) {
			const ok = c.requests.filter((request) => request.fault === undefined);
			expect(ok.every((request) => request.status === 200)).toBe(true);
			expect(ok).toHaveLength(c.cleanPages);
			faulted += c.requests.length - ok.length;
		}
		expect(faulted).toBeGreaterThan(25);
	});
});

describe('history pages under faults', () => {
	it('every read ends in success with exactly the records asked for', () => {
		let retried = 0;
		for (const c of pages.cases) {
			expect(c.error).toBeUndefined();
			expect(c.got).toEqual(c.expected);
			const last = c.attempts[c.attempts.length - 1];
			expect(last.fault).toBeUndefined();
			expect(last.status).toBe(200);
			expect(c.attempts.slice(0, -1).every((attempt) => attempt.fault !== undefined)).toBe(true);
			if (c.attempts.length > 1) retried++;
		}
		expect(retried).toBeGreaterThan(20);
	});
});

describe('server clock offsets inside and outside the receive window', () => {
	it('inside the window every operation succeeds', () => {
		for (const c of clock.cases.filter((candidate) => candidate.inside)) {
			for (const item of c.outputs) expect(errorOf(item)).toBeUndefined();
			if (c.operation === 'transferAsset') expect(c.transfersMade).toBe(2);
			if (c.operation === 'create') expect(c.ordersPlaced).toBe(2);
			if (c.operation === 'createMany') expect(c.ordersPlaced).toBe(3);
		}
	});

	it('outside it every operation is rejected once, not retried, nothing executed, and the offset is reported', () => {
		for (const c of clock.cases.filter((candidate) => !candidate.inside)) {
			expect(c.ordersPlaced + c.transfersMade).toBe(0);
			expect(c.outputs.length).toBeGreaterThan(0);
			const signed = c.requests.filter((request) => request.path !== PATHS.time);
			// One request per item (per batch for Create Many), each answered -1021.
			expect(signed.every((request) => request.code === '-1021')).toBe(true);
			expect(signed).toHaveLength(c.operation === 'createMany' ? 1 : 2);
			for (const item of c.outputs) {
				expect(errorOf(item)).toMatch(/receive window/);
				const description = String(item.json.description);
				expect(description).toContain('Nothing was executed');
				const measured = /The service clock is (\d+) ms (ahead of|behind)/.exec(description);
				expect(measured).not.toBeNull();
				const signedOffset = Number(measured![1]) * (measured![2] === 'behind' ? -1 : 1);
				expect(Math.abs(signedOffset - c.offsetMs)).toBeLessThan(500);
			}
		}
	});
});

describe('trigger polls under faults, failed polls and bursts', () => {
	it('emits every record that arrived after activation exactly once, and none from before', () => {
		expect(trigger.baseline.error).toBeUndefined();
		expect(trigger.baseline.emitted).toEqual([]);
		const emitted = trigger.cases.flatMap((c) => c.emitted);
		const added = trigger.cases.flatMap((c) => c.added);
		expect(duplicates(emitted)).toEqual([]);
		expect([...emitted].sort()).toEqual([...added].sort());
		expect(emitted.filter((id) => trigger.before.includes(id))).toEqual([]);
		expect(added.length).toBeGreaterThan(4000);
	});

	it('a poll that fails emits nothing and changes no state; transient faults are retried within the poll', () => {
		const failed = trigger.cases.filter((c) => c.error !== undefined);
		expect(failed.length).toBeGreaterThanOrEqual(4);
		for (const c of failed) {
			expect(c.error).toMatch(/receive window/);
			expect(c.emitted).toEqual([]);
			expect(c.stateChanged).toBe(false);
		}
		const retried = trigger.cases.filter(
			(c) => c.error === undefined && c.requests.some((request) => request.fault !== undefined),
		);
		expect(retried.length).toBeGreaterThan(10);
	});

	it('an idle poll emits nothing, changes nothing, and reads the late records window once (500 records per request)', () => {
		const pages = Math.floor(trigger.windowRecords / 500) + 1;
		for (const c of trigger.idle) {
			expect(c.error).toBeUndefined();
			expect(c.emitted).toEqual([]);
			expect(c.requests.length).toBeGreaterThanOrEqual(1);
			expect(c.requests.length).toBeLessThanOrEqual(pages);
			expect(c.stateChanged).toBe(false);
		}
	});
});

describe('totals', () => {
	it('≥ 1,000 calls across all operations, with every kind of fault, and no secret anywhere', () => {
		const total = mergeTallies(Object.values(tallies));
		const byScenario = Object.fromEntries(
			Object.entries(tallies).map(([name, tally]) => [name, tally.requests]),
		);
		console.log(
			`fault suite: ${total.requests} requests in ${total.runs} workflow runs, ${(wallMs / 1000).toFixed(1)} s\n` +
				`requests by scenario: ${JSON.stringify(byScenario)}\nfaults by kind: ${JSON.stringify(total.faults)}`,
		);
		expect(total.requests).toBeGreaterThanOrEqual(1000);
		for (const kind of [
			'http500',
			'http502',
			'http503',
			'dropBefore',
			'dropAfter',
			'rateLimit',
			'clockRejected',
		]) {
			expect(total.faults[kind] ?? 0).toBeGreaterThan(5);
		}
		expect(total.secretLeaks).toEqual([]);
	});
});

// ------------------------------------------------------------------ money safety under Retry On Fail (issue 11)

/**
 * Every write kind x Retry On Fail (3 tries, no wait) on/off x Continue On Fail on/off, each run
 * with a fault forced on its first write request (drop or 5xx after commit, unknown-outcome codes
 * before and after, drops and 5xx before, re-ordered batch results) and seeded random faults after
 * it. The sandbox's ledger is the oracle for each item's report.
 */
describe('money safety: every write under faults, with and without Retry On Fail and Continue On Fail', () => {
	const RUNS_PER_CELL = Number(process.env.FAULT_MATRIX_RUNS_PER_CELL ?? 40);
	const LANES = 16;
	const runs: MatrixRun[] = [];
	const lanes: Sandbox[] = [];

	beforeAll(async () => {
		// A drip-fed answer (one byte every 50 ms) must end at the attempt's deadline: a shorter
		// deadline than the product's 30 s keeps the suite quick and still far below the drip.
		const deadline = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'timeoutMs', 3000);
		const plan: Array<{
			kind: (typeof WRITE_KINDS)[number];
			retryOnFail: boolean;
			continueOnFail: boolean;
			seed: number;
		}> = [];
		let seed = 11_000;
		for (let round = 0; round < RUNS_PER_CELL; round++) {
			for (const kind of WRITE_KINDS) {
				for (const retryOnFail of [false, true]) {
					for (const continueOnFail of [false, true])
						plan.push({ kind, retryOnFail, continueOnFail, seed: seed++ });
				}
			}
		}
		for (let lane = 0; lane < LANES; lane++) lanes.push(await sandbox());
		let next = 0;
		// Each lane runs one node run at a time on its own sandbox (reset per run); lanes overlap
		// while runs wait on lookups, backoff and the receive window.
		await Promise.all(
			lanes.map(async (sb) => {
				for (let index = next++; index < plan.length; index = next++) {
					const cell = plan[index];
					runs.push(await matrixRun(sb, { ...cell, name: `safety-${cell.seed}` }));
				}
			}),
		);
		const verdicts = runs.flatMap((run) => run.verdicts);
		const table: Record<string, Record<string, number>> = {};
		for (const run of runs) {
			const cell = `${run.kind} retry=${run.retryOnFail ? 'on' : 'off'} cof=${run.continueOnFail ? 'on' : 'off'}`;
			const row = (table[cell] ??= {
				runs: 0,
				faulted: 0,
				writes: 0,
				placed: 0,
				rejected: 0,
				unknown: 0,
				notReported: 0,
				committedAfterFault: 0,
				reportedFromRerun: 0,
				violations: 0,
			});
			row.runs++;
			if (run.faults.length > 0) row.faulted++;
			for (const verdict of run.verdicts) {
				row.writes++;
				if (verdict.reported === 'none') row.notReported++;
				else if (verdict.reported !== 'missing') row[verdict.reported]++;
				if (verdict.faultAfterCommit && verdict.committed > 0) row.committedAfterFault++;
				if (violationOf(verdict)) row.violations++;
				if (verdict.fromRerun) row.reportedFromRerun++;
			}
		}
		const count = (kind: string) =>
			verdicts.filter((verdict) => violationOf(verdict) === kind).length;
		console.log(
			[
				`money safety: ${runs.length} runs (${runs.filter((run) => run.faults.length > 0).length} faulted), ${verdicts.length} writes`,
				`committed more than intended: ${count('committedTwice')}`,
				`reported placed but not placed (or another order): ${count('placedNotPlaced')}`,
				`reported rejected / "nothing was executed" but placed: ${count('rejectedButPlaced')}`,
				`no outcome reported: ${count('noOutcome')}`,
				...Object.entries(table).map(([cell, row]) => `  ${cell}: ${JSON.stringify(row)}`),
			].join('\n'),
		);
		deadline.restore();
	}, 290_000);

	const violations = (kind: string) =>
		runs.flatMap((run) =>
			run.verdicts
				.filter((verdict) => violationOf(verdict) === kind)
				.map((verdict) => ({ ...verdict, faults: run.faults.join(',') })),
		);

	it('covers at least 1,000 faulted runs over every write kind and setting, with every forced fault', () => {
		expect(runs.filter((run) => run.faults.length > 0).length).toBeGreaterThanOrEqual(1000);
		const faults = new Set(runs.flatMap((run) => run.faults));
		for (const kind of [...FORCED_FAULTS, 'batchReorder'])
			expect([kind, faults.has(kind)]).toEqual([kind, true]);
		for (const kind of WRITE_KINDS) {
			for (const retryOnFail of [false, true]) {
				for (const continueOnFail of [false, true]) {
					const cell = runs.filter(
						(run) =>
							run.kind === kind &&
							run.retryOnFail === retryOnFail &&
							run.continueOnFail === continueOnFail,
					);
					expect([kind, retryOnFail, continueOnFail, cell.length]).toEqual([
						kind,
						retryOnFail,
						continueOnFail,
						RUNS_PER_CELL,
					]);
				}
			}
		}
		// The checks below can only fail if writes were committed and their answers lost: there are many.
		const lostAnswers = runs
			.flatMap((run) => run.verdicts)
			.filter((verdict) => verdict.faultAfterCommit && verdict.committed > 0);
		expect(lostAnswers.filter((verdict) => verdict.retryOnFail).length).toBeGreaterThanOrEqual(
			RUNS_PER_CELL,
		);
		expect(lostAnswers.filter((verdict) => !verdict.retryOnFail).length).toBeGreaterThanOrEqual(
			RUNS_PER_CELL,
		);
		// n8n's Retry On Fail really re-ran the node (reports from a re-run), and only where it is on.
		const fromRerun = runs.flatMap((run) => run.verdicts).filter((verdict) => verdict.fromRerun);
		expect(fromRerun.filter((verdict) => verdict.retryOnFail).length).toBeGreaterThanOrEqual(
			RUNS_PER_CELL,
		);
		expect(fromRerun.filter((verdict) => !verdict.retryOnFail)).toEqual([]);
	});

	it('follows no redirect: nothing reached the other host, over more than 50 runs with a redirect (their outcomes are checked below)', () => {
		expect(runs.some((run) => run.faults.includes('redirectOtherHost'))).toBe(true);
		expect(runs.reduce((sum, run) => sum + run.reachedOtherHost, 0)).toBe(0);
		// A redirect is answered without processing: the redirected request itself was never applied.
		const redirected = runs.filter((run) =>
			run.faults.some((fault) => fault.startsWith('redirect')),
		);
		expect(redirected.length).toBeGreaterThan(50);
	});

	it('commits no write more than intended', () => {
		expect(violations('committedTwice')).toEqual([]);
	});

	it("reports no write placed that was not (and no order as another item's order)", () => {
		expect(violations('placedNotPlaced')).toEqual([]);
	});

	it('reports no write rejected or "nothing was executed" that was placed', () => {
		expect(violations('rejectedButPlaced')).toEqual([]);
	});

	it('every write the node reports on carries one outcome: placed, rejected or unknown', () => {
		expect(violations('noOutcome')).toEqual([]);
	});
});

// ------------------------------------------------------------------ history pages that must not become records (issue 12)

/**
 * Return All over 3,000 funding fees (6 pages) with one bad answer forced on one page: a page
 * longer than asked for, a page oldest first, IDs as bare 64-bit integers, a redirect, a
 * malformed or drip-fed answer. Each run ends with exactly the seeded records (IDs as strings) or
 * with an error and no records: never a partial, re-ordered or rounded result.
 */
describe('history Return All under bad pages, redirects, malformed and drip-fed answers', () => {
	const BAD_PAGE_FAULTS: readonly FaultKind[] = [
		'historyOversize',
		'historyOldestFirst',
		'numericIds',
		...REDIRECT_KINDS,
		'dripFeed',
		...MALFORMED_KINDS,
	];
	interface BadPageCase {
		fault: FaultKind;
		page: number;
		got: string[];
		error?: string;
		reachedOtherHost: number;
		drawn: boolean;
	}
	const cases: BadPageCase[] = [];
	let expected: string[] = [];

	beforeAll(async () => {
		const deadline = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'timeoutMs', 3000);
		const sb = await sandbox();
		const now = sb.now();
		const seeded = sb.seedRecords({
			flowType: 32,
			count: 3000,
			startTime: now - 10 * DAY,
			endTime: now - HOUR,
			perMillisecond: 2,
			seed: 12,
		});
		const query: HistoryQuery = { flowType: 32, startTime: now - 11 * DAY, endTime: now };
		expected = expectedHistory(seeded, query, ACCOUNT_TYPE_OF);
		const tally = newTally();
		for (const fault of BAD_PAGE_FAULTS) {
			for (const page of [0, 3]) {
				const otherHostBefore = sb.otherHost.requests.length;
				// Rules apply in order, one request each: `page` clean pages (numericIds answers
				// normally, only writing IDs as bare integers), then the bad answer.
				sb.setFaults({
					rules: [
						{ kind: 'numericIds', times: page, path: PATHS.history },
						{ kind: fault, times: 1, path: PATHS.history, redirectStatus: page === 0 ? 307 : 303 },
					],
				});
				const run = await runAndTally(sb, tally, {
					parameters: historyParameters(query, { returnAll: true }),
					continueOnFail: true,
					executionId: `bad-page-${fault}-${page}`,
				});
				const errorItem = run.items.find((item) => item.json.error !== undefined);
				cases.push({
					fault,
					page,
					got: run.items
						.filter((item) => item.json.error === undefined)
						.map((item) => String(item.json.id)),
					error:
						run.error?.message ??
						(errorItem === undefined
							? undefined
							: `${String(errorItem.json.error)} ${String(errorItem.json.description ?? '')}`),
					reachedOtherHost: sb.otherHost.requests.length - otherHostBefore,
					drawn: run.requests.some((request) => request.fault === fault),
				});
			}
		}
		sb.clearFaults();
		deadline.restore();
		console.log(
			[
				`history Return All under bad answers: ${cases.length} runs of ${expected.length} records`,
				...cases.map(
					(c) =>
						`  ${c.fault} on page ${c.page + 1}: ${c.error === undefined ? `${c.got.length} records` : `error: ${c.error.replace(/\s+/g, ' ').slice(0, 110)}`}`,
				),
			].join('\n'),
		);
	}, 240_000);

	it('draws every bad answer, on the first page and on a later one', () => {
		for (const fault of BAD_PAGE_FAULTS) {
			for (const page of [0, 3])
				expect([
					fault,
					page,
					cases.find((c) => c.fault === fault && c.page === page)?.drawn,
				]).toEqual([fault, page, true]);
		}
	});

	it('ends with exactly the seeded records, IDs as strings, or with an error and no records', () => {
		for (const c of cases) {
			if (c.error === undefined)
				expect([c.fault, c.page, c.got]).toEqual([c.fault, c.page, expected]);
			else expect([c.fault, c.page, c.got]).toEqual([c.fault, c.page, []]);
		}
	});

	it('refuses a page longer than asked for and a page oldest first, saying so', () => {
		for (const c of cases.filter(
			(candidate) =>
				candidate.fault === 'historyOversize' || candidate.fault === 'historyOldestFirst',
		)) {
			expect([c.fault, c.page, c.error]).toEqual([
				c.fault,
				c.page,
				expect.stringMatching(/page|newest|limit|records/i),
			]);
		}
	});

	it('keeps 64-bit IDs sent as bare integers digit for digit', () => {
		for (const c of cases.filter((candidate) => candidate.fault === 'numericIds'))
			expect(c.got).toEqual(expected);
	});

	it('follows no redirect: nothing reaches the other host, and a redirected page is an error naming the redirect', () => {
		for (const c of cases.filter((candidate) => candidate.fault.startsWith('redirect'))) {
			expect(c.reachedOtherHost).toBe(0);
			expect([c.fault, c.page, c.error]).toEqual([
				c.fault,
				c.page,
				expect.stringMatching(/redirect/i),
			]);
		}
	});
});
