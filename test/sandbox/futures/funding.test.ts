/**
 * futures/funding.ts and the settlement in futures/futures.ts: periods on multiples of
 * fundingIntervalMs (default 8 h), seeded default rates, scripted rates consumed one per period
 * (the last one staying), the seeded history, and each boundary the clock passes settled once:
 * a historyFundingRate entry per contract, and per LONG position a funding fee
 * −(baseQty × markPrice × rate), its flowType 32 record on the contract account and the balance.
 */
import { DEMO_ACCOUNTS, DEMO_KEYS, startSandbox } from '../../../sandbox';
import { Funding, HISTORY_PERIODS, defaultRate } from '../../../sandbox/futures/funding';
import { Futures } from '../../../sandbox/futures/futures';
import { Market } from '../../../sandbox/market/market';
import { StreamEvents } from '../../../sandbox/stream/events';
import { TestClient } from '../../../sandbox/testClient';
import { useSandboxClients } from '../../support/sandbox';
import { HOUR, T0 } from '../support';

const I = 8 * HOUR;
const BTC = 'BTCUSDT-PERPETUAL';

describe('Funding (unit)', () => {
	it('default rates: deterministic, -0.0003 to 0.0007 in millionths, never 0', () => {
		const rates = Array.from({ length: 2000 }, (_, k) => defaultRate(BTC, k));
		expect(rates).toEqual(Array.from({ length: 2000 }, (_, k) => defaultRate(BTC, k)));
		for (const r of rates) {
			expect(Number(r)).toBeGreaterThanOrEqual(-0.0003);
			expect(Number(r)).toBeLessThanOrEqual(0.0007);
			expect(r).toMatch(/^-?0(\.\d{1,6})?$/);
			expect(r).not.toBe('0');
		}
		expect(new Set(rates).size).toBeGreaterThan(500);
		expect(defaultRate('ETHUSDT-PERPETUAL', 7)).not.toBe(defaultRate(BTC, 7));
	});

	it('scripted rates start with the running period, one per period, the last one stays', () => {
		const f = new Funding(I);
		f.reset(T0 + 5);
		const k = f.periodAt(T0 + 5);
		f.setRates(BTC, ['0.0001', '0.0006'], T0 + 5);
		expect([k - 1, k, k + 1, k + 2, k + 9].map((p) => f.rateOf(BTC, p))).toEqual([
			defaultRate(BTC, k - 1),
			'0.0001',
			'0.0006',
			'0.0006',
			'0.0006',
		]);
		expect(f.current(BTC, T0 + 5)).toEqual({ rate: '0.0001', nextFundingTime: T0 + I });
		expect(f.current('ETHUSDT-PERPETUAL', T0 + 5).rate).toBe(defaultRate('ETHUSDT-PERPETUAL', k));
	});

	it('history: the last 90 settlements of every contract at reset, ids growing, each boundary once', () => {
		const f = new Funding(I);
		f.reset(T0 + 5);
		const h = f.history(BTC, 1000);
		expect(h).toHaveLength(HISTORY_PERIODS);
		expect(h[0]).toEqual({
			id: '357',
			symbol: BTC,
			settleTime: T0,
			settleRate: defaultRate(BTC, T0 / I - 1),
		});
		expect(h[89].settleTime).toBe(T0 - 89 * I);
		expect(f.due(T0 + I - 1)).toEqual([]);
		const due = f.due(T0 + 2 * I);
		expect(due.map((d) => d.time)).toEqual([T0 + I, T0 + 2 * I]);
		expect(due[0].rates.get(BTC)).toBe(defaultRate(BTC, T0 / I));
		expect(f.due(T0 + 2 * I)).toEqual([]);
		expect(f.history(BTC, 2).map((r) => r.id)).toEqual(['365', '361']);
		expect(f.history(BTC, 5, 357n, 361n).map((r) => r.id)).toEqual(['361', '357']);
	});

	it('an interval must be a positive integer', () => {
		expect(() => new Funding(0)).toThrow('fundingIntervalMs');
		expect(() => new Funding(1.5)).toThrow('fundingIntervalMs');
	});
});

