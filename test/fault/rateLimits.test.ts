/**
 * A rate limit in the middle of a parallel run, against sandboxes at the exchange's documented
 * request rates (20 order and 5 query requests a second per key, a minute's suspension, 418 for
 * a request sent into it). The sandbox's `rateLimitSuspension` fault answers one request as the
 * limiter would and starts the key's suspension; requests the node had already signed come back
 * refused too (they were in flight), and anything signed after it is counted "into a suspension".
 *
 * - Wait After a Rate Limit on (the default): nothing of that key and class leaves until the
 *   minute is over, then the run goes on by itself and every order is placed exactly once.
 * - Off: the run stops at once with its report; what it says was placed is in the book, what it
 *   says executed nothing is not.
 * - HTTP 400 with code 0003 (the documentation's error table) behaves as a 429.
 * - 0 requests into a suspension, in every scenario.
 * - The UAE rule (a 429 without Retry-After, sandbox at no request rates): after a read's 429,
 *   nothing of that key and class, read or write, leaves for a minute, and nothing is banned (418).
 *
 * The node keeps the exchange's minute (LIMITS.rateLimitSuspensionMs), so the scenarios that wait
 * run at once, each against its own sandbox (another address: another key's pacer).
 */
import type { IDataObject } from 'n8n-workflow';

import { DAY_MS, LIMITS } from '../../nodes/TradingService/constants';
import { requestsTo, runTradingService, type NodeRun } from '../../tools/harness/node';
import { DEMO_ACCOUNTS, startSandbox, type Sandbox, type SandboxBehaviour } from '../../sandbox';
import { PATHS } from './lib';
import { itemsOfRanges } from './matrix';
import { useDocumentedSuspension } from '../support/suspension';

// The sandbox suspends a key for the real minute here: the node must wait it out as the exchange says.
useDocumentedSuspension();

jest.setTimeout(180_000);

const ORDERS = 80;

const createParameters = (options: IDataObject = {}) => ({
	resource: 'order',
	operation: 'create',
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	price: '1',
	quantity: '={{ $json.quantity }}',
	options,
});

// Quantities as the book writes them (no trailing zeros), one per item.
const quantities = Array.from({ length: ORDERS }, (_, index) => String((index + 1) / 1000));

/** Waits until `count` orders are in the book, then answers the next order request as a rate limit. */
async function rateLimitAfter(sandbox: Sandbox, count: number, path: string): Promise<void> {
	while (sandbox.ledger.orders.length < count)
		await new Promise((resolve) => setTimeout(resolve, 5));
	sandbox.setFaults({ rules: [{ kind: 'rateLimitSuspension', times: 1, path }] });
}

interface Scenario {
	sandbox: Sandbox;
	run: NodeRun;
	startedAt: number;
	endedAt: number;
}

async function createWithRateLimit(
	behaviour: SandboxBehaviour,
	options: IDataObject,
): Promise<Scenario> {
	// The documented request rates and suspension: the sandbox's default.
	const sandbox = await startSandbox({ rateLimit: false, symbolRules: 'lenient', behaviour });
	try {
		const startedAt = Date.now();
		const [run] = await Promise.all([
			runTradingService(sandbox, {
				parameters: createParameters(options),
				inputItems: quantities.map((quantity) => ({ json: { quantity } })),
				node: { typeVersion: 2 },
			}),
			rateLimitAfter(sandbox, 30, PATHS.unifiedOrder),
		]);
		return { sandbox, run, startedAt, endedAt: Date.now() };
	} catch (error) {
		await sandbox.stop();
		throw error;
	}
}

/** The refusal the fault gave, and every order request the sandbox saw after it. */
function aroundTheLimit(sandbox: Sandbox) {
	const orders = sandbox.ledger.requests.filter((request) => request.path === PATHS.unifiedOrder);
	const first = orders.findIndex((request) => request.limit === 'rateLimited');
	expect(first).toBeGreaterThan(0);
	return { limited: orders[first], after: orders.slice(first + 1) };
}

