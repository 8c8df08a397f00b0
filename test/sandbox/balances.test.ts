/** balances.ts: a resting order locks funds; free, locked and total follow, and only free funds move. */
import { useSandboxClients } from '../support/sandbox';
import { T0, buy, placeWith } from './support';

const { sandbox, master } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});
const place = placeWith(master);

describe('resting orders lock funds; the test fills them', () => {
	it('a LIMIT BUY locks price x quantity of the quote coin; free, locked and total follow', async () => {
		await place(buy('b'));
		expect(sandbox().getBalanceDetail('10001', 'USDT')).toEqual({
			free: '80000',
			locked: '20000',
			total: '100000',
		});
		expect(sandbox().getBalance('10001', 'USDT')).toBe('100000');
		const a = await master().account();
		expect(a.json.balances.find((x: { asset: string }) => x.asset === 'USDT')).toEqual({
			asset: 'USDT',
			assetId: 'USDT',
			assetName: 'USDT',
			total: '100000',
			free: '80000',
			locked: '20000',
		});
		// locked funds can be spent by neither another order nor a transfer
		expect((await master().order(buy(undefined, { quantity: '2.00000001' }))).json.code).toBe(
			'0401',
		);
		expect(
			(
				await master().transfer({
					fromAccountId: '10001',
					toAccountId: '10005',
					coin: 'USDT',
					quantity: '80000.01',
				})
			).json.code,
		).toBe('0401');
		expect(
			(
				await master().transfer({
					fromAccountId: '10001',
					toAccountId: '10005',
					coin: 'USDT',
					quantity: '80000',
				})
			).status,
		).toBe(200);
		expect(() => sandbox().setBalance('10001', 'USDT', '19999')).toThrow(/locked/);
	});
});