describe('settlement over HTTP', () => {
	let clock = T0 + 1000;
	beforeEach(() => {
		clock = T0 + 1000;
	});
	const { sandbox, master } = useSandboxClients({
		now: () => clock,
		rateLimit: false,
		requestRates: false,
	});
	const get = async (path: string, query: Record<string, string | number>) =>
		(await master().call({ method: 'GET', path: `/api/v2/futures/${path}`, query })).json;

	it('each boundary passed charges every LONG position: fee entry, flowType 32 record, balance', async () => {
		const sb = sandbox();
		sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.5', price: '50000' });
		sb.futures.setFundingRates(BTC, ['0.0001', '0.0006', '-0.0002']);
		clock = T0 + I - 1;
		expect(await get('historyFundingFees', { symbol: BTC, startTime: 0, endTime: clock })).toEqual(
			[],
		);
		clock = T0 + 3 * I + 7;
		const fees = await get('historyFundingFees', { symbol: BTC, startTime: 0, endTime: clock });
		expect(fees).toEqual([
			{
				symbol: BTC,
				fundingTime: String(T0 + 3 * I),
				positionSide: 'LONG',
				positionSize: '0.5',
				markPrice: '50000',
				fundingRate: '-0.0002',
				fee: '5',
				feeAsset: 'USDT',
			},
			expect.objectContaining({
				fundingTime: String(T0 + 2 * I),
				fee: '-15',
				fundingRate: '0.0006',
			}),
			expect.objectContaining({ fundingTime: String(T0 + I), fee: '-2.5', fundingRate: '0.0001' }),
		]);
		expect(sb.getBalance('10003', 'USDT')).toBe('49987.5');
		const records = (
			await master().history({ flowType: 32, accountType: 3, startTime: T0, endTime: clock })
		).json;
		expect(records.map((r: { change: string; total: string }) => [r.change, r.total])).toEqual([
			['5', '49987.5'],
			['-15', '49982.5'],
			['-2.5', '49997.5'],
		]);
		expect(records[0]).toMatchObject({
			accountId: '10003',
			coin: 'USDT',
			flowType: 'FUNDING_SETTLEMENT',
			symbol: BTC,
			created: String(T0 + 3 * I),
		});
		const paged = await get('historyFundingFees', {
			symbol: BTC,
			startTime: 0,
			endTime: T0 + 2 * I,
			limit: 1,
		});
		expect(paged).toEqual([fees[1]]);
		const rates = await get('historyFundingRate', { symbol: BTC, limit: 4 });
		expect(rates.map((r: { settleRate: string }) => r.settleRate)).toEqual([
			'-0.0002',
			'0.0006',
			'0.0001',
			defaultRate(BTC, T0 / I - 1),
		]);
		expect(await get('fundingRate', { symbol: BTC })).toEqual([
			{ symbol: BTC, rate: '-0.0002', nextFundingTime: String(T0 + 4 * I) },
		]);
	});

	it('a position closed before a boundary pays nothing; no position, no fee', async () => {
		const sb = sandbox();
		sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.5', price: '50000' });
		sb.futures.fill({ symbol: BTC, side: 'SELL', quantity: '0.5', price: '50000' });
		clock = T0 + 2 * I;
		expect(await get('historyFundingFees', { symbol: BTC, startTime: 0, endTime: clock })).toEqual(
			[],
		);
		expect(sb.getBalance('10003', 'USDT')).toBe('50000');
	});

	it('reset() clears scripts, fees and settlements', async () => {
		const sb = sandbox();
		sb.futures.setFundingRates(BTC, ['0.001']);
		sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '1', price: '50000' });
		sb.reset();
		expect(sb.futures.positions()).toEqual([]);
		expect((await get('fundingRate', { symbol: BTC }))[0].rate).toBe(defaultRate(BTC, T0 / I));
		expect(await get('historyFundingRate', { symbol: BTC, limit: 100 })).toHaveLength(90);
	});

	it('setFundingRates refuses an unknown contract and non-decimal rates', () => {
		const f = sandbox().futures;
		expect(() => f.setFundingRates('BTCUSDT', ['0.1'])).toThrow('unknown contract');
		expect(() => f.setFundingRates(BTC, [])).toThrow('non-empty');
		expect(() => f.setFundingRates(BTC, ['1e-4'])).toThrow('not a decimal');
		expect(f.fundingIntervalMs).toBe(I);
	});
});

