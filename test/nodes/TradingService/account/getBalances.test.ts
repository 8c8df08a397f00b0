import { DEMO_ACCOUNTS, DEMO_KEYS } from '../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { useSandbox } from '../../../support/sandbox';

const ACCOUNT = '/api/v1/account';
const sandbox = useSandbox({ rateLimit: false, requestRates: false });

const getBalances = (options: Record<string, unknown> = {}) => ({
	resource: 'account',
	operation: 'getBalances',
	options,
});
const byAsset = (items: Array<{ json: Record<string, unknown> }>) =>
	Object.fromEntries(items.map((item) => [item.json.asset, item.json]));

describe('Account > Get Balances', () => {
	it('one item per coin with free, locked and total as decimal strings; one request of weight 1', async () => {
		await placeRestingOrders(sandbox(), 1, { price: '100.5', quantity: '2' });
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), { parameters: getBalances() });
		expect(run.error).toBeUndefined();
		const balances = byAsset(run.items);
		expect(Object.keys(balances).sort()).toEqual(['BTC', 'ETH', 'SOL', 'USDT']);
		expect(balances.USDT).toMatchObject({ total: '100000', locked: '201', free: '99799' });
		expect(balances.BTC).toMatchObject({ total: '10', locked: '0', free: '10' });
		const requests = requestsTo(sandbox(), ACCOUNT, since);
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({ method: 'GET', weight: 5 });
	});

	it('reads once per run however many items: 3 items, one request, each item its own copy of every coin', async () => {
		const since = sandbox().ledger.requests.length;
		const run = await runTradingService(sandbox(), {
			parameters: getBalances(),
			inputItems: [{ json: {} }, { json: {} }, { json: {} }],
			node: { typeVersion: 2 },
		});
		expect(run.error).toBeUndefined();
		expect(requestsTo(sandbox(), ACCOUNT, since)).toHaveLength(1);
		expect(run.items).toHaveLength(12);
		const perItem = [0, 1, 2].map((item) =>
			run.items.filter((output) => (output.pairedItem as { item: number }).item === item),
		);
		for (const items of perItem)
			expect(Object.keys(byAsset(items)).sort()).toEqual(['BTC', 'ETH', 'SOL', 'USDT']);
		expect(perItem[0][0].json).toEqual(perItem[1][0].json);
		expect(perItem[0][0].json).not.toBe(perItem[1][0].json);
	});

	it('balances follow fills and transfers, exactly (no float rounding)', async () => {
		await runTradingService(sandbox(), {
			parameters: {
				resource: 'account',
				operation: 'transferAsset',
				fromAccountId: DEMO_ACCOUNTS.mainTrading,
				toAccountId: DEMO_ACCOUNTS.subTrading,
				coin: 'BTC',
				quantity: '0.00000001',
			},
		});
		const [orderId] = await placeRestingOrders(sandbox(), 1, { price: '100', quantity: '1' });
		sandbox().fillOrder(orderId);
		const run = await runTradingService(sandbox(), { parameters: getBalances() });
		// Bought 1 BTC for 100 USDT, fee 0.1% of the BTC received.
		expect(byAsset(run.items).BTC).toMatchObject({
			total: '10.99899999',
			free: '10.99899999',
			locked: '0',
		});
		expect(byAsset(run.items).USDT).toMatchObject({ total: '99900', locked: '0' });
	});

	it('Hide Zero Balances leaves out coins whose total is zero', async () => {
		sandbox().setBalance(DEMO_ACCOUNTS.mainTrading, 'SOL', '0');
		const all = await runTradingService(sandbox(), { parameters: getBalances() });
		expect(byAsset(all.items).SOL).toMatchObject({ total: '0' });
		const nonZero = await runTradingService(sandbox(), {
			parameters: getBalances({ hideZeroBalances: true }),
		});
		expect(Object.keys(byAsset(nonZero.items)).sort()).toEqual(['BTC', 'ETH', 'USDT']);
	});

	it('the sub key reads its own trading account', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: getBalances(),
			key: DEMO_KEYS.sub,
		});
		expect(byAsset(run.items).USDT).toMatchObject({ total: '10000' });
	});
});
