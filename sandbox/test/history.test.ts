import { DEMO_ACCOUNTS, DEMO_KEYS, startSandbox, type HistoryRecord, type Sandbox } from '../index';
import { createHash } from 'node:crypto';

import { TestClient } from '../testClient';

const digest = (recs: HistoryRecord[]) =>
	createHash('sha256').update(JSON.stringify(recs)).digest('hex');

const DAY = 86_400_000;
const T0 = 1_800_000_000_000;
let clock = T0;
let sb: Sandbox;
let master: TestClient;
let sub: TestClient;

beforeAll(async () => {
	sb = await startSandbox({ now: () => clock, rateLimit: false });
	master = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
	sub = master.withCredentials(DEMO_KEYS.sub);
});
afterAll(async () => {
	await sb.stop();
});
beforeEach(() => {
	clock = T0;
	sb.reset();
});

const window = { startTime: T0 - 30 * DAY, endTime: T0 + 1000 };
const transfers = (client: TestClient, accountType?: number) =>
	client.history({ flowType: 51, accountType, ...window });

describe('POST /api/v1/account/assetTransfer', () => {
	it('moves the balance exactly and writes two flowType 51 records with one created', async () => {
		const r = await master.transfer({
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
		await master.transfer({
			fromAccountId: '10001',
			toAccountId: '10005',
			coin: 'USDT',
			quantity: '0.2',
		});
		expect(sb.getBalance('10001', 'USDT')).toBe('99999.7');
		expect(sb.getBalance('10005', 'USDT')).toBe('250000.3');
		expect(sb.ledger.transfers).toEqual([
			{
				id: r.json.orderId,
				fromAccountId: '10001',
				toAccountId: '10005',
				coin: 'USDT',
				quantity: '0.1',
				created: String(T0),
				apiKey: DEMO_KEYS.master.apiKey,
			},
			expect.objectContaining({ quantity: '0.2' }),
		]);

		// spec 4.1 rule 2: accountType 1 shows the debit on the source, accountType 5 the credit on the destination
		const a1 = (await transfers(master, 1)).json as HistoryRecord[];
		const a5 = (await transfers(master, 5)).json as HistoryRecord[];
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
		});
		expect('symbol' in a1[0]).toBe(false);
		// without accountType the master key sees all four
		expect((await transfers(master)).json).toHaveLength(4);
	});

	it('master -> sub: master sees both sides, the sub key sees only what it received (rules 2-4)', async () => {
		const r = await master.transfer({
			fromAccountId: DEMO_ACCOUNTS.mainTrading,
			toAccountId: DEMO_ACCOUNTS.subTrading,
			coin: 'BTC',
			quantity: '0.25',
		});
		expect(r.status).toBe(200);
		const m = (await transfers(master, 1)).json as HistoryRecord[];
		expect(m.map((x) => [x.accountId, x.change]).sort()).toEqual([
			['10001', '-0.25'],
			['20001', '0.25'],
		]);
		const s = (await transfers(sub, 1)).json as HistoryRecord[];
		expect(s.map((x) => [x.accountId, x.coin, x.change, x.total])).toEqual([
			['20001', 'BTC', '0.25', '1.25'],
		]);
		expect((await transfers(sub)).json).toHaveLength(1);
		expect((await transfers(sub, 3)).json).toEqual([]);
		// rule 3: custody records need a master key
		const c = await transfers(sub, 5);
		expect(c.status).toBe(400);
		expect(c.json).toEqual({
			code: '-1005',
			msg: 'No permission (custody records need a master-account API key)',
		});
	});

	it('a sub key cannot transfer', async () => {
		const r = await sub.transfer({
			fromAccountId: '20001',
			toAccountId: '10001',
			coin: 'USDT',
			quantity: '1',
		});
		expect(r.status).toBe(400);
		expect(r.json.code).toBe('-1005');
		expect(sb.getBalance('20001', 'USDT')).toBe('10000');
	});

	it('rejects insufficient balance with 0401 and changes nothing', async () => {
		const r = await master.transfer({
			fromAccountId: '10005',
			toAccountId: '10001',
			coin: 'BTC',
			quantity: '5.00000001',
		});
		expect(r.status).toBe(400);
		expect(r.json).toEqual({ code: '0401', msg: 'Insufficient asset' });
		expect(sb.getBalance('10005', 'BTC')).toBe('5');
		expect(sb.ledger.transfers).toHaveLength(0);
		expect((await transfers(master)).json).toEqual([]);
		// exactly the whole balance is fine
		expect(
			(
				await master.transfer({
					fromAccountId: '10005',
					toAccountId: '10001',
					coin: 'BTC',
					quantity: '5',
				})
			).status,
		).toBe(200);
		expect(sb.getBalance('10005', 'BTC')).toBe('0');
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
		const r = await master.transfer(params);
		expect(r.status).toBe(400);
		expect(r.json.code).toBe('0001');
		expect(r.json.msg).toContain(`'${field}'`);
		expect(sb.ledger.transfers).toHaveLength(0);
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
		const r = await master.transfer({ ...accounts, coin: 'USDT', quantity: '1' });
		expect([r.status, r.json]).toEqual([400, answer]);
		expect(sb.ledger.transfers).toHaveLength(0);
		expect(sb.getBalance('10001', 'USDT')).toBe('100000');
	});

	it('reads its parameters from the query string only', async () => {
		const r = await master.call({
			method: 'POST',
			path: '/api/v1/account/assetTransfer',
			form: { fromAccountId: '10001', toAccountId: '10005', coin: 'USDT', quantity: '1' },
		});
		expect(r.json.code).toBe('0001');
		expect(r.json.msg).toContain("'fromAccountId'");
	});
});

