import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { ACCOUNT_ENDPOINTS } from '../../../../nodes/TradingService/account/endpoints';
import { HistoryWalk } from '../../../../nodes/TradingService/helpers/history';
import { MARKET_ENDPOINTS } from '../../../../nodes/TradingService/market/endpoints';
import { ORDER_ENDPOINTS } from '../../../../nodes/TradingService/orders/endpoints';
import {
	ServiceClient,
	isServiceRejection,
	type Pager,
	type RetryPolicy,
	type WriteAttempt,
} from '../../../../nodes/TradingService/transport';
import { SERVER_TIME_ENDPOINT } from '../../../../nodes/TradingService/transport/request';
import { DEMO_ACCOUNTS } from '../../../../sandbox';
import { requestsTo } from '../../../../tools/harness/node';
import { withExecuteFunctions } from '../../../support/probe';
import { useSandbox } from '../../../support/sandbox';
import { limitOrderQuery } from './support';

// ServiceClient on its own: a node whose execute hands n8n-core's real execute functions to the
// test, which drives one client with them against the sandbox over loopback.

const NEW_ORDER = '/api/v1/spot/new/order';
const ACCOUNT = '/api/v1/account';
const HISTORY = '/api/v1/account/balanceFlow';

/** Retries without the default's waits, so a test of three attempts takes milliseconds. */
const FAST: RetryPolicy = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 50, timeoutMs: 5000 };

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

/** Runs `use` inside a node run, with the run's execute functions; returns what it returned. */
const withContext = <T>(
	use: (context: IExecuteFunctions) => Promise<T>,
	credentials: IDataObject = {},
): Promise<T> => withExecuteFunctions(sandbox(), use, credentials);

/** What a call threw. */
async function thrown(call: Promise<unknown>): Promise<Error & { description?: string }> {
	try {
		await call;
	} catch (error) {
		return error as Error & { description?: string };
	}
	throw new Error('it did not throw');
}

const limitOrder = limitOrderQuery('index-test-1');

describe('ServiceClient.request (reads)', () => {
	it('answers a read with its body, signed and sent once', async () => {
		const body = await withContext((context) =>
			new ServiceClient(context, FAST).request(ACCOUNT_ENDPOINTS.balances),
		);
		expect(Array.isArray((body as IDataObject).balances)).toBe(true);
		const [request] = requestsTo(sandbox(), ACCOUNT);
		expect(request.query).toMatch(/^recvWindow=5000&timestamp=\d+&signature=[0-9a-f]{64}$/);
		expect(requestsTo(sandbox(), ACCOUNT)).toHaveLength(1);
	});

	it('sends a market-data read (its endpoint says signed: false) with the API key alone', async () => {
		const endpoint = MARKET_ENDPOINTS.tickerPrice;
		await withContext((context) =>
			new ServiceClient(context, FAST).request(endpoint, { qs: { symbol: 'BTCUSDT' } }),
		);
		const [request] = requestsTo(sandbox(), endpoint.path);
		expect(request.status).toBe(200);
		expect(request.apiKey).toBeDefined();
		expect(request.query).toBe('symbol=BTCUSDT');
	});

	it('reads the credential once for any number of requests in flight at once', async () => {
		const reads = await withContext(async (context) => {
			const getCredentials = jest.spyOn(context, 'getCredentials');
			const client = new ServiceClient(context, FAST);
			await Promise.all([
				client.request(ACCOUNT_ENDPOINTS.balances),
				client.request(SERVER_TIME_ENDPOINT),
				client.request(ACCOUNT_ENDPOINTS.balances),
			]);
			return getCredentials.mock.calls.length;
		});
		expect(reads).toBe(1);
		expect(sandbox().ledger.requests).toHaveLength(3);
	});

	it('retries a read the service failed (5xx), then answers', async () => {
		sandbox().setFaults({ rules: [{ kind: 'http503', times: 2, path: ACCOUNT }] });
		const body = await withContext((context) =>
			new ServiceClient(context, FAST).request(ACCOUNT_ENDPOINTS.balances),
		);
		expect((body as IDataObject).balances).toBeDefined();
		expect(requestsTo(sandbox(), ACCOUNT).map((request) => request.status)).toEqual([
			503, 503, 200,
		]);
	});

	it('throws the refusal of a read, not retried', async () => {
		const error = await thrown(
			withContext((context) =>
				new ServiceClient(context, FAST).request(ORDER_ENDPOINTS.queryOrder, {
					qs: { symbol: 'BTCUSDT', orderId: '1' },
				}),
			),
		);
		expect(isServiceRejection(error, '0211')).toBe(true);
		expect(error.message).toMatch(/Order not found/);
		expect(requestsTo(sandbox(), '/api/v1/spot/order')).toHaveLength(1);
	});

	it('throws an answer of the wrong shape as an unexpected answer', async () => {
		sandbox().setFaults({ rules: [{ kind: 'answerTrue', times: 1, path: ACCOUNT }] });
		const error = await thrown(
			withContext((context) =>
				new ServiceClient(context, FAST).request(ACCOUNT_ENDPOINTS.balances),
			),
		);
		expect(error.message).toBe(
			'The service answered the balances request without a list of balances',
		);
		expect(error.constructor.name).toBe('NodeApiError');
		expect(requestsTo(sandbox(), ACCOUNT)).toHaveLength(1);
	});

	it('sends nothing when the credential is unusable, and says which field', async () => {
		const error = await thrown(
			withContext(
				(context) => new ServiceClient(context, FAST).request(ACCOUNT_ENDPOINTS.balances),
				{
					secretKey: ' padded ',
				},
			),
		);
		expect(error.message).toMatch(/Secret Key/);
		expect(error.description).toMatch(/without spaces/);
		expect(sandbox().ledger.requests).toHaveLength(0);
	});
});

