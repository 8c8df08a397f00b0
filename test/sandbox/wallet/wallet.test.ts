/**
 * sandbox/wallet: the deposit and withdrawal lists and the deposit address over HTTP (weights,
 * read permission, master key only, newest first (or earliest first, and endTime left out, by
 * behaviour), limits, time range rules, the family's codes),
 * and the controls: a deposit that becomes successful credits the custody account once.
 */
import { DEMO_ACCOUNTS, DEMO_KEYS } from '../../../sandbox';
import { ROUTES } from '../../../sandbox/routes/table';
import { useSandboxClients } from '../../support/sandbox';
import { DAY, T0 } from '../support';

const { sandbox, master, sub } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});

const DEPOSITS = '/api/v1/account/depositOrders';
const WITHDRAWALS = '/api/v1/account/withdrawOrders';
const ADDRESS = '/api/v1/account/deposit/address';

const get = (path: string, query: Record<string, string | number> = {}, client = master()) =>
	client.call({ method: 'GET', path, query });

describe('GET /api/v1/account/depositOrders', () => {
	it('lists deposits newest first with the documented fields, status and statusCode, decimals and IDs as text', async () => {
		const older = sandbox().wallet.deposit({ coin: 'USDT', quantity: '10.5', time: T0 - 2000 });
		const newer = sandbox().wallet.deposit({
			coin: 'BTC',
			quantity: '0.00000001',
			status: 12,
			time: T0 - 1000,
		});
		const r = await get(DEPOSITS, { startTime: T0 - DAY, endTime: T0 });
		expect(r.status).toBe(200);
		expect(r.json).toEqual([
			{
				time: String(T0 - 1000),
				depositOrderId: newer.depositOrderId,
				clientOrderId: '',
				coin: 'BTC',
				coinName: 'BTC',
				address: expect.any(String),
				quantity: '0.00000001',
				refundCode: '',
				refundReason: '',
				status: 12,
				statusCode: '12',
				txId: expect.stringMatching(/^0x[0-9a-f]{64}$/),
			},
			expect.objectContaining({ depositOrderId: older.depositOrderId, status: 4 }),
		]);
		expect(newer.depositOrderId).toMatch(/^D\d+$/);
	});

	it('filters by time (inclusive), coin (alone or Chain_Coin), deposit order ID; limit 1 to 1000', async () => {
		const a = sandbox().wallet.deposit({ coin: 'USDT', quantity: '1', time: T0 - 3000 });
		sandbox().wallet.deposit({ coin: 'USDT', quantity: '2', time: T0 - 2000, chainType: 'TRC20' });
		sandbox().wallet.deposit({ coin: 'ETH', quantity: '3', time: T0 - 1000 });
		const ids = async (query: Record<string, string | number>) =>
			((await get(DEPOSITS, query)).json as Array<{ quantity: string }>).map((d) => d.quantity);
		expect(await ids({ startTime: T0 - 3000, endTime: T0 - 2000 })).toEqual(['2', '1']);
		expect(await ids({ coin: 'USDT' })).toEqual(['2', '1']);
		expect(await ids({ coin: 'TRC20_USDT' })).toEqual(['2']);
		expect(await ids({ coin: 'ERC20_USDT' })).toEqual(['1']);
		expect(await ids({ depositOrderId: a.depositOrderId })).toEqual(['1']);
		expect(await ids({ limit: 2 })).toEqual(['3', '2']);
		for (const limit of [0, 1001, 'x']) {
			const r = await get(DEPOSITS, { limit });
			expect([r.status, (r.json as { code: string }).code]).toEqual([400, '0001']);
		}
		const reversed = await get(DEPOSITS, { startTime: T0, endTime: T0 - 1 });
		expect((reversed.json as { code: string }).code).toBe('0001');
		// fromId is "to be released": refused rather than ignored.
		expect(((await get(DEPOSITS, { fromId: 1 })).json as { code: string }).code).toBe('0001');
	});

	it('behaviour walletOrder ascending: the earliest `limit` earliest first; walletEndTime exclusive: none AT endTime', async () => {
		for (const [quantity, time] of [
			['1', T0 - 3000],
			['2', T0 - 2000],
			['3', T0 - 2000],
			['4', T0 - 1000],
		] as const)
			sandbox().wallet.deposit({ coin: 'USDT', quantity, time });
		sandbox().wallet.withdrawal({ coin: 'USDT', quantity: '5', time: T0 - 2000 });
		sandbox().wallet.withdrawal({ coin: 'USDT', quantity: '6', time: T0 - 1000 });
		const quantities = async (path: string, query: Record<string, number>) =>
			((await get(path, query)).json as Array<{ quantity: string }>).map((d) => d.quantity);
		const range = { startTime: T0 - 3000, endTime: T0 - 1000 };
		expect(await quantities(DEPOSITS, { ...range, limit: 3 })).toEqual(['4', '3', '2']);
		sandbox().setBehaviour({ walletOrder: 'ascending' });
		expect(await quantities(DEPOSITS, { ...range, limit: 3 })).toEqual(['1', '2', '3']);
		expect(await quantities(WITHDRAWALS, range)).toEqual(['5', '6']);
		sandbox().setBehaviour({ walletOrder: 'descending', walletEndTime: 'exclusive' });
		expect(await quantities(DEPOSITS, range)).toEqual(['3', '2', '1']);
		expect(await quantities(DEPOSITS, { ...range, endTime: T0 - 2000 })).toEqual(['1']);
		expect(await quantities(WITHDRAWALS, range)).toEqual(['5']);
	});

	it('weighs 5, needs the read permission and a master key (-1005 for a sub account key)', async () => {
		await get(DEPOSITS);
		expect(sandbox().ledger.requests.at(-1)).toEqual(
			expect.objectContaining({ path: DEPOSITS, weight: 5 }),
		);
		const r = await get(DEPOSITS, {}, sub());
		expect([r.status, (r.json as { code: string }).code]).toEqual([400, '-1005']);
		for (const path of [DEPOSITS, WITHDRAWALS, ADDRESS])
			expect(ROUTES[path].GET).toEqual(
				expect.objectContaining({ permission: 'read', rateClass: 'query', signed: true }),
			);
		// A read-only key reads them.
		const readOnly = master().withCredentials(DEMO_KEYS.readOnly);
		expect((await get(DEPOSITS, {}, readOnly)).status).toBe(200);
	});
});

