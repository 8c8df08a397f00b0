import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { DEFAULT_RETRY_POLICY } from '../../../../nodes/TradingService/transport';
import { MAX_ANSWER_BYTES } from '../../../../nodes/TradingService/transport/answer';
import { ACCOUNT_ENDPOINTS } from '../../../../nodes/TradingService/account/endpoints';
import { ORDER_ENDPOINTS } from '../../../../nodes/TradingService/orders/endpoints';
import type { Endpoint } from '../../../../nodes/TradingService/transport';
import { sendWithRetries } from '../../../../nodes/TradingService/transport/request';
import type {
	Exchange,
	RetryPolicy,
	SendWindow,
} from '../../../../nodes/TradingService/transport/types';
import { DEMO_ACCOUNTS } from '../../../../sandbox';
import { credentialsFor, requestsTo, runTradingService } from '../../../../tools/harness/node';
import { PROBE_NAME, probeDescription, runProbe } from '../../../support/probe';
import { PATHS, reportedOutcome, runCounting } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';
import { limitOrderQuery } from './support';

// One request with the transport's retries, against the sandbox over loopback: which failures
// are tried again (reads: 429, 5xx, unknown-outcome codes, network; writes: only what proves
// nothing was done), and when a request stops.

const ACCOUNT = '/api/v1/account';
const NEW_ORDER = '/api/v1/spot/new/order';

const POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 50, timeoutMs: 5000 };

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

interface Sent {
	exchange: Exchange;
	window: SendWindow;
}

/** Sends one request with `sendWithRetries` from inside a node run, with its execute functions. */
async function send(
	endpoint: Endpoint,
	qs: IDataObject = {},
	options: { credentials?: IDataObject; policy?: RetryPolicy } = {},
): Promise<Sent> {
	let sent: Sent | undefined;
	const probe: INodeType = {
		description: probeDescription(),
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const credentials = await this.getCredentials('tradingServiceApi');
			const window: SendWindow = {};
			const exchange = await sendWithRetries(
				this,
				this.getNode(),
				options.policy ?? POLICY,
				// A run that waits at most five seconds for a rate limit to pass (the jest suites hold a
				// suspension a second: test/support/suspension.ts).
				{ recvWindowMs: 5000, credentials, rateLimitWaitMs: 5000, offersRateLimitWait: false },
				endpoint,
				{ qs, itemIndex: 0 },
				window,
			);
			sent = { exchange, window };
			return [[{ json: {} }]];
		},
	};
	const result = await runProbe(probe, {
		credentials: { ...credentialsFor(sandbox()), ...options.credentials },
	});
	const error = result.error(PROBE_NAME);
	if (error !== undefined) throw error;
	if (sent === undefined) throw new Error('the probe node did not run');
	return sent;
}

const order = limitOrderQuery('retries-test-1');

const statuses = (path: string) => requestsTo(sandbox(), path).map((request) => request.status);

