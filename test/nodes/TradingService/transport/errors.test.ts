import { DEMO_ACCOUNTS, DEMO_KEYS, startSandbox } from '../../../../sandbox';
import { credentialsFor, requestsTo, runTradingService } from '../../../../tools/harness/node';
import { reportedOutcome } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

// The transport's error mapping, seen through the node over real HTTP against the sandbox.
const sandbox = useSandbox({});

const history = () => {
	const now = Date.now();
	return {
		resource: 'account',
		operation: 'getHistory',
		flowType: 32,
		startTime: new Date(now - 3600_000).toISOString(),
		endTime: new Date(now).toISOString(),
	};
};
const transfer = (quantity = '1') => ({
	resource: 'account',
	operation: 'transferAsset',
	fromAccountId: DEMO_ACCOUNTS.mainTrading,
	toAccountId: DEMO_ACCOUNTS.subTrading,
	coin: 'USDT',
	quantity,
});

describe('service errors become NodeApiErrors that say what happened and how to fix it', () => {
	it('timestamp outside recvWindow: clock advice with the measured offset', async () => {
		sandbox().setFaults({ clockOffsetMs: -30_000 });
		const run = await runTradingService(sandbox(), { parameters: history() });
		expect(run.error?.message).toBe(
			'The request timestamp was outside the service’s receive window',
		);
		expect(run.error?.description).toContain('(code -1021)');
		expect(run.error?.description).toMatch(
			/The service clock is (29|30)\d{3} ms behind this n8n server's clock/,
		);
		expect(run.error?.description).toContain('Receive Window');
	});

	it('a clock behind the service by less than recvWindow is accepted', async () => {
		// The service clock 3 s ahead: our timestamps are 3 s old, inside the 5 s window.
		sandbox().setFaults({ clockOffsetMs: 3000 });
		const run = await runTradingService(sandbox(), { parameters: history() });
		expect(run.error).toBeUndefined();
	});

	it('bad signature: check the secret', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: history(),
			credentials: { secretKey: 'wrong-secret' },
		});
		expect(run.error?.message).toBe('The service rejected the request signature');
		expect(run.error?.description).toContain('Secret Key');
		expect(run.serialised).not.toContain('wrong-secret');
	});

	it('unknown API key', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: history(),
			credentials: { apiKey: 'nobody' },
		});
		expect(run.error?.message).toBe('The service did not accept the API key');
		expect(run.error?.description).toContain('(code 0102)');
	});

	it('missing permission: a read-only key cannot transfer', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: transfer(),
			key: DEMO_KEYS.readOnly,
		});
		expect(run.error?.message).toBe('The API key is not allowed to do this');
		expect(run.error?.description).toContain('trade permission');
		expect(run.error?.description).toContain('(code -1005)');
		expect((run.error?.context as { outcome?: string } | undefined)?.outcome).toBe('rejected');
		expect(sandbox().ledger.transfers).toHaveLength(0);
	});

	it('insufficient balance', async () => {
		const run = await runTradingService(sandbox(), { parameters: transfer('99999999999') });
		expect(run.error?.message).toBe('The account balance is too low for this request');
		expect(run.error?.description).toContain('(code 0401)');
	});

	it('rate limited: sent again after Retry-After (twice at most), then reported when it persists', async () => {
		sandbox().setFaults({ rules: [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 0 }] });
		const recovered = await runTradingService(sandbox(), { parameters: history() });
		expect(recovered.error).toBeUndefined();
		expect(
			requestsTo(sandbox(), '/api/v1/account/balanceFlow').map((request) => request.status),
		).toEqual([429, 200]);

		sandbox().reset();
		sandbox().setFaults({ rules: [{ kind: 'rateLimit', times: 100, retryAfterSeconds: 0 }] });
		const failed = await runTradingService(sandbox(), { parameters: history() });
		expect(failed.error?.message).toBe('The service’s rate limit was exceeded');
		// The first attempt and two waits: a limit met again and again means something else sends.
		expect(requestsTo(sandbox(), '/api/v1/account/balanceFlow')).toHaveLength(3);
	});

	it('a Retry-After longer than a minute is not waited for', async () => {
		sandbox().setFaults({ rules: [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 3600 }] });
		const run = await runTradingService(sandbox(), { parameters: history() });
		expect(run.error?.message).toBe('The service’s rate limit was exceeded');
		expect(requestsTo(sandbox(), '/api/v1/account/balanceFlow')).toHaveLength(1);
	});

	it('a wrong base URL says so', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: history(),
			credentials: { baseUrl: `${sandbox().baseUrl}/nope` },
		});
		expect(run.error?.message).toContain('HTTP 404');
		expect(run.error?.description).toContain('Base URL');
	});

	it('nothing listening: not sent, retried, then reported', async () => {
		const closed = await startSandbox();
		const baseUrl = closed.baseUrl;
		await closed.stop();
		const run = await runTradingService(sandbox(), {
			parameters: transfer(),
			credentials: { baseUrl },
		});
		expect(run.error?.message).toMatch(
			/^Could not reach the Trading Service: the connection could not be opened$/,
		);
		expect(run.error?.description).toContain('ECONNREFUSED after 6 attempts');
		expect(run.error?.description).toContain('Nothing was sent');
	});

	it('never puts the secret in an error, an item or the run data', async () => {
		const runs = await Promise.all([
			runTradingService(sandbox(), { parameters: history() }),
			runTradingService(sandbox(), { parameters: transfer('99999999999') }),
			runTradingService(sandbox(), {
				parameters: history(),
				credentials: { secretKey: `${DEMO_KEYS.master.secret}x` },
			}),
		]);
		for (const run of runs) expect(run.serialised).not.toContain(DEMO_KEYS.master.secret);
		expect(JSON.stringify(credentialsFor(sandbox()))).toContain(DEMO_KEYS.master.secret); // the check above can fail
	});
});

