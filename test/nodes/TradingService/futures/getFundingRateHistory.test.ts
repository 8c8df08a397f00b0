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
	it('Return All pages down by endId through every settled rate, each once, exact', async () => {
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
		expect(sent.length).toBe(Math.ceil((rates.length + 1) / 100));
		expect(sent.map((query) => query.get('limit'))).toEqual(sent.map(() => '100'));
		expect(sent[0].has('endId')).toBe(false);
		// endId is "up to and including": each page asks up to one below the oldest read.
		for (let page = 1; page < sent.length; page++)
			expect(sent[page].get('endId')).toBe(String(BigInt(rates[page * 100 - 1].id as string) - 1n));
		// Nothing older is left.
		const client = new TestClient(sandbox().baseUrl, DEMO_KEYS.master, () => sandbox().now());
		const older = await client.call({
			method: 'GET',
			path: FUTURES.historyFundingRate,
			query: { symbol: BTC, endId: String(BigInt(rates[rates.length - 1].id as string) - 1n) },
		});
		expect(older.json).toEqual([]);
	});

	it('Limit stops once it has enough: 150 is a page of 100 and one of 50', async () => {
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
			'50',
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
