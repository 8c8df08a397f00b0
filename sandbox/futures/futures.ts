/**
 * The futures state of the sandbox and its controls (sb.futures): the book (book.ts), funding
 * (funding.ts) and the contract account's wallet. Only the master user has a futures account, the
 * contract account 10003 (both master-kind keys read it); the sub key has none. Funding is settled
 * lazily for every boundary the clock has passed: before each request (a sweep of the deferred
 * work), by the getters, and by an unref'd timer. A settlement charges every open LONG position
 * fee = −(baseQty × markPrice × rate): a funding fee entry, a flowType 32 history record on the
 * contract account and its balance. Every position change sends `outboundContractPositionInfo` to
 * the listen keys of the owner's keys (their spot trading account, 10001), every order change a
 * `contractExecutionReport` (trading.ts: the write side's orders, triggers and TP/SL).
 */
import { DEMO_ACCOUNTS, DEMO_KEYS } from '../constants';
import * as D from '../decimal';
import type { Market } from '../market/market';
import type { StreamEvents } from '../stream/events';
import type {
	DemoKey,
	FundingFeeRecord,
	FuturesControl,
	FuturesFillInput,
	FuturesFillResult,
	FuturesOpenOrderInput,
	FuturesOrder,
	FuturesPosition,
} from '../types';
import { FuturesBook, checkOnGrid } from './book';
import { CONTRACTS, findContract, markPriceAt, type Contract } from './contracts';
import {
	checkClientOrderId,
	checkWithinPosition,
	newOrder,
	restingOrderToFill,
	tradableContract,
} from './orders';
import { DEFAULT_FUNDING_INTERVAL_MS, Funding } from './funding';
import { Trader } from './trading';
import {
	executionReport,
	orderView,
	positionView,
	tradeView,
	type HeldOrder,
	type HeldPosition,
	type PositionStop,
} from './views';

/** The contract account of a key, or undefined (the sub key has no futures account). */
export function futuresAccountOf(key: DemoKey): string | undefined {
	return key.kind === 'master' ? DEMO_ACCOUNTS.mainContract : undefined;
}

/** Listen keys of the master-kind keys follow their spot trading account: the futures owner's. */
const POSITION_LISTENER = DEMO_ACCOUNTS.mainTrading;
const FUNDING_FLOW_TYPE = 32;
/** setTimeout's longest delay. */
const MAX_TIMER_MS = 2_147_483_647;
/** The walk's mark price changes at each minute of the sandbox clock. */
const MARK_STEP_MS = 60_000;

export interface FuturesHost {
	clock(): number;
	market: Market;
	events: StreamEvents;
	/** Move a balance and write its history record (engine.ts). */
	move(
		accountId: string,
		coin: string,
		flowType: number,
		change: D.Dec,
		created: string,
		symbol: string,
	): void;
	/** Every coin the account holds: [coin, total]. */
	coins(accountId: string): [string, string][];
}

export interface HeldFee extends FundingFeeRecord {
	accountId: string;
}

export class Futures implements FuturesControl {
	readonly book = new FuturesBook();
	readonly funding: Funding;
	/** Funding fees charged, oldest first. */
	private fees: HeldFee[] = [];
	private timer: NodeJS.Timeout | null = null;
	/** A timer for the next mark change while stop orders or TP/SL wait. */
	private markTimer: NodeJS.Timeout | null = null;
	/** Leverage set by POST /api/v2/futures/leverage, by contract (the one futures account's). */
	private leverages = new Map<string, string>();
	/** Mark prices fixed by setMarkPrice. */
	private marks = new Map<string, string>();
	/** Positions' TP/SL (POST position/trading-stop) by `${accountId}/${symbol}`. */
	readonly stops = new Map<string, PositionStop>();
	readonly trader: Trader;

