import { DAY_MS } from '../../../nodes/TradingService/constants';
import { MAX_REMEMBERED_IDS, trimSeen } from '../../../nodes/TradingService/trigger/pollState';
import { runWorkflow } from '../../../tools/harness/workflow';
import { DEMO_ACCOUNTS, type HistoryRecord } from '../../../sandbox';
import {
	FlakyCredentialsHelper,
	HISTORY_PATH,
	triggerCredentialTypes,
	triggerCredentials,
	ids,
	triggerNodeTypes,
	pollCounting,
	queryParam,
	triggerNode,
	triggerRunner,
} from '../../support/trigger';
import { useSandbox } from '../../support/sandbox';

const MINUTE = 60_000;
const CONTRACT = DEMO_ACCOUNTS.mainContract;

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

/** Funding fee records (flowType 32) on the contract account, `ago` ms before now each. */
function fundingFees(...agoMs: number[]): HistoryRecord[] {
	const now = sandbox().now();
	return sandbox().addRecords(
		agoMs.map((ago, index) => ({
			accountId: CONTRACT,
			flowTypeValue: 32,
			change: `-0.${index + 1}`,
			created: String(now - ago),
		})),
	);
}

function fundingFeesAt(created: number, count: number): HistoryRecord[] {
	return sandbox().addRecords(
		Array.from({ length: count }, (_, index) => ({
			accountId: CONTRACT,
			flowTypeValue: 32,
			change: `-0.0${index + 1}`,
			created: String(created),
		})),
	);
}

const sortedIds = (records: HistoryRecord[]) =>
	[...records]
		.sort(
			(a, b) =>
				Number(a.created) - Number(b.created) ||
				a.id.length - b.id.length ||
				(a.id < b.id ? -1 : 1),
		)
		.map((record) => record.id);

describe('first activation', () => {
	it('emits nothing, sets the watermark to the newest record, and sends one request', async () => {
		const existing = fundingFees(3 * DAY_MS, 5 * MINUTE, 2 * MINUTE);
		const runner = triggerRunner(sandbox());

		const first = await pollCounting(sandbox(), runner);
		expect(first.error).toBeUndefined();
		expect(first.emitted).toBeNull();
		expect(first.committed).toBe(true);
		expect(first.requests).toHaveLength(1);
		const state = runner.nodeStaticData();
		expect(state.watermark).toBe(Number(existing[2].created));
		expect(state.seen).toEqual({
			[existing[1].created]: [existing[1].id],
			[existing[2].created]: [existing[2].id],
		});

		const second = await pollCounting(sandbox(), runner);
		expect(second.emitted).toBeNull();
		expect(second.requests).toHaveLength(1);
	});

	it('with more than 500 existing records, still emits nothing and the next idle poll is one request', async () => {
		const now = sandbox().now();
		sandbox().seedRecords({
			flowType: 32,
			count: 1200,
			startTime: now - 5 * MINUTE,
			endTime: now - 1000,
			perMillisecond: 3,
		});
		const runner = triggerRunner(sandbox());
		const first = await pollCounting(sandbox(), runner);
		expect(first.emitted).toBeNull();
		expect(first.requests).toHaveLength(1);

		const idle = await pollCounting(sandbox(), runner);
		expect(idle.emitted).toBeNull();
		expect(idle.requests).toHaveLength(1);
		const [fee] = fundingFees(500);
		expect(ids(await runner.poll())).toEqual([fee.id]);
	});

	it('with no records yet, emits nothing and then the first record that appears', async () => {
		const runner = triggerRunner(sandbox());
		expect((await runner.poll()).emitted).toBeNull();
		expect(runner.nodeStaticData().watermark).toBeNull();

		const [fee] = fundingFees(1000);
		const next = await runner.poll();
		expect(ids(next)).toEqual([fee.id]);
		expect(runner.nodeStaticData().watermark).toBe(Number(fee.created));
	});

	it('starts over, emitting nothing, when Event or Account Type changes', async () => {
		fundingFees(MINUTE);
		const funding = triggerRunner(sandbox());
		await funding.poll();
		sandbox().addRecords([
			{
				accountId: DEMO_ACCOUNTS.custody,
				flowTypeValue: 51,
				change: '3',
				created: String(sandbox().now() - 1000),
			},
		]);

		const transfers = triggerRunner(sandbox(), {
			parameters: { event: 51 },
			staticData: funding.savedStaticData(),
		});
		expect((await transfers.poll()).emitted).toBeNull();
		expect(transfers.nodeStaticData().query).toBe('flowType=51;accountType=any');

		const custodyOnly = triggerRunner(sandbox(), {
			parameters: { event: 51, accountType: 5 },
			staticData: transfers.savedStaticData(),
		});
		const baseline = await pollCounting(sandbox(), custodyOnly);
		expect(baseline.emitted).toBeNull();
		expect(queryParam(baseline.requests[0], 'accountType')).toBe('5');
	});
});

