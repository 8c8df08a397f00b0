import { DEMO_KEYS } from '../../../../sandbox';
import { useSandbox } from '../../../support/sandbox';
import { BTC, ETH, FUTURES, jsonOf, picked, queriesTo, runFutures } from './support';

const sandbox = useSandbox();

describe('Futures > Get Leverage', () => {
	it.each([
		[BTC, '5', 'ISOLATED'],
		[ETH, '10', 'CROSS'],
	])('gives the leverage and margin type of %s', async (symbol, leverage, marginType) => {
		const run = await runFutures(sandbox(), 'getLeverage', { symbol: picked(symbol) });
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)).toEqual([{ symbolId: symbol, leverage, marginType }]);
		expect(queriesTo(run.requests, FUTURES.leverage)[0].get('symbol')).toBe(symbol);
	});

	it('refuses an empty Symbol and a spot pair before sending anything', async () => {
		const empty = await runFutures(sandbox(), 'getLeverage', {
			symbol: { __rl: true, mode: 'id', value: '={{ $json.contract }}' },
		});
		expect(empty.error?.message).toBe('Symbol: an empty value is not a futures contract');
		expect(empty.requests).toHaveLength(0);
		const spot = await runFutures(
			sandbox(),
			'getLeverage',
			{ symbol: '={{ $json.contract }}' },
			{ inputItems: [{ json: { contract: 'ETHUSDT' } }] },
		);
		expect(spot.error?.message).toBe('Symbol: "ETHUSDT" is not a futures contract');
		expect(spot.error?.description).toContain('pick ETHUSDT-PERPETUAL');
		expect(spot.requests).toHaveLength(0);
	});

	it('gives a sub key, which has no futures account, no items', async () => {
		const run = await runFutures(
			sandbox(),
			'getLeverage',
			{ symbol: picked(BTC) },
			{
				key: DEMO_KEYS.sub,
			},
		);
		expect(run.error).toBeUndefined();
		expect(run.items).toEqual([]);
	});

	it('passes on the service’s refusal of a contract it does not list', async () => {
		const run = await runFutures(sandbox(), 'getLeverage', {
			symbol: { __rl: true, mode: 'id', value: 'DOGEUSDT-PERPETUAL' },
		});
		expect(run.error).toBeDefined();
		expect(run.requests).toHaveLength(1);
	});
});
