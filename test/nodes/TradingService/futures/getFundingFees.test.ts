import { DEMO_KEYS } from '../../../../sandbox';
import { defaultRate } from '../../../../sandbox/futures/funding';
import { useSandbox } from '../../../support/sandbox';
import {
	BTC,
	canonical,
	CONTRACTS,
	ETH,
	FUTURES,
	jsonOf,
	multiply,
	picked,
	queriesTo,
	runFutures,
} from './support';

// A settlement every 2 ms of the sandbox clock: a held position is charged 500 fees a second,
// enough for pages of 1,000 within a test.
const INTERVAL = 2;
const sandbox = useSandbox({
	rateLimit: false,
	requestRates: false,
	symbolRules: 'lenient',
	fundingIntervalMs: INTERVAL,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const iso = (ms: number) => new Date(ms).toISOString();
const negated = (text: string) => (text.startsWith('-') ? text.slice(1) : `-${text}`);

/**
 * Holds `quantity` of BTC from now, for `ms` of settlements; the range to ask for, and the fill's
 * own time (its clock may tick between `start` and the fill).
 */
async function holdBtc(
	quantity: string,
	ms: number,
): Promise<{ start: number; filledAt: number; end: number }> {
	const start = sandbox().now();
	const { trade } = sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity });
	await sleep(ms);
	return { start, filledAt: Number(trade.time), end: sandbox().now() };
}

/** One fee per settlement, newest first, none left out, each -(size × mark price × rate) exactly. */
function expectEveryFee(fees: Array<Record<string, unknown>>, quantity: string): void {
	for (const [index, fee] of fees.entries()) {
		const time = Number(fee.fundingTime);
		expect(fee).toMatchObject({ symbol: BTC, positionSide: 'LONG', feeAsset: 'USDT' });
		expect(fee.positionSize).toBe(quantity);
		expect(fee.fundingRate).toBe(defaultRate(BTC, time / INTERVAL - 1));
		const charged = multiply(quantity, fee.markPrice as string, fee.fundingRate as string);
		expect(canonical(fee.fee as string)).toBe(negated(charged));
		if (index > 0) expect(Number(fees[index - 1].fundingTime) - time).toBe(INTERVAL);
	}
}

