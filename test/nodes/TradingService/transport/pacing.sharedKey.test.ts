/**
 * One API key, many credentials: through n8n-core's real executor against a sandbox that enforces
 * the documented request rates (20 order and 5 query requests a second per key, a 429 and a
 * minute's suspension over them, 418 for a request sent into it). Credentials that name one key
 * with other rates or another n8n Processes Sharing This Key share one pacer per class, held to
 * the strictest rate in force; a 418 stops every execution; a stepped wall clock moves nothing.
 */
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { PATHS } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';
import { busiestSecond, createOrders } from './support';
import { useDocumentedSuspension } from '../../../support/suspension';

jest.setTimeout(120_000);

// The subject is the suspension after a 429: the documented minute, as the product holds it.
useDocumentedSuspension();

// The server clock follows Date.now as a test steps it (as after an NTP correction that both sides
// see), so timestamps stay acceptable and only the node's pacing could be fooled by the step; the
// sandbox's rate windows run on its real clock, which no step moves.
const sandbox = useSandbox({ rateLimit: false, symbolRules: 'lenient', now: () => Date.now() });

const V2 = { typeVersion: 2 };

const create = createOrders;

const lookups = (ids: string[]) => ({
	parameters: {
		resource: 'order',
		operation: 'get',
		symbol: 'BTCUSDT',
		orderId: '={{ $json.id }}',
	},
	inputItems: ids.map((id) => ({ json: { id } })),
	node: V2,
});

describe('credentials of one API key with other rates share its pacing', () => {
	it('Create 40 + 40 (processes 1 and 2) and reads at 5 and 4 a second, all at once: within the rates, 0 × 429, every order placed once', async () => {
		const ids = await placeRestingOrders(sandbox(), 20);
		// The seeding's requests leave the sandbox's window first.
		await new Promise((resolve) => setTimeout(resolve, 1100));
		const since = sandbox().ledger.requests.length;
		const runs = await Promise.all([
			runTradingService(sandbox(), {
				...create(40, '1'),
				credentials: { processesSharingKey: 1 },
				executionId: 'one-process',
			}),
			runTradingService(sandbox(), {
				...create(40, '2'),
				credentials: { processesSharingKey: 2 },
				executionId: 'two-processes',
			}),
			runTradingService(sandbox(), {
				...lookups(ids.slice(0, 10)),
				credentials: { queryRequestsPerSecond: 5 },
				executionId: 'reads-at-5',
			}),
			runTradingService(sandbox(), {
				...lookups(ids.slice(10)),
				credentials: { queryRequestsPerSecond: 4 },
				executionId: 'reads-at-4',
			}),
		]);
		for (const run of runs) expect(run.error).toBeUndefined();
		expect(sandbox().rateLimitStats()).toEqual({ rateLimited: 0, intoSuspension: 0 });
		const sent = sandbox().ledger.requests.slice(since);
		expect(sent.filter((request) => request.status >= 400)).toEqual([]);
		expect(
			busiestSecond(sent.filter((request) => request.rateClass === 'order')),
		).toBeLessThanOrEqual(20);
		expect(
			busiestSecond(sent.filter((request) => request.rateClass === 'query')),
		).toBeLessThanOrEqual(5);
		// Every order placed once: 80 quantities, 80 orders, none twice.
		const quantities = sandbox()
			.ledger.orders.map((order) => order.origQty)
			.filter((quantity) => /^0\.[12]\d{1,3}$/.test(quantity));
		expect(new Set(quantities).size).toBe(80);
		expect(quantities).toHaveLength(80);
		expect(requestsTo(sandbox(), PATHS.unifiedOrder, since)).toHaveLength(80);
		expect([runs[2].items.length, runs[3].items.length]).toEqual([10, 10]);
	});
});

describe('a ban is a ban', () => {
	it('a 418 with Retry-After stops every execution of the process, not only the run that got it', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'ipBan', times: 1, retryAfterSeconds: 120, path: PATHS.unifiedOrder }],
		});
		const banned = await runTradingService(sandbox(), { ...create(1, '3'), executionId: 'banned' });
		expect(banned.error?.message).toMatch(/banned/i);
		const before = sandbox().ledger.requests.length;
		const [other, reads] = await Promise.all([
			runTradingService(sandbox(), { ...create(1, '4'), executionId: 'another' }),
			runTradingService(sandbox(), {
				parameters: { resource: 'account', operation: 'getBalances' },
				node: V2,
				executionId: 'another-read',
			}),
		]);
		expect(other.error?.message).toMatch(/banned/i);
		expect(other.error?.description).toMatch(/Nothing was sent/);
		expect(reads.error?.message).toMatch(/banned/i);
		// Nothing reached the service after the ban.
		expect(sandbox().ledger.requests.length).toBe(before);
	});
});