/** Each quantity's orders in the book: every one placed exactly once. */
function placedOnce(sandbox: Sandbox): void {
	const counts = new Map<string, number>();
	for (const order of sandbox.ledger.orders)
		counts.set(String(order.origQty), (counts.get(String(order.origQty)) ?? 0) + 1);
	for (const quantity of quantities)
		expect([quantity, counts.get(quantity)]).toEqual([quantity, 1]);
}

// The UAE rule's minute (its describe below) starts in the file's first hook: a describe's own
// beforeAll runs only after the describes before it, and the minutes are to overlap.
let minute: ReturnType<typeof uaeMinute>;
beforeAll(() => {
	minute = uaeMinute();
	// Nothing may reject before the test reads it.
	minute.catch(() => undefined);
});

describe('a rate limit in the middle of a parallel Create (version 2 defaults)', () => {
	const scenarios: Record<string, Promise<Scenario>> = {};
	beforeAll(() => {
		scenarios.wait429 = createWithRateLimit({}, {});
		scenarios.wait400 = createWithRateLimit({ rateLimitStatus: 400 }, {});
		scenarios.stop = createWithRateLimit({}, { waitAfterRateLimit: false });
		// Nothing may reject before the tests read it.
		for (const scenario of Object.values(scenarios)) scenario.catch(() => undefined);
	});
	afterAll(async () => {
		for (const scenario of Object.values(scenarios)) await (await scenario).sandbox.stop();
	});

	it.each([
		['429', 'wait429'],
		['400 with code 0003', 'wait400'],
	])(
		'a %s: nothing more leaves until the minute is over, then the run finishes: every order placed once, 0 into the suspension',
		async (_status, name) => {
			const { sandbox, run } = await scenarios[name];
			expect(run.error).toBeUndefined();
			expect(run.items.map((item) => item.json.outcome)).toEqual(Array(ORDERS).fill('placed'));
			placedOnce(sandbox);
			expect(sandbox.rateLimitStats().intoSuspension).toBe(0);
			const { limited, after } = aroundTheLimit(sandbox);
			// Requests already signed when the refusal was given come back refused too; everything
			// the sandbox accepted after it arrived a minute later or more.
			for (const request of after) {
				if (request.limit === 'rateLimited') continue;
				expect(request.at - limited.at).toBeGreaterThanOrEqual(LIMITS.rateLimitSuspensionMs);
			}
			expect(after.filter((request) => request.status === 200).length).toBeGreaterThan(0);
			expect(sandbox.ledger.requests.map((request) => request.status)).not.toContain(418);
		},
	);

	it('Wait After a Rate Limit off: the run stops at once with its report; placed means in the book, nothing executed means not', async () => {
		const { sandbox, run, startedAt, endedAt } = await scenarios.stop;
		expect(endedAt - startedAt).toBeLessThan(LIMITS.rateLimitSuspensionMs / 2);
		expect(sandbox.rateLimitStats().intoSuspension).toBe(0);
		expect(run.error?.message).toMatch(/rate limit/i);
		const context = run.error?.context as IDataObject;
		expect(context.outcome).toBe('rejected');
		const report = context.runReport as Record<string, string> | undefined;
		expect(report).toBeDefined();
		const { after } = aroundTheLimit(sandbox);
		// Only requests signed before the refusal arrived, all refused.
		for (const request of after) expect(request.limit).toBe('rateLimited');
		const booked = new Set(sandbox.ledger.orders.map((order) => String(order.origQty)));
		expect(booked.size).toBe(sandbox.ledger.orders.length);
		expect(booked.size).toBeGreaterThanOrEqual(30);
		expect(booked.size).toBeLessThan(ORDERS);
		// The report covers every other item: placed ones are booked, the rest are not.
		const placed = itemsOfRanges(report!.placed);
		const nothingExecuted = itemsOfRanges(report!.nothingExecuted);
		expect(itemsOfRanges(report!.unknown)).toEqual([]);
		expect(placed.length + nothingExecuted.length).toBe(ORDERS - 1);
		for (const item of placed) expect([item, booked.has(quantities[item])]).toEqual([item, true]);
		for (const item of nothingExecuted)
			expect([item, booked.has(quantities[item])]).toEqual([item, false]);
		expect(booked.has(quantities[Number(context.itemIndex)])).toBe(false);
	});
});

