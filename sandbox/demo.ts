/**
 * A pleasant, deterministic demo history relative to the server clock: funding fees every 8 hours
 * over 30 days, a few transfers, custody and fiat deposits, a withdrawal, a few trades and fees.
 * History only: balances are left as they are; each account's newest total equals its current balance.
 */
import { DEMO_ACCOUNTS, DAY_MS } from './constants';
import * as D from './decimal';
import { mulberry32 } from './prng';
import type { AddRecordInput, HistoryRecord } from './types';

export interface DemoTarget {
	now(): number;
	getBalance(accountId: string, coin: string): string;
	addRecords(records: AddRecordInput[]): HistoryRecord[];
}

const HOUR_MS = 3_600_000;
const EIGHT_HOURS = 8 * HOUR_MS;

export function seedDemoHistory(sb: DemoTarget): void {
	const now = sb.now();
	const rnd = mulberry32(20240501);
	const recs: AddRecordInput[] = [];
	const move = (
		accountId: string,
		coin: string,
		change: string,
		created: number,
		flowTypeValue: number,
		symbol?: string,
	) => {
		const r: AddRecordInput = { accountId, coin, change, created: String(created), flowTypeValue };
		if (symbol !== undefined) r.symbol = symbol;
		recs.push(r);
	};
	const amount = (max: number, decimals: number): string => {
		const units = 1 + Math.floor(rnd() * max * 10 ** decimals);
		return D.fmt({ v: BigInt(units), s: decimals });
	};

	// Funding fees: at every 8-hour settlement (00:00, 08:00, 16:00 UTC) in the last 30 days, two perpetuals.
	const firstSettlement = (Math.floor((now - 30 * DAY_MS) / EIGHT_HOURS) + 1) * EIGHT_HOURS;
	for (let t = firstSettlement; t <= now; t += EIGHT_HOURS) {
		for (const symbol of ['BTCUSDT-PERPETUAL', 'ETHUSDT-PERPETUAL']) {
			const a = amount(3, 6);
			move(DEMO_ACCOUNTS.mainContract, 'USDT', rnd() < 0.7 ? `-${a}` : a, t, 32, symbol);
		}
	}
	// Transfers (two records each, same created).
	const transfers: Array<[string, string, string, string, number]> = [
		[DEMO_ACCOUNTS.custody, DEMO_ACCOUNTS.mainTrading, 'USDT', '5000', 26],
		[DEMO_ACCOUNTS.mainTrading, DEMO_ACCOUNTS.subTrading, 'USDT', '1000', 19],
		[DEMO_ACCOUNTS.mainTrading, DEMO_ACCOUNTS.mainContract, 'USDT', '2500', 12],
		[DEMO_ACCOUNTS.custody, DEMO_ACCOUNTS.mainTrading, 'BTC', '0.5', 5],
		[DEMO_ACCOUNTS.mainTrading, DEMO_ACCOUNTS.subTrading, 'BTC', '0.1', 2],
	];
	for (const [from, to, coin, qty, daysAgo] of transfers) {
		const t = now - daysAgo * DAY_MS - Math.floor(rnd() * 6 * HOUR_MS);
		move(from, coin, `-${qty}`, t, 51);
		move(to, coin, qty, t, 51);
	}

	// Custody deposits and a withdrawal; fiat deposits.
	for (const [daysAgo, coin, qty] of [
		[28, 'USDT', '100000'],
		[21, 'BTC', '2'],
		[9, 'USDT', '50000'],
	] as Array<[number, string, string]>) {
		move(DEMO_ACCOUNTS.custody, coin, qty, now - daysAgo * DAY_MS, 900);
	}
	move(DEMO_ACCOUNTS.custody, 'USDT', '-20000', now - 4 * DAY_MS, 904);
	for (const daysAgo of [25, 14, 3])
		move(DEMO_ACCOUNTS.fiat, 'USD', '25000', now - daysAgo * DAY_MS, 906);
	move(DEMO_ACCOUNTS.fiat, 'USD', '-5000', now - DAY_MS, 910);

	// A few market trades in the last 7 days (trade records for base and quote, fee in quote).
	for (const [daysAgo, symbol, base, price, qty, side] of [
		[6, 'BTCUSDT', 'BTC', '50000', '0.02', 'BUY'],
		[4, 'ETHUSDT', 'ETH', '3000', '1.5', 'SELL'],
		[1, 'SOLUSDT', 'SOL', '150', '20', 'BUY'],
	] as Array<[number, string, string, string, string, string]>) {
		const t = now - daysAgo * DAY_MS;
		const cost = D.mul(D.parseDec(price)!, D.parseDec(qty)!);
		const fee = D.fmt(D.mul(cost, D.parseDec('0.001')!));
		move(DEMO_ACCOUNTS.mainTrading, base, side === 'BUY' ? qty : `-${qty}`, t, 1, symbol);
		move(
			DEMO_ACCOUNTS.mainTrading,
			'USDT',
			side === 'BUY' ? `-${D.fmt(cost)}` : D.fmt(cost),
			t,
			1,
			symbol,
		);
		move(DEMO_ACCOUNTS.mainTrading, 'USDT', `-${fee}`, t, 2, symbol);
	}

	// Totals: walk each account/coin backwards from its current balance, so the newest total is the balance.
	const order = recs
		.map((r, i) => ({ r, i }))
		.sort((a, b) => Number(a.r.created) - Number(b.r.created) || a.i - b.i);
	const running = new Map<string, D.Dec>();
	for (let k = order.length - 1; k >= 0; k--) {
		const r = order[k].r;
		const key = `${r.accountId}/${r.coin}`;
		const after = running.get(key) ?? D.parseDec(sb.getBalance(r.accountId, r.coin ?? 'USDT'))!;
		r.total = D.fmt(after);
		running.set(key, D.sub(after, D.parseDec(r.change)!));
	}
	sb.addRecords(order.map((o) => o.r));
}