describe('ServiceClient.write', () => {
	const write = (qs: IDataObject, credentials: IDataObject = {}) =>
		withContext(
			(context) =>
				new ServiceClient(context, FAST).write(ORDER_ENDPOINTS.newOrder, { qs, itemIndex: 0 }),
			credentials,
		);

	/** The send window is set, and in order. */
	function expectWindow(attempt: WriteAttempt, sentAfter: number): void {
		expect(attempt.window.firstSentAt).toBeGreaterThanOrEqual(sentAfter);
		expect(attempt.window.acceptableUntil).toBeGreaterThan(attempt.window.firstSentAt!);
	}

	it('answered: the order placed, with the window its attempt may have reached the service in', async () => {
		const before = Date.now();
		const attempt = await write(limitOrder());
		expect(attempt.kind).toBe('answered');
		if (attempt.kind !== 'answered') return;
		expect(attempt.body).toMatchObject({ clientOrderId: 'index-test-1', status: 'NEW' });
		expectWindow(attempt, before);
		// The credential's receive window (5 s) plus the service's 1 s future tolerance.
		expect(attempt.window.acceptableUntil! - Date.now()).toBeLessThanOrEqual(6000);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('rejected: the service refused, nothing executed, never retried', async () => {
		const attempt = await write(limitOrder({ symbol: 'NOPEUSDT' }));
		expect(attempt.kind).toBe('rejected');
		if (attempt.kind !== 'rejected') return;
		expect(isServiceRejection(attempt.error, '0201')).toBe(true);
		expect(sandbox().ledger.orders).toHaveLength(0);
		expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(1);
	});

	it('rejected without a request: the credential is unusable', async () => {
		const attempt = await write(limitOrder(), { apiKey: '' });
		expect(attempt.kind).toBe('rejected');
		if (attempt.kind !== 'rejected') return;
		expect(attempt.error.message).toMatch(/API Key/);
		expect(attempt.window).toEqual({});
		expect(sandbox().ledger.requests).toHaveLength(0);
	});

	it('a 429 proves nothing was done: the write is sent again and placed once', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'rateLimit', times: 1, path: NEW_ORDER, retryAfterSeconds: 0 }],
		});
		const attempt = await write(limitOrder());
		expect(attempt.kind).toBe('answered');
		expect(requestsTo(sandbox(), NEW_ORDER).map((request) => request.status)).toEqual([429, 200]);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('unknown: executed but unanswered, never sent twice', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: NEW_ORDER }] });
		const before = Date.now();
		const attempt = await write(limitOrder());
		expect(attempt.kind).toBe('unknown');
		if (attempt.kind !== 'unknown') return;
		expect(attempt.reason).toMatch(/connection failed before the service answered/);
		expectWindow(attempt, before);
		expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(1);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('unknown: a 5xx after the write was applied', async () => {
		sandbox().setFaults({ rules: [{ kind: 'http500After', times: 1, path: NEW_ORDER }] });
		const attempt = await write(limitOrder());
		expect(attempt).toMatchObject({ kind: 'unknown', detail: 'HTTP 500' });
		expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(1);
	});

	it('unknown: a 2xx answer whose shape tells nothing, handed over as unusable', async () => {
		sandbox().setFaults({ rules: [{ kind: 'answerNull', times: 1, path: NEW_ORDER }] });
		const attempt = await write(limitOrder());
		expect(attempt).toMatchObject({ kind: 'unknown', detail: 'Unusable answer' });
		if (attempt.kind !== 'unknown') return;
		expect(attempt.unusable).toEqual({ problem: attempt.reason, body: null });
		expect(sandbox().ledger.orders).toHaveLength(1);
	});
});

