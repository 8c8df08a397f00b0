import {
	TradingServiceApi,
	checkCredentialData,
	credentialProblemMessage,
	credentialProblemOf,
} from '../../credentials/TradingServiceApi.credentials';
import { DEMO_ACCOUNTS } from '../../sandbox';
import { HOUR, reportedOutcome, runCounting } from '../support/runs';
import { useSandbox } from '../support/sandbox';

const valid = {
	apiKey: 'key-1',
	secretKey: 'secret-1',
	baseUrl: 'https://api.example.com',
	recvWindow: 5000,
};

describe('checkCredentialData: Base URL', () => {
	it.each([
		['https://api.example.com', 'https://api.example.com'],
		['  https://api.example.com/  ', 'https://api.example.com'],
		['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
		['HTTPS://API.Example.com//', 'https://api.example.com'],
		['https://gateway.example.com/trading/', 'https://gateway.example.com/trading'],
	])('%p is used as %p', (baseUrl, expected) => {
		const check = checkCredentialData({ ...valid, baseUrl });
		expect(check.ok && check.credentials.baseUrl).toBe(expected);
	});

	it.each([
		['', /is empty/],
		['   ', /is empty/],
		[undefined, /is empty/],
		['trading.internal', /not a web address/],
		['ftp://api.example.com', /https:\/\/ or http:\/\//],
		['file:///etc/passwd', /https:\/\/ or http:\/\//],
		['https://user:hunter2@api.example.com', /user name or password/],
		['https://user@api.example.com', /user name or password/],
		['https://api.example.com?x=1', /query/],
		['https://api.example.com/?', /query/],
		['https://api.example.com#top', /fragment/],
		['https://api.example.com/#', /fragment/],
	])('%p: refused, the value never echoed', (baseUrl, problem) => {
		const found = credentialProblemOf({ ...valid, baseUrl });
		expect(found?.field).toBe('Base URL');
		expect(found?.problem).toMatch(problem);
		const text = `${credentialProblemMessage(found!)} ${found!.fix}`;
		if (typeof baseUrl === 'string' && baseUrl.trim() !== '')
			expect(text).not.toContain(baseUrl.trim());
		expect(text).not.toContain('hunter2');
	});
});

describe('checkCredentialData: keys and Receive Window', () => {
	it.each([
		[{ apiKey: '' }, 'API Key', /is empty/],
		[{ apiKey: undefined }, 'API Key', /is empty/],
		[{ secretKey: '' }, 'Secret Key', /is empty/],
		[{ secretKey: ' secret-1' }, 'Secret Key', /space/],
		[{ apiKey: 'key-1\n' }, 'API Key', /space/],
		[{ recvWindow: Number.NaN }, 'Receive Window', /1 to 8000/],
		[{ recvWindow: 0 }, 'Receive Window', /1 to 8000/],
		[{ recvWindow: -5 }, 'Receive Window', /1 to 8000/],
		[{ recvWindow: 8001 }, 'Receive Window', /over 8000 ms/],
		[{ recvWindow: 60001 }, 'Receive Window', /over 8000 ms/],
		[{ recvWindow: 999999 }, 'Receive Window', /over 8000 ms/],
		[{ recvWindow: 2.5 }, 'Receive Window', /whole number/],
		[{ recvWindow: 'soon' }, 'Receive Window', /whole number/],
	])('%p: %s %p', (override, field, problem) => {
		const found = credentialProblemOf({ ...valid, ...override });
		expect(found?.field).toBe(field);
		expect(found?.problem).toMatch(problem);
		expect(`${found?.problem} ${found?.fix}`).not.toContain('secret-1');
	});

	it.each([
		[1, 1],
		[8000, 8000],
		[undefined, 5000],
		['', 5000],
		['3000', 3000],
	])('Receive Window %p is %p', (recvWindow, expected) => {
		const check = checkCredentialData({ ...valid, recvWindow });
		expect(check.ok && check.credentials.recvWindow).toBe(expected);
	});
});

describe('checkCredentialData: request rates and the processes sharing the key', () => {
	it.each([
		[{}, { order: 20, query: 5 }],
		[
			{ orderRequestsPerSecond: '', queryRequestsPerSecond: null },
			{ order: 20, query: 5 },
		],
		[
			{ orderRequestsPerSecond: 50, queryRequestsPerSecond: 10 },
			{ order: 50, query: 10 },
		],
		[{ processesSharingKey: 2 }, { order: 10, query: 2 }],
		[{ processesSharingKey: 5 }, { order: 4, query: 1 }],
		[
			{ processesSharingKey: 3, orderRequestsPerSecond: 1000 },
			{ order: 333, query: 1 },
		],
	])('%p: each process sends at most %p a second', (override, expected) => {
		const check = checkCredentialData({ ...valid, ...override });
		expect(check.ok && check.credentials.requestsPerSecond).toEqual(expected);
	});

	it.each([
		[{ orderRequestsPerSecond: 0 }, 'Order Requests per Second', /1 to 1000/, /Enter 20/],
		[{ orderRequestsPerSecond: 20.5 }, 'Order Requests per Second', /whole number/, /Enter 20/],
		[{ orderRequestsPerSecond: 1001 }, 'Order Requests per Second', /1 to 1000/, /Enter 20/],
		[{ queryRequestsPerSecond: 'fast' }, 'Query Requests per Second', /whole number/, /Enter 5/],
		[{ queryRequestsPerSecond: -5 }, 'Query Requests per Second', /1 to 1000/, /Enter 5/],
		[{ processesSharingKey: 0 }, 'n8n Processes Sharing This Key', /1 to 5/, /queue mode/],
		[{ processesSharingKey: 1.5 }, 'n8n Processes Sharing This Key', /whole number/, /queue mode/],
		// Each process needs one query request a second: six processes cannot share five.
		[{ processesSharingKey: 6 }, 'n8n Processes Sharing This Key', /1 to 5/, /another API key/],
	])('%p: %s refused, with the fix', (override, field, problem, fix) => {
		const found = credentialProblemOf({ ...valid, ...override });
		expect(found?.field).toBe(field);
		expect(found?.problem).toMatch(problem);
		expect(found?.fix).toMatch(fix);
	});
});

describe("the credential's authenticate checks the same before signing", () => {
	const credential = new TradingServiceApi();
	it('a Base URL with a password: refused, without the password', async () => {
		const signing = credential.authenticate(
			{ ...valid, baseUrl: 'https://me:hunter2@api.example.com' },
			{ url: '/api/v1/time' },
		);
		await expect(signing).rejects.toThrow(
			/^The credential's Base URL contains a user name or password/,
		);
		await expect(signing).rejects.not.toThrow(/hunter2/);
	});

	it('UAE rule: receive window over 8000 (a credential saved when 60000 was allowed): refused before signing, naming the field and the fix', async () => {
		const found = credentialProblemOf({ ...valid, recvWindow: 60000 });
		expect(found).toEqual({
			field: 'Receive Window',
			problem: 'is over 8000 ms, the most the service accepts (it refuses larger values)',
			fix: "Open the credential and set Receive Window to 8000 or less (5000 is the service's default), then save it.",
		});
		await expect(
			credential.authenticate({ ...valid, recvWindow: 20000 }, { url: '/api/v1/time' }),
		).rejects.toThrow(
			"The credential's Receive Window is over 8000 ms, the most the service accepts (it refuses larger values). Open the credential and set Receive Window to 8000 or less",
		);
	});

	it('Receive Window 0: refused', async () => {
		await expect(
			credential.authenticate({ ...valid, recvWindow: 0 }, { url: '/api/v1/time' }),
		).rejects.toThrow(/Receive Window/);
	});

	it('a trimmed Base URL is what the request goes to', async () => {
		const signed = await credential.authenticate(
			{ ...valid, baseUrl: ' https://api.example.com/ ' },
			{ url: '/api/v1/time' },
		);
		expect(signed.baseURL).toBe('https://api.example.com');
		expect(signed.url).toMatch(/recvWindow=5000&timestamp=\d+&signature=[0-9a-f]{64}$/);
	});
});

describe('the node checks the credential before any request', () => {
	// The checks above, as a run of the node meets them. A Base URL with a user name and password,
	// a query, a fragment or another scheme would send the signed request somewhere the user did not
	// mean, or put a password in an error; a Receive Window outside 1 to 8000 would be refused by
	// the service on every request. The node refuses such a credential before any request, without
	// repeating the value; spaces around the Base URL are only trimmed.
	const sandbox = useSandbox({ rateLimit: false, requestRates: false });
	const history = () => ({
		resource: 'account',
		operation: 'getHistory',
		flowType: 32,
		startTime: new Date(Date.now() - 2 * HOUR).toISOString(),
		endTime: new Date(Date.now() + 60_000).toISOString(),
		limit: 10,
	});
	const transfer = {
		resource: 'account',
		operation: 'transferAsset',
		fromAccountId: DEMO_ACCOUNTS.mainTrading,
		toAccountId: DEMO_ACCOUNTS.subTrading,
		coin: 'USDT',
		quantity: '1.5',
	};
	const base = () => new URL(sandbox().baseUrl);

	it.each([
		['userinfo', () => `http://someone:pa55word@${base().host}`],
		['a query', () => `${sandbox().baseUrl}?x=1`],
		['a fragment', () => `${sandbox().baseUrl}#top`],
		['ftp://', () => `ftp://${base().host}`],
	])(
		'Base URL with %s: an error naming Base URL, 0 requests, the URL not echoed',
		async (_label, url) => {
			const baseUrl = url();
			const run = await runCounting(sandbox(), {
				parameters: history(),
				credentials: { baseUrl },
			});
			expect(run.requests).toEqual([]);
			expect(run.error?.message).toMatch(/Base URL/);
			expect(`${run.error?.message} ${run.error?.description}`).not.toContain(baseUrl);
		},
	);

	it('Base URL with trailing spaces is trimmed and works', async () => {
		const run = await runCounting(sandbox(), {
			parameters: history(),
			credentials: { baseUrl: `${sandbox().baseUrl}  ` },
		});
		expect(run.error?.message).toBeUndefined();
		expect(run.requests).toHaveLength(1);
	});

	it.each([
		['a read', () => history()],
		['a transfer', () => transfer],
	])(
		'UAE rule: receive window over 8000 in a saved credential (%s): an error naming the field and the fix, 0 requests',
		async (_label, parameters) => {
			const run = await runCounting(sandbox(), {
				parameters: parameters(),
				credentials: { recvWindow: 20000 },
			});
			expect(run.requests).toEqual([]);
			expect(run.error?.message).toBe(
				"The credential's Receive Window is over 8000 ms, the most the service accepts (it refuses larger values)",
			);
			expect(run.error?.description).toMatch(/set Receive Window to 8000 or less/);
		},
	);

	it.each([Number.NaN, 0, 8001, 999999])(
		'Receive Window %p: an error naming Receive Window, 0 requests',
		async (recvWindow) => {
			const run = await runCounting(sandbox(), {
				parameters: history(),
				credentials: { recvWindow },
			});
			expect(run.requests).toEqual([]);
			expect(run.error?.message).toMatch(/Receive Window/);
		},
	);

	// Nothing was sent, so a write refused for its credential is rejected, never unknown.
	it('a write with an empty Secret Key: an error naming Secret Key, 0 requests, outcome rejected', async () => {
		const run = await runCounting(sandbox(), {
			parameters: transfer,
			credentials: { secretKey: '' },
		});
		expect(run.requests).toEqual([]);
		expect(run.error?.message).toMatch(/Secret Key/);
		expect(reportedOutcome(run)).toBe('rejected');
	});
});
