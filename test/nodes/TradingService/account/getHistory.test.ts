import { DAY_MS } from '../../../../nodes/TradingService/constants';
import { DEMO_ACCOUNTS, DEMO_KEYS } from '../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { HOUR, errorOf, runCounting } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

const HISTORY = '/api/v1/account/balanceFlow';
const sandbox = useSandbox({ rateLimit: false, requestRates: false });

function parameters(overrides: Record<string, unknown> = {}) {
	const now = Date.now();
	return {
		resource: 'account',
		operation: 'getHistory',
		flowType: 32,
		startTime: new Date(now - DAY_MS).toISOString(),
		endTime: new Date(now).toISOString(),
		...overrides,
	};
}

describe('Account > Get Transaction History', () => {
	it('emits one item per record with the fields exactly as the service returned them', async () => {
		const now = Date.now();
		const seeded = sandbox().addRecords([
			{
				accountId: DEMO_ACCOUNTS.mainTrading,
				flowTypeValue: 32,
				change: '-0.000012340000000001',
				created: String(now - 60_000),
				symbol: 'BTCUSDT',
			},
			{
				accountId: DEMO_ACCOUNTS.mainTrading,
				flowTypeValue: 32,
				change: '1.10',
				created: String(now - 30_000),
				symbol: 'ETHUSDT',
			},
		]);
		const run = await runTradingService(sandbox(), { parameters: parameters() });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual([seeded[1], seeded[0]]);
		expect(run.items[1].json.change).toBe('-0.000012340000000001');
		expect(typeof run.items[0].json.created).toBe('string');
		expect(run.items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(true);
		const [request] = requestsTo(sandbox(), HISTORY);
		expect(request.query).toMatch(
			/^startTime=\d+&endTime=\d+&limit=50&flowType=32&recvWindow=5000&timestamp=\d+&signature=[0-9a-f]{64}$/,
		);
	});

	it('sends the chosen account type and limit, and pairs records with each input item', async () => {
		const now = Date.now();
		sandbox().addRecords([
			{
				accountId: DEMO_ACCOUNTS.custody,
				flowTypeValue: 51,
				change: '5',
				created: String(now - 1000),
			},
			{
				accountId: DEMO_ACCOUNTS.mainTrading,
				flowTypeValue: 51,
				change: '-5',
				created: String(now - 1000),
			},
		]);
		const run = await runTradingService(sandbox(), {
			parameters: parameters({ flowType: 51, accountType: 5, limit: 7 }),
			inputItems: [{ json: {} }, { json: {} }],
		});
		expect(run.items.map((item) => [item.json.accountId, item.pairedItem])).toEqual([
			[DEMO_ACCOUNTS.custody, { item: 0 }],
			[DEMO_ACCOUNTS.custody, { item: 1 }],
		]);
		expect(requestsTo(sandbox(), HISTORY)[0].query).toContain('limit=7&flowType=51&accountType=5&');
	});

	it('adds parsed numbers and an ISO date next to the original strings when asked', async () => {
		const created = Date.UTC(2026, 10, 20, 12, 0, 0, 5);
		sandbox().addRecords([
			{
				accountId: DEMO_ACCOUNTS.mainTrading,
				flowTypeValue: 32,
				change: '-1.5',
				total: '98.5',
				created: String(created),
				symbol: 'BTCUSDT',
			},
		]);
		const run = await runTradingService(sandbox(), {
			parameters: parameters({
				startTime: new Date(created - 1000).toISOString(),
				endTime: new Date(created + 1000).toISOString(),
				options: { addParsedFields: true },
			}),
		});
		expect(run.items[0].json).toMatchObject({
			change: '-1.5',
			total: '98.5',
			created: String(created),
			changeNumber: -1.5,
			totalNumber: 98.5,
			createdIso: '2026-11-20T12:00:00.005Z',
		});
	});

	it('Return All walks 10,000+ records sharing milliseconds: every id exactly once, ≈ records/500 + 1 requests', async () => {
		const now = Date.now();
		const seeded = sandbox().seedRecords({
			flowType: 32,
			count: 10_500,
			startTime: now - 20 * DAY_MS,
			endTime: now - 1000,
			perMillisecond: 7,
			symbols: ['BTCUSDT', 'ETHUSDT'],
			seed: 42,
		});
		const run = await runTradingService(sandbox(), {
			parameters: parameters({
				startTime: new Date(now - 21 * DAY_MS).toISOString(),
				returnAll: true,
			}),
		});
		expect(run.error).toBeUndefined();
		const ids = run.items.map((item) => item.json.id as string);
		expect(new Set(ids).size).toBe(ids.length);
		expect(ids.sort()).toEqual(seeded.map((record) => record.id).sort());
		const requests = requestsTo(sandbox(), HISTORY).length;
		expect(requests).toBeGreaterThanOrEqual(Math.ceil(10_500 / 500));
		expect(requests).toBeLessThanOrEqual(Math.ceil(10_500 / 500) + 2);
	});

	it('Return All across a page boundary inside one millisecond loses nothing', async () => {
		const now = Date.now();
		// 499 older records, then 3 in the boundary millisecond: the first page ends inside it.
		const created = now - 5000;
		const boundary = sandbox().addRecords(
			Array.from({ length: 3 }, () => ({
				accountId: DEMO_ACCOUNTS.mainTrading,
				flowTypeValue: 32,
				change: '-1',
				created: String(created),
				symbol: 'BTCUSDT',
			})),
		);
		const newer = sandbox().seedRecords({
			flowType: 32,
			count: 499,
			startTime: created + 1,
			endTime: now - 1,
			seed: 1,
		});
		const older = sandbox().seedRecords({
			flowType: 32,
			count: 20,
			startTime: now - DAY_MS / 2,
			endTime: created - 1,
			seed: 2,
		});
		const run = await runTradingService(sandbox(), { parameters: parameters({ returnAll: true }) });
		expect(run.items).toHaveLength(522);
		expect(new Set(run.items.map((item) => item.json.id)).size).toBe(522);
		for (const record of [...boundary, ...newer, ...older])
			expect(run.items.some((item) => item.json.id === record.id)).toBe(true);
		expect(requestsTo(sandbox(), HISTORY)).toHaveLength(2);
	});

	it('Return All stops with a clear error when more than 500 records share one millisecond', async () => {
		const created = Date.now() - 5000;
		sandbox().addRecords(
			Array.from({ length: 501 }, () => ({
				accountId: DEMO_ACCOUNTS.mainTrading,
				flowTypeValue: 32,
				change: '-1',
				created: String(created),
				symbol: 'BTCUSDT',
			})),
		);
		const run = await runTradingService(sandbox(), { parameters: parameters({ returnAll: true }) });
		expect(run.error?.message).toBe(
			`More than 500 records share the millisecond ${created} (${new Date(created).toISOString()}); the service cannot page past them by time`,
		);
		// A full page of one millisecond says so at once: no second request.
		expect(requestsTo(sandbox(), HISTORY)).toHaveLength(1);
	});

	it('reads are retried on 5xx and dropped connections, each attempt signed afresh', async () => {
		sandbox().addRecords([
			{
				accountId: DEMO_ACCOUNTS.mainTrading,
				flowTypeValue: 32,
				change: '-1',
				created: String(Date.now() - 1000),
				symbol: 'BTCUSDT',
			},
		]);
		sandbox().setFaults({
			rules: [
				{ kind: 'http503', times: 1 },
				{ kind: 'dropBefore', times: 1 },
				{ kind: 'dropAfter', times: 1 },
			],
		});
		const run = await runTradingService(sandbox(), { parameters: parameters() });
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(1);
		const requests = requestsTo(sandbox(), HISTORY);
		expect(requests.map((request) => request.fault ?? request.status)).toEqual([
			'http503',
			'dropBefore',
			'dropAfter',
			200,
		]);
		const signatures = requests.map((request) => /signature=([0-9a-f]+)/.exec(request.query)?.[1]);
		expect(new Set(signatures).size).toBe(4);
	});

	it('a sub-account key asking for custody records gets the permission advice', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: parameters({ flowType: 51, accountType: 5 }),
			key: DEMO_KEYS.sub,
		});
		expect(run.error?.message).toBe('The API key is not allowed to do this');
		expect(run.error?.description).toContain('master-account key');
	});

	describe('checks the range before any request', () => {
		it.each([
			['Trade', 1, 8],
			['Fee', 2, 8],
			['Funding Fee', 32, 31],
			['Custody Deposit', 900, 31],
		])('%s records older than the retention window', async (name, flowType, days) => {
			const run = await runTradingService(sandbox(), {
				parameters: parameters({
					flowType,
					startTime: new Date(Date.now() - days * DAY_MS).toISOString(),
				}),
			});
			expect(run.error?.message).toMatch(
				new RegExp(
					`^Start: .* is older than the service keeps ${name} records \\(${days - 1} days`,
				),
			);
			expect(run.error?.description).toContain('Clamp Start to Retention Window');
			expect(sandbox().ledger.requests).toHaveLength(0);
		});

		it('clamps the start to the retention window when asked', async () => {
			const before = Date.now();
			const run = await runTradingService(sandbox(), {
				parameters: parameters({
					flowType: 1,
					startTime: new Date(before - 60 * DAY_MS).toISOString(),
					options: { clampToRetention: true },
				}),
			});
			expect(run.error).toBeUndefined();
			const startTime = Number(
				/startTime=(\d+)/.exec(requestsTo(sandbox(), HISTORY)[0].query)?.[1],
			);
			expect(startTime).toBeGreaterThanOrEqual(before - 7 * DAY_MS);
			expect(startTime).toBeLessThanOrEqual(Date.now() - 7 * DAY_MS);
		});

		it('accepts "exactly 30 days ago" computed a moment earlier', async () => {
			const run = await runTradingService(sandbox(), {
				parameters: parameters({
					startTime: new Date(Date.now() - 30 * DAY_MS - 1000).toISOString(),
				}),
			});
			expect(run.error).toBeUndefined();
		});

		it('start after end', async () => {
			const now = Date.now();
			const run = await runTradingService(sandbox(), {
				parameters: parameters({
					startTime: new Date(now + 1).toISOString(),
					endTime: new Date(now).toISOString(),
				}),
			});
			expect(run.error?.message).toMatch(/^Start: Start \(.*\) is after End/);
			expect(sandbox().ledger.requests).toHaveLength(0);
		});

		it('start equal to end reads that one millisecond (both bounds inclusive)', async () => {
			const created = Date.now() - 5000;
			const [record] = sandbox().addRecords([
				{
					accountId: DEMO_ACCOUNTS.mainTrading,
					flowTypeValue: 32,
					change: '-1',
					created: String(created),
					symbol: 'BTCUSDT',
				},
			]);
			sandbox().addRecords([
				{
					accountId: DEMO_ACCOUNTS.mainTrading,
					flowTypeValue: 32,
					change: '-1',
					created: String(created + 1),
					symbol: 'BTCUSDT',
				},
			]);
			const run = await runTradingService(sandbox(), {
				parameters: parameters({ startTime: created, endTime: created }),
			});
			expect(run.items.map((item) => item.json.id)).toEqual([record.id]);
		});

		it.each([
			['startTime', 'yesterday-ish', 'Start'],
			['endTime', '', 'End'],
			['limit', 501, 'Limit'],
			['limit', 0, 'Limit'],
			['limit', 2.5, 'Limit'],
		])('a bad %s (%p) names the field %s', async (field, value, label) => {
			const run = await runTradingService(sandbox(), {
				parameters: parameters({ [field]: value }),
			});
			expect(run.error?.message.startsWith(`${label}: `)).toBe(true);
			expect(sandbox().ledger.requests).toHaveLength(0);
		});

		it('with continue on fail, each bad item becomes an error item paired to it, good items still run', async () => {
			const run = await runTradingService(sandbox(), {
				parameters: parameters({ limit: '={{ $json.limit }}' }),
				inputItems: [{ json: { limit: 900 } }, { json: { limit: 5 } }],
				continueOnFail: true,
			});
			expect(run.error).toBeUndefined();
			expect(run.items[0]).toMatchObject({
				json: { error: expect.stringMatching(/^Limit: /) },
				pairedItem: { item: 0 },
			});
			expect(requestsTo(sandbox(), HISTORY)).toHaveLength(1);
		});
	});
});

