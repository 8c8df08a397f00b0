import { DEMO_KEYS } from '../../../../sandbox';
import { defaultRate, HISTORY_PERIODS } from '../../../../sandbox/futures/funding';
import { TestClient } from '../../../../sandbox/testClient';
import { useSandbox } from '../../../support/sandbox';
import { BTC, FUTURES, jsonOf, picked, queriesTo, runFutures } from './support';

// A settlement every 5 ms of the sandbox clock: the history grows by 200 a second per contract,
// enough for several pages of 100 within a test.
const INTERVAL = 5;
const sandbox = useSandbox({
	rateLimit: false,
	requestRates: false,
	symbolRules: 'lenient',
	fundingIntervalMs: INTERVAL,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The settled rates are one per boundary, newest first, none left out, each the seeded rate. */
function expectWholeHistory(rates: Array<Record<string, unknown>>): void {
	for (const [index, rate] of rates.entries()) {
		const settleTime = Number(rate.settleTime);
		expect(rate.symbol).toBe(BTC);
		// Settled at boundary b at the rate of period b - 1, exactly as the sandbox seeds it.
		expect(rate.settleRate).toBe(defaultRate(BTC, settleTime / INTERVAL - 1));
		if (index === 0) continue;
		expect(Number(rates[index - 1].settleTime) - settleTime).toBe(INTERVAL);
		expect(BigInt(rates[index - 1].id as string)).toBeGreaterThan(BigInt(rate.id as string));
	}
}

describe('Futures > Get Funding Rate History', () => {
	it('Return All pages down by endId through every settled rate, each once, exact (ids shared by every contract)', async () => {
		await sleep(1200);
		const run = await runFutures(sandbox(), 'getFundingRateHistory', {
			symbol: picked(BTC),
			returnAll: true,
		});
		expect(run.error).toBeUndefined();
		const rates = jsonOf(run);
		expect(rates.length).toBeGreaterThan(300);
		expectWholeHistory(rates);
		const sent = queriesTo(run.requests, FUTURES.historyFundingRate);
		expect(sent.map((query) => query.get('limit'))).toEqual(sent.map(() => '100'));
		expect(sent[0].has('endId')).toBe(false);
		// Each next page asks up to the oldest rate read so far; this sandbox reads endId as "up to
		// and including", so each next page starts with that rate again (dropped) and 99 new ones.
		let read = 100;
		for (let page = 1; page < sent.length; page++) {
			expect(sent[page].get('endId')).toBe(rates[read - 1].id);
			read = Math.min(rates.length, read + 99);
		}
		expect(read).toBe(rates.length);
		// Nothing older is left.
		const client = new TestClient(sandbox().baseUrl, DEMO_KEYS.master, () => sandbox().now());
		const older = await client.call({
			method: 'GET',
			path: FUTURES.historyFundingRate,
			query: { symbol: BTC, endId: String(BigInt(rates[rates.length - 1].id as string) - 1n) },
		});
		expect(older.json).toEqual([]);
	});

	it('Limit stops once it has enough: 150 is a page of 100 and one of 51 (the oldest read again)', async () => {
		await sleep(800);
		const run = await runFutures(sandbox(), 'getFundingRateHistory', {
			symbol: picked(BTC),
			limit: 150,
		});
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(150);
		expectWholeHistory(jsonOf(run));
		expect(queriesTo(run.requests, FUTURES.historyFundingRate).map((q) => q.get('limit'))).toEqual([
			'100',
			'51',
		]);
	});

	it('a Limit within one page is one request', async () => {
		const run = await runFutures(sandbox(), 'getFundingRateHistory', {
			symbol: picked(BTC),
			limit: 3,
		});
		expect(run.items).toHaveLength(3);
		expect(run.requests).toHaveLength(1);
		expect(HISTORY_PERIODS).toBeGreaterThan(3);
	});

	it('refuses a Limit out of range and a missing Symbol before sending anything', async () => {
		const tooMany = await runFutures(sandbox(), 'getFundingRateHistory', {
			symbol: picked(BTC),
			limit: 5001,
		});
		expect(tooMany.error?.message).toBe('Limit: "5001" is out of range');
		// An expression that gives nothing (the editor refuses an empty Symbol it can see).
		const noSymbol = await runFutures(sandbox(), 'getFundingRateHistory', {
			symbol: { __rl: true, mode: 'id', value: '={{ $json.contract }}' },
			returnAll: true,
		});
		expect(noSymbol.error?.message).toBe('Symbol: an empty value is not a futures contract');
		expect([...tooMany.requests, ...noSymbol.requests]).toHaveLength(0);
	});
});

describe('Futures > Get Funding Rate History: endId read either way (issue 49)', () => {
	// 250 settled rates of each contract, numbered 1 to 250 per contract (consecutive: a client that
	// steps one below the oldest ID with a service reading endId as "below" skips one per page). The
	// funding interval is about 24.8 days, so no funding time passes while a test runs.
	const PERIODS = 250;
	const history = useSandbox({
		rateLimit: false,
		requestRates: false,
		symbolRules: 'lenient',
		fundingIntervalMs: 2 ** 31,
		behaviour: { fundingHistoryIds: 'perContract' },
	});
	const ids = (count: number) => Array.from({ length: count }, (_, i) => String(PERIODS - i));

	describe.each(['inclusive', 'exclusive'] as const)('a service reading endId as %s', (reading) => {
		beforeEach(() => {
			history().futures.seedFundingHistory(PERIODS);
			history().setBehaviour({ fundingHistoryEndId: reading });
		});

		it('Return All: all 250 rates, each once, newest first, none lost, none doubled', async () => {
			const run = await runFutures(history(), 'getFundingRateHistory', {
				symbol: picked(BTC),
				returnAll: true,
			});
			expect(run.error).toBeUndefined();
			const rates = jsonOf(run);
			expect(rates.map((rate) => rate.id)).toEqual(ids(PERIODS));
			const interval = history().futures.fundingIntervalMs;
			for (const rate of rates) {
				const boundary = Number(rate.settleTime) / interval;
				expect(rate.settleRate).toBe(defaultRate(BTC, boundary - 1));
			}
			const sent = queriesTo(run.requests, FUTURES.historyFundingRate);
			// Each page after the first asks up to the oldest rate read, one more than it still needs.
			expect(sent.map((query) => query.get('endId'))).toEqual(
				reading === 'inclusive' ? [null, '151', '52'] : [null, '151', '51'],
			);
			expect(sent.map((query) => query.get('limit'))).toEqual(['100', '100', '100']);
		});

		it.each([99, 100, 101, 150, 199, 249, 250])(
			'Limit %i: exactly that many, the newest, each once',
			async (limit) => {
				const run = await runFutures(history(), 'getFundingRateHistory', {
					symbol: picked(BTC),
					limit,
				});
				expect(run.error).toBeUndefined();
				expect(jsonOf(run).map((rate) => rate.id)).toEqual(ids(limit));
			},
		);
	});

	it('the sandbox reads endId as switched: the rate with that id listed or not', async () => {
		history().futures.seedFundingHistory(PERIODS);
		const client = new TestClient(history().baseUrl, DEMO_KEYS.master, () => history().now());
		const listed = async () =>
			(
				(
					await client.call({
						method: 'GET',
						path: FUTURES.historyFundingRate,
						query: { symbol: BTC, endId: '100', limit: '2' },
					})
				).json as Array<{ id: string }>
			).map((rate) => rate.id);
		expect(await listed()).toEqual(['100', '99']);
		history().setBehaviour({ fundingHistoryEndId: 'exclusive' });
		expect(await listed()).toEqual(['99', '98']);
	});
});