describe('reads', () => {
	it('answered at once: one request, the window of its attempt', async () => {
		const before = Date.now();
		const { exchange, window } = await send(ACCOUNT_ENDPOINTS.balances);
		expect(exchange.kind).toBe('answered');
		expect(window.firstSentAt).toBeGreaterThanOrEqual(before);
		// The receive window (5 s) plus the service's future tolerance (1 s) after the attempt.
		expect(window.acceptableUntil! - window.firstSentAt!).toBeGreaterThanOrEqual(6000);
		expect(statuses(ACCOUNT)).toEqual([200]);
	});

	it.each(['http500', 'http503', 'dropBefore', 'rateLimit', 'unknownBefore'] as const)(
		'%s is tried again until answered',
		async (kind) => {
			sandbox().setFaults({
				rules: [{ kind, times: 2, path: ACCOUNT, retryAfterSeconds: 0 }],
			});
			const { exchange } = await send(ACCOUNT_ENDPOINTS.balances);
			expect(exchange.kind).toBe('answered');
			expect(requestsTo(sandbox(), ACCOUNT)).toHaveLength(3);
		},
	);

	it('fails on every attempt: rejected after 1 + maxRetries attempts, saying so', async () => {
		sandbox().setFaults({ rules: [{ kind: 'http503', times: 5, path: ACCOUNT }] });
		const { exchange } = await send(ACCOUNT_ENDPOINTS.balances);
		expect(exchange.kind).toBe('rejected');
		if (exchange.kind !== 'rejected') return;
		expect(exchange.error.message).toBe(
			'The Trading Service kept failing: the service failed with HTTP 503',
		);
		expect(exchange.error.description).toMatch(/tried 3 times/);
		expect(statuses(ACCOUNT)).toEqual([503, 503, 503]);
	});

	it('a Retry-After longer than the run may wait fails at once rather than being cut short', async () => {
		sandbox().setFaults({
			// Longer than the probe's five seconds.
			rules: [{ kind: 'rateLimit', times: 1, path: ACCOUNT, retryAfterSeconds: 10 }],
		});
		const { exchange } = await send(ACCOUNT_ENDPOINTS.balances);
		expect(exchange.kind).toBe('rejected');
		expect(requestsTo(sandbox(), ACCOUNT)).toHaveLength(1);
	});

	it('a refusal is not tried again', async () => {
		const { exchange } = await send(ORDER_ENDPOINTS.queryOrder, {
			symbol: 'BTCUSDT',
			orderId: '1',
		});
		expect(exchange.kind).toBe('rejected');
		expect(requestsTo(sandbox(), '/api/v1/spot/order')).toHaveLength(1);
	});

	it('a timestamp outside the receive window: rejected with how far the clocks differ', async () => {
		sandbox().setFaults({ clockOffsetMs: 120_000 });
		const { exchange } = await send(ACCOUNT_ENDPOINTS.balances);
		expect(exchange.kind).toBe('rejected');
		if (exchange.kind !== 'rejected') return;
		expect(exchange.error.description).toMatch(/The service clock is 1\d{5} ms ahead of/);
		// The refused request, then one clock check.
		expect(requestsTo(sandbox(), ACCOUNT)).toHaveLength(1);
		expect(requestsTo(sandbox(), '/api/v1/time')).toHaveLength(1);
	});

	it('three items refused for the clock in one run: one clock check serves them all', async () => {
		sandbox().setFaults({ clockOffsetMs: 120_000 });
		const run = await runTradingService(sandbox(), {
			parameters: history(),
			inputItems: [{ json: {} }, { json: {} }, { json: {} }],
			continueOnFail: true,
		});
		expect(run.items).toHaveLength(3);
		for (const item of run.items)
			expect(String(item.json.description)).toMatch(/The service clock is 1\d{5} ms ahead of/);
		expect(requestsTo(sandbox(), HISTORY)).toHaveLength(3);
		expect(requestsTo(sandbox(), '/api/v1/time')).toHaveLength(1);
	});

	it('nothing listens at the Base URL: tried again, then not reachable, nothing sent', async () => {
		const { exchange } = await send(
			ACCOUNT_ENDPOINTS.balances,
			{},
			{ credentials: { baseUrl: 'http://127.0.0.1:1' } },
		);
		expect(exchange.kind).toBe('rejected');
		if (exchange.kind !== 'rejected') return;
		expect(exchange.error.message).toBe(
			'Could not reach the Trading Service: the connection could not be opened',
		);
		expect(exchange.error.description).toMatch(/^ECONNREFUSED after 3 attempts/);
	});
});

describe('writes', () => {
	it('a 429 proves nothing was done: tried again, placed once', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'rateLimit', times: 1, path: NEW_ORDER, retryAfterSeconds: 0 }],
		});
		const { exchange } = await send(ORDER_ENDPOINTS.newOrder, order());
		expect(exchange.kind).toBe('answered');
		expect(statuses(NEW_ORDER)).toEqual([429, 200]);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('connection refused proves nothing was sent: tried again, then rejected', async () => {
		const { exchange, window } = await send(ORDER_ENDPOINTS.newOrder, order(), {
			credentials: { baseUrl: 'http://127.0.0.1:1' },
		});
		expect(exchange.kind).toBe('rejected');
		expect(window.firstSentAt).toBeDefined();
	});

	it.each([
		['dropAfter', 'the connection failed before the service answered'],
		['http503', 'the service failed with HTTP 503'],
		['unknownBefore', 'the service answered code -1146: '],
	] as const)('%s: unknown, never sent again', async (kind, reason) => {
		sandbox().setFaults({ rules: [{ kind, times: 1, path: NEW_ORDER }] });
		const { exchange } = await send(ORDER_ENDPOINTS.newOrder, order());
		expect(exchange.kind).toBe('unknown');
		if (exchange.kind !== 'unknown') return;
		expect(exchange.reason.startsWith(reason)).toBe(true);
		expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(1);
	});

	it('a client error without a code proves nothing was done: rejected', async () => {
		const { exchange } = await send(
			{ ...ORDER_ENDPOINTS.newOrder, path: '/api/v1/spot/no-such-path' },
			order(),
		);
		expect(exchange.kind).toBe('rejected');
		if (exchange.kind !== 'rejected') return;
		expect(exchange.error.message).toBe(
			'The Trading Service answered HTTP 404: the path does not exist at this Base URL',
		);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('a refusal: rejected, nothing placed', async () => {
		const { exchange } = await send(ORDER_ENDPOINTS.newOrder, order({ symbol: 'NOPEUSDT' }));
		expect(exchange.kind).toBe('rejected');
		expect(sandbox().ledger.orders).toHaveLength(0);
		expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(1);
	});
});