	constructor(
		private readonly host: FuturesHost,
		intervalMs: number = DEFAULT_FUNDING_INTERVAL_MS,
	) {
		this.funding = new Funding(intervalMs);
		this.trader = new Trader({
			book: this.book,
			stops: this.stops,
			now: () => this.now(),
			contract: (symbol) => this.contract(symbol),
			mark: (c) => this.mark(c),
			available: (accountId) => this.availableOf(accountId),
			emit: (event) => this.host.events.contract(POSITION_LISTENER, event),
		});
	}

	get fundingIntervalMs(): number {
		return this.funding.intervalMs;
	}

	private now(): number {
		return this.host.clock();
	}

	reset(): void {
		this.stopMarkTimer();
		this.book.clear();
		this.leverages.clear();
		this.marks.clear();
		this.stops.clear();
		this.fees = [];
		this.funding.reset(this.now());
		this.arm();
	}

	stop(): void {
		if (this.timer) clearTimeout(this.timer);
		this.timer = null;
		this.stopMarkTimer();
	}

	private stopMarkTimer(): void {
		if (this.markTimer) clearTimeout(this.markTimer);
		this.markTimer = null;
	}

	/**
	 * While stop orders or TP/SL wait: a timer for the next minute of the sandbox clock (when the
	 * walk's mark changes), unref'd; each request checks them too (settleDue).
	 */
	armTriggers(): void {
		this.stopMarkTimer();
		if (!this.trader.waiting) return;
		const delay = MARK_STEP_MS - (((this.now() % MARK_STEP_MS) + MARK_STEP_MS) % MARK_STEP_MS) + 1;
		this.markTimer = setTimeout(() => {
			this.markTimer = null;
			this.settleDue();
			this.armTriggers();
		}, delay);
		this.markTimer.unref();
	}

	/** A contract with the leverage in force. */
	contract(symbol: string): Contract {
		const c = findContract(symbol);
		if (!c) throw new Error(`unknown contract ${symbol}`);
		const leverage = this.leverages.get(symbol);
		return leverage === undefined ? c : { ...c, leverage };
	}

	setLeverage(symbol: string, leverage: string): void {
		this.leverages.set(symbol, leverage);
	}

	/** A timer for the next boundary (real ms from now on the sandbox clock), unref'd. */
	private arm(): void {
		this.stop();
		const next = (this.funding.periodAt(this.now()) + 1) * this.funding.intervalMs;
		const delay = Math.min(MAX_TIMER_MS, Math.max(1, next - this.now()));
		this.timer = setTimeout(() => {
			this.settleDue();
			this.arm();
		}, delay);
		this.timer.unref();
	}

	mark(c: Contract, ms: number = this.now()): string {
		return this.marks.get(c.symbol) ?? markPriceAt(this.host.market, c, ms);
	}

	/**
	 * The work due at `now`: funding boundaries settled, oldest first (a write that then uses the
	 * same `now` sees no gap), then the stop orders and TP/SL the mark price has crossed.
	 */
	settleDue(now: number = this.now()): void {
		const due = this.funding.due(now);
		for (const { time, rates } of due) {
			for (const c of CONTRACTS) {
				for (const p of this.book.openPositions(DEMO_ACCOUNTS.mainContract)) {
					if (p.symbol === c.symbol) this.charge(p, c, time, rates.get(c.symbol)!);
				}
			}
		}
		const triggered = this.trader.waiting && this.trader.checkTriggers();
		if (due.length > 0 || triggered) this.host.events.commit();
	}

	settleNow(): void {
		this.settleDue();
	}

	private charge(p: HeldPosition, c: Contract, time: number, rate: string): void {
		const markPrice = this.mark(c, time);
		const fee = D.neg(D.mul(D.mul(p.baseQty, D.parseDec(markPrice)!), D.parseDec(rate)!));
		this.fees.push({
			accountId: p.accountId,
			symbol: c.symbol,
			fundingTime: String(time),
			positionSide: 'LONG',
			positionSize: D.fmt(p.baseQty),
			markPrice,
			fundingRate: rate,
			fee: D.fmt(fee),
			feeAsset: c.quote,
		});
		this.host.move(p.accountId, c.quote, FUNDING_FLOW_TYPE, fee, String(time), c.symbol);
	}

