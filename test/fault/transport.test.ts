/**
 * Regression tests for issue 12 (money safety, part 2: a transport that cannot be redirected, hung
 * or flooded, and keeps every digit). Each numbered defect of the issue, reproduced through
 * n8n-core's real executor and request helpers (tools/harness) against the sandbox, whose ledger
 * says what really happened. Committed as `it` first, then flipped with the fix.
 */
import { triggerRunner } from '../../tools/harness/trigger';
import { DEFAULT_RETRY_POLICY } from '../../nodes/TradingService/transport';
import { DEMO_ACCOUNTS, startSandbox, type Sandbox } from '../../sandbox';
import { HOUR, PATHS, errorOf, newTally, runAndTally } from './lib';

let sb: Sandbox;
const tally = newTally();
beforeAll(async () => {
	sb = await startSandbox({ rateLimit: false });
});
afterAll(async () => {
	await sb.stop();
});
beforeEach(() => sb.reset());
afterEach(() => jest.restoreAllMocks());

const transfer = {
	resource: 'account',
	operation: 'transferAsset',
	fromAccountId: DEMO_ACCOUNTS.mainTrading,
	toAccountId: DEMO_ACCOUNTS.subTrading,
	coin: 'USDT',
	quantity: '1.5',
};
const limitOrder = {
	resource: 'order',
	operation: 'create',
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	price: '10',
	quantity: '0.01',
};
const history = (overrides: Record<string, unknown> = {}) => ({
	resource: 'account',
	operation: 'getHistory',
	flowType: 32,
	startTime: new Date(Date.now() - 2 * HOUR).toISOString(),
	endTime: new Date(Date.now() + 60_000).toISOString(),
	limit: 10,
	...overrides,
});
const fee = (created: number) => ({
	accountId: DEMO_ACCOUNTS.mainContract,
	flowTypeValue: 32,
	change: '-0.1',
	created: String(created),
});

/** The outcome a run reports for its write: on the error, or on the item. */
const outcomeOf = (run: {
	items: Array<{ json: Record<string, unknown> }>;
	error?: { context?: unknown };
}) =>
	run.error
		? (run.error.context as { outcome?: string } | undefined)?.outcome
		: run.items[0]?.json.outcome;

describe('issue 12, defect 1: no redirect is followed on a signed request', () => {
	it('a 307 to another host: the signed transfer and the API key never reach it; outcome unknown', async () => {
		sb.setFaults({ rules: [{ kind: 'redirectOtherHost', times: 1, path: PATHS.transfer }] });
		const run = await runAndTally(sb, tally, { parameters: transfer });
		expect(sb.otherHost.requests).toEqual([]);
		expect(run.items).toEqual([]);
		expect(run.error?.message).toMatch(/^Unknown outcome/);
		expect(`${run.error?.message} ${run.error?.description}`).toMatch(/redirect/i);
		expect(outcomeOf(run)).toBe('unknown');
	});

	it('a 303 answering an order: never a GET of another path; the order is looked up, then placed once', async () => {
		sb.setFaults({
			rules: [{ kind: 'redirectSameHost', times: 1, path: PATHS.order, redirectStatus: 303 }],
		});
		const run = await runAndTally(sb, tally, { parameters: limitOrder });
		expect(run.requests.map((request) => `${request.method} ${request.path}`)).not.toContain(
			`GET ${PATHS.time}`,
		);
		// The redirect applied nothing; issue 11's lookup proves it, and only then is the order sent again.
		expect(sb.ledger.orders).toHaveLength(1);
		expect(run.items).toHaveLength(1);
		expect(run.items[0].json.orderId).toBe(sb.ledger.orders[0].orderId);
		expect(outcomeOf(run)).toBe('placed');
	});

	it('a redirect loop on a read: one request, an error that says what happened', async () => {
		sb.setFaults({ rules: [{ kind: 'redirectLoop', times: 1, path: PATHS.history }] });
		const run = await runAndTally(sb, tally, { parameters: history() });
		expect(run.requests).toHaveLength(1);
		expect(run.error?.message).toMatch(/redirect/i);
		expect(run.error?.description).toMatch(/Base URL/);
	});
});