describe('new records between polls', () => {
	it('emits each new record once, oldest first; an idle poll is one request, returns null and changes nothing', async () => {
		fundingFees(10 * MINUTE);
		const runner = triggerRunner(sandbox());
		await runner.poll();

		const added = fundingFees(30_000, 50_000, 10_000);
		const poll = await pollCounting(sandbox(), runner);
		expect(poll.error).toBeUndefined();
		expect(ids(poll)).toEqual([added[1].id, added[0].id, added[2].id]);
		expect(poll.items[0].json).toEqual(added[1]);
		expect(poll.requests).toHaveLength(1);

		expect(runner.staticDataChanged()).toBe(true);
		runner.markSaved();
		const before = runner.nodeStaticData();
		const idle = await pollCounting(sandbox(), runner);
		expect(idle.emitted).toBeNull();
		expect(idle.error).toBeUndefined();
		expect(idle.requests).toHaveLength(1);
		expect(idle.requests[0].path).toBe(HISTORY_PATH);
		expect(runner.nodeStaticData()).toEqual(before);
		expect(runner.staticDataChanged()).toBe(false);
	});

	it('emits records that share a millisecond exactly once, also when more arrive at the watermark millisecond later', async () => {
		const at = sandbox().now() - 5000;
		const firstTwo = fundingFeesAt(at, 2);
		const runner = triggerRunner(sandbox());
		await runner.poll();
		expect(runner.nodeStaticData().seen).toEqual({
			[String(at)]: expect.arrayContaining(firstTwo.map((record) => record.id)),
		});

		const threeMore = fundingFeesAt(at, 3);
		const poll1 = await runner.poll();
		expect(ids(poll1)).toEqual(threeMore.map((record) => record.id));

		const oneMore = fundingFeesAt(at, 1);
		const next = fundingFeesAt(at + 1, 4);
		const poll2 = await runner.poll();
		expect(ids(poll2)).toEqual([...oneMore, ...next].map((record) => record.id));

		expect((await runner.poll()).emitted).toBeNull();
	});

	it('emits a record listed late, inside the late records window, once; a record later than the window is not emitted', async () => {
		fundingFees(MINUTE);
		const runner = triggerRunner(sandbox());
		await runner.poll();
		const watermark = runner.nodeStaticData().watermark as number;

		const [late] = sandbox().addRecords([
			{
				accountId: CONTRACT,
				flowTypeValue: 32,
				change: '-7',
				created: String(watermark - 4 * MINUTE),
			},
		]);
		const poll1 = await pollCounting(sandbox(), runner);
		expect(ids(poll1)).toEqual([late.id]);
		expect(poll1.requests).toHaveLength(1);
		expect((await runner.poll()).emitted).toBeNull();

		sandbox().addRecords([
			{
				accountId: CONTRACT,
				flowTypeValue: 32,
				change: '-8',
				created: String(watermark - 30 * MINUTE),
			},
		]);
		expect((await runner.poll()).emitted).toBeNull();
	});

	it('with a late records window of 0 minutes, only records at or after the watermark count', async () => {
		fundingFees(MINUTE);
		const runner = triggerRunner(sandbox(), { parameters: { options: { lateWindowMinutes: 0 } } });
		await runner.poll();
		const watermark = runner.nodeStaticData().watermark as number;
		sandbox().addRecords([
			{ accountId: CONTRACT, flowTypeValue: 32, change: '-1', created: String(watermark - 1) },
		]);
		const [atWatermark] = fundingFeesAt(watermark, 1);
		const poll = await pollCounting(sandbox(), runner);
		expect(ids(poll)).toEqual([atWatermark.id]);
		expect(queryParam(poll.requests[0], 'startTime')).toBe(String(watermark));
	});

	it('reads a burst of more than 500 records page by page and emits each exactly once, oldest first', async () => {
		fundingFees(10 * MINUTE);
		const runner = triggerRunner(sandbox());
		await runner.poll();

		const now = sandbox().now();
		// 3 records per millisecond, so page boundaries (500) fall inside a millisecond.
		const burst = sandbox().seedRecords({
			flowType: 32,
			count: 1234,
			startTime: now - 60_000,
			endTime: now - 1000,
			perMillisecond: 3,
		});
		const poll = await pollCounting(sandbox(), runner);
		expect(poll.error).toBeUndefined();
		expect(poll.items).toHaveLength(1234);
		expect(ids(poll)).toEqual(sortedIds(burst));
		expect(poll.requests).toHaveLength(3);

		const state = runner.nodeStaticData();
		const remembered = Object.values(state.seen as Record<string, string[]>).flat();
		expect(remembered.length).toBeLessThanOrEqual(MAX_REMEMBERED_IDS);
		expect(state.watermark).toBe(now - 1000);

		// While the burst is inside the late records window, an idle poll re-reads it (at most the
		// remembered ids, a page per 500) to catch records listed late among it.
		const idle = await pollCounting(sandbox(), runner);
		expect(idle.emitted).toBeNull();
		// Pages overlap by the records sharing their boundary millisecond: one more page at most.
		expect(idle.requests.length).toBeGreaterThanOrEqual(Math.floor(remembered.length / 500) + 1);
		expect(idle.requests.length).toBeLessThanOrEqual(Math.floor(remembered.length / 500) + 2);

		const [after] = fundingFees(500);
		expect(ids(await runner.poll())).toEqual([after.id]);
	});

	it('keeps working after a burst of thousands of records within a few seconds', async () => {
		const runner = triggerRunner(sandbox());
		await runner.poll();
		const now = sandbox().now();
		const burst = sandbox().seedRecords({
			flowType: 32,
			count: 4321,
			startTime: now - 3000,
			endTime: now - 100,
			perMillisecond: 2,
		});
		const poll = await runner.poll();
		expect(new Set(ids(poll)).size).toBe(4321);
		expect(ids(poll)).toEqual(sortedIds(burst));
		const idle = await pollCounting(sandbox(), runner);
		expect(idle.emitted).toBeNull();
		const remembered = Object.values(
			runner.nodeStaticData().seen as Record<string, string[]>,
		).flat();
		// Pages overlap by the records sharing their boundary millisecond: one more page at most.
		expect(idle.requests.length).toBeGreaterThanOrEqual(Math.floor(remembered.length / 500) + 1);
		expect(idle.requests.length).toBeLessThanOrEqual(Math.floor(remembered.length / 500) + 2);
		// Listed late inside the window: caught.
		const [late, newer] = sandbox().addRecords([
			{ accountId: CONTRACT, flowTypeValue: 32, change: '-1', created: String(now - 200) },
			{ accountId: CONTRACT, flowTypeValue: 32, change: '-2', created: String(now - 50) },
		]);
		expect(ids(await runner.poll())).toEqual([late.id, newer.id]);
	});

	it('takes the 500 records the service returns of a millisecond holding more, and goes on instead of failing every poll', async () => {
		fundingFees(MINUTE);
		const runner = triggerRunner(sandbox());
		await runner.poll();
		const at = sandbox().now() - 2000;
		const crowded = fundingFeesAt(at, 600);
		const [older] = fundingFees(10_000);

		const poll = await runner.poll();
		expect(poll.error).toBeUndefined();
		// The service lists a millisecond newest id first and never past 500 of them.
		const reachable = crowded.slice(100).map((record) => record.id);
		expect(ids(poll)).toEqual([older.id, ...reachable]);

		const idle = await runner.poll();
		expect(idle.error).toBeUndefined();
		expect(idle.emitted).toBeNull();
		const [next] = fundingFees(500);
		expect(ids(await runner.poll())).toEqual([next.id]);
	});

	it('picks up after a restart from the state n8n saved (JSON)', async () => {
		fundingFees(MINUTE);
		const before = triggerRunner(sandbox());
		await before.poll();
		const [first] = fundingFees(20_000);
		expect(ids(await before.poll())).toEqual([first.id]);

		const after = triggerRunner(sandbox(), { staticData: before.savedStaticData() });
		expect((await after.poll()).emitted).toBeNull();
		const [second] = fundingFees(5000);
		expect(ids(await after.poll())).toEqual([second.id]);
	});
});