describe('credential problems are named before anything is sent', () => {
	// The value itself is never repeated: a Base URL may carry a password.
	it.each([
		['', 'is empty'],
		['api.exchange.example', 'is not a web address'],
		['ftp://127.0.0.1', 'must start with https:// or http://'],
	])('a Base URL of %p', async (baseUrl, problem) => {
		const run = await runTradingService(sandbox(), {
			parameters: history(),
			credentials: { baseUrl },
		});
		expect(run.error?.message).toBe(`The credential's Base URL ${problem}`);
		expect(sandbox().ledger.requests).toHaveLength(0);
	});
});

describe('the error codes of the exchange family get the advice of their problem', () => {
	// Services of this family report one problem under more than one code: a wrong signature as
	// 0002, or with the same text as 0001. The advice follows the problem, not the code; a write
	// refused this way is rejected, nothing done.
	it('a wrong secret (0002) gets the secret advice', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: transfer('1'),
			credentials: { secretKey: 'not-the-secret' },
		});
		expect(run.error?.message).toBe('The service rejected the request signature');
		expect(run.error?.description).toContain('Secret Key');
		expect(reportedOutcome(run)).toBe('rejected');
	});

	it('the signature text under another code (0001) gets the same advice', async () => {
		sandbox().setBehaviour({ signatureErrorCode: '0001' });
		const run = await runTradingService(sandbox(), {
			parameters: transfer('1'),
			credentials: { secretKey: 'not-the-secret' },
		});
		expect(run.error?.message).toBe('The service rejected the request signature');
	});

	it('an unknown API key (0102) and a key without permission (-1005) get their advice', async () => {
		const badKey = await runTradingService(sandbox(), {
			parameters: transfer('1'),
			credentials: { apiKey: 'nobody' },
		});
		expect(badKey.error?.message).toBe('The service did not accept the API key');
		const readOnly = await runTradingService(sandbox(), {
			parameters: transfer('1'),
			key: DEMO_KEYS.readOnly,
		});
		expect(readOnly.error?.message).toBe('The API key is not allowed to do this');
	});
});
