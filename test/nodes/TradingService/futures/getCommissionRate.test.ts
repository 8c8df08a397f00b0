import { useSandbox } from '../../../support/sandbox';
import { BTC, FUTURES, jsonOf, picked, queriesTo, runFutures } from './support';

const sandbox = useSandbox();

describe('Futures > Get Commission Rate', () => {
	it('gives the maker and taker fee rates of a contract as exact fractions', async () => {
		const run = await runFutures(sandbox(), 'getCommissionRate', { symbol: picked(BTC) });
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)).toEqual([{ symbol: BTC, makerFeeRate: '0.00025', takerFeeRate: '0.0006' }]);
		expect(queriesTo(run.requests, FUTURES.commissionRate).map((q) => q.get('symbol'))).toEqual([
			BTC,
		]);
	});

	it('one item per input item, each for its own contract', async () => {
		const run = await runFutures(
			sandbox(),
			'getCommissionRate',
			{ symbol: { __rl: true, mode: 'id', value: '={{ $json.contract }}' } },
			{
				inputItems: [{ json: { contract: BTC } }, { json: { contract: 'SOLUSDT-PERPETUAL' } }],
			},
		);
		expect(run.error).toBeUndefined();
		expect(jsonOf(run).map((rate) => rate.symbol)).toEqual([BTC, 'SOLUSDT-PERPETUAL']);
	});

	it('refuses a lower-case contract before sending anything', async () => {
		const run = await runFutures(
			sandbox(),
			'getCommissionRate',
			{ symbol: '={{ $json.contract }}' },
			{ inputItems: [{ json: { contract: 'btcusdt-perpetual' } }] },
		);
		expect(run.error?.message).toBe('Symbol: "btcusdt-perpetual" is not a futures contract');
		expect(run.requests).toHaveLength(0);
	});
});
