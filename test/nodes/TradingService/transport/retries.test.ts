import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { ENDPOINTS, type Endpoint } from '../../../../nodes/TradingService/transport/endpoints';
import { sendWithRetries } from '../../../../nodes/TradingService/transport/request';
import type {
	Exchange,
	RetryPolicy,
	SendWindow,
} from '../../../../nodes/TradingService/transport/types';
import { credentialsFor, requestsTo } from '../../../../tools/harness/node';
import { PROBE_NAME, probeDescription, runProbe } from '../../../support/probe';
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
				// A run that waits at most a second for a rate limit to pass.
				{ limiter: undefined, recvWindowMs: 5000, credentials, rateLimitWaitMs: 1000 },
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
		const { exchange, window } = await send(ENDPOINTS.account);
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
			const { exchange } = await send(ENDPOINTS.account);
			expect(exchange.kind).toBe('answered');
			expect(requestsTo(sandbox(), ACCOUNT)).toHaveLength(3);
		},
	);

	it('fails on every attempt: rejected after 1 + maxRetries attempts, saying so', async () => {
		sandbox().setFaults({ rules: [{ kind: 'http503', times: 5, path: ACCOUNT }] });
		const { exchange } = await send(ENDPOINTS.account);
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
			rules: [{ kind: 'rateLimit', times: 1, path: ACCOUNT, retryAfterSeconds: 1 }],
		});
		const { exchange } = await send(ENDPOINTS.account);
		expect(exchange.kind).toBe('rejected');
		expect(requestsTo(sandbox(), ACCOUNT)).toHaveLength(1);
	});

	it('a refusal is not tried again', async () => {
		const { exchange } = await send(ENDPOINTS.queryOrder, { symbol: 'BTCUSDT', orderId: '1' });
		expect(exchange.kind).toBe('rejected');
		expect(requestsTo(sandbox(), '/api/v1/spot/order')).toHaveLength(1);
	});

	it('a timestamp outside the receive window: rejected with how far the clocks differ', async () => {
		sandbox().setFaults({ clockOffsetMs: 120_000 });
		const { exchange } = await send(ENDPOINTS.account);
		expect(exchange.kind).toBe('rejected');
		if (exchange.kind !== 'rejected') return;
		expect(exchange.error.description).toMatch(/The service clock is 1\d{5} ms ahead of/);
		// The refused request, then one clock check.
		expect(requestsTo(sandbox(), ACCOUNT)).toHaveLength(1);
		expect(requestsTo(sandbox(), '/api/v1/time')).toHaveLength(1);
	});

	it('nothing listens at the Base URL: tried again, then not reachable, nothing sent', async () => {
		const { exchange } = await send(
			ENDPOINTS.account,
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
		const { exchange } = await send(ENDPOINTS.newOrder, order());
		expect(exchange.kind).toBe('answered');
		expect(statuses(NEW_ORDER)).toEqual([429, 200]);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('connection refused proves nothing was sent: tried again, then rejected', async () => {
		const { exchange, window } = await send(ENDPOINTS.newOrder, order(), {
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
		const { exchange } = await send(ENDPOINTS.newOrder, order());
		expect(exchange.kind).toBe('unknown');
		if (exchange.kind !== 'unknown') return;
		expect(exchange.reason.startsWith(reason)).toBe(true);
		expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(1);
	});

	it('a client error without a code proves nothing was done: rejected', async () => {
		const { exchange } = await send(
			{ ...ENDPOINTS.newOrder, path: '/api/v1/spot/no-such-path' },
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
		const { exchange } = await send(ENDPOINTS.newOrder, order({ symbol: 'NOPEUSDT' }));
		expect(exchange.kind).toBe('rejected');
		expect(sandbox().ledger.orders).toHaveLength(0);
		expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(1);
	});
});