describe('failed polls', () => {
	it('a rejected request throws, leaves the state untouched, and the next poll emits what was missed', async () => {
		fundingFees(MINUTE);
		const helper = new FlakyCredentialsHelper(sandbox());
		const runner = triggerRunner(sandbox(), { credentialsHelper: helper });
		await runner.poll();
		const added = fundingFees(30_000, 20_000);
		const before = runner.nodeStaticData();

		helper.breakRequest(1);
		const failed = await pollCounting(sandbox(), runner);
		expect(failed.error?.message).toBe('The service rejected the request signature');
		expect(failed.emitted).toBeNull();
		expect(failed.committed).toBe(false);
		expect(failed.requests.map((request) => request.code)).toEqual(['0002']);
		expect(runner.nodeStaticData()).toEqual(before);

		const next = await runner.poll();
		expect(next.error).toBeUndefined();
		expect(ids(next)).toEqual(added.map((record) => record.id));
	});

	it('a failure on a later page of a catch-up keeps nothing of the pages before it', async () => {
		const helper = new FlakyCredentialsHelper(sandbox());
		const runner = triggerRunner(sandbox(), { credentialsHelper: helper });
		await runner.poll();
		const now = sandbox().now();
		const burst = sandbox().seedRecords({
			flowType: 32,
			count: 1200,
			startTime: now - 20_000,
			endTime: now - 1000,
		});
		const before = runner.nodeStaticData();

		helper.breakRequest(2);
		const failed = await pollCounting(sandbox(), runner);
		expect(failed.error).toBeDefined();
		expect(failed.requests.map((request) => request.status)).toEqual([200, 400]);
		expect(runner.nodeStaticData()).toEqual(before);

		const next = await runner.poll();
		expect(ids(next)).toEqual(sortedIds(burst));
		expect((await runner.poll()).emitted).toBeNull();
	});

	it('a service that keeps failing (HTTP 500) does not advance the watermark; the next poll catches up', async () => {
		fundingFees(MINUTE);
		const runner = triggerRunner(sandbox());
		await runner.poll();
		const added = fundingFees(10_000);
		const before = runner.nodeStaticData();

		sandbox().setFaults({ rules: [{ kind: 'http500', times: 6, path: HISTORY_PATH }] });
		const failed = await pollCounting(sandbox(), runner);
		expect(failed.error?.message).toMatch(/kept failing/);
		expect(failed.requests).toHaveLength(6);
		expect(runner.nodeStaticData()).toEqual(before);

		expect(ids(await runner.poll())).toEqual([added[0].id]);
	});
});

