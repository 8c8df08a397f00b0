/**
 * Account scope (money safety 4): a master key acts on its own trading account unless the user
 * picks another. Its sub account holds identical orders under identical client order IDs; none of
 * them may answer a business key, a crash lookup, Get or Cancel by client order ID, Cancel Many by
 * symbol, the polling Order Filled event or the lists a user reads without asking for them.
 *
 * Also Cancel Many by symbol with two items of one symbol in one run (issue 39, defect 8): they
 * share one cancel, and the second never reports the first one's orders as "already cancelled".
 */
import { DEMO_ACCOUNTS, DEMO_KEYS, type Sandbox } from '../../sandbox';
import { runTradingService, type NodeRun } from '../../tools/harness/node';
import { useSandbox } from '../support/sandbox';

jest.setTimeout(120_000);

const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'lenient' });
const MAIN = DEMO_ACCOUNTS.mainTrading;
const SUB = DEMO_ACCOUNTS.subTrading;

/** An open order of the sub account, as if the sub account's own key had placed it. */
function subOrder(sb: Sandbox, clientOrderId: string, price = '100', symbol = 'BTCUSDT') {
	return sb.seedOpenOrder({
		key: DEMO_KEYS.sub,
		symbol,
		side: 'BUY',
		price,
		quantity: '0.01',
		clientOrderId,
		time: sb.now(),
	});
}

/** An open order of the master key's own (main) trading account. */
function mainOrder(sb: Sandbox, clientOrderId: string, price = '100', symbol = 'BTCUSDT') {
	return sb.seedOpenOrder({
		symbol,
		side: 'BUY',
		price,
		quantity: '0.01',
		clientOrderId,
		time: sb.now(),
	});
}

const create = (clientOrderId: string, price = '100') => ({
	resource: 'order',
	operation: 'create',
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	price,
	quantity: '0.01',
	newClientOrderId: clientOrderId,
});

function openOrdersOf(sb: Sandbox, accountId: string, clientOrderId: string) {
	return sb.ledger.orders
		.filter((order) => order.clientOrderId === clientOrderId)
		.map((order) => sb.getOrder(order.orderId))
		.filter((order) => order?.accountId === accountId);
}

const v2 = { node: { typeVersion: 2 } };

function accountsOfItems(run: NodeRun): string[] {
	return [...new Set(run.items.map((item) => String(item.json.accountId)))].sort();
}

