import { DEMO_KEYS } from '../../../../sandbox';
import { useSandbox } from '../../../support/sandbox';
import { BTC, ETH, FUTURES, jsonOf, picked, queriesTo, runFutures } from './support';

const sandbox = useSandbox();

describe('Futures > Get Positions', () => {
	it('gives every open position as the service answers it, decimals as exact text', async () => {
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.125' });
		sandbox().futures.fill({ symbol: ETH, side: 'BUY', quantity: '1.5' });
		const run = await runFutures(sandbox(), 'getPositions');
		expect(run.error).toBeUndefined();
		const positions = jsonOf(run);
		expect(positions).toEqual(sandbox().futures.positions());
		expect(positions.map((position) => position.symbol).sort()).toEqual([BTC, ETH]);
		const btc = positions.find((position) => position.symbol === BTC)!;
		expect(btc).toMatchObject({ baseQty: '0.125', marginType: 'ISOLATED', positionSide: 'LONG' });
		for (const field of ['avgPrice', 'markPrice', 'liquidationPrice', 'unrealizedPnL', 'margin'])
			expect(btc[field]).toMatch(/^-?\d+(\.\d+)?$/);
		// A cross-margin position: liquidation price "0" and an empty margin rate, as the doc shows.
		expect(positions.find((position) => position.symbol === ETH)).toMatchObject({
			marginType: 'CROSS',
			liquidationPrice: '0',
			marginRate: '',
		});
		const [query] = queriesTo(run.requests, FUTURES.positions);
		expect(query.has('symbol')).toBe(false);
		expect(query.get('signature')).toMatch(/^[0-9a-f]{64}$/);
		expect(run.requests).toHaveLength(1);
	});

	it('reads the position of one contract', async () => {
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.2' });
		sandbox().futures.fill({ symbol: ETH, side: 'BUY', quantity: '2' });
		const run = await runFutures(sandbox(), 'getPositions', { symbol: picked(ETH) });
		expect(run.error).toBeUndefined();
		expect(jsonOf(run).map((position) => [position.symbol, position.baseQty])).toEqual([
			[ETH, '2'],
		]);
		expect(queriesTo(run.requests, FUTURES.positions)[0].get('symbol')).toBe(ETH);
	});

	it('gives no items when nothing is held', async () => {
		const run = await runFutures(sandbox(), 'getPositions');
		expect(run.error).toBeUndefined();
		expect(run.items).toEqual([]);
	});

	it.each([
		['a spot pair', 'BTCUSDT', /Contracts end in -PERPETUAL: for the BTCUSDT pair/],
		['lower case', 'btcusdt-perpetual', /in upper case, e\.g\. BTCUSDT-PERPETUAL/],
	])('refuses %s as Symbol before sending anything', async (_case, symbol, fix) => {
		// From an expression (or an AI agent): the editor's own check does not see it.
		const run = await runFutures(
			sandbox(),
			'getPositions',
			{ symbol: { __rl: true, mode: 'id', value: '={{ $json.contract }}' } },
			{ inputItems: [{ json: { contract: symbol } }] },
		);
		expect(run.error?.message).toBe(`Symbol: "${symbol}" is not a futures contract`);
		expect(run.error?.description).toMatch(fix);
		expect(run.requests).toHaveLength(0);
	});

	it('shows a sub key, which has no futures account, no position of the master account', async () => {
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.3' });
		const run = await runFutures(sandbox(), 'getPositions', {}, { key: DEMO_KEYS.sub });
		expect(run.error).toBeUndefined();
		expect(run.items).toEqual([]);
		expect(run.requests.map((request) => request.apiKey)).toEqual([DEMO_KEYS.sub.apiKey]);
	});
});