describe('filters', () => {
	function transfer(created: number, legs: Array<[string, string]>): HistoryRecord[] {
		return sandbox().addRecords(
			legs.map(([accountId, change]) => ({
				accountId,
				flowTypeValue: 51,
				change,
				created: String(created),
			})),
		);
	}

	it('Direction picks credits (incoming), debits (outgoing) or both on transfers', async () => {
		const runners = {
			both: triggerRunner(sandbox(), { parameters: { event: 51 } }),
			incoming: triggerRunner(sandbox(), { parameters: { event: 51, direction: 'incoming' } }),
			outgoing: triggerRunner(sandbox(), { parameters: { event: 51, direction: 'outgoing' } }),
		};
		for (const runner of Object.values(runners)) await runner.poll();

		const now = sandbox().now();
		const first = transfer(now - 3000, [
			[DEMO_ACCOUNTS.mainTrading, '-5'],
			[DEMO_ACCOUNTS.custody, '5'],
		]);
		const second = transfer(now - 2000, [
			[DEMO_ACCOUNTS.custody, '-0.5'],
			[DEMO_ACCOUNTS.subTrading, '0.5'],
		]);

		expect(ids(await runners.incoming.poll())).toEqual([first[1].id, second[1].id]);
		expect(ids(await runners.outgoing.poll())).toEqual([first[0].id, second[0].id]);
		expect(ids(await runners.both.poll()).sort()).toEqual(
			[...first, ...second].map((record) => record.id).sort(),
		);
	});

	it('Direction applies only to events whose records can go either way', async () => {
		const runner = triggerRunner(sandbox(), { parameters: { event: 900, direction: 'outgoing' } });
		await runner.poll();
		const [deposit] = sandbox().addRecords([
			{
				accountId: DEMO_ACCOUNTS.custody,
				flowTypeValue: 900,
				change: '100',
				created: String(sandbox().now() - 1000),
			},
		]);
		expect(ids(await runner.poll())).toEqual([deposit.id]);
	});

	it('Symbol and Coin match exactly and case-sensitively; the watermark moves past records they skip', async () => {
		const now = sandbox().now();
		const bySymbol = triggerRunner(sandbox(), {
			parameters: { filters: { symbol: 'ETHUSDT-PERPETUAL' } },
		});
		const lowerCase = triggerRunner(sandbox(), {
			parameters: { filters: { symbol: 'ethusdt-perpetual' } },
		});
		const byCoin = triggerRunner(sandbox(), { parameters: { filters: { coin: 'BTC' } } });
		for (const runner of [bySymbol, lowerCase, byCoin]) await runner.poll();

		const records = sandbox().addRecords([
			{
				accountId: CONTRACT,
				flowTypeValue: 32,
				change: '-1',
				created: String(now - 3000),
				symbol: 'BTCUSDT-PERPETUAL',
			},
			{
				accountId: CONTRACT,
				flowTypeValue: 32,
				change: '-2',
				created: String(now - 2000),
				symbol: 'ETHUSDT-PERPETUAL',
			},
			{
				accountId: CONTRACT,
				flowTypeValue: 32,
				change: '-3',
				created: String(now - 1000),
				symbol: 'ETHUSDT-PERPETUAL',
				coin: 'BTC',
			},
		]);

		expect(ids(await bySymbol.poll())).toEqual([records[1].id, records[2].id]);
		expect(ids(await byCoin.poll())).toEqual([records[2].id]);
		const none = await lowerCase.poll();
		expect(none.emitted).toBeNull();
		expect(lowerCase.nodeStaticData().watermark).toBe(now - 1000);
	});

	it('version 2: the Coin filter picked from its list matches like the typed one', async () => {
		const now = sandbox().now();
		const picked = triggerRunner(sandbox(), {
			parameters: { filters: { coin: { __rl: true, mode: 'list', value: 'BTC' } } },
			typeVersion: 2,
		});
		await picked.poll();
		const records = sandbox().addRecords([
			{ accountId: CONTRACT, flowTypeValue: 32, change: '-1', created: String(now - 2000) },
			{
				accountId: CONTRACT,
				flowTypeValue: 32,
				change: '-2',
				created: String(now - 1000),
				coin: 'BTC',
			},
		]);
		expect(ids(await picked.poll())).toEqual([records[1].id]);
	});

	it('refuses a filter with spaces around it instead of trimming it, before sending anything', async () => {
		const runner = triggerRunner(sandbox(), { parameters: { filters: { coin: 'USDT ' } } });
		const poll = await pollCounting(sandbox(), runner);
		expect(poll.error?.message).toBe('Coin: "USDT " starts or ends with spaces');
		expect(poll.requests).toHaveLength(0);
		expect(runner.nodeStaticData()).toEqual({});
	});
});

