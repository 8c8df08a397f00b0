/**
 * routes/account.ts: POST /api/v1/account/assetTransfer (exact moves, the two records, the
 * family's codes, query-string parameters only) and GET /api/v1/account (balances of one account).
 */
import { DEMO_ACCOUNTS, DEMO_KEYS, type HistoryRecord } from '../../../sandbox';
import { useSandboxClients } from '../../support/sandbox';
import { T0, sell, transfers, placeWith } from '../support';

const { sandbox, master, sub } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});
const place = placeWith(master);

describe('POST /api/v1/account/assetTransfer', () => {
	it('moves the balance exactly and writes two flowType 51 records with one created', async () => {
		const r = await master().transfer({
			fromAccountId: '10001',
			toAccountId: '10005',
			coin: 'USDT',
			quantity: '0.1',
		});
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			success: true,
			timestamp: T0,
			clientOrderId: '',
			orderId: expect.stringMatching(/^\d{1,20}$/),
		});
		await master().transfer({
			fromAccountId: '10001',
			toAccountId: '10005',
			coin: 'USDT',
			quantity: '0.2',
		});
		expect(sandbox().getBalance('10001', 'USDT')).toBe('99999.7');
		expect(sandbox().getBalance('10005', 'USDT')).toBe('250000.3');
		expect(sandbox().ledger.transfers).toEqual([
			{
				id: r.json.orderId,
				fromAccountId: '10001',
				toAccountId: '10005',
				coin: 'USDT',
				quantity: '0.1',
				clientOrderId: '',
				created: String(T0),
				apiKey: DEMO_KEYS.master.apiKey,
			},
			expect.objectContaining({ quantity: '0.2' }),
		]);

		// spec 4.1 rule 2: accountType 1 shows the debit on the source, accountType 5 the credit on the destination
		const a1 = (await transfers(master(), 1)).json as HistoryRecord[];
		const a5 = (await transfers(master(), 5)).json as HistoryRecord[];
		expect(a1.map((x) => [x.accountId, x.change, x.total])).toEqual([
			['10001', '-0.2', '99999.7'],
			['10001', '-0.1', '99999.9'],
		]);
		expect(a5.map((x) => [x.accountId, x.change, x.total])).toEqual([
			['10005', '0.2', '250000.3'],
			['10005', '0.1', '250000.1'],
		]);
		expect(a1[0].created).toBe(a5[0].created);
		expect(a1[0]).toEqual({
			id: expect.stringMatching(/^\d+$/),
			accountId: '10001',
			coin: 'USDT',
			coinId: 'USDT',
			coinName: 'USDT',
			flowTypeValue: 51,
			flowType: 'USER_ACCOUNT_TRANSFER',
			flowName: '',
			change: '-0.2',
			total: '99999.7',
			created: String(T0),
			// Where the UAE documentation's transfer records have them: the transfer's IDs.
			orderId: expect.stringMatching(/^\d{1,20}$/),
			clientOrderId: '',
		});
		expect('symbol' in a1[0]).toBe(false);
		// without accountType the master key sees all four
		expect((await transfers(master())).json).toHaveLength(4);
	});

	it('master -> sub: master sees both sides, the sub key sees only what it received (rules 2-4)', async () => {
		const r = await master().transfer({
			fromAccountId: DEMO_ACCOUNTS.mainTrading,
			toAccountId: DEMO_ACCOUNTS.subTrading,
			coin: 'BTC',
			quantity: '0.25',
		});
		expect(r.status).toBe(200);
		const m = (await transfers(master(), 1)).json as HistoryRecord[];
		expect(m.map((x) => [x.accountId, x.change]).sort()).toEqual([
			['10001', '-0.25'],
			['20001', '0.25'],
		]);
		const s = (await transfers(sub(), 1)).json as HistoryRecord[];
		expect(s.map((x) => [x.accountId, x.coin, x.change, x.total])).toEqual([
			['20001', 'BTC', '0.25', '1.25'],
		]);
		expect((await transfers(sub())).json).toHaveLength(1);
		expect((await transfers(sub(), 3)).json).toEqual([]);
		// rule 3: custody records need a master key
		const c = await transfers(sub(), 5);
		expect(c.status).toBe(400);
		expect(c.json).toEqual({
			code: '-1005',
			msg: 'No permission (custody records need a master-account API key)',
		});
	});

	it('a sub key cannot transfer', async () => {
		const r = await sub().transfer({
			fromAccountId: '20001',
			toAccountId: '10001',
			coin: 'USDT',
			quantity: '1',
		});
		expect(r.status).toBe(400);
		expect(r.json.code).toBe('-1005');
		expect(sandbox().getBalance('20001', 'USDT')).toBe('10000');
	});

	it('rejects insufficient balance with 0401 and changes nothing', async () => {
		const r = await master().transfer({
			fromAccountId: '10005',
			toAccountId: '10001',
			coin: 'BTC',
			quantity: '5.00000001',
		});
		expect(r.status).toBe(400);
		expect(r.json).toEqual({ code: '0401', msg: 'Insufficient asset' });
		expect(sandbox().getBalance('10005', 'BTC')).toBe('5');
		expect(sandbox().ledger.transfers).toHaveLength(0);
		expect((await transfers(master())).json).toEqual([]);
		// exactly the whole balance is fine
		expect(
			(
				await master().transfer({
					fromAccountId: '10005',
					toAccountId: '10001',
					coin: 'BTC',
					quantity: '5',
				})
			).status,
		).toBe(200);
		expect(sandbox().getBalance('10005', 'BTC')).toBe('0');
	});

	it.each([
		[{ toAccountId: '10005', coin: 'USDT', quantity: '1' }, 'fromAccountId'],
		[{ fromAccountId: 'abc', toAccountId: '10005', coin: 'USDT', quantity: '1' }, 'fromAccountId'],
		[{ fromAccountId: '10001', toAccountId: '10005', quantity: '1' }, 'coin'],
		[{ fromAccountId: '10001', toAccountId: '10005', coin: 'USDT' }, 'quantity'],
		[{ fromAccountId: '10001', toAccountId: '10005', coin: 'USDT', quantity: '0' }, 'quantity'],
		[{ fromAccountId: '10001', toAccountId: '10005', coin: 'USDT', quantity: '-1' }, 'quantity'],
		[{ fromAccountId: '10001', toAccountId: '10005', coin: 'USDT', quantity: '1e2' }, 'quantity'],
	])('rejects invalid parameters %j with 0001 naming %s', async (params, field) => {
		const r = await master().transfer(params);
		expect(r.status).toBe(400);
		expect(r.json.code).toBe('0001');
		expect(r.json.msg).toContain(`'${field}'`);
		expect(sandbox().ledger.transfers).toHaveLength(0);
	});

	it.each([
		[
			{ fromAccountId: '99999', toAccountId: '10005' },
			{ code: '-1172', msg: "Invalid from account id ('99999' is not one of your accounts)" },
		],
		[
			{ fromAccountId: '10001', toAccountId: '99999' },
			{ code: '-1173', msg: "Invalid to account id ('99999' is not one of your accounts)" },
		],
		[
			{ fromAccountId: '10001', toAccountId: '10001' },
			{ code: '-1174', msg: 'Transfer not allowed between the same account' },
		],
	])('rejects accounts %j with the family code %j', async (accounts, answer) => {
		const r = await master().transfer({ ...accounts, coin: 'USDT', quantity: '1' });
		expect([r.status, r.json]).toEqual([400, answer]);
		expect(sandbox().ledger.transfers).toHaveLength(0);
		expect(sandbox().getBalance('10001', 'USDT')).toBe('100000');
	});

	it('reads its parameters from the query string only', async () => {
		const r = await master().call({
			method: 'POST',
			path: '/api/v1/account/assetTransfer',
			form: { fromAccountId: '10001', toAccountId: '10005', coin: 'USDT', quantity: '1' },
		});
		expect(r.json.code).toBe('0001');
		expect(r.json.msg).toContain("'fromAccountId'");
	});
});

