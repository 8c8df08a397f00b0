import { DEMO_KEYS } from '../../../../sandbox';
import type { FuturesTrade } from '../../../../sandbox/types';
import { useSandbox } from '../../../support/sandbox';
import { BTC, ETH, FUTURES, jsonOf, picked, queriesTo, runFutures } from './support';

const sandbox = useSandbox();

/** `count` BTC fills (and one ETH fill in between), newest first as listed. */
function fills(count: number): FuturesTrade[] {
	const trades: FuturesTrade[] = [];
	for (let index = 0; index < count; index++) {
		trades.push(
			sandbox().futures.fill({
				symbol: BTC,
				side: 'BUY',
				quantity: '0.001',
				price: `${60000 + (index % 97)}.1`,
				isMaker: index % 3 === 0,
			}).trade,
		);
		if (index === 10) sandbox().futures.fill({ symbol: ETH, side: 'BUY', quantity: '0.01' });
	}
	return trades.reverse();
}

describe('Futures > Get Trades', () => {
	it('Return All pages down by toId through every fill of the contract: each once, exact', async () => {
		const trades = fills(1150);
		const run = await runFutures(sandbox(), 'getTrades', { symbol: picked(BTC), returnAll: true });
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)).toEqual(trades);
		const sent = queriesTo(run.requests, FUTURES.userTrades);
		expect(sent.map((query) => query.get('toId'))).toEqual([null, trades[999].tradeId]);
		expect(sent.map((query) => query.get('limit'))).toEqual(['1000', '1000']);
		expect(sent.map((query) => query.get('symbol'))).toEqual([BTC, BTC]);
		expect(sent.some((query) => query.has('fromId'))).toBe(false);
	});

	it('Limit stops once it has enough', async () => {
		const trades = fills(40);
		const run = await runFutures(sandbox(), 'getTrades', { symbol: picked(BTC), limit: 25 });
		expect(jsonOf(run)).toEqual(trades.slice(0, 25));
		expect(run.requests).toHaveLength(1);
		// Maker and taker commissions, as the service computed them.
		expect(new Set(jsonOf(run).map((trade) => trade.isMaker))).toEqual(new Set([true, false]));
	});

	it('gives no items for a contract without fills', async () => {
		fills(3);
		const run = await runFutures(sandbox(), 'getTrades', {
			symbol: picked('SOLUSDT-PERPETUAL'),
			returnAll: true,
		});
		expect(run.error).toBeUndefined();
		expect(run.items).toEqual([]);
		expect(run.requests).toHaveLength(1);
	});

	it('shows a sub key, which has no futures account, none of the master account’s fills', async () => {
		fills(3);
		const run = await runFutures(
			sandbox(),
			'getTrades',
			{ symbol: picked(BTC), returnAll: true },
			{
				key: DEMO_KEYS.sub,
			},
		);
		expect(run.error).toBeUndefined();
		expect(run.items).toEqual([]);
	});

	it('refuses a spot pair before sending anything', async () => {
		const run = await runFutures(
			sandbox(),
			'getTrades',
			{ symbol: '={{ $json.contract }}' },
			{ inputItems: [{ json: { contract: 'BTCUSDT' } }] },
		);
		expect(run.error?.message).toBe('Symbol: "BTCUSDT" is not a futures contract');
		expect(run.requests).toHaveLength(0);
	});
});