describe('Fetch Test Event (manual mode)', () => {
	it('returns the newest record as one item and leaves the state alone', async () => {
		const records = fundingFees(3 * MINUTE, MINUTE, 2 * MINUTE);
		const runner = triggerRunner(sandbox());

		const manual = await pollCounting(sandbox(), runner, 'manual');
		expect(manual.error).toBeUndefined();
		expect(manual.items.map((item) => item.json)).toEqual([records[1]]);
		expect(manual.requests).toHaveLength(1);
		expect(runner.nodeStaticData()).toEqual({});

		await runner.poll();
		const state = runner.nodeStaticData();
		fundingFees(1000);
		await runner.poll('manual');
		expect(runner.nodeStaticData()).toEqual(state);
	});

	it('runs through n8n-core WorkflowExecute in manual mode and returns one item', async () => {
		const records = fundingFees(MINUTE, 2 * MINUTE);
		const run = await runWorkflow({
			nodes: [triggerNode()],
			nodeTypes: triggerNodeTypes,
			credentialTypes: triggerCredentialTypes,
			credentials: triggerCredentials(sandbox()),
			mode: 'manual',
		});
		expect(run.error('Trading Service Trigger')).toBeUndefined();
		expect(run.output('Trading Service Trigger').map((item) => item.json)).toEqual([records[0]]);
	});

	it('looks past newer records that do not match the filters', async () => {
		const now = sandbox().now();
		const [match] = sandbox().addRecords([
			{
				accountId: CONTRACT,
				flowTypeValue: 32,
				change: '-1',
				created: String(now - 10 * MINUTE),
				symbol: 'ETHUSDT-PERPETUAL',
			},
		]);
		sandbox().seedRecords({
			flowType: 32,
			count: 700,
			startTime: now - 5 * MINUTE,
			endTime: now - 1000,
			symbols: ['BTCUSDT-PERPETUAL'],
		});
		const runner = triggerRunner(sandbox(), {
			parameters: { filters: { symbol: 'ETHUSDT-PERPETUAL' } },
		});
		const manual = await pollCounting(sandbox(), runner, 'manual');
		expect(ids(manual)).toEqual([match.id]);
		expect(manual.requests).toHaveLength(2);
	});

	it('says clearly when there is no record, or none that matches', async () => {
		const runner = triggerRunner(sandbox());
		const empty = await runner.poll('manual');
		expect(empty.error?.message).toBe('No Funding Fee record in the last 30 days');

		fundingFees(MINUTE);
		const lowerCase = triggerRunner(sandbox(), {
			parameters: { filters: { symbol: 'btcusdt-perpetual' } },
		});
		const none = await lowerCase.poll('manual');
		expect(none.error?.message).toBe(
			'No Funding Fee record matches Symbol "btcusdt-perpetual" in the last 30 days',
		);
		expect(none.error?.description).toContain('symbol "BTCUSDT-PERPETUAL"');
		expect(none.error?.description).toContain('upper and lower case');
	});
});