describe('GET /api/v1/account/balanceFlow', () => {
	it('validates its parameters', async () => {
		const base = { flowType: 32, startTime: 0, endTime: T0 };
		const cases: Array<[Record<string, string | number | undefined>, string]> = [
			[{ ...base, flowType: undefined }, 'flowType'],
			[{ ...base, flowType: 3 }, 'flowType'],
			[{ ...base, flowType: 'x' }, 'flowType'],
			[{ ...base, startTime: undefined }, 'startTime'],
			[{ ...base, endTime: undefined }, 'endTime'],
			[{ ...base, endTime: '17e11' }, 'endTime'],
			[{ ...base, accountType: 2 }, 'accountType'],
			[{ ...base, limit: 0 }, 'limit'],
			[{ ...base, limit: 501 }, 'limit'],
			[{ ...base, limit: -1 }, 'limit'],
			[{ ...base, startTime: T0 + 1 }, 'startTime'],
		];
		for (const [q, field] of cases) {
			const r = await master.history(q);
			expect([r.status, r.json.code, field]).toEqual([400, '0001', field]);
			expect(r.json.msg).toContain(`'${field}'`);
		}
	});

	it('returns records newest first (created desc, then id desc), bounds inclusive', async () => {
		sb.addRecords([
			{
				accountId: '10003',
				flowTypeValue: 32,
				change: '-1',
				created: String(T0 - 3000),
				symbol: 'BTCUSDT-PERPETUAL',
			},
			{
				accountId: '10003',
				flowTypeValue: 32,
				change: '-2',
				created: String(T0 - 1000),
				symbol: 'ETHUSDT-PERPETUAL',
			},
			{ accountId: '10003', flowTypeValue: 32, change: '-3', created: String(T0 - 2000) },
			{ accountId: '10003', flowTypeValue: 32, change: '-4', created: String(T0 - 1000) },
			{ accountId: '10003', flowTypeValue: 51, change: '5', created: String(T0 - 1000) },
		]);
		const r = await master.history({ flowType: 32, startTime: T0 - 3000, endTime: T0 - 1000 });
		const recs = r.json as HistoryRecord[];
		expect(recs.map((x) => x.change)).toEqual(['-4', '-2', '-3', '-1']);
		for (const x of recs) {
			expect(typeof x.symbol).toBe('string');
			expect(x.flowType).toBe('FUNDING_SETTLEMENT');
			expect(x.flowName).toBe('');
			expect(x.created).toMatch(/^\d+$/);
		}
		expect(BigInt(recs[0].id) > BigInt(recs[1].id)).toBe(true);
		const inner = await master.history({ flowType: 32, startTime: T0 - 2999, endTime: T0 - 1001 });
		expect(inner.json.map((x: HistoryRecord) => x.change)).toEqual(['-3']);
	});

	it('applies the retention windows (7 days for 1/2, 30 days otherwise) without rejecting the query', async () => {
		sb.addRecords([
			{ accountId: '10003', flowTypeValue: 32, change: '-1', created: String(T0 - 30 * DAY) },
			{ accountId: '10003', flowTypeValue: 32, change: '-2', created: String(T0 - 30 * DAY - 1) },
			{
				accountId: '10001',
				flowTypeValue: 1,
				change: '1',
				created: String(T0 - 7 * DAY),
				symbol: 'BTCUSDT',
			},
			{
				accountId: '10001',
				flowTypeValue: 1,
				change: '2',
				created: String(T0 - 7 * DAY - 1),
				symbol: 'BTCUSDT',
			},
			{
				accountId: '10001',
				flowTypeValue: 2,
				change: '-3',
				created: String(T0 - 8 * DAY),
				symbol: 'BTCUSDT',
			},
			{ accountId: '10005', flowTypeValue: 900, change: '9', created: String(T0 - 29 * DAY) },
		]);
		const q = { startTime: 0, endTime: T0 };
		expect(
			(await master.history({ flowType: 32, ...q })).json.map((x: HistoryRecord) => x.change),
		).toEqual(['-1']);
		expect(
			(await master.history({ flowType: 1, ...q })).json.map((x: HistoryRecord) => x.change),
		).toEqual(['1']);
		expect((await master.history({ flowType: 2, ...q })).json).toEqual([]);
		expect(
			(await master.history({ flowType: 900, ...q })).json.map((x: HistoryRecord) => x.flowType),
		).toEqual(['CUSTODY_DEPOSIT']);
		// the window moves with the server clock
		clock = T0 + 1;
		expect((await master.history({ flowType: 32, ...q })).json).toEqual([]);
	});

	it('filters by accountType and by the key (master sees every account, sub only its own)', async () => {
		for (const [acc, t] of [
			['10001', 1],
			['10003', 3],
			['10005', 5],
			['10006', 6],
			['20001', 1],
		] as Array<[string, number]>) {
			sb.addRecords([
				{ accountId: acc, flowTypeValue: 51, change: String(t), created: String(T0 - 10) },
			]);
		}
		const accs = async (c: TestClient, accountType?: number) =>
			((await transfers(c, accountType)).json as HistoryRecord[]).map((x) => x.accountId).sort();
		expect(await accs(master)).toEqual(['10001', '10003', '10005', '10006', '20001']);
		expect(await accs(master, 1)).toEqual(['10001', '20001']);
		expect(await accs(master, 3)).toEqual(['10003']);
		expect(await accs(master, 5)).toEqual(['10005']);
		expect(await accs(master, 6)).toEqual(['10006']);
		expect(await accs(sub)).toEqual(['20001']);
		expect(await accs(sub, 1)).toEqual(['20001']);
		expect(await accs(sub, 6)).toEqual([]);
		expect(await accs(master.withCredentials(DEMO_KEYS.readOnly), 5)).toEqual(['10005']);
	});

	it('limit defaults to 50 and goes up to 500', async () => {
		sb.seedRecords({ flowType: 32, count: 600, startTime: T0 - DAY, endTime: T0 });
		const q = { flowType: 32, startTime: T0 - DAY, endTime: T0 };
		expect((await master.history(q)).json).toHaveLength(50);
		const all = (await master.history({ ...q, limit: 500 })).json as HistoryRecord[];
		expect(all).toHaveLength(500);
		expect(all[0].created).toBe(String(T0));
		for (let i = 1; i < all.length; i++)
			expect(Number(all[i - 1].created)).toBeGreaterThanOrEqual(Number(all[i].created));
	});
});