describe('Account Type is checked before anything is sent', () => {
	// The service takes only the account types it knows for a flow type and refuses any other with
	// code 0001, a message that names no field. The node refuses it first, naming Account Type.
	it.each([2, 4, 7, 99, -1, 'x', 1.5])(
		'accountType %p: an error naming Account Type, 0 requests',
		async (accountType) => {
			const now = Date.now();
			const run = await runCounting(sandbox(), {
				parameters: parameters({
					flowType: 51,
					accountType: '={{ $json.accountType }}',
					startTime: new Date(now - HOUR).toISOString(),
					endTime: new Date(now).toISOString(),
					limit: 10,
				}),
				inputItems: [{ json: { accountType } }],
				continueOnFail: true,
			});
			expect(run.requests).toEqual([]);
			expect(errorOf(run.items[0])).toMatch(/^Account Type: /);
		},
	);
});

describe('Start and End refuse strings that are not dates', () => {
	// Date.parse in V8 turns many strings that are not ISO dates into dates: "-1" is 2001-01-01,
	// "March 7" 2001-03-07, "2026-02-30T00:00:00Z" 2026-03-02. Read that leniently, the error would
	// blame the other field ("Start: … must be before End (2001-01-01…)") or the node would read a
	// date the user never entered; so such a value is refused as not a date, naming its own field.
	it.each([
		['endTime', '-1', 'End'],
		['startTime', '2026-02-30T00:00:00Z', 'Start'],
		['endTime', 'March 7', 'End'],
	])('%s = %p: an error naming %s, 0 requests', async (field, value, label) => {
		const now = Date.now();
		const run = await runCounting(sandbox(), {
			parameters: parameters({
				flowType: 32,
				startTime: new Date(now - HOUR).toISOString(),
				endTime: new Date(now).toISOString(),
				[field]: value,
				limit: 10,
			}),
			continueOnFail: true,
		});
		expect(run.requests).toEqual([]);
		expect(errorOf(run.items[0])).toMatch(new RegExp(`^${label}: .*not a date`));
	});
});

