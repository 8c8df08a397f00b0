/**
 * The futures state of the sandbox and its controls (sb.futures): the book (book.ts), funding
 * (funding.ts) and the contract account's wallet. Only the master user has a futures account, the
 * contract account 10003 (both master-kind keys read it); the sub key has none. Funding is settled
 * lazily for every boundary the clock has passed: before each request (a sweep of the deferred
 * work), by the getters, and by an unref'd timer. A settlement charges every open LONG position
 * fee = −(baseQty × markPrice × rate): a funding fee entry, a flowType 32 history record on the
 * contract account and its balance. Every position change sends `outboundContractPositionInfo` to
 * the listen keys of the owner's keys (their spot trading account, 10001).
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
import { CONTRACTS, findContract, floorToStep, markPriceAt, type Contract } from './contracts';
import {
	checkClientOrderId,
	checkWithinPosition,
	newOrder,
	restingOrderToFill,
	tradableContract,
} from './orders';
import { DEFAULT_FUNDING_INTERVAL_MS, Funding } from './funding';
import {
	orderView,
	positionEvent,
	positionView,
	tradeView,
	type HeldOrder,
	type HeldPosition,
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

	constructor(
		private readonly host: FuturesHost,
		intervalMs: number = DEFAULT_FUNDING_INTERVAL_MS,
	) {
		this.funding = new Funding(intervalMs);
	}

	get fundingIntervalMs(): number {
		return this.funding.intervalMs;
	}

	private now(): number {
		return this.host.clock();
	}

	reset(): void {
		this.book.clear();
		this.fees = [];
		this.funding.reset(this.now());
		this.arm();
	}

	stop(): void {
		if (this.timer) clearTimeout(this.timer);
		this.timer = null;
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
		return markPriceAt(this.host.market, c, ms);
	}

	/** Settles the boundaries up to `now`, oldest first; a write that then uses the same `now` sees no gap. */
	settleDue(now: number = this.now()): void {
		const due = this.funding.due(now);
		if (due.length === 0) return;
		for (const { time, rates } of due) {
			for (const c of CONTRACTS) {
				for (const p of this.book.openPositions(DEMO_ACCOUNTS.mainContract)) {
					if (p.symbol === c.symbol) this.charge(p, c, time, rates.get(c.symbol)!);
				}
			}
		}
		this.host.events.commit();
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
				const c = findContract(p.symbol)!;
				return positionView(p, c, this.mark(c));
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
			const mark = floorToStep(this.mark(c, now), c.tickSize);
			const price = checkOnGrid(input.price ?? mark, 'price', c.tickSize);
			checkClientOrderId(this.book, accountId, input.clientOrderId);
			const time = Math.max(now, this.book.newestOrderTime);
			order = newOrder(this.book, c, { ...input, accountId, time, price, quantity });
		}
		const isMaker = input.isMaker ?? false;
		const { trade, position } = this.book.fill(order, c, quantity, order.price, isMaker, now);
		const view = positionView(position, c, this.mark(c, now));
		this.host.events.contract(POSITION_LISTENER, positionEvent(view, accountId, now));
		this.host.events.commit();
		return {
			order: orderView(order, c),
			trade: tradeView(trade),
			position: D.isPositive(position.baseQty) ? view : null,
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
		return orderView(newOrder(this.book, c, { ...input, accountId, time, price, quantity }), c);
	}

	positions(key: DemoKey = DEMO_KEYS.master): FuturesPosition[] {
		this.settleDue();
		const accountId = futuresAccountOf(key);
		return accountId ? this.positionsOf(accountId) : [];
	}
}