describe('account scope: a master key whose sub account holds the same orders and client order IDs', () => {
	it('Create with a business key the sub account holds: placed in the main account, never "alreadyPlaced" with the sub account’s order', async () => {
		const sb = sandbox();
		const sub = subOrder(sb, 'signal-7');
		const run = await runTradingService(sb, { parameters: create('signal-7') });
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed' });
		expect(run.items[0].json.alreadyPlaced).toBeUndefined();
		expect(run.items[0].json.orderId).not.toBe(sub.orderId);
		expect(run.items[0].json.accountId).toBe(MAIN);
		const placed = sb.ledger.orders.filter((order) => order.clientOrderId === 'signal-7');
		expect(placed.map((order) => order.accountId)).toEqual([MAIN]);
	});

	it('Create with another price under the sub account’s ID: placed, not refused as "already belongs to another order"', async () => {
		const sb = sandbox();
		subOrder(sb, 'signal-8', '90');
		const run = await runTradingService(sb, { parameters: create('signal-8', '100') });
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', accountId: MAIN, price: '100' });
	});

	it('Create with a business key the main account holds: alreadyPlaced with the main account’s order, nothing sent', async () => {
		const sb = sandbox();
		subOrder(sb, 'signal-9');
		const main = mainOrder(sb, 'signal-9');
		const run = await runTradingService(sb, { parameters: create('signal-9') });
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			orderId: main.orderId,
		});
		expect(sb.ledger.orders.filter((order) => order.apiKey === DEMO_KEYS.master.apiKey)).toEqual(
			[],
		);
	});

	it('Create Many’s list path (more than 3 keys of one symbol): the sub account’s identical orders answer none of them', async () => {
		const sb = sandbox();
		const keys = ['k-1', 'k-2', 'k-3', 'k-4', 'k-5'];
		for (const key of keys) subOrder(sb, key);
		const run = await runTradingService(sb, {
			parameters: {
				resource: 'order',
				operation: 'createMany',
				inputMode: 'items',
				symbol: '={{ $json.symbol }}',
				side: '={{ $json.side }}',
				type: '={{ $json.type }}',
				price: '={{ $json.price }}',
				quantity: '={{ $json.quantity }}',
				newClientOrderId: '={{ $json.key }}',
			},
			inputItems: keys.map((key) => ({
				json: {
					symbol: 'BTCUSDT',
					side: 'BUY',
					type: 'LIMIT',
					price: '100',
					quantity: '0.01',
					key,
				},
			})),
		});
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(5);
		for (const item of run.items) {
			expect(item.json).toMatchObject({ outcome: 'placed' });
			expect(item.json.alreadyPlaced).toBeUndefined();
		}
		for (const key of keys) expect(openOrdersOf(sb, MAIN, key)).toHaveLength(1);
	});

	it('Get by Client Order ID: the main account’s order; one only the sub account holds is not found; the Account option reads the sub account’s', async () => {
		const sb = sandbox();
		const sub = subOrder(sb, 'both');
		const main = mainOrder(sb, 'both');
		subOrder(sb, 'only-sub');
		const get = (clientOrderId: string, options: Record<string, unknown> = {}) =>
			runTradingService(sb, {
				parameters: {
					resource: 'order',
					operation: 'get',
					findBy: 'clientOrderId',
					clientOrderId,
					options,
				},
				...v2,
			});
		const both = await get('both');
		expect(both.items[0].json).toMatchObject({ orderId: main.orderId, accountId: MAIN });
		const onlySub = await get('only-sub');
		expect(onlySub.error?.message).toMatch(/Client Order ID/);
		const picked = await get('both', { account: { __rl: true, mode: 'id', value: SUB } });
		expect(picked.items[0].json).toMatchObject({ orderId: sub.orderId, accountId: SUB });
	});

	it('Cancel by Client Order ID: the main account’s order is cancelled, the sub account’s stays open', async () => {
		const sb = sandbox();
		const sub = subOrder(sb, 'cancel-me');
		const main = mainOrder(sb, 'cancel-me');
		const run = await runTradingService(sb, {
			parameters: { resource: 'order', operation: 'cancel', clientOrderId: 'cancel-me' },
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', orderId: main.orderId });
		expect(sb.getOrder(main.orderId)?.status).toBe('CANCELED');
		expect(sb.getOrder(sub.orderId)?.status).toBe('NEW');
	});

	it('Cancel by a Client Order ID only the sub account holds: an error naming the field, nothing cancelled', async () => {
		const sb = sandbox();
		const sub = subOrder(sb, 'sub-only');
		const run = await runTradingService(sb, {
			parameters: { resource: 'order', operation: 'cancel', clientOrderId: 'sub-only' },
		});
		expect(run.error?.message).toMatch(/^Client Order ID: account 10001 has no order/);
		expect(sb.getOrder(sub.orderId)?.status).toBe('NEW');
		expect(sb.ledger.cancels).toEqual([]);
	});

	it('Cancel Many by symbol: only the main account’s orders are cancelled', async () => {
		const sb = sandbox();
		const subs = [subOrder(sb, 'a'), subOrder(sb, 'b')];
		const mains = [mainOrder(sb, 'a'), mainOrder(sb, 'b')];
		const run = await runTradingService(sb, {
			parameters: {
				resource: 'order',
				operation: 'cancelMany',
				cancelBy: 'symbol',
				symbol: 'BTCUSDT',
			},
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.orderId).sort()).toEqual(
			mains.map((order) => order.orderId).sort(),
		);
		for (const order of subs) expect(sb.getOrder(order.orderId)?.status).toBe('NEW');
		expect(sb.ledger.cancels.map((cancel) => cancel.accountId)).toEqual([MAIN, MAIN]);
	});

	it('Get Many (version 2): the main account’s orders only; All Trading Accounts lists both, each item with its account', async () => {
		const sb = sandbox();
		subOrder(sb, 'x');
		mainOrder(sb, 'x');
		const list = (options: Record<string, unknown> = {}) =>
			runTradingService(sb, {
				parameters: { resource: 'order', operation: 'getMany', returnAll: true, options },
				...v2,
			});
		expect(accountsOfItems(await list())).toEqual([MAIN]);
		expect(accountsOfItems(await list({ allAccounts: true }))).toEqual([MAIN, SUB]);
		const sub = await list({ account: { __rl: true, mode: 'id', value: SUB } });
		expect(accountsOfItems(sub)).toEqual([SUB]);
		const both = await list({ allAccounts: true, account: { __rl: true, mode: 'id', value: SUB } });
		expect(both.error?.message).toMatch(/Account/);
	});

	it('an Account that is not one of the key’s trading accounts: an error naming Account, no order request', async () => {
		const sb = sandbox();
		const since = sb.ledger.requests.length;
		const run = await runTradingService(sb, {
			parameters: {
				resource: 'order',
				operation: 'getMany',
				options: { account: { __rl: true, mode: 'id', value: DEMO_ACCOUNTS.custody } },
			},
			...v2,
		});
		expect(run.error?.message).toMatch(/Account 10005 is not a trading account/);
		expect(
			sb.ledger.requests.slice(since).filter((request) => request.path.includes('/spot/')),
		).toEqual([]);
	});

	it('Get Trades: only the main account’s fills, each item saying its account', async () => {
		const sb = sandbox();
		const sub = subOrder(sb, 'fill-sub');
		const main = mainOrder(sb, 'fill-main');
		sb.fillOrder(sub.orderId);
		sb.fillOrder(main.orderId);
		const run = await runTradingService(sb, {
			parameters: {
				resource: 'account',
				operation: 'getTrades',
				startTime: new Date(sb.now() - 3_600_000).toISOString(),
				endTime: new Date(sb.now() + 60_000).toISOString(),
				returnAll: true,
			},
			...v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.orderId)).toEqual([main.orderId]);
		expect(accountsOfItems(run)).toEqual([MAIN]);
	});
});

describe('Cancel Many by symbol, two items of one symbol in one run (defect 8)', () => {
	for (const parallelRequests of [1, 2]) {
		it(`Parallel Requests ${parallelRequests}: one cancel; both items report the orders cancelled, none "already cancelled"`, async () => {
			const sb = sandbox();
			const orders = Array.from({ length: 30 }, (_, index) => mainOrder(sb, `o-${index}`));
			const run = await runTradingService(sb, {
				parameters: {
					resource: 'order',
					operation: 'cancelMany',
					cancelBy: 'symbol',
					symbol: 'BTCUSDT',
					options: { parallelRequests },
				},
				inputItems: [{ json: {} }, { json: {} }],
				...v2,
			});
			expect(run.error).toBeUndefined();
			expect(run.items).toHaveLength(60);
			for (const item of run.items) expect(item.json).toMatchObject({ outcome: 'placed' });
			expect(run.items.filter((item) => item.json.sameCancelAsItem !== undefined)).toHaveLength(30);
			expect(sb.ledger.cancels).toHaveLength(30);
			for (const order of orders) expect(sb.getOrder(order.orderId)?.status).toBe('CANCELED');
		});
	}
});