describe('Futures > Get Funding Fees', () => {
	it('Return All pages down by time through every fee of the range, each once, exact', async () => {
		const { start, filledAt, end } = await holdBtc('0.5', 2300);
		const run = await runFutures(sandbox(), 'getFundingFees', {
			symbol: picked(BTC),
			startTime: iso(start),
			endTime: iso(end),
			returnAll: true,
		});
		expect(run.error).toBeUndefined();
		const fees = jsonOf(run);
		expect(fees.length).toBeGreaterThan(1000);
		expectEveryFee(fees, '0.5');
		// From the last settlement up to End to the first after the fill.
		expect(Number(fees[0].fundingTime)).toBe(Math.floor(end / INTERVAL) * INTERVAL);
		expect(Number(fees[fees.length - 1].fundingTime)).toBeGreaterThan(start);
		expect(Number(fees[fees.length - 1].fundingTime)).toBe(
			(Math.floor(filledAt / INTERVAL) + 1) * INTERVAL,
		);
		const sent = queriesTo(run.requests, FUTURES.historyFundingFees);
		expect(sent.length).toBeGreaterThanOrEqual(2);
		expect(sent[0].get('endTime')).toBe(String(end));
		expect(sent[0].get('limit')).toBe('1000');
		for (const query of sent) expect(query.get('startTime')).toBe(String(start));
		// The next page ends at the oldest settlement read; its fee, listed again, is dropped.
		expect(sent[1].get('endTime')).toBe(fees[999].fundingTime);
		expect(sent[1].get('limit')).toBe('1000');
	});

	it('Limit stops once it has enough, across pages', async () => {
		const { start, end } = await holdBtc('0.25', 2300);
		const run = await runFutures(sandbox(), 'getFundingFees', {
			symbol: picked(BTC),
			startTime: iso(start),
			endTime: iso(end),
			limit: 1005,
		});
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(1005);
		expectEveryFee(jsonOf(run), '0.25');
		// 1,000, then the 5 missing and the one settlement listed again.
		expect(queriesTo(run.requests, FUTURES.historyFundingFees).map((q) => q.get('limit'))).toEqual([
			'1000',
			'6',
		]);
	});

	it('empty Symbol: every contract, fees of all merged newest first, Limit over the merged list', async () => {
		const start = sandbox().now();
		const btcFill = sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.1' });
		const ethFill = sandbox().futures.fill({ symbol: ETH, side: 'BUY', quantity: '2' });
		await sleep(200);
		const end = sandbox().now();
		/** The settlements after a fill, up to `end`: each charges the position once. */
		const settledAfter = (time: string) =>
			Math.floor(end / INTERVAL) - Math.floor(Number(time) / INTERVAL);
		const all = await runFutures(sandbox(), 'getFundingFees', {
			startTime: iso(start),
			endTime: iso(end),
			returnAll: true,
		});
		expect(all.error).toBeUndefined();
		const fees = jsonOf(all);
		const of = (symbol: string) => fees.filter((fee) => fee.symbol === symbol);
		expect(of(BTC).length).toBeGreaterThan(10);
		// Each contract's position pays every settlement after its fill (the two fills may fall on
		// either side of one or, on a busy machine, several settlements).
		expect(of(BTC)).toHaveLength(settledAfter(btcFill.trade.time));
		expect(of(ETH)).toHaveLength(settledAfter(ethFill.trade.time));
		expect(fees).toHaveLength(of(BTC).length + of(ETH).length);
		const times = fees.map((fee) => Number(fee.fundingTime));
		expect(times).toEqual([...times].sort((a, b) => b - a));
		expect(all.requests.map((request) => request.path)).toEqual([
			FUTURES.exchangeInfo,
			...CONTRACTS.map(() => FUTURES.historyFundingFees),
		]);
		const limited = await runFutures(sandbox(), 'getFundingFees', {
			startTime: iso(start),
			endTime: iso(end),
			limit: 10,
		});
		expect(jsonOf(limited)).toEqual(fees.slice(0, 10));
	});

	it('gives no items for a range without fees', async () => {
		const now = sandbox().now();
		const run = await runFutures(sandbox(), 'getFundingFees', {
			symbol: picked(BTC),
			startTime: iso(now - 60_000),
			endTime: iso(now),
			returnAll: true,
		});
		expect(run.error).toBeUndefined();
		expect(run.items).toEqual([]);
		expect(run.requests).toHaveLength(1);
	});

	it('gives a sub key, which has no futures account, none of the master account’s fees', async () => {
		const { start, end } = await holdBtc('0.5', 100);
		const run = await runFutures(
			sandbox(),
			'getFundingFees',
			{ startTime: iso(start), endTime: iso(end), returnAll: true },
			{ key: DEMO_KEYS.sub },
		);
		expect(run.error).toBeUndefined();
		expect(run.items).toEqual([]);
		expect(new Set(run.requests.map((request) => request.apiKey))).toEqual(
			new Set([DEMO_KEYS.sub.apiKey]),
		);
	});

	it('refuses an End before the Start, and a spot pair, before sending anything', async () => {
		const now = sandbox().now();
		const backwards = await runFutures(sandbox(), 'getFundingFees', {
			symbol: picked(BTC),
			startTime: iso(now),
			endTime: iso(now - 1000),
		});
		expect(backwards.error?.message).toBe('End: is before Start');
		const spot = await runFutures(
			sandbox(),
			'getFundingFees',
			{
				symbol: { __rl: true, mode: 'id', value: '={{ $json.contract }}' },
				startTime: iso(now - 1000),
				endTime: iso(now),
			},
			{ inputItems: [{ json: { contract: 'BTCUSDT' } }] },
		);
		expect(spot.error?.message).toBe('Symbol: "BTCUSDT" is not a futures contract');
		expect([...backwards.requests, ...spot.requests]).toHaveLength(0);
	});
});