	// ---- reads (the routes settle first: every request runs the sweep) ----

	positionsOf(accountId: string, symbol?: string): FuturesPosition[] {
		return this.book
			.openPositions(accountId)
			.filter((p) => symbol === undefined || p.symbol === symbol)
			.map((p) => {
				const c = this.contract(p.symbol);
				return positionView(p, c, this.mark(c), this.stops.get(`${accountId}/${p.symbol}`));
			});
	}

	/** [{asset, balance, availableBalance}]: USDT's available = balance + unrealized PnL − margin, at least 0. */
	balanceOf(accountId: string): { asset: string; balance: string; availableBalance: string }[] {
		const positions = this.positionsOf(accountId);
		return this.host.coins(accountId).map(([asset, total]) => {
			let available = D.parseDec(total)!;
			for (const p of positions) {
				if (findContract(p.symbol)!.quote !== asset) continue;
				available = D.sub(D.add(available, D.parseDec(p.unrealizedPnL)!), D.parseDec(p.margin)!);
			}
			if (available.v < 0n) available = D.ZERO;
			return { asset, balance: total, availableBalance: D.fmt(available) };
		});
	}

	/** The account's available USDT (balanceOf's availableBalance). */
	availableOf(accountId: string): D.Dec {
		const line = this.balanceOf(accountId).find((b) => b.asset === 'USDT');
		return line ? D.parseDec(line.availableBalance)! : D.ZERO;
	}

	/** Funding fees of a contract with fundingTime in [startTime, endTime], newest first, at most `limit`. */
	feesOf(
		accountId: string,
		symbol: string,
		startTime: number,
		endTime: number,
		limit: number,
	): FundingFeeRecord[] {
		const out: FundingFeeRecord[] = [];
		for (let i = this.fees.length - 1; i >= 0 && out.length < limit; i--) {
			const { accountId: owner, ...fee } = this.fees[i];
			const t = Number(fee.fundingTime);
			if (owner !== accountId || fee.symbol !== symbol || t < startTime || t > endTime) continue;
			out.push(fee);
		}
		return out;
	}

	// ---- controls (sb.futures) ----

	setFundingRates(symbol: string, rates: string[]): void {
		if (!findContract(symbol)) throw new Error(`unknown contract ${symbol}`);
		if (!Array.isArray(rates) || rates.length === 0)
			throw new Error('rates must be a non-empty array of decimal strings');
		for (const r of rates) {
			if (typeof r !== 'string' || D.parseDec(r) === null)
				throw new Error(`rate ${String(r)} is not a decimal string`);
		}
		const now = this.now();
		this.settleDue(now);
		this.funding.setRates(symbol, rates.map(D.canon), now);
	}

	seedFundingHistory(periods: number): void {
		const now = this.now();
		this.settleDue(now);
		this.funding.seedHistory(now, periods);
	}

	private accountOf(key: DemoKey = DEMO_KEYS.master): string {
		const accountId = futuresAccountOf(key);
		if (!accountId) throw new Error(`the ${key.apiKey} key has no futures account`);
		return accountId;
	}