/**
 * The transport's attempts (transport/request.ts) through n8n-core's real request helper
 * (httpRequestWithAuthentication, in-process via tools/harness) against the sandbox: redirects
 * are not followed, each attempt ends at its deadline whatever the server drips, answers are
 * capped in size, a 418 (IP ban) fails at once, a malformed answer to a write is never an item,
 * and IDs keep every digit. The deadline is shortened here; the mechanism is the one the node
 * runs with (30 s). Writes are checked against the sandbox's ledger: what really happened.
 */

const HISTORY = '/api/v1/account/balanceFlow';
const HOUR = 3_600_000;

afterEach(() => jest.restoreAllMocks());

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
const historyRequests = () =>
	sandbox().ledger.requests.filter((request) => request.path === HISTORY);
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

describe('the per-attempt deadline, through n8n-core', () => {
	beforeEach(() => {
		jest.replaceProperty(DEFAULT_RETRY_POLICY, 'timeoutMs', 600);
		jest.replaceProperty(DEFAULT_RETRY_POLICY, 'maxRetries', 1);
		jest.replaceProperty(DEFAULT_RETRY_POLICY, 'baseDelayMs', 1);
	});

	it('a body dripped one byte every 100 ms: each attempt ends at the deadline, then the read fails', async () => {
		sandbox().addRecords([fee(Date.now() - HOUR)]);
		sandbox().setFaults({
			rules: [{ kind: 'dripFeed', times: 2, path: HISTORY, dripIntervalMs: 100 }],
		});
		const run = await runTradingService(sandbox(), { parameters: history() });
		expect(historyRequests()).toHaveLength(2);
		expect(run.error?.message).toBe(
			'The Trading Service kept failing: the service did not answer within 0.6 s',
		);
		expect(run.items).toEqual([]);
	}, 10_000);

	it('no answer at all (headers late): the attempt ends at the deadline too', async () => {
		sandbox().addRecords([fee(Date.now() - HOUR)]);
		sandbox().setFaults({ latencyMs: 3000 });
		const run = await runTradingService(sandbox(), { parameters: history() });
		expect(run.error?.message).toBe(
			'The Trading Service kept failing: the service did not answer within 0.6 s',
		);
	}, 10_000);

	it('a drip on the first attempt only: the second attempt returns the records', async () => {
		sandbox().addRecords([fee(Date.now() - HOUR)]);
		sandbox().setFaults({
			rules: [{ kind: 'dripFeed', times: 1, path: HISTORY, dripIntervalMs: 100 }],
		});
		const run = await runTradingService(sandbox(), { parameters: history() });
		expect(run.error?.message).toBeUndefined();
		expect(run.items).toHaveLength(1);
		expect(historyRequests()).toHaveLength(2);
	}, 10_000);
});

describe('answers are capped in size', () => {
	it(`a page far larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB is refused without a retry`, async () => {
		const end = Date.now() - 60_000;
		sandbox().seedRecords({
			flowType: 32,
			count: 20_000,
			startTime: end - HOUR,
			endTime: end,
			seed: 5,
		});
		// 10 asked for, 20,000 sent (about 5.6 MB).
		sandbox().setFaults({
			rules: [{ kind: 'historyOversize', times: 1, path: HISTORY, extraRecords: 19_990 }],
		});
		const run = await runTradingService(sandbox(), { parameters: history({ limit: 10 }) });
		expect(historyRequests()).toHaveLength(1);
		expect(run.error?.message).toMatch(/answer was too large/);
		expect(run.items).toEqual([]);
	}, 20_000);
});

