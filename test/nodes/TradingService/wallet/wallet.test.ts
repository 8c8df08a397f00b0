/**
 * Wallet (version 2) through n8n-core's real executor against the sandbox: Get Deposits and Get
 * Withdrawals (time range, Coin, Status, Return All and Limit paged by time, statusText, exact
 * decimals and IDs as text) and Get Deposit Address.
 */
import { DEMO_KEYS } from '../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { useSandbox } from '../../../support/sandbox';

const DEPOSITS = '/api/v1/account/depositOrders';
const WITHDRAWALS = '/api/v1/account/withdrawOrders';
const ADDRESS = '/api/v1/account/deposit/address';
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const sandbox = useSandbox({ rateLimit: false, requestRates: false });
const v2 = { typeVersion: 2 };

const list = (operation: string, overrides: Record<string, unknown> = {}) => ({
	resource: 'wallet',
	operation,
	startTime: new Date(Date.now() - 6 * HOUR).toISOString(),
	endTime: new Date(Date.now()).toISOString(),
	...overrides,
});
const queriesSent = (path: string) =>
	requestsTo(sandbox(), path).map((request) => new URLSearchParams(request.query));

describe('Wallet > Get Deposits', () => {
	// The documentation states neither the list's order nor whether endTime includes the records
	// AT it: each reading of the sandbox (behaviour walletOrder, walletEndTime) must give the same.
	it.each([
		{ walletOrder: 'descending', walletEndTime: 'inclusive' },
		{ walletOrder: 'descending', walletEndTime: 'exclusive' },
		{ walletOrder: 'ascending', walletEndTime: 'exclusive' },
	] as const)(
		'Return All pages by time through 2,300 deposits, three per millisecond (%o): each once, newest first, exact',
		async (behaviour) => {
			sandbox().setBehaviour(behaviour);
			const base = Date.now() - 5 * HOUR;
			for (let i = 0; i < 2300; i++)
				sandbox().wallet.deposit({
					coin: 'USDT',
					quantity: `${i}.000000000000000001`,
					time: base + Math.floor(i / 3),
				});
			const run = await runTradingService(sandbox(), {
				parameters: list('getDeposits', { returnAll: true }),
				node: v2,
			});
			expect(run.error).toBeUndefined();
			const expected = sandbox()
				.wallet.deposits()
				.map((record) => {
					const answer: Partial<typeof record> = { ...record };
					delete answer.chainType;
					return { ...answer, statusText: 'successful' };
				});
			expect(run.items.map((item) => item.json)).toEqual(expected);
			const sent = queriesSent(DEPOSITS);
			expect(sent.map((query) => query.get('limit'))).toEqual(['1000', '1000', '1000']);
			// A full page narrows the range to its last millisecond, which holds records on both sides
			// of the page's end (the 1,000th and 1,001st record share it), sent 1 ms wider while no
			// page has shown the exchange includes records at the bound.
			if (behaviour.walletOrder === 'descending')
				expect(sent[1].get('endTime')).toBe(String(Number(expected[999].time) + 1));
			else expect(sent[1].get('startTime')).toBe(String(Number(expected[1300].time) - 1));
			for (const query of sent) expect(query.get('coin')).toBeNull();
		},
	);

	it("a full page whose last millisecond's records and the next millisecond's exceed a page: each once, either reading of endTime", async () => {
		const t = Date.now() - HOUR;
		for (const [time, count] of [
			[t + 1, 600],
			[t, 600],
			[t - 1, 5],
		])
			for (let i = 0; i < count; i++)
				sandbox().wallet.deposit({ coin: 'USDT', quantity: '1', time });
		for (const walletEndTime of ['inclusive', 'exclusive'] as const) {
			sandbox().setBehaviour({ walletEndTime });
			const run = await runTradingService(sandbox(), {
				parameters: list('getDeposits', { returnAll: true }),
				node: v2,
			});
			expect(run.error).toBeUndefined();
			const ids = run.items.map((item) => item.json.depositOrderId);
			expect(ids).toEqual(
				sandbox()
					.wallet.deposits()
					.map((d) => d.depositOrderId),
			);
		}
	});

	it('Coin and Status match each record exactly; Limit keeps the newest; the status in plain words next to the code', async () => {
		const now = Date.now();
		sandbox().wallet.deposit({ coin: 'USDT', quantity: '1', status: 12, time: now - 4000 });
		const ok = sandbox().wallet.deposit({ coin: 'USDT', quantity: '2.5', time: now - 3000 });
		sandbox().wallet.deposit({ coin: 'BTC', quantity: '3', time: now - 2000 });
		const newest = sandbox().wallet.deposit({ coin: 'USDT', quantity: '4', time: now - 1000 });
		const run = await runTradingService(sandbox(), {
			parameters: list('getDeposits', {
				coin: { __rl: true, mode: 'list', value: 'USDT' },
				status: [4],
				limit: 1,
			}),
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual([
			expect.objectContaining({
				depositOrderId: newest.depositOrderId,
				status: 4,
				statusCode: '4',
				statusText: 'successful',
			}),
		]);
		const two = await runTradingService(sandbox(), {
			parameters: list('getDeposits', { status: [4, 12], coin: 'USDT', limit: 10 }),
			node: v2,
		});
		expect(two.items.map((item) => [item.json.quantity, item.json.statusText])).toEqual([
			['4', 'successful'],
			['2.5', 'successful'],
			['1', 'processing'],
		]);
		expect(ok.depositOrderId).toMatch(/^D\d+$/);
	});

	it('refuses an End before the Start and an unknown status before any request', async () => {
		const reversed = await runTradingService(sandbox(), {
			parameters: list('getDeposits', {
				startTime: new Date().toISOString(),
				endTime: new Date(Date.now() - HOUR).toISOString(),
			}),
			node: v2,
		});
		expect(reversed.error?.message).toMatch(/End: is before Start/);
		const status = await runTradingService(sandbox(), {
			parameters: list('getDeposits', { status: [2] }),
			node: v2,
		});
		expect(status.error?.message).toMatch(/Status: 2 is not a deposit status/);
		expect(requestsTo(sandbox(), DEPOSITS)).toHaveLength(0);
	});

	it("a sub account's key is refused with the exchange's code: custody records need a master key", async () => {
		const run = await runTradingService(sandbox(), {
			parameters: list('getDeposits'),
			node: v2,
			key: DEMO_KEYS.sub,
		});
		expect(run.error?.message).toBe('The API key is not allowed to do this');
		expect(run.serialised).toContain('-1005');
		expect(run.serialised).toContain('master-account API key');
	});
});

describe('Wallet > Get Withdrawals', () => {
	it('reads a range longer than 7 days 7 days a request, newest first, fee and amount received exact', async () => {
		const now = Date.now();
		sandbox().wallet.withdrawal({
			coin: 'USDT',
			quantity: '100',
			fee: '0.000001',
			time: now - 16 * DAY,
		});
		sandbox().wallet.withdrawal({ coin: 'BTC', quantity: '0.5', status: 2, time: now - 9 * DAY });
		sandbox().wallet.withdrawal({ coin: 'USDT', quantity: '7', status: 3, time: now - HOUR });
		const run = await runTradingService(sandbox(), {
			parameters: list('getWithdrawals', {
				startTime: new Date(now - 20 * DAY).toISOString(),
				returnAll: true,
			}),
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(
			run.items.map((item) => [item.json.quantity, item.json.arriveQuantity, item.json.statusText]),
		).toEqual([
			['7', '7', 'in progress'],
			['0.5', '0.5', 'rejected'],
			['100', '99.999999', 'successful'],
		]);
		const sent = queriesSent(WITHDRAWALS);
		expect(sent).toHaveLength(3);
		for (const query of sent)
			expect(Number(query.get('endTime')) - Number(query.get('startTime'))).toBeLessThanOrEqual(
				7 * DAY,
			);
		expect(Number(sent[0].get('endTime'))).toBeGreaterThan(Number(sent[1].get('endTime')));
	});
});

describe('Wallet > Get Deposit Address', () => {
	it('answers the address of the coin on the chain, with coin and chain type', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'wallet',
				operation: 'getDepositAddress',
				coin: { __rl: true, mode: 'list', value: 'USDT' },
				chainType: 'ERC20',
			},
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual([
			expect.objectContaining({
				coin: 'USDT',
				chainType: 'ERC20',
				address: expect.stringMatching(/^0x[0-9a-f]{40}$/),
				canDeposit: true,
				minQuantity: '1',
			}),
		]);
		expect(queriesSent(ADDRESS)[0].get('chainType')).toBe('ERC20');
	});

	it('refuses a chain type with spaces before any request; a chain the exchange has no address on is its refusal', async () => {
		const empty = await runTradingService(sandbox(), {
			parameters: {
				resource: 'wallet',
				operation: 'getDepositAddress',
				coin: 'USDT',
				chainType: 'ERC 20',
			},
			node: v2,
		});
		expect(empty.error?.message).toMatch(/Chain Type/);
		expect(requestsTo(sandbox(), ADDRESS)).toHaveLength(0);
		const wrong = await runTradingService(sandbox(), {
			parameters: {
				resource: 'wallet',
				operation: 'getDepositAddress',
				coin: 'USDT',
				chainType: 'BTC',
			},
			node: v2,
		});
		expect(wrong.error).toBeDefined();
		expect(requestsTo(sandbox(), ADDRESS)).toHaveLength(1);
	});
});