describe('retention', () => {
	it('after n8n was down longer than the retention window, reads from the retention boundary and emits what is still kept', async () => {
		const runner = triggerRunner(sandbox());
		await runner.poll();
		const saved = runner.savedStaticData();
		const key = Object.keys(saved).find((name) => name.startsWith('node:')) as string;
		const now = sandbox().now();
		// The state of a trigger whose last poll was 40 days ago.
		const watermark = now - 40 * DAY_MS;
		saved[key] = { ...(saved[key] as object), watermark, floor: watermark - 10 * MINUTE, seen: {} };

		const kept = fundingFees(29 * DAY_MS, DAY_MS);
		const restarted = triggerRunner(sandbox(), { staticData: saved });
		const poll = await pollCounting(sandbox(), restarted);
		expect(ids(poll)).toEqual(kept.map((record) => record.id));
		const startTime = Number(queryParam(poll.requests[0], 'startTime'));
		expect(startTime).toBeGreaterThan(now - 30 * DAY_MS);
		expect(startTime).toBeLessThan(now - 30 * DAY_MS + 5 * MINUTE);
	});

	it('never asks for more than 7 days of trades', async () => {
		const runner = triggerRunner(sandbox(), { parameters: { event: 1 } });
		const poll = await pollCounting(sandbox(), runner);
		const startTime = Number(queryParam(poll.requests[0], 'startTime'));
		expect(startTime).toBeGreaterThan(sandbox().now() - 7 * DAY_MS);
		expect(startTime).toBeLessThan(sandbox().now() - 7 * DAY_MS + 5 * MINUTE);
	});
});

describe('poll time budget', () => {
	it('a catch-up larger than one poll can read continues over the next polls, each record once', async () => {
		fundingFees(10 * MINUTE);
		// A 1 ms budget: every poll reads exactly one page.
		const runner = triggerRunner(sandbox(), { pollBudgetMs: 1 });
		await runner.poll();
		const now = sandbox().now();
		const burst = sandbox().seedRecords({
			flowType: 32,
			count: 1300,
			startTime: now - 60_000,
			endTime: now - 2000,
			perMillisecond: 3,
		});

		const emitted: string[][] = [];
		const poll1 = await pollCounting(sandbox(), runner);
		expect(poll1.requests).toHaveLength(1);
		expect(poll1.items).toHaveLength(500);
		expect(runner.nodeStaticData().resume).toBeDefined();
		emitted.push(ids(poll1));

		const [meanwhile] = fundingFees(1000);
		for (let poll = 0; poll < 5 && runner.nodeStaticData().resume !== undefined; poll++) {
			const next = await pollCounting(sandbox(), runner);
			expect(next.requests).toHaveLength(1);
			emitted.push(ids(next));
		}
		expect(runner.nodeStaticData().resume).toBeUndefined();
		const rest = await runner.poll();
		emitted.push(ids(rest));

		const all = emitted.flat();
		expect(new Set(all).size).toBe(all.length);
		expect([...all].sort()).toEqual([...burst.map((record) => record.id), meanwhile.id].sort());
		// Oldest first within each poll.
		for (const chunk of emitted) {
			const created = chunk.map((id) =>
				Number([...burst, meanwhile].find((record) => record.id === id)?.created),
			);
			expect(created).toEqual([...created].sort((a, b) => a - b));
		}
		const idle = await pollCounting(sandbox(), runner);
		expect(idle.emitted).toBeNull();
		expect(idle.requests).toHaveLength(1);
	});
});