describe('GET /api/v1/account', () => {
	it("lists every coin of the key's trading account with total, free and locked as decimal strings", async () => {
		sandbox().setBalance('10001', 'SOL', '0');
		const r = await master().account();
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			balances: [
				{ asset: 'BTC', assetId: 'BTC', assetName: 'BTC', total: '10', free: '10', locked: '0' },
				{ asset: 'ETH', assetId: 'ETH', assetName: 'ETH', total: '100', free: '100', locked: '0' },
				{ asset: 'SOL', assetId: 'SOL', assetName: 'SOL', total: '0', free: '0', locked: '0' },
				{
					asset: 'USDT',
					assetId: 'USDT',
					assetName: 'USDT',
					total: '100000',
					free: '100000',
					locked: '0',
				},
			],
			userId: '1830000000000000011',
		});
	});

	it("follows transfers and fills; accountId picks another of the key's accounts", async () => {
		await master().transfer({
			fromAccountId: '10001',
			toAccountId: '10005',
			coin: 'BTC',
			quantity: '0.5',
		});
		const custody = (await master().account({ accountId: '10005' })).json.balances;
		expect(custody.find((x: { asset: string }) => x.asset === 'BTC').total).toBe('5.5');
		const s = await place(sell());
		sandbox().fillOrder(s.orderId, '1');
		const main = (await master().account()).json.balances;
		expect(main.find((x: { asset: string }) => x.asset === 'BTC')).toMatchObject({
			total: '8.5',
			free: '7.5',
			locked: '1',
		});
		expect(
			(await sub().account()).json.balances.find((x: { asset: string }) => x.asset === 'USDT')
				.total,
		).toBe('10000');
		expect((await sub().account({ accountId: '10001' })).json.code).toBe('0104');
		expect((await master().account({ accountId: 'x' })).json.code).toBe('0001');
	});
});