describe('seeding', () => {
	it('seeds 100,000 funding fees quickly and deterministically; pages stay fast', async () => {
		const opts = {
			flowType: 32,
			count: 100_000,
			startTime: T0 - 30 * DAY + 1,
			endTime: T0,
			seed: 7,
			perMillisecond: 2,
		};
		const t1 = Date.now();
		const a = sb.seedRecords(opts);
		const seedMs = Date.now() - t1;
		expect(seedMs).toBeLessThan(3000); // ~0.3-0.6 s alone; room for a loaded CI machine
		expect(a).toHaveLength(100_000);
		sb.reset();
		const b = sb.seedRecords(opts);
		expect(digest(b)).toBe(digest(a));
		expect(b[12345]).toEqual(a[12345]);
		expect(a[0].created).toBe(String(opts.startTime));
		expect(a[a.length - 1].created).toBe(String(T0));
		expect(a[0].created).toBe(a[1].created); // perMillisecond 2
		expect(a[1].created).not.toBe(a[2].created);
		expect(new Set(a.map((x) => x.symbol))).toEqual(
			new Set(['BTCUSDT-PERPETUAL', 'ETHUSDT-PERPETUAL']),
		);
		expect(new Set(a.map((x) => x.id)).size).toBe(100_000);
		const other = sb.seedRecords({ ...opts, seed: 8, accountId: '20001' });
		expect(digest(other.map((x) => ({ ...x, id: '', accountId: '' })))).not.toBe(
			digest(a.map((x) => ({ ...x, id: '', accountId: '' }))),
		);

		// walk the whole 100k history backwards, 500 at a time, by moving endTime (a client's pagination)
		const t2 = Date.now();
		let end = T0;
		let seen = 0;
		let pages = 0;
		const ids = new Set<string>();
		for (;;) {
			const page = (
				await master.history({
					flowType: 32,
					accountType: 3,
					startTime: opts.startTime,
					endTime: end,
					limit: 500,
				})
			).json as HistoryRecord[];
			pages++;
			const fresh = page.filter((x) => !ids.has(x.id));
			for (const x of fresh) ids.add(x.id);
			seen += fresh.length;
			if (page.length < 500) break;
			end = Number(page[page.length - 1].created);
		}
		expect(seen).toBe(100_000);
		expect(pages).toBeGreaterThan(200);
		expect(Date.now() - t2).toBeLessThan(15_000);
	});
});