describe('randomized polling', () => {
	it('over many polls with bursts, shared milliseconds, late records, budget stops, failures and restarts, emits every new record exactly once', async () => {
		let seed = 20261121;
		const random = () => {
			seed = (seed * 1103515245 + 12345) % 2147483648;
			return seed / 2147483648;
		};
		const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));

		const helper = new FlakyCredentialsHelper(sandbox());
		let staticData = triggerRunner(sandbox()).savedStaticData();
		let newest = sandbox().now() - 10 * MINUTE;
		sandbox().addRecords([
			{ accountId: CONTRACT, flowTypeValue: 32, change: '-1', created: String(newest) },
		]);
		const mustEmit = new Set<string>();
		const emitted = new Map<string, number>();

		const poll = async (budget: number | undefined) => {
			const runner = triggerRunner(sandbox(), {
				staticData,
				pollBudgetMs: budget,
				credentialsHelper: helper,
			});
			const outcome = await runner.poll();
			for (const id of ids(outcome)) emitted.set(id, (emitted.get(id) ?? 0) + 1);
			staticData = runner.savedStaticData();
			return outcome;
		};
		await poll(undefined);

		for (let round = 0; round < 40; round++) {
			const count = [0, 3, 40, 600, 1100][int(0, 4)];
			const fresh = [];
			for (let index = 0; index < count; index++) {
				newest += int(0, 3);
				fresh.push({
					accountId: CONTRACT,
					flowTypeValue: 32,
					change: `-0.${index + 1}`,
					created: String(newest),
				});
			}
			for (const record of sandbox().addRecords(fresh)) mustEmit.add(record.id);
			if (random() < 0.3) {
				sandbox().addRecords([
					{
						accountId: CONTRACT,
						flowTypeValue: 32,
						change: '-9',
						created: String(newest - int(1, 4 * MINUTE)),
					},
				]);
			}
			if (random() < 0.2) helper.breakRequest(int(1, 2));
			await poll(random() < 0.5 ? 1 : undefined);
		}
		helper.breakCalls.clear();
		for (let round = 0; round < 10; round++) {
			const outcome = await poll(undefined);
			if (outcome.emitted === null && (await poll(undefined)).emitted === null) break;
		}

		for (const id of mustEmit) expect([id, emitted.get(id)]).toEqual([id, 1]);
		for (const [id, times] of emitted) expect([id, times]).toEqual([id, 1]);
	});
});

describe('remembered ids', () => {
	it('drop whole milliseconds, oldest first, moving the floor past them, and never the watermark millisecond', () => {
		const seen = { '100': ['a', 'b'], '105': ['c'], '110': ['d', 'e'], '120': ['f', 'g', 'h'] };
		expect(trimSeen(seen, 90, 95, 120, 5)).toEqual({
			seen: { '110': ['d', 'e'], '120': ['f', 'g', 'h'] },
			floor: 106,
		});
		expect(trimSeen(seen, 90, 95, 120, 1)).toEqual({
			seen: { '120': ['f', 'g', 'h'] },
			floor: 111,
		});
		expect(trimSeen(seen, 90, 104, 120, 100)).toEqual({
			seen: { '105': ['c'], '110': ['d', 'e'], '120': ['f', 'g', 'h'] },
			floor: 104,
		});
		// The floor never moves back.
		expect(trimSeen(seen, 111, 50, 120, 100).floor).toBe(111);
	});
});