describe('issue 12, defect 2: each attempt has a hard deadline, whatever the server drips', () => {
	// The per-attempt deadline is 30 s; these tests shorten it, the mechanism is the same.
	beforeEach(() => {
		jest.replaceProperty(DEFAULT_RETRY_POLICY, 'timeoutMs', 1000);
	});

	it('a transfer answered one byte every 200 ms: it ends at the deadline, applied once, outcome unknown', async () => {
		sb.setFaults({
			rules: [{ kind: 'dripFeed', times: 1, path: PATHS.transfer, dripIntervalMs: 200 }],
		});
		const run = await runAndTally(sb, tally, { parameters: transfer });
		expect(sb.ledger.transfers).toHaveLength(1);
		expect(run.error?.message).toMatch(/^Unknown outcome/);
		expect(outcomeOf(run)).toBe('unknown');
	}, 10_000);

	it('a history page dripped: the read is tried again at the deadline and returns the records', async () => {
		sb.addRecords([fee(Date.now() - HOUR)]);
		sb.setFaults({
			rules: [{ kind: 'dripFeed', times: 1, path: PATHS.history, dripIntervalMs: 200 }],
		});
		const run = await runAndTally(sb, tally, { parameters: history() });
		expect(run.error?.message).toBeUndefined();
		expect(run.items).toHaveLength(1);
		expect(run.requests).toHaveLength(2);
	}, 10_000);
});

describe('issue 12, defect 3: a malformed answer to a write is never an item', () => {
	it.each([
		'answerHtml',
		'answerNull',
		'answerEmptyString',
		'answerEmptyBody',
		'answerTrue',
	] as const)('%s answering a transfer: unknown outcome, no item', async (kind) => {
		sb.setFaults({ rules: [{ kind, times: 1, path: PATHS.transfer }] });
		const run = await runAndTally(sb, tally, { parameters: transfer });
		expect(sb.ledger.transfers).toHaveLength(1);
		expect(run.items).toEqual([]);
		expect(run.error?.description).toMatch(/Outcome: unknown/);
		expect(outcomeOf(run)).toBe('unknown');
	});

	it.each(['answerHtml', 'answerNull', 'answerEmptyBody', 'answerTrue'] as const)(
		'%s answering an order: the answer is never the item; the order is looked up (placed once)',
		async (kind) => {
			sb.setFaults({ rules: [{ kind, times: 1, path: PATHS.order }] });
			const run = await runAndTally(sb, tally, { parameters: limitOrder });
			expect(sb.ledger.orders).toHaveLength(1);
			expect(run.items).toHaveLength(1);
			expect(run.items[0].json.orderId).toBe(sb.ledger.orders[0].orderId);
			expect(outcomeOf(run)).toBe('placed');
		},
	);

	// Already handled by issue 11's transport work (a failure after the request was written is unknown).
	it.each(['answerTruncated', 'answerBadGzip'] as const)(
		'%s answering a transfer: the unknown-outcome message, not a raw one',
		async (kind) => {
			sb.setFaults({ rules: [{ kind, times: 1, path: PATHS.transfer }] });
			const run = await runAndTally(sb, tally, { parameters: transfer });
			expect(sb.ledger.transfers).toHaveLength(1);
			expect(run.error?.message).toMatch(/^Unknown outcome/);
			expect(outcomeOf(run)).toBe('unknown');
		},
	);

	// Already handled by issue 11's Transfer operation.
	it('a 2xx {"success": false} transfer answer: rejected, not a success', async () => {
		sb.setFaults({ rules: [{ kind: 'transferSuccessFalse', times: 1, path: PATHS.transfer }] });
		const run = await runAndTally(sb, tally, { parameters: transfer, continueOnFail: true });
		expect(errorOf(run.items[0])).toMatch(/refused/);
		expect(run.items[0].json.outcome).toBe('rejected');
	});
});