	fill(input: FuturesFillInput): FuturesFillResult {
		const now = this.now();
		this.settleDue(now);
		const accountId = this.accountOf(input.key);
		const c = tradableContract(input.symbol, input.side);
		let order: HeldOrder | undefined;
		let quantity: string;
		if (input.orderId !== undefined) {
			({ order, quantity } = restingOrderToFill(this.book, accountId, c, {
				...input,
				orderId: input.orderId,
			}));
		} else {
			quantity = checkOnGrid(input.quantity, 'quantity', c.stepSize);
		}
		// refused before anything is written
		checkWithinPosition(this.book, accountId, c, input.side, quantity);
		if (!order) {
			const price = checkOnGrid(input.price ?? this.trader.markTick(c), 'price', c.tickSize);
			checkClientOrderId(this.book, accountId, input.clientOrderId);
			const time = Math.max(now, this.book.newestOrderTime);
			order = newOrder(this.book, this.contract(c.symbol), {
				...input,
				accountId,
				time,
				price,
				quantity,
			});
			this.host.events.contract(POSITION_LISTENER, executionReport(order, now));
		}
		const isMaker = input.isMaker ?? false;
		const cNow = this.contract(c.symbol);
		const { trade, position } = this.trader.fill(order, cNow, quantity, order.price, isMaker, now);
		this.afterWrite();
		return {
			order: orderView(order, cNow),
			trade: tradeView(trade),
			position: D.isPositive(position.baseQty) ? this.positionOf(position) : null,
		};
	}

	private positionOf(p: HeldPosition) {
		const c = this.contract(p.symbol);
		return positionView(p, c, this.mark(c), this.stops.get(`${p.accountId}/${p.symbol}`));
	}

	private report(o: HeldOrder): void {
		this.host.events.contract(POSITION_LISTENER, executionReport(o, this.now()));
	}

	/** After a write: what it made crossable triggers now, the timer follows, the events go out. */
	afterWrite(): void {
		this.trader.checkTriggers();
		this.armTriggers();
		this.host.events.commit();
	}

	setMarkPrice(symbol: string, price: string | null): void {
		const c = this.contract(symbol);
		this.settleDue();
		if (price === null) this.marks.delete(symbol);
		else this.marks.set(symbol, checkOnGrid(price, 'price', c.tickSize));
		this.afterWrite();
	}

	liquidate(symbol: string, key: DemoKey = DEMO_KEYS.master): FuturesFillResult {
		this.settleDue();
		const accountId = this.accountOf(key);
		const c = this.contract(symbol);
		const held = this.book.position(accountId, symbol)?.baseQty;
		if (!held || !D.isPositive(held)) throw new Error(`no ${symbol} position to liquidate`);
		const { order, trade, position } = this.trader.marketSell(accountId, c, D.fmt(held), true);
		this.afterWrite();
		return {
			order: orderView(order, c),
			trade: tradeView(trade),
			position: D.isPositive(position.baseQty) ? this.positionOf(position) : null,
		};
	}

	placeOpenOrder(input: FuturesOpenOrderInput): FuturesOrder {
		this.settleDue();
		const accountId = this.accountOf(input.key);
		const c = tradableContract(input.symbol, input.side);
		const quantity = checkOnGrid(input.quantity, 'quantity', c.stepSize);
		const price = checkOnGrid(input.price, 'price', c.tickSize);
		const time = input.time ?? this.now();
		if (!Number.isSafeInteger(time) || time > this.now())
			throw new Error(`time ${time} is not a past millisecond time`);
		if (time < this.book.newestOrderTime)
			throw new Error(`time ${time} is before the newest futures order's: seed the oldest first`);
		checkClientOrderId(this.book, accountId, input.clientOrderId);
		const cNow = this.contract(c.symbol);
		const order = newOrder(this.book, cNow, { ...input, accountId, time, price, quantity });
		this.report(order);
		this.host.events.commit();
		return orderView(order, cNow);
	}

	orders(key: DemoKey = DEMO_KEYS.master): FuturesOrder[] {
		this.settleDue();
		const accountId = futuresAccountOf(key);
		if (!accountId) return [];
		return this.book.ordersOf(accountId).map((o) => orderView(o, this.contract(o.symbol)));
	}

	positions(key: DemoKey = DEMO_KEYS.master): FuturesPosition[] {
		this.settleDue();
		const accountId = futuresAccountOf(key);
		return accountId ? this.positionsOf(accountId) : [];
	}
}