describe('Return All of more than ~125,000 records', () => {
	// The records read are added to the output one by one, never spread into the arguments of one
	// call: V8 (Node 20) takes about 125,000 of those, and a Return All of 160,000 records, read
	// without a problem, would then fail with "Maximum call stack size exceeded" and return nothing.
	it('Return All of 160,000 records returns them all', async () => {
		const end = Date.now() - 60_000;
		sandbox().seedRecords({
			flowType: 32,
			count: 160_000,
			startTime: end - 29 * 24 * HOUR,
			endTime: end,
			seed: 9,
		});
		const run = await runTradingService(sandbox(), {
			parameters: parameters({
				flowType: 32,
				returnAll: true,
				startTime: new Date(end - 29 * 24 * HOUR - 1000).toISOString(),
				endTime: new Date(end + 1000).toISOString(),
			}),
		});
		expect(run.error?.message).toBeUndefined();
		expect(run.items).toHaveLength(160_000);
	}, 60_000);
});

describe('history pages are bounded and in one order', () => {
	// The paging walks the range on the service's promises: at most `limit` records a page, each
	// page newest first or oldest first. A page that breaks them could make the walk skip or repeat
	// records, so the read fails with an error that says so, rather than return a list that may be
	// wrong.
	const recent = (overrides: Record<string, unknown>) =>
		parameters({
			startTime: new Date(Date.now() - 2 * HOUR).toISOString(),
			endTime: new Date(Date.now() + 60_000).toISOString(),
			limit: 10,
			...overrides,
		});

	it('a page longer than the requested limit is refused', async () => {
		const end = Date.now() - 60_000;
		sandbox().seedRecords({
			flowType: 32,
			count: 50,
			startTime: end - HOUR,
			endTime: end,
			seed: 3,
		});
		sandbox().setFaults({ rules: [{ kind: 'historyOversize', times: 1, path: HISTORY }] });
		const run = await runTradingService(sandbox(), { parameters: recent({ limit: 10 }) });
		expect(run.items).toEqual([]);
		expect(run.error?.message).toMatch(/more records than/);
	});

	it('Return All: a page in no order fails the node', async () => {
		const end = Date.now() - 60_000;
		sandbox().seedRecords({
			flowType: 32,
			count: 1200,
			startTime: end - HOUR,
			endTime: end,
			seed: 4,
		});
		sandbox().setFaults({ rules: [{ kind: 'historyUnordered', times: 1, path: HISTORY }] });
		const run = await runTradingService(sandbox(), { parameters: recent({ returnAll: true }) });
		expect(run.items).toEqual([]);
		expect(run.error?.message).toMatch(/in no order/);
	});
});