describe('issue 12, defect 4: history pages are bounded and ordered', () => {
	it('a page longer than the requested limit is refused', async () => {
		const end = Date.now() - 60_000;
		sb.seedRecords({ flowType: 32, count: 50, startTime: end - HOUR, endTime: end, seed: 3 });
		sb.setFaults({ rules: [{ kind: 'historyOversize', times: 1, path: PATHS.history }] });
		const run = await runAndTally(sb, tally, { parameters: history({ limit: 10 }) });
		expect(run.items).toEqual([]);
		expect(run.error?.message).toMatch(/more records than/);
	});

	it('Return All: a page that is not newest first fails the node', async () => {
		const end = Date.now() - 60_000;
		sb.seedRecords({ flowType: 32, count: 1200, startTime: end - HOUR, endTime: end, seed: 4 });
		sb.setFaults({ rules: [{ kind: 'historyOldestFirst', times: 1, path: PATHS.history }] });
		const run = await runAndTally(sb, tally, { parameters: history({ returnAll: true }) });
		expect(run.items).toEqual([]);
		expect(run.error?.message).toMatch(/newest first/);
	});

	it('trigger: a page that is not newest first stops the poll without moving the watermark', async () => {
		const runner = triggerRunner(sb);
		const t0 = sb.now() - 5 * 60_000;
		sb.addRecords([fee(t0)]);
		expect((await runner.poll()).error).toBeUndefined();
		const before = runner.nodeStaticData();
		sb.addRecords(Array.from({ length: 5 }, (_, index) => fee(t0 + 1000 * (index + 1))));
		sb.setFaults({ rules: [{ kind: 'historyOldestFirst', times: 1, path: PATHS.history }] });
		const bad = await runner.poll();
		expect(bad.error).toBeUndefined();
		expect(bad.items).toEqual([]);
		expect(runner.nodeStaticData()).toEqual(before);
		// The next good page emits them all.
		expect((await runner.poll()).items).toHaveLength(5);
	});
});

describe('issue 12: the trigger and an oversize page', () => {
	it('a page longer than asked for stops the poll without moving the watermark; the next poll emits', async () => {
		const runner = triggerRunner(sb);
		const t0 = sb.now() - 5 * 60_000;
		sb.addRecords([fee(t0)]);
		expect((await runner.poll()).error).toBeUndefined();
		const before = runner.nodeStaticData();
		// More than a page exists, so the service can send more than the 500 asked for.
		sb.addRecords(Array.from({ length: 600 }, (_, index) => fee(t0 + 100 * (index + 1))));
		sb.setFaults({ rules: [{ kind: 'historyOversize', times: 1, path: PATHS.history }] });
		const bad = await runner.poll();
		expect(bad.error).toBeUndefined();
		expect(bad.items).toEqual([]);
		expect(runner.nodeStaticData()).toEqual(before);
		expect((await runner.poll()).items).toHaveLength(600);
	});
});

describe('issue 12, defect 5: 64-bit IDs keep every digit', () => {
	it('an order answered with a bare integer orderId: the item has the exact ID', async () => {
		sb.setFaults({ rules: [{ kind: 'numericIds', times: 1, path: PATHS.order }] });
		const run = await runAndTally(sb, tally, { parameters: limitOrder });
		expect(run.error?.message).toBeUndefined();
		expect(sb.ledger.orders).toHaveLength(1);
		expect(run.items[0].json.orderId).toBe(sb.ledger.orders[0].orderId);
		expect(run.items[0].json.accountId).toBe(sb.ledger.orders[0].accountId);
	});

	it('history records with bare integer ids: every id exact', async () => {
		const records = sb.addRecords([fee(Date.now() - HOUR), fee(Date.now() - HOUR + 1)]);
		sb.setFaults({ rules: [{ kind: 'numericIds', times: 1, path: PATHS.history }] });
		const run = await runAndTally(sb, tally, { parameters: history() });
		expect(run.error?.message).toBeUndefined();
		expect(run.items.map((item) => item.json.id).sort()).toEqual(
			records.map((record) => record.id).sort(),
		);
	});
});

