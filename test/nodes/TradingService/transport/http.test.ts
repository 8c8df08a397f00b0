/**
 * The transport's attempt (transport/http.ts) through n8n-core's real request helper
 * (httpRequestWithAuthentication, in-process via tools/harness) against the sandbox: redirects
 * are not followed, each attempt ends at its deadline whatever the server drips, answers are
 * capped in size, and IDs keep every digit. The deadline is shortened here; the mechanism is the
 * one the node runs with (30 s).
 */
import { runTradingService } from '../../../../tools/harness/node';
import { DEFAULT_RETRY_POLICY } from '../../../../nodes/TradingService/transport';
import { MAX_ANSWER_BYTES } from '../../../../nodes/TradingService/transport/body';
import { DEMO_ACCOUNTS, startSandbox, type Sandbox } from '../../../../sandbox';

const HISTORY = '/api/v1/account/balanceFlow';
const HOUR = 3_600_000;

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox({ rateLimit: false });
});
afterAll(async () => {
	await sb.stop();
});
beforeEach(() => sb.reset());
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
const historyRequests = () => sb.ledger.requests.filter((request) => request.path === HISTORY);

describe('the per-attempt deadline, through n8n-core', () => {
	beforeEach(() => {
		jest.replaceProperty(DEFAULT_RETRY_POLICY, 'timeoutMs', 600);
		jest.replaceProperty(DEFAULT_RETRY_POLICY, 'maxRetries', 1);
		jest.replaceProperty(DEFAULT_RETRY_POLICY, 'baseDelayMs', 1);
	});

	it('a body dripped one byte every 100 ms: each attempt ends at the deadline, then the read fails', async () => {
		sb.addRecords([fee(Date.now() - HOUR)]);
		sb.setFaults({ rules: [{ kind: 'dripFeed', times: 2, path: HISTORY, dripIntervalMs: 100 }] });
		const run = await runTradingService(sb, { parameters: history() });
		expect(historyRequests()).toHaveLength(2);
		expect(run.error?.message).toBe(
			'The Trading Service kept failing: the service did not answer within 0.6 s',
		);
		expect(run.items).toEqual([]);
	}, 10_000);

	it('no answer at all (headers late): the attempt ends at the deadline too', async () => {
		sb.addRecords([fee(Date.now() - HOUR)]);
		sb.setFaults({ latencyMs: 3000 });
		const run = await runTradingService(sb, { parameters: history() });
		expect(run.error?.message).toBe(
			'The Trading Service kept failing: the service did not answer within 0.6 s',
		);
	}, 10_000);

	it('a drip on the first attempt only: the second attempt returns the records', async () => {
		sb.addRecords([fee(Date.now() - HOUR)]);
		sb.setFaults({ rules: [{ kind: 'dripFeed', times: 1, path: HISTORY, dripIntervalMs: 100 }] });
		const run = await runTradingService(sb, { parameters: history() });
		expect(run.error?.message).toBeUndefined();
		expect(run.items).toHaveLength(1);
		expect(historyRequests()).toHaveLength(2);
	}, 10_000);
});

describe('answers are capped in size', () => {
	it(`a page far larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB is refused without a retry`, async () => {
		const end = Date.now() - 60_000;
		sb.seedRecords({ flowType: 32, count: 20_000, startTime: end - HOUR, endTime: end, seed: 5 });
		// 10 asked for, 20,000 sent (about 5.6 MB).
		sb.setFaults({
			rules: [{ kind: 'historyOversize', times: 1, path: HISTORY, extraRecords: 19_990 }],
		});
		const run = await runTradingService(sb, { parameters: history({ limit: 10 }) });
		expect(historyRequests()).toHaveLength(1);
		expect(run.error?.message).toMatch(/answer was too large/);
		expect(run.items).toEqual([]);
	}, 20_000);
});

describe('redirects are never followed', () => {
	it.each([301, 302, 303, 307, 308] as const)(
		'HTTP %i to another host on a read: nothing reaches it, the error names the redirect',
		async (status) => {
			sb.setFaults({
				rules: [{ kind: 'redirectOtherHost', times: 1, path: HISTORY, redirectStatus: status }],
			});
			const run = await runTradingService(sb, { parameters: history() });
			expect(sb.otherHost.requests).toEqual([]);
			expect(historyRequests()).toHaveLength(1);
			expect(run.error?.message).toBe(
				`The Trading Service answered HTTP ${status}, a redirect: signed requests are never sent on to another address`,
			);
		},
	);
});

describe('418 (an IP ban)', () => {
	it('fails at once, saying how long the service asks to wait', async () => {
		sb.setFaults({ rules: [{ kind: 'ipBan', times: 1, path: HISTORY, retryAfterSeconds: 120 }] });
		const run = await runTradingService(sb, { parameters: history() });
		expect(historyRequests()).toHaveLength(1);
		expect(run.error?.message).toBe("This server's IP address is banned by the service");
		expect(run.error?.description).toMatch(/code -3145\).*wait 120 s/);
	});
});