// ------------------------------------------------------------------ the UAE rule: 429 without Retry-After

const transfer = (quantity: string) => ({
	resource: 'account',
	operation: 'transferAsset',
	fromAccountId: DEMO_ACCOUNTS.mainTrading,
	toAccountId: DEMO_ACCOUNTS.custody,
	coin: 'USDT',
	quantity,
});

const historyOf = (flowType: number) => ({
	resource: 'account',
	operation: 'getHistory',
	flowType,
	returnAll: true,
	startTime: new Date(Date.now() - DAY_MS).toISOString(),
	endTime: new Date().toISOString(),
});

/**
 * A read meets a 429 without Retry-After (the UAE rule), then, in other executions during the
 * minute, a write and another read: on a sandbox of its own, started with the file's other
 * scenarios so that the minutes overlap.
 */
async function uaeMinute() {
	const sandbox = await startSandbox({
		symbolRules: 'lenient',
		rateLimit: false,
		requestRates: false,
		behaviour: { rateLimitRule: 'uae' },
	});
	const now = Date.now();
	sandbox.seedRecords({
		flowType: 32,
		count: 3,
		startTime: now - DAY_MS / 2,
		endTime: now - 1000,
		seed: 429,
	});
	sandbox.setFaults({ rules: [{ kind: 'rateLimit', times: 1, path: PATHS.history }] });
	const started = Date.now();
	try {
		// A read meets the 429 (no Retry-After under the UAE rule) ...
		const reading = runTradingService(sandbox, { parameters: historyOf(32) });
		await new Promise((resolve) => setTimeout(resolve, 500));
		// ... then, in other executions during the minute, a write and another read.
		const writing = runTradingService(sandbox, {
			parameters: transfer('1'),
			executionId: 'uae-write',
		});
		await new Promise((resolve) => setTimeout(resolve, 500));
		const readingToo = runTradingService(sandbox, {
			parameters: { resource: 'account', operation: 'getBalances' },
			executionId: 'uae-read',
		});
		const [read, write, readToo] = await Promise.all([reading, writing, readingToo]);
		return { sandbox, read, write, readToo, started, ended: Date.now() };
	} catch (error) {
		await sandbox.stop();
		throw error;
	}
}

describe('UAE rule: 429 without Retry-After', () => {
	// Started by the file's first hook (above), so that its minute overlaps the others.
	afterAll(async () => {
		await (await minute.catch(() => undefined))?.sandbox.stop();
	});

	it('UAE rule: 429 without Retry-After: the node sends nothing more of that key and class for a minute, then reads and writes again, and is never banned (418)', async () => {
		const { sandbox, read, write, readToo, started, ended } = await minute;
		const requests = sandbox.ledger.requests;
		expect(requests.map((request) => request.status)).not.toContain(418);
		const [limited] = requests;
		expect(limited).toMatchObject({ path: PATHS.history, status: 429 });
		// Nothing reached the service in the minute after the 429.
		for (const request of requests.slice(1))
			expect(request.at - limited.at).toBeGreaterThanOrEqual(60_000);
		// The read was tried once more after the minute and returned the records.
		expect(read.error).toBeUndefined();
		expect(read.items).toHaveLength(3);
		expect(requestsTo(sandbox, PATHS.history).map((request) => request.status)).toEqual([429, 200]);
		// The write, of the same class, waited for the minute too (Wait After a Rate Limit: version
		// 1 always waits), then was placed once.
		expect(write.error).toBeUndefined();
		expect(write.items.map((item) => item.json.outcome)).toEqual(['placed']);
		expect(requestsTo(sandbox, PATHS.transfer).map((request) => request.status)).toEqual([200]);
		expect(sandbox.ledger.transfers).toHaveLength(1);
		// The other read waited for the minute, then went through.
		expect(readToo.error).toBeUndefined();
		expect(requestsTo(sandbox, '/api/v1/account').map((request) => request.status)).toEqual([200]);
		expect(ended - started).toBeGreaterThanOrEqual(60_000);
	}, 120_000);
});