describe('issue 12, defect 6: HTTP 418 (an IP ban) fails at once', () => {
	it('one request, an IP-ban message', async () => {
		sb.setFaults({
			rules: [{ kind: 'ipBan', times: 1, path: PATHS.history, retryAfterSeconds: 1 }],
		});
		const run = await runAndTally(sb, tally, { parameters: history() });
		expect(run.requests).toHaveLength(1);
		expect(run.error?.message).toMatch(/IP address .*banned/);
	});

	it('on a transfer: rejected, nothing sent again', async () => {
		sb.setFaults({
			rules: [{ kind: 'ipBan', times: 1, path: PATHS.transfer, retryAfterSeconds: 1 }],
		});
		const run = await runAndTally(sb, tally, { parameters: transfer });
		expect(run.requests).toHaveLength(1);
		expect(outcomeOf(run)).toBe('rejected');
	});
});

describe('issue 12, defect 7: the credential is checked before any request', () => {
	const base = () => new URL(sb.baseUrl);
	it.each([
		['userinfo', () => `http://someone:pa55word@${base().host}`],
		['a query', () => `${sb.baseUrl}?x=1`],
		['a fragment', () => `${sb.baseUrl}#top`],
		['ftp://', () => `ftp://${base().host}`],
	])(
		'Base URL with %s: an error naming Base URL, 0 requests, the URL not echoed',
		async (_label, url) => {
			const baseUrl = url();
			const run = await runAndTally(sb, tally, { parameters: history(), credentials: { baseUrl } });
			expect(run.requests).toEqual([]);
			expect(run.error?.message).toMatch(/Base URL/);
			expect(`${run.error?.message} ${run.error?.description}`).not.toContain(baseUrl);
		},
	);

	it('Base URL with trailing spaces is trimmed and works', async () => {
		const run = await runAndTally(sb, tally, {
			parameters: history(),
			credentials: { baseUrl: `${sb.baseUrl}  ` },
		});
		expect(run.error?.message).toBeUndefined();
		expect(run.requests).toHaveLength(1);
	});

	it.each([Number.NaN, 0, 999999])(
		'Receive Window %p: an error naming Receive Window, 0 requests',
		async (recvWindow) => {
			const run = await runAndTally(sb, tally, {
				parameters: history(),
				credentials: { recvWindow },
			});
			expect(run.requests).toEqual([]);
			expect(run.error?.message).toMatch(/Receive Window/);
		},
	);

	it('a write with an empty Secret Key: an error naming Secret Key, 0 requests, outcome rejected', async () => {
		const run = await runAndTally(sb, tally, {
			parameters: transfer,
			credentials: { secretKey: '' },
		});
		expect(run.requests).toEqual([]);
		expect(run.error?.message).toMatch(/Secret Key/);
		expect(outcomeOf(run)).toBe('rejected');
	});
});

describe('issue 12, defect 8: a catch-up stopped by the time budget misses no late record', () => {
	it('1,200 new records over 20 minutes and one listed late: all emitted, each once', async () => {
		// A budget of 1 ms: every poll reads a single page per step, so the catch-up stops again and again.
		const runner = triggerRunner(sb, { pollBudgetMs: 1 });
		const t0 = sb.now() - 30 * 60_000;
		sb.addRecords([fee(t0)]);
		expect((await runner.poll()).error).toBeUndefined();
		const fresh = sb.addRecords(
			Array.from({ length: 1200 }, (_, index) => fee(t0 + 1000 * (index + 1))),
		);
		// Inside the late records window (10 minutes) below the watermark the first poll set.
		const [late] = sb.addRecords([fee(t0 - 60_000)]);
		const emitted: string[] = [];
		for (let poll = 0; poll < 20; poll++) {
			const outcome = await runner.poll();
			expect(outcome.error).toBeUndefined();
			emitted.push(...outcome.items.map((item) => String(item.json.id)));
		}
		expect(emitted).toContain(late.id);
		expect(emitted.sort()).toEqual([...fresh, late].map((record) => record.id).sort());
	});
});
