import { DEMO_KEYS } from '../../../../sandbox';
import { useSandbox } from '../../../support/sandbox';
import { BTC, FUTURES, jsonOf, runFutures } from './support';

const sandbox = useSandbox();

describe('Futures > Get Balance', () => {
	it('gives the futures account balance per asset, decimals as exact text', async () => {
		const run = await runFutures(sandbox(), 'getBalance');
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)).toEqual([{ asset: 'USDT', balance: '50000', availableBalance: '50000' }]);
		expect(run.requests.map((request) => request.path)).toEqual([FUTURES.balance]);
	});

	it('shows the margin a position holds: available is less than the balance', async () => {
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01' });
		const run = await runFutures(sandbox(), 'getBalance');
		expect(run.error).toBeUndefined();
		const [usdt] = jsonOf(run);
		expect(usdt.asset).toBe('USDT');
		expect(usdt.availableBalance).toMatch(/^\d+(\.\d+)?$/);
		expect(Number(usdt.availableBalance)).toBeLessThan(Number(usdt.balance));
	});

	it('gives a sub key, which has no futures account, no items and never the master account’s balance', async () => {
		const run = await runFutures(sandbox(), 'getBalance', {}, { key: DEMO_KEYS.sub });
		expect(run.error).toBeUndefined();
		expect(run.items).toEqual([]);
		expect(run.requests).toHaveLength(1);
	});
});