describe('a 429 suspends for at least the documented minute', () => {
	it('a Retry-After of 1 s is not taken for the end: the next request of the class is held back', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 1, path: PATHS.unifiedOrder }],
		});
		const off = { waitAfterRateLimit: false };
		const first = await runTradingService(sandbox(), {
			...create(1, '5'),
			parameters: { ...create(1, '5').parameters, options: off },
		});
		expect(first.error?.message).toBe('The service’s rate limit was exceeded');
		const until = /until (\S+?)\. /.exec(first.error?.description ?? '')?.[1];
		expect(Date.parse(until ?? '') - Date.now()).toBeGreaterThan(55_000);
		// Waiting would help here, and version 2 has the option: the error says so.
		expect(first.error?.description).toMatch(/turn on the option Wait After a Rate Limit/);
		await new Promise((resolve) => setTimeout(resolve, 1500));
		const before = sandbox().ledger.requests.length;
		const second = await runTradingService(sandbox(), {
			...create(1, '6'),
			parameters: { ...create(1, '6').parameters, options: off },
		});
		expect(second.error?.message).toMatch(/suspended after a rate limit/);
		expect(sandbox().ledger.requests.length).toBe(before);
	});

	it('version 1 (no such option) and a suspension longer than the option waits: no hint to turn it on', async () => {
		sandbox().setFaults({
			// version 1 sends the v1 create endpoint
			rules: [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 3600, path: PATHS.order }],
		});
		const v1 = await runTradingService(sandbox(), { ...create(1, '7'), node: { typeVersion: 1 } });
		expect(v1.error?.message).toBe('The service’s rate limit was exceeded');
		expect(v1.error?.description).not.toMatch(/Wait After a Rate Limit/);
		const v2 = await runTradingService(sandbox(), {
			...create(1, '8'),
			parameters: { ...create(1, '8').parameters, options: { waitAfterRateLimit: false } },
		});
		expect(v2.error?.message).toMatch(/suspended after a rate limit/);
		expect(v2.error?.description).not.toMatch(/Wait After a Rate Limit/);
	});
});

describe('the wall clock stepped while the node paces', () => {
	afterEach(() => jest.restoreAllMocks());

	it('stepped an hour back after a full second of orders: the next orders go within the rate, not an hour later', async () => {
		const first = await runTradingService(sandbox(), { ...create(20, '9') });
		expect(first.error).toBeUndefined();
		const real = Date.now.bind(Date);
		jest.spyOn(Date, 'now').mockImplementation(() => real() - 3_600_000);
		const second = await runTradingService(sandbox(), create(20, '0'));
		expect(second.error).toBeUndefined();
		expect(second.items.map((item) => item.json.outcome)).toEqual(Array(20).fill('placed'));
		expect(sandbox().rateLimitStats()).toEqual({ rateLimited: 0, intoSuspension: 0 });
	});

	it('stepped 61 s ahead during a suspension of 60.5 s: the suspension holds', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 1, path: PATHS.unifiedOrder }],
		});
		const off = { ...create(1, '1').parameters, options: { waitAfterRateLimit: false } };
		const first = await runTradingService(sandbox(), { ...create(1, '1'), parameters: off });
		expect(first.error?.message).toBe('The service’s rate limit was exceeded');
		const real = Date.now.bind(Date);
		jest.spyOn(Date, 'now').mockImplementation(() => real() + 61_000);
		const before = requestsTo(sandbox(), PATHS.unifiedOrder).length;
		const second = await runTradingService(sandbox(), { ...create(1, '2'), parameters: off });
		expect(second.error?.message).toMatch(/suspended after a rate limit/);
		// No order request left (a query may: 61 s on, the symbol rules are read afresh).
		expect(requestsTo(sandbox(), PATHS.unifiedOrder)).toHaveLength(before);
	});
});