describe('ServiceClient.requestAllPages', () => {
	it('sends the requests the pager asks for, one after the other, and hands it each answer', async () => {
		const asked: string[] = [];
		const pager: Pager & { answers: unknown[] } = {
			answers: [],
			next() {
				if (asked.length === 3) return undefined;
				asked.push(`request ${asked.length}`);
				return {};
			},
			take(page) {
				this.answers.push(page);
			},
		};
		await withContext((context) =>
			new ServiceClient(context, FAST).requestAllPages(SERVER_TIME_ENDPOINT, pager),
		);
		expect(pager.answers).toHaveLength(3);
		expect(
			pager.answers.every((answer) => typeof (answer as IDataObject).serverTime === 'number'),
		).toBe(true);
		expect(requestsTo(sandbox(), '/api/v1/time')).toHaveLength(3);
	});

	it('walks a history range across full pages, every record once', async () => {
		const now = sandbox().now();
		const records = sandbox().addRecords(
			Array.from({ length: 1234 }, (_, index) => ({
				accountId: DEMO_ACCOUNTS.mainContract,
				flowTypeValue: 32,
				change: '-0.1',
				created: String(now - 60_000 - index * 100),
			})),
		);
		const walk = await withContext(async (context) => {
			const history = new HistoryWalk(
				context.getNode(),
				{ flowType: 32, startTime: now - 3_600_000, endTime: now },
				{ overfull: 'fail' },
			);
			await new ServiceClient(context, FAST).requestAllPages(ACCOUNT_ENDPOINTS.history, history);
			return history.result;
		});
		expect(walk.pages).toBe(3);
		expect(walk.records.map((record) => record.id).sort()).toEqual(
			records.map((record) => record.id).sort(),
		);
		expect(requestsTo(sandbox(), HISTORY)).toHaveLength(3);
	});

	it('stops at the first failed page: the error of that request', async () => {
		sandbox().setFaults({ rules: [{ kind: 'historyUnordered', times: 1, path: HISTORY }] });
		const now = sandbox().now();
		sandbox().addRecords([
			{
				accountId: DEMO_ACCOUNTS.mainContract,
				flowTypeValue: 32,
				change: '-1',
				created: String(now - 3000),
			},
			{
				accountId: DEMO_ACCOUNTS.mainContract,
				flowTypeValue: 32,
				change: '-1',
				created: String(now - 2000),
			},
			{
				accountId: DEMO_ACCOUNTS.mainContract,
				flowTypeValue: 32,
				change: '-2',
				created: String(now - 1000),
			},
		]);
		const error = await thrown(
			withContext((context) =>
				new ServiceClient(context, FAST).requestAllPages(
					ACCOUNT_ENDPOINTS.history,
					new HistoryWalk(
						context.getNode(),
						{ flowType: 32, startTime: now - 60_000, endTime: now },
						{ overfull: 'fail' },
					),
				),
			),
		);
		expect(error.message).toMatch(/in no order/i);
		expect(requestsTo(sandbox(), HISTORY)).toHaveLength(1);
	});
});