describe('UAE rule: transfer client IDs (clientOrderId on POST /api/v1/account/assetTransfer)', () => {
	const move = { fromAccountId: '10001', toAccountId: '10005', coin: 'USDT', quantity: '0.5' };
	const byClientId = (clientOrderId: string) =>
		master().history({
			flowType: 51,
			startTime: T0 - 60_000,
			endTime: T0 + 1000,
			clientOrderId,
		});

	it('is echoed in the answer, kept in the ledger, and carried by both history records, which it filters', async () => {
		const r = await master().transfer({ ...move, clientOrderId: 'n8n-abc-0-1' });
		expect(r.json).toEqual({
			success: true,
			timestamp: T0,
			clientOrderId: 'n8n-abc-0-1',
			orderId: expect.stringMatching(/^\d{1,20}$/),
		});
		expect(sandbox().ledger.transfers[0].clientOrderId).toBe('n8n-abc-0-1');
		await master().transfer({ ...move, quantity: '0.25', clientOrderId: 'other' });
		await master().transfer({ ...move, quantity: '0.125' });

		const found = (await byClientId('n8n-abc-0-1')).json as HistoryRecord[];
		expect(found.map((x) => [x.accountId, x.change, x.orderId, x.clientOrderId])).toEqual([
			['10005', '0.5', r.json.orderId, 'n8n-abc-0-1'],
			['10001', '-0.5', r.json.orderId, 'n8n-abc-0-1'],
		]);
		expect((await byClientId('nobody')).json).toEqual([]);
		// Without the filter: all six records, the one sent without an ID carrying "".
		const all = (await transfers(master())).json as HistoryRecord[];
		expect(all.map((x) => x.clientOrderId).sort()).toEqual([
			'',
			'',
			'n8n-abc-0-1',
			'n8n-abc-0-1',
			'other',
			'other',
		]);
	});

	it('takes up to 64 characters; 65 are refused with 0001 and nothing moves', async () => {
		expect((await master().transfer({ ...move, clientOrderId: 'x'.repeat(64) })).status).toBe(200);
		const r = await master().transfer({ ...move, clientOrderId: 'y'.repeat(65) });
		expect(r.status).toBe(400);
		expect(r.json.code).toBe('0001');
		expect(r.json.msg).toContain("'clientOrderId'");
		expect(sandbox().ledger.transfers).toHaveLength(1);
	});

	it('a reused ID is refused with -1141 Duplicate order (the strictest reading), nothing moves; an empty one is no ID', async () => {
		await master().transfer({ ...move, clientOrderId: 'once' });
		const again = await master().transfer({ ...move, quantity: '1', clientOrderId: 'once' });
		expect(again.status).toBe(400);
		expect(again.json.code).toBe('-1141');
		expect(sandbox().ledger.transfers).toHaveLength(1);
		expect(sandbox().getBalance('10001', 'USDT')).toBe('99999.5');
		expect((await master().transfer({ ...move, clientOrderId: '' })).status).toBe(200);
		expect((await master().transfer({ ...move, clientOrderId: '' })).status).toBe(200);
		expect(sandbox().ledger.transfers).toHaveLength(3);
	});
});

describe('GET /api/v1/account/checkApiKey', () => {
	const check = (client: ReturnType<typeof master>) =>
		client.call({ method: 'GET', path: '/api/v1/account/checkApiKey' });

	it("answers the key's account type (the UAE documentation's answer), weight 1, for any valid key", async () => {
		expect((await check(master())).json).toEqual({ accountType: 'Master Account' });
		expect((await check(sub())).json).toEqual({ accountType: 'Sub Account' });
		const readOnly = await check(master().withCredentials(DEMO_KEYS.readOnly));
		expect(readOnly.status).toBe(200);
		expect(sandbox().ledger.requests.map((request) => request.weight)).toEqual([1, 1, 1]);
	});

	it('is signed: a wrong secret is refused 0002, a missing signature 0001', async () => {
		const wrong = master().withCredentials({
			apiKey: DEMO_KEYS.master.apiKey,
			secret: DEMO_KEYS.sub.secret,
		});
		expect((await check(wrong)).json.code).toBe('0002');
		const unsigned = await master().call({
			method: 'GET',
			path: '/api/v1/account/checkApiKey',
			signatureIn: 'none',
		});
		expect(unsigned.json.code).toBe('0001');
	});
});

describe('GET /api/v1/account/type', () => {
	it('lists the key’s accounts with their types (the sub account’s trading account last), weight 5', async () => {
		const r = await master().call({ method: 'GET', path: '/api/v1/account/type' });
		expect(r.status).toBe(200);
		expect(
			(r.json as Array<Record<string, unknown>>).map((a) => [
				a.accountId,
				a.accountType,
				a.accountLabel,
			]),
		).toEqual([
			['10001', 1, 'Main Trading Account'],
			['10003', 3, 'Futures Account'],
			['10005', 5, 'Custody Account'],
			['10006', 6, 'Fiat Account'],
			['20001', 1, 'Sub Main Trading Account'],
		]);
		const own = await sub().call({ method: 'GET', path: '/api/v1/account/type' });
		expect((own.json as Array<Record<string, unknown>>).map((a) => a.accountId)).toEqual(['20001']);
		expect(sandbox().ledger.requests.map((q) => q.weight)).toEqual([5, 5]);
	});
});