describe('redirects are never followed', () => {
	it.each([301, 302, 303, 307, 308] as const)(
		'HTTP %i to another host on a read: nothing reaches it, the error names the redirect',
		async (status) => {
			sandbox().setFaults({
				rules: [{ kind: 'redirectOtherHost', times: 1, path: HISTORY, redirectStatus: status }],
			});
			const run = await runTradingService(sandbox(), { parameters: history() });
			expect(sandbox().otherHost.requests).toEqual([]);
			expect(historyRequests()).toHaveLength(1);
			expect(run.error?.message).toBe(
				`The Trading Service answered HTTP ${status}, a redirect: signed requests are never sent on to another address`,
			);
		},
	);

	// Following a redirect would carry the API key and a signed write to another address, or turn
	// an order (303) into a GET of another path. A write answered with a redirect did nothing the
	// node can prove: its outcome is unknown, and an order is looked up, never sent again.
	it('a 307 to another host: the signed transfer and the API key never reach it; outcome unknown', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'redirectOtherHost', times: 1, path: PATHS.transfer }],
		});
		const run = await runTradingService(sandbox(), { parameters: transfer });
		expect(sandbox().otherHost.requests).toEqual([]);
		expect(run.items).toEqual([]);
		expect(run.error?.message).toMatch(/^Unknown outcome/);
		expect(`${run.error?.message} ${run.error?.description}`).toMatch(/redirect/i);
		expect(reportedOutcome(run)).toBe('unknown');
	});

	it('a 303 answering an order: never a GET of another path; the order is looked up, not found, reported unknown and never sent again', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'redirectSameHost', times: 1, path: PATHS.order, redirectStatus: 303 }],
		});
		const run = await runCounting(sandbox(), {
			parameters: limitOrder,
			credentials: { recvWindow: 1500 },
		});
		expect(run.requests.map((request) => `${request.method} ${request.path}`)).not.toContain(
			`GET ${PATHS.time}`,
		);
		// The redirect applied nothing, but nothing the node sees proves it: the order is not sent again.
		expect(run.requests.filter((request) => request.path === PATHS.order)).toHaveLength(1);
		expect(run.requests.some((request) => request.path === PATHS.queryOrder)).toBe(true);
		expect(sandbox().ledger.orders).toHaveLength(0);
		expect(reportedOutcome(run)).toBe('unknown');
	});

	it('a redirect loop on a read: one request, an error that says what happened', async () => {
		sandbox().setFaults({ rules: [{ kind: 'redirectLoop', times: 1, path: PATHS.history }] });
		const run = await runCounting(sandbox(), { parameters: history() });
		expect(run.requests).toHaveLength(1);
		expect(run.error?.message).toMatch(/redirect/i);
		expect(run.error?.description).toMatch(/Base URL/);
	});
});

describe('418 (an IP ban)', () => {
	it('fails at once, saying how long the service asks to wait', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'ipBan', times: 1, path: HISTORY, retryAfterSeconds: 120 }],
		});
		const run = await runTradingService(sandbox(), { parameters: history() });
		expect(historyRequests()).toHaveLength(1);
		expect(run.error?.message).toBe("This server's IP address is banned by the service");
		expect(run.error?.description).toMatch(/code -3145\).*wait 120 s/);
	});

	// Trying again only prolongs a ban, and a banned request was not executed: a write is
	// rejected, never sent again.
	it('one request, an IP-ban message', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'ipBan', times: 1, path: PATHS.history, retryAfterSeconds: 1 }],
		});
		const run = await runCounting(sandbox(), { parameters: history() });
		expect(run.requests).toHaveLength(1);
		expect(run.error?.message).toMatch(/IP address .*banned/);
	});

	it('on a transfer: rejected, nothing sent again', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'ipBan', times: 1, path: PATHS.transfer, retryAfterSeconds: 1 }],
		});
		const run = await runCounting(sandbox(), { parameters: transfer });
		expect(run.requests).toHaveLength(1);
		expect(reportedOutcome(run)).toBe('rejected');
	});
});

describe('the per-attempt deadline on a write and on a read tried again', () => {
	// The deadline (30 s in the node, 1 s here) holds whatever the server drips. A transfer whose
	// answer is still dripping at the deadline may have been applied: it is never sent again and
	// its outcome is unknown. A read is simply tried again.
	beforeEach(() => {
		jest.replaceProperty(DEFAULT_RETRY_POLICY, 'timeoutMs', 1000);
	});

	it('a transfer answered one byte every 200 ms: it ends at the deadline, applied once, never sent again, found by its client order ID', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'dripFeed', times: 1, path: PATHS.transfer, dripIntervalMs: 200 }],
		});
		const run = await runTradingService(sandbox(), { parameters: transfer });
		expect(sandbox().ledger.transfers).toHaveLength(1);
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(1);
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', confirmedByLookup: true });
	}, 10_000);

	it('a history page dripped: the read is tried again at the deadline and returns the records', async () => {
		sandbox().addRecords([fee(Date.now() - HOUR)]);
		sandbox().setFaults({
			rules: [{ kind: 'dripFeed', times: 1, path: PATHS.history, dripIntervalMs: 200 }],
		});
		const run = await runCounting(sandbox(), { parameters: history() });
		expect(run.error?.message).toBeUndefined();
		expect(run.items).toHaveLength(1);
		expect(run.requests).toHaveLength(2);
	}, 10_000);
});

