import { DEMO_ACCOUNTS, DEMO_KEYS } from '../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { useSandbox } from '../../../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });
const parameters = { resource: 'account', operation: 'getAccounts' };

describe('Account > Get Accounts (version 2)', () => {
	it("lists the master key's accounts with their kind, one item each, IDs as text", async () => {
		const run = await runTradingService(sandbox(), { parameters, node: { typeVersion: 2 } });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => [item.json.accountId, item.json.kind])).toEqual([
			[DEMO_ACCOUNTS.mainTrading, 'mainTrading'],
			[DEMO_ACCOUNTS.mainContract, 'futures'],
			[DEMO_ACCOUNTS.custody, 'custody'],
			[DEMO_ACCOUNTS.fiat, 'fiat'],
			[DEMO_ACCOUNTS.subTrading, 'subTrading'],
		]);
		expect(run.items[0].json).toMatchObject({
			accountLabel: 'Main Trading Account',
			accountType: 1,
			userId: expect.any(String),
		});
		const [request] = requestsTo(sandbox(), '/api/v1/account/type');
		expect(request.query).toMatch(/signature=[0-9a-f]{64}$/);
	});

	it('three items: one read of the key’s accounts (weight 5) serves them all, each item paired', async () => {
		const run = await runTradingService(sandbox(), {
			parameters,
			node: { typeVersion: 2 },
			inputItems: [{ json: {} }, { json: {} }, { json: {} }],
		});
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(15);
		expect(run.items.map((item) => item.pairedItem)).toEqual(
			[0, 1, 2].flatMap((item) => Array.from({ length: 5 }, () => ({ item }))),
		);
		expect(requestsTo(sandbox(), '/api/v1/account/type')).toHaveLength(1);
	});

	it('lists the sub key its own trading account only', async () => {
		const run = await runTradingService(sandbox(), {
			parameters,
			node: { typeVersion: 2 },
			key: DEMO_KEYS.sub,
		});
		expect(run.items.map((item) => [item.json.accountId, item.json.kind])).toEqual([
			[DEMO_ACCOUNTS.subTrading, 'subTrading'],
		]);
	});
});
