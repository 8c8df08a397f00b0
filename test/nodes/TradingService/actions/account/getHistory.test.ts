import { DAY_MS } from '../../../../../nodes/TradingService/constants';
import { DEMO_ACCOUNTS, DEMO_KEYS, startSandbox, type Sandbox } from '../../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../../tools/harness/node';

const HISTORY = '/api/v1/account/balanceFlow';
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ rateLimit: false });
});
afterAll(async () => sandbox.stop());
beforeEach(() => sandbox.reset());

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
		const seeded = sandbox.addRecords([
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
		const run = await runTradingService(sandbox, { parameters: parameters() });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual([seeded[1], seeded[0]]);
		expect(run.items[1].json.change).toBe('-0.000012340000000001');
		expect(typeof run.items[0].json.created).toBe('string');
		expect(run.items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(true);
		const [request] = requestsTo(sandbox, HISTORY);
		expect(request.query).toMatch(
			/^startTime=\d+&endTime=\d+&limit=50&flowType=32&recvWindow=5000&timestamp=\d+&signature=[0-9a-f]{64}$/,
		);
	});

	it('sends the chosen account type and limit, and pairs records with each input item', async () => {
		const now = Date.now();
		sandbox.addRecords([
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
		const run = await runTradingService(sandbox, {
			parameters: parameters({ flowType: 51, accountType: 5, limit: 7 }),
			inputItems: [{ json: {} }, { json: {} }],
		});
		expect(run.items.map((item) => [item.json.accountId, item.pairedItem])).toEqual([
			[DEMO_ACCOUNTS.custody, { item: 0 }],
			[DEMO_ACCOUNTS.custody, { item: 1 }],
		]);
		expect(requestsTo(sandbox, HISTORY)[0].query).toContain('limit=7&flowType=51&accountType=5&');
	});

	it('adds parsed numbers and an ISO date next to the original strings when asked', async () => {
		const created = Date.UTC(2026, 10, 20, 12, 0, 0, 5);
		sandbox.addRecords([
			{
				accountId: DEMO_ACCOUNTS.mainTrading,
				flowTypeValue: 32,
				change: '-1.5',
				total: '98.5',
				created: String(created),
				symbol: 'BTCUSDT',
			},
		]);
		const run = await runTradingService(sandbox, {
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
		const seeded = sandbox.seedRecords({
			flowType: 32,
			count: 10_500,
			startTime: now - 20 * DAY_MS,
			endTime: now - 1000,
			perMillisecond: 7,
			symbols: ['BTCUSDT', 'ETHUSDT'],
			seed: 42,
		});
		const run = await runTradingService(sandbox, {
			parameters: parameters({
				startTime: new Date(now - 21 * DAY_MS).toISOString(),
				returnAll: true,
			}),
		});
		expect(run.error).toBeUndefined();
		const ids = run.items.map((item) => item.json.id as string);
		expect(new Set(ids).size).toBe(ids.length);
		expect(ids.sort()).toEqual(seeded.map((record) => record.id).sort());
		const requests = requestsTo(sandbox, HISTORY).length;
		expect(requests).toBeGreaterThanOrEqual(Math.ceil(10_500 / 500));
		expect(requests).toBeLessThanOrEqual(Math.ceil(10_500 / 500) + 2);
	});

	it('Return All across a page boundary inside one millisecond loses nothing', async () => {
		const now = Date.now();
		// 499 older records, then 3 in the boundary millisecond: the first page ends inside it.
		const created = now - 5000;
		const boundary = sandbox.addRecords(
			Array.from({ length: 3 }, () => ({
				accountId: DEMO_ACCOUNTS.mainTrading,
				flowTypeValue: 32,
				change: '-1',
				created: String(created),
				symbol: 'BTCUSDT',
			})),
		);
		const newer = sandbox.seedRecords({
			flowType: 32,
			count: 499,
			startTime: created + 1,
			endTime: now - 1,
			seed: 1,
		});
		const older = sandbox.seedRecords({
			flowType: 32,
			count: 20,
			startTime: now - DAY_MS / 2,
			endTime: created - 1,
			seed: 2,
		});
		const run = await runTradingService(sandbox, { parameters: parameters({ returnAll: true }) });
		expect(run.items).toHaveLength(522);
		expect(new Set(run.items.map((item) => item.json.id)).size).toBe(522);
		for (const record of [...boundary, ...newer, ...older])
			expect(run.items.some((item) => item.json.id === record.id)).toBe(true);
		expect(requestsTo(sandbox, HISTORY)).toHaveLength(2);
	});

	it('Return All stops with a clear error when more than 500 records share one millisecond', async () => {
		const created = Date.now() - 5000;
		sandbox.addRecords(
			Array.from({ length: 501 }, () => ({
				accountId: DEMO_ACCOUNTS.mainTrading,
				flowTypeValue: 32,
				change: '-1',
				created: String(created),
				symbol: 'BTCUSDT',
			})),
		);
		const run = await runTradingService(sandbox, { parameters: parameters({ returnAll: true }) });
		expect(run.error?.message).toBe(
			`More than 500 records share the millisecond ${created} (${new Date(created).toISOString()}); the service cannot page past them by time`,
		);
		expect(requestsTo(sandbox, HISTORY)).toHaveLength(2);
	});

	it('reads are retried on 5xx and dropped connections, each attempt signed afresh', async () => {
		sandbox.addRecords([
			{
				accountId: DEMO_ACCOUNTS.mainTrading,
				flowTypeValue: 32,
				change: '-1',
				created: String(Date.now() - 1000),
				symbol: 'BTCUSDT',
			},
		]);
		sandbox.setFaults({
			rules: [
				{ kind: 'http503', times: 1 },
				{ kind: 'dropBefore', times: 1 },
				{ kind: 'dropAfter', times: 1 },
			],
		});
		const run = await runTradingService(sandbox, { parameters: parameters() });
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(1);
		const requests = requestsTo(sandbox, HISTORY);
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
		const run = await runTradingService(sandbox, {
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
			const run = await runTradingService(sandbox, {
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
			expect(sandbox.ledger.requests).toHaveLength(0);
		});

		it('clamps the start to the retention window when asked', async () => {
			const before = Date.now();
			const run = await runTradingService(sandbox, {
				parameters: parameters({
					flowType: 1,
					startTime: new Date(before - 60 * DAY_MS).toISOString(),
					options: { clampToRetention: true },
				}),
			});
			expect(run.error).toBeUndefined();
			const startTime = Number(/startTime=(\d+)/.exec(requestsTo(sandbox, HISTORY)[0].query)?.[1]);
			expect(startTime).toBeGreaterThanOrEqual(before - 7 * DAY_MS);
			expect(startTime).toBeLessThanOrEqual(Date.now() - 7 * DAY_MS);
		});

		it('accepts "exactly 30 days ago" computed a moment earlier', async () => {
			const run = await runTradingService(sandbox, {
				parameters: parameters({
					startTime: new Date(Date.now() - 30 * DAY_MS - 1000).toISOString(),
				}),
			});
			expect(run.error).toBeUndefined();
		});

		it('start after end', async () => {
			const now = Date.now();
			const run = await runTradingService(sandbox, {
				parameters: parameters({
					startTime: new Date(now + 1).toISOString(),
					endTime: new Date(now).toISOString(),
				}),
			});
			expect(run.error?.message).toMatch(/^Start: Start \(.*\) is after End/);
			expect(sandbox.ledger.requests).toHaveLength(0);
		});

		it('start equal to end reads that one millisecond (both bounds inclusive)', async () => {
			const created = Date.now() - 5000;
			const [record] = sandbox.addRecords([
				{
					accountId: DEMO_ACCOUNTS.mainTrading,
					flowTypeValue: 32,
					change: '-1',
					created: String(created),
					symbol: 'BTCUSDT',
				},
			]);
			sandbox.addRecords([
				{
					accountId: DEMO_ACCOUNTS.mainTrading,
					flowTypeValue: 32,
					change: '-1',
					created: String(created + 1),
					symbol: 'BTCUSDT',
				},
			]);
			const run = await runTradingService(sandbox, {
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
			const run = await runTradingService(sandbox, { parameters: parameters({ [field]: value }) });
			expect(run.error?.message.startsWith(`${label}: `)).toBe(true);
			expect(sandbox.ledger.requests).toHaveLength(0);
		});

		it('with continue on fail, each bad item becomes an error item paired to it, good items still run', async () => {
			const run = await runTradingService(sandbox, {
				parameters: parameters({ limit: '={{ $json.limit }}' }),
				inputItems: [{ json: { limit: 900 } }, { json: { limit: 5 } }],
				continueOnFail: true,
			});
			expect(run.error).toBeUndefined();
			expect(run.items[0]).toMatchObject({
				json: { error: expect.stringMatching(/^Limit: /) },
				pairedItem: { item: 0 },
			});
			expect(requestsTo(sandbox, HISTORY)).toHaveLength(1);
		});
	});
});
