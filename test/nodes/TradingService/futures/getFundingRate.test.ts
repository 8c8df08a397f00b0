import { useSandbox } from '../../../support/sandbox';
import { BTC, CONTRACTS, ETH, FUTURES, jsonOf, picked, queriesTo, runFutures } from './support';

const sandbox = useSandbox();

/** When the period running now is settled: the next multiple of the funding interval. */
const nextFunding = () => {
	const interval = sandbox().futures.fundingIntervalMs;
	return String((Math.floor(sandbox().now() / interval) + 1) * interval);
};

describe('Futures > Get Funding Rate', () => {
	it('gives the rate of the period now running and when it is settled, exactly as scripted', async () => {
		sandbox().futures.setFundingRates(BTC, ['0.000123456789', '0.0006']);
		const run = await runFutures(sandbox(), 'getFundingRate', { symbol: picked(BTC) });
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)).toEqual([
			{ symbol: BTC, rate: '0.000123456789', nextFundingTime: nextFunding() },
		]);
		expect(run.requests.map((request) => request.path)).toEqual([FUTURES.fundingRate]);
	});

	it('keeps a negative rate as text', async () => {
		sandbox().futures.setFundingRates(ETH, ['-0.00075']);
		const run = await runFutures(sandbox(), 'getFundingRate', { symbol: picked(ETH) });
		expect(jsonOf(run)[0].rate).toBe('-0.00075');
	});

	it('empty Symbol: every contract exchange information lists, one request each', async () => {
		sandbox().futures.setFundingRates(ETH, ['0.0005']);
		const run = await runFutures(sandbox(), 'getFundingRate');
		expect(run.error).toBeUndefined();
		expect(jsonOf(run).map((rate) => rate.symbol)).toEqual(CONTRACTS);
		expect(jsonOf(run)[1]).toEqual({ symbol: ETH, rate: '0.0005', nextFundingTime: nextFunding() });
		for (const rate of jsonOf(run)) expect(rate.rate).toMatch(/^-?0\.\d+$/);
		// Exchange information once, then one request per contract (the service answers [] without).
		expect(run.requests.map((request) => request.path)).toEqual([
			FUTURES.exchangeInfo,
			...CONTRACTS.map(() => FUTURES.fundingRate),
		]);
		expect(queriesTo(run.requests, FUTURES.fundingRate).map((q) => q.get('symbol'))).toEqual(
			CONTRACTS,
		);
	});

	it('reads exchange information once for every item of a run', async () => {
		const run = await runFutures(
			sandbox(),
			'getFundingRate',
			{},
			{
				inputItems: [{ json: {} }, { json: {} }],
			},
		);
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(2 * CONTRACTS.length);
		expect(run.requests.filter((request) => request.path === FUTURES.exchangeInfo)).toHaveLength(1);
		expect(run.requests.filter((request) => request.path === FUTURES.fundingRate)).toHaveLength(
			2 * CONTRACTS.length,
		);
	});

	it('refuses a spot pair before sending anything', async () => {
		const run = await runFutures(
			sandbox(),
			'getFundingRate',
			{ symbol: { __rl: true, mode: 'id', value: '={{ $json.contract }}' } },
			{ inputItems: [{ json: { contract: 'BTCUSDT' } }] },
		);
		expect(run.error?.message).toBe('Symbol: "BTCUSDT" is not a futures contract');
		expect(run.error?.description).toContain('pick BTCUSDT-PERPETUAL');
		expect(run.requests).toHaveLength(0);
	});
});