describe('the deposit controls', () => {
	it('credits the custody account once when a deposit becomes successful, with a CUSTODY_DEPOSIT record', async () => {
		const before = sandbox().getBalance(DEMO_ACCOUNTS.custody, 'USDT');
		const deposit = sandbox().wallet.deposit({ coin: 'USDT', quantity: '5.25', status: 12 });
		expect(sandbox().getBalance(DEMO_ACCOUNTS.custody, 'USDT')).toBe(before);
		sandbox().wallet.setDepositStatus(deposit.depositOrderId, 4);
		sandbox().wallet.setDepositStatus(deposit.depositOrderId, 8);
		sandbox().wallet.setDepositStatus(deposit.depositOrderId, 4);
		expect(sandbox().getBalance(DEMO_ACCOUNTS.custody, 'USDT')).toBe('250005.25');
		const records = (await master().history({ flowType: 900, startTime: T0 - 1000, endTime: T0 }))
			.json as Array<{ change: string; accountId: string }>;
		expect(records).toEqual([
			expect.objectContaining({ change: '5.25', accountId: DEMO_ACCOUNTS.custody }),
		]);
	});

	it('refuses a status the documentation does not list, and a quantity that is not a positive plain decimal', () => {
		expect(() => sandbox().wallet.deposit({ coin: 'USDT', quantity: '1', status: 2 })).toThrow();
		expect(() => sandbox().wallet.deposit({ coin: 'USDT', quantity: '1e3' })).toThrow();
		expect(() => sandbox().wallet.deposit({ coin: 'USDT', quantity: '0' })).toThrow();
	});

	it('forgets deposits and withdrawals on reset', () => {
		sandbox().wallet.deposit({ coin: 'USDT', quantity: '1' });
		sandbox().wallet.withdrawal({ coin: 'USDT', quantity: '1' });
		sandbox().reset();
		expect(sandbox().wallet.deposits()).toEqual([]);
		expect(sandbox().wallet.withdrawals()).toEqual([]);
	});
});

