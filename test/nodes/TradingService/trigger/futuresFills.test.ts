/**
 * Futures Order Filled (trigger/futuresFills.ts) through n8n-core's real poll path against the
 * sandbox: the first poll only remembers, each later poll emits every new futures fill once, oldest
 * first, exactly as GET /api/v2/futures/userTrades lists it (liquidation fills included); the
 * Contract, Fetch Test Event, and a key without a futures account of its own.
 */
import type { INode } from 'n8n-workflow';

import { contractAccountOf } from '../../../../nodes/TradingService/helpers/accountScope';
import type { ServiceClient } from '../../../../nodes/TradingService/transport';
import { checkFuturesAccount } from '../../../../nodes/TradingService/trigger/futuresFills';
import { DEMO_KEYS } from '../../../../sandbox';
import { credentialsFor } from '../../../../tools/harness/node';
import { useSandbox } from '../../../support/sandbox';
import { pollCounting, triggerRunner } from '../../../support/trigger';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

const BTC = 'BTCUSDT-PERPETUAL';
const ETH = 'ETHUSDT-PERPETUAL';
const FUTURES_FILLED = { event: 'futuresOrderFilled' };
const TRADES_PATH = '/api/v2/futures/userTrades';
const NODE = {
	id: 'n',
	name: 'Trigger',
	type: 't',
	typeVersion: 2,
	position: [0, 0],
	parameters: {},
} as INode;

const buy = (symbol: string, quantity: string) =>
	sandbox().futures.fill({ symbol, side: 'BUY', quantity }).trade;

describe('Futures Order Filled (polling)', () => {
	it('baseline, then every new fill of every contract once, oldest first, as the exchange lists it', async () => {
		const sb = sandbox();
		buy(BTC, '0.01');
		const runner = triggerRunner(sb, { parameters: FUTURES_FILLED, typeVersion: 2 });
		const baseline = await runner.poll();
		expect(baseline.error).toBeUndefined();
		expect(baseline.items).toEqual([]);
		const fresh = [buy(BTC, '0.02'), buy(ETH, '0.1'), buy(BTC, '0.01')];
		fresh.push(sb.futures.liquidate(BTC).trade);
		const poll = await pollCounting(sb, runner);
		expect(poll.error).toBeUndefined();
		expect(poll.items.map((item) => item.json)).toEqual(fresh);
		// Every contract the exchange lists: one read each.
		const trades = poll.requests.filter((request) => request.path === TRADES_PATH);
		const symbols = trades.map((request) => new URLSearchParams(request.query).get('symbol'));
		expect(symbols).toEqual(expect.arrayContaining([BTC, ETH]));
		expect(new Set(symbols).size).toBe(symbols.length);
		const again = await pollCounting(sb, runner);
		expect(again.items).toEqual([]);
		expect(again.requests.filter((request) => request.path === TRADES_PATH)).toHaveLength(
			trades.length,
		);
	});

	it('Contract: only its fills, one request a poll', async () => {
		const sb = sandbox();
		const runner = triggerRunner(sb, {
			typeVersion: 2,
			parameters: { ...FUTURES_FILLED, contract: { __rl: true, mode: 'id', value: ETH } },
		});
		expect((await runner.poll()).items).toEqual([]);
		buy(BTC, '0.01');
		const eth = buy(ETH, '0.2');
		const poll = await pollCounting(sb, runner);
		expect(poll.items.map((item) => item.json)).toEqual([eth]);
		expect(poll.requests.map((request) => request.path)).toEqual([TRADES_PATH]);
	});

	it('Fetch Test Event: the newest fill, the state untouched; none: it says so', async () => {
		const sb = sandbox();
		const runner = triggerRunner(sb, { parameters: FUTURES_FILLED, typeVersion: 2 });
		const none = await runner.poll('manual');
		expect(none.error?.message).toBe('No fill of your futures orders in the last 30 days');
		buy(ETH, '0.1');
		const newest = buy(BTC, '0.01');
		const manual = await runner.poll('manual');
		expect(manual.items.map((item) => item.json)).toEqual([newest]);
		expect(runner.nodeStaticData()).toEqual({});
	});

	it('a spot pair as Contract is refused before any request; a key without a futures account is told so', async () => {
		const sb = sandbox();
		const before = sb.ledger.requests.length;
		const spot = await triggerRunner(sb, {
			typeVersion: 2,
			parameters: { ...FUTURES_FILLED, contract: 'BTCUSDT' },
		}).poll();
		expect(spot.error?.message).toBe('Contract: "BTCUSDT" is not a futures contract');
		expect(sb.ledger.requests.length).toBe(before);
		const sub = await triggerRunner(sb, {
			typeVersion: 2,
			parameters: FUTURES_FILLED,
			credentials: credentialsFor(sb, DEMO_KEYS.sub),
		}).poll();
		expect(sub.error?.message).toBe('This API key has no futures account of its own');
	});

	it('baseline with Contract empty: a full page of one contract starts the floor at that page, not at the oldest fill of all', async () => {
		const sb = sandbox();
		sb.futures.setMarkPrice(BTC, '50000');
		buy(ETH, '0.1');
		await new Promise((resolve) => setTimeout(resolve, 20));
		// 1,001 fills of BTC: its newest page (1,000) leaves the oldest unread.
		const btc = Array.from({ length: 1001 }, () => buy(BTC, '0.001'));
		const runner = triggerRunner(sb, { parameters: FUTURES_FILLED, typeVersion: 2 });
		expect((await runner.poll()).items).toEqual([]);
		const poll = await runner.poll();
		expect(poll.error).toBeUndefined();
		// The fill before activation that the baseline did not read is no new fill.
		expect(poll.items.map((item) => item.json.tradeId)).not.toContain(btc[0].tradeId);
		expect(poll.items).toEqual([]);
		const fresh = buy(BTC, '0.001');
		expect((await runner.poll()).items.map((item) => item.json)).toEqual([fresh]);
	});

	it('a key with several futures accounts of its own is refused, as the real-time trigger refuses it', async () => {
		const futures = { accountId: '10003', accountType: 3, accountLabel: 'Futures' };
		const keyWith = (accounts: object[]) =>
			({ keyAccounts: async () => accounts }) as unknown as ServiceClient;
		await expect(checkFuturesAccount(keyWith([futures]), NODE)).resolves.toBeUndefined();
		for (const accounts of [[futures, { ...futures, accountId: '10004' }], []])
			await expect(checkFuturesAccount(keyWith(accounts), NODE)).rejects.toThrow(
				'This API key has no futures account of its own',
			);
		for (const accounts of [[futures], [futures, { ...futures, accountId: '10004' }], []])
			expect(contractAccountOf(accounts) === undefined).toBe(
				await checkFuturesAccount(keyWith(accounts), NODE).then(
					() => false,
					() => true,
				),
			);
	});
});