describe('option fundingIntervalMs and the timer', () => {
	it('settlements at multiples of the interval, whatever the start time', async () => {
		let clock = 1_000_250;
		const sb = await startSandbox({
			now: () => clock,
			fundingIntervalMs: 1000,
			rateLimit: false,
			symbolRules: 'lenient',
		});
		try {
			sb.futures.setFundingRates(BTC, ['0.001']);
			sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '1', price: '50000' });
			clock = 1_003_100;
			const c = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => clock);
			const r = await c.call({
				method: 'GET',
				path: '/api/v2/futures/historyFundingFees',
				query: { symbol: BTC, startTime: 0, endTime: clock },
			});
			expect(
				r.json.map((f: { fundingTime: string; fee: string }) => [f.fundingTime, f.fee]),
			).toEqual([
				['1003000', '-50'],
				['1002000', '-50'],
				['1001000', '-50'],
			]);
		} finally {
			await sb.stop();
		}
	});

	it('a fill while the clock steps over a boundary: no fee for a boundary before the fill', () => {
		// Every read of this clock is 1 ms later than the one before, so a fill that read it twice
		// would settle up to one instant and open the position at the next, across the boundary.
		let clock = 1_000_500;
		const market = new Market({ symbolRules: 'lenient', seed: 1, moving: false }, Date.now);
		const futures = new Futures(
			{
				clock: () => clock++,
				market,
				events: new StreamEvents(Date.now, () => ({ free: '0', locked: '0' })),
				move: () => undefined,
				coins: () => [],
			},
			1000,
		);
		futures.reset();
		// No timer reads the clock in between: settlements happen only when called for.
		futures.stop();
		clock = 1_001_999;
		const { trade } = futures.fill({ symbol: BTC, side: 'BUY', quantity: '1', price: '50000' });
		clock = 1_003_500;
		futures.settleNow();
		const fees = futures.feesOf(DEMO_ACCOUNTS.mainContract, BTC, 0, clock, 100);
		expect(fees.map((fee) => fee.fundingTime)).toEqual(['1003000', '1002000']);
		for (const fee of fees) expect(Number(fee.fundingTime)).toBeGreaterThan(Number(trade.time));
	});

	it('an unref’d timer settles a boundary with no request; stop() ends it', async () => {
		const market = new Market({ symbolRules: 'lenient', seed: 1, moving: false }, Date.now);
		const moves: string[] = [];
		const futures = new Futures(
			{
				clock: Date.now,
				market,
				events: new StreamEvents(Date.now, () => ({ free: '0', locked: '0' })),
				move: (...args) => moves.push(String(args[4])),
				coins: () => [],
			},
			50,
		);
		futures.reset();
		futures.fill({ symbol: BTC, side: 'BUY', quantity: '1', price: '50000' });
		await new Promise((r) => setTimeout(r, 180));
		futures.stop();
		expect(moves.length).toBeGreaterThanOrEqual(2);
		for (const t of moves) expect(Number(t) % 50).toBe(0);
		const n = moves.length;
		await new Promise((r) => setTimeout(r, 120));
		expect(moves.length).toBe(n);
	});
});