describe('GET /api/v1/account/withdrawOrders', () => {
	it('lists withdrawals newest first with fee and amount received; weight 5', async () => {
		sandbox().wallet.withdrawal({ coin: 'USDT', quantity: '100', fee: '1.5', time: T0 - 2000 });
		sandbox().wallet.withdrawal({ coin: 'BTC', quantity: '0.1', status: 1, time: T0 - 1000 });
		const r = await get(WITHDRAWALS);
		expect(r.status).toBe(200);
		expect(r.json).toEqual([
			expect.objectContaining({ coin: 'BTC', status: 1, statusCode: 'BROKER_AUDITING_STATUS' }),
			expect.objectContaining({
				id: expect.stringMatching(/^W\d+$/),
				coin: 'USDT',
				quantity: '100',
				fee: '1.5',
				arriveQuantity: '98.5',
				status: 6,
				statusCode: 'WITHDRAWAL_SUCCESS_STATUS',
				time: String(T0 - 2000),
			}),
		]);
		expect(sandbox().ledger.requests.at(-1)?.weight).toBe(5);
	});

	it('takes at most 7 days between startTime and endTime, and by default the last 7 days', async () => {
		sandbox().wallet.withdrawal({ coin: 'USDT', quantity: '1', time: T0 - 8 * DAY });
		sandbox().wallet.withdrawal({ coin: 'USDT', quantity: '2', time: T0 - DAY });
		const quantities = async (query: Record<string, number>) =>
			((await get(WITHDRAWALS, query)).json as Array<{ quantity: string }>).map((w) => w.quantity);
		expect(await quantities({})).toEqual(['2']);
		expect(await quantities({ startTime: T0 - 9 * DAY, endTime: T0 - 2 * DAY })).toEqual(['1']);
		const r = await get(WITHDRAWALS, { startTime: T0 - 8 * DAY, endTime: T0 });
		expect([r.status, (r.json as { code: string }).code]).toEqual([400, '0001']);
	});
});

describe('GET /api/v1/account/deposit/address', () => {
	it('answers the address of a coin on a chain, the same each time; weight 1', async () => {
		const r = await get(ADDRESS, { coin: 'USDT', chainType: 'TRC20' });
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			canDeposit: true,
			address: expect.stringMatching(/^T/),
			addressExt: '',
			minQuantity: '1',
			needAddressTag: false,
			requiredConfirmTimes: 64,
			canWithdrawConfirmTimes: 64,
			coinType: 'TRC20_TOKEN',
		});
		expect((await get(ADDRESS, { coin: 'USDT', chainType: 'TRC20' })).json).toEqual(r.json);
		expect(sandbox().ledger.requests.at(-1)?.weight).toBe(1);
	});

	it('refuses a missing coin or chain type, and a chain the coin has no address on (0001)', async () => {
		const queries: Array<Record<string, string>> = [
			{ coin: 'USDT' },
			{ chainType: 'ERC20' },
			{ coin: 'USDT', chainType: 'BTC' },
		];
		for (const query of queries) {
			const r = await get(ADDRESS, query);
			expect([r.status, (r.json as { code: string }).code]).toEqual([400, '0001']);
		}
	});
});