describe('a malformed answer to a write is never an item', () => {
	// An answer that is not the JSON object the service promises (HTML, null, "", an empty body,
	// true) says nothing about the write. It is never passed on as the item: a transfer and an
	// order are looked up by their client order ID, and the item is what the lookup found.
	it.each([
		'answerHtml',
		'answerNull',
		'answerEmptyString',
		'answerEmptyBody',
		'answerTrue',
	] as const)(
		'%s answering a transfer: the answer is never the item; the transfer is looked up (placed once)',
		async (kind) => {
			sandbox().setFaults({ rules: [{ kind, times: 1, path: PATHS.transfer }] });
			const run = await runTradingService(sandbox(), { parameters: transfer });
			const transfers = sandbox().ledger.transfers;
			expect(transfers).toHaveLength(1);
			expect(run.error).toBeUndefined();
			expect(run.items).toHaveLength(1);
			expect(run.items[0].json).toMatchObject({
				outcome: 'placed',
				confirmedByLookup: true,
				clientOrderId: expect.stringMatching(/^n8n-/),
			});
		},
	);

	it.each(['answerHtml', 'answerNull', 'answerEmptyBody', 'answerTrue'] as const)(
		'%s answering an order: the answer is never the item; the order is looked up (placed once)',
		async (kind) => {
			sandbox().setFaults({ rules: [{ kind, times: 1, path: PATHS.order }] });
			const run = await runTradingService(sandbox(), { parameters: limitOrder });
			expect(sandbox().ledger.orders).toHaveLength(1);
			expect(run.items).toHaveLength(1);
			expect(run.items[0].json.orderId).toBe(sandbox().ledger.orders[0].orderId);
			expect(reportedOutcome(run)).toBe('placed');
		},
	);

	// A body cut short, or gzip that does not decode, fails after the request was written: the
	// write may have been applied, so it gets the unknown-outcome message, not the raw error.
	it.each(['answerTruncated', 'answerBadGzip'] as const)(
		'%s answering a transfer: not a raw error; the transfer is looked up (placed once)',
		async (kind) => {
			sandbox().setFaults({ rules: [{ kind, times: 1, path: PATHS.transfer }] });
			const run = await runTradingService(sandbox(), { parameters: transfer });
			expect(sandbox().ledger.transfers).toHaveLength(1);
			expect(run.error).toBeUndefined();
			expect(run.items[0].json).toMatchObject({ outcome: 'placed', confirmedByLookup: true });
		},
	);
});

describe('64-bit IDs keep every digit', () => {
	// The service may send an ID as a bare JSON integer, beyond the 2^53 a JavaScript number holds
	// exactly. Rounded, it would name another order or record; it is read as text, every digit kept.
	it('an order answered with a bare integer orderId: the item has the exact ID', async () => {
		sandbox().setFaults({ rules: [{ kind: 'numericIds', times: 1, path: PATHS.order }] });
		const run = await runTradingService(sandbox(), { parameters: limitOrder });
		expect(run.error?.message).toBeUndefined();
		expect(sandbox().ledger.orders).toHaveLength(1);
		expect(run.items[0].json.orderId).toBe(sandbox().ledger.orders[0].orderId);
		expect(run.items[0].json.accountId).toBe(sandbox().ledger.orders[0].accountId);
	});

	it('history records with bare integer ids: every id exact', async () => {
		const records = sandbox().addRecords([fee(Date.now() - HOUR), fee(Date.now() - HOUR + 1)]);
		sandbox().setFaults({ rules: [{ kind: 'numericIds', times: 1, path: PATHS.history }] });
		const run = await runTradingService(sandbox(), { parameters: history() });
		expect(run.error?.message).toBeUndefined();
		expect(run.items.map((item) => item.json.id).sort()).toEqual(
			records.map((record) => record.id).sort(),
		);
	});
});
