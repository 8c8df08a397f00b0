/**
 * The sandbox's order book: placing, querying, cancelling and filling spot orders. No HTTP here.
 *
 * Exchange behaviours kept on purpose (see README.md):
 * - a client order ID is unique among the account's OPEN orders only; once an order is filled or
 *   cancelled its ID may be used again, so a blind re-send of a filled MARKET order fills twice;
 * - LIMIT and LIMIT_MAKER orders rest as NEW and lock funds until a test fills them (fill/advance)
 *   or they are cancelled; MARKET orders fill at once at the symbol's last price.
 */
import {
	BASE_QTY_SCALE,
	DAY_MS,
	FEE_RATE,
	MAX_CLIENT_ORDER_ID_LENGTH,
	ORDER_ID_BASE,
	SYMBOLS,
} from './constants';
import { CODES } from './codes';
import * as D from './decimal';
import { ApiError, OrderFail, apiError, orderFieldFail, positiveDecimal } from './errors';
import type { JsonValue } from './json';
import { cmpId } from './store';
import type {
	CancelAnswer,
	Ledger,
	LedgerCancel,
	OrderData,
	OrderSide,
	OrderStatus,
	OrderType,
	OrderView,
	TimeInForce,
} from './types';

/** Order parameters: strings (query/form) or JSON values (batch). */
export type OrderInput = Record<string, JsonValue | undefined>;

/** What the order book needs from the balances. */
export interface Wallet {
	free(accountId: string, coin: string): D.Dec;
	lock(accountId: string, coin: string, amount: D.Dec): void;
	unlock(accountId: string, coin: string, amount: D.Dec): void;
	/** Change the total balance and write a history record of `flowType` with the new total. */
	move(
		accountId: string,
		coin: string,
		flowType: number,
		change: D.Dec,
		created: string,
		symbol?: string,
	): void;
}

type StpMode = 'EXPIRE_TAKER' | 'EXPIRE_MAKER';

interface OrderState {
	accountId: string;
	apiKey: string;
	symbol: string;
	clientOrderId: string;
	orderId: string;
	price: string;
	origQty: string;
	reqAmount: string;
	executedQty: D.Dec;
	cumQuote: D.Dec;
	fee: D.Dec;
	feeCoin: string;
	status: OrderStatus;
	timeInForce: TimeInForce;
	type: OrderType;
	side: OrderSide;
	stpMode: StpMode;
	time: number;
	updateTime: number;
	/** Coin and amount still locked for this order (LIMIT orders only). */
	lockCoin: string;
	locked: D.Dec;
}

export const EXCHANGE_ID = '301';
export const DEFAULT_OPEN_ORDERS_LIMIT = 500;
export const MAX_OPEN_ORDERS_LIMIT = 1000;
export const DEFAULT_CANCEL_ALL_LIMIT = 100;
export const MAX_CANCEL_ALL_LIMIT = 200;
export const MAX_CANCEL_IDS = 100;
/** Past orders are listed for this many days (CCXT: tradeOrders "only supports the last 90 days"). */
export const PAST_ORDERS_DAYS = 90;

export function isOpen(status: OrderStatus): boolean {
	return status === 'NEW' || status === 'PARTIALLY_FILLED';
}

function optString(input: OrderInput, name: string): string | null {
	const v = input[name];
	if (v === undefined || v === null) return null;
	if (typeof v === 'string') return v;
	throw orderFieldFail(name, 'must be a string');
}

export interface OrderListFilter {
	symbol?: string;
	side?: OrderSide;
	/** Only orders with an orderId strictly below this one (the next page of a newest-first list). */
	beforeOrderId?: string;
	startTime?: number;
	endTime?: number;
}

export class OrderBook {
	private byId = new Map<string, OrderState>();
	/** Every order, ascending by orderId. */
	private all: OrderState[] = [];
	/** accountId -> clientOrderId -> the open order holding that id. */
	private openIds = new Map<string, Map<string, OrderState>>();
	private seq = ORDER_ID_BASE;

	constructor(
		private readonly clock: () => number,
		private readonly wallet: Wallet,
		private readonly ledger: Ledger,
	) {}

	clear(): void {
		this.byId.clear();
		this.all = [];
		this.openIds.clear();
		this.seq = ORDER_ID_BASE;
	}

	private openMap(accountId: string): Map<string, OrderState> {
		let m = this.openIds.get(accountId);
		if (!m) {
			m = new Map();
			this.openIds.set(accountId, m);
		}
		return m;
	}

	/**
	 * Validate one order and place it (or, with `test`, only validate it). Throws OrderFail.
	 * Returns the create answer (spec 2.4), or null for a test order. `seededAt` (tests only, see
	 * seedOpen) places it as if at that time and leaves it out of ledger.orders.
	 */
	place(
		owner: { accountId: string; apiKey: string },
		input: OrderInput,
		via: 'single' | 'batch',
		test = false,
		seededAt?: number,
	): OrderData | null {
		const symbolV = input.symbol;
		if (typeof symbolV !== 'string' || symbolV === '') throw orderFieldFail('symbol');
		const info = SYMBOLS[symbolV];
		if (!info)
			throw new OrderFail('symbol', `${CODES.instrumentNotFound.msg}: '${symbolV}'`, 'symbol');

		const side = optString(input, 'side');
		if (side !== 'BUY' && side !== 'SELL') throw orderFieldFail('side', 'BUY or SELL');
		const type = optString(input, 'type');
		if (type !== 'LIMIT' && type !== 'MARKET' && type !== 'LIMIT_MAKER')
			throw orderFieldFail('type', 'LIMIT, MARKET or LIMIT_MAKER');

		const tifIn = optString(input, 'timeInForce');
		const tif: TimeInForce = type === 'MARKET' ? 'IOC' : 'GTC';
		if (tifIn !== null && tifIn !== tif)
			throw orderFieldFail('timeInForce', `${type} orders take ${tif}`);

		const price = positiveDecimal(input.price, 'price', orderFieldFail);
		const quantity = positiveDecimal(input.quantity, 'quantity', orderFieldFail);
		const amount = positiveDecimal(input.amount, 'amount', orderFieldFail);
		if (type === 'MARKET') {
			if (price !== null) throw orderFieldFail('price', 'MARKET orders take no price');
			if (quantity !== null && amount !== null)
				throw orderFieldFail('amount', 'MARKET orders take exactly one of quantity or amount');
			if (quantity === null && amount === null)
				throw orderFieldFail('quantity', 'MARKET orders need quantity or amount');
			if (amount !== null && side !== 'BUY')
				throw orderFieldFail('amount', 'amount (quote cash) is for MARKET BUY orders only');
		} else {
			if (price === null) throw orderFieldFail('price', `${type} orders need price`);
			if (quantity === null) throw orderFieldFail('quantity', `${type} orders need quantity`);
			if (amount !== null) throw orderFieldFail('amount', 'amount is for MARKET orders only');
		}

		const stp = optString(input, 'stpMode');
		if (stp !== null && stp !== 'EXPIRE_TAKER' && stp !== 'EXPIRE_MAKER')
			throw orderFieldFail('stpMode', 'EXPIRE_TAKER or EXPIRE_MAKER');

		let clientOrderId = optString(input, 'newClientOrderId');
		if (
			clientOrderId !== null &&
			(clientOrderId.length === 0 || clientOrderId.length > MAX_CLIENT_ORDER_ID_LENGTH)
		) {
			throw orderFieldFail('newClientOrderId', `1 to ${MAX_CLIENT_ORDER_ID_LENGTH} characters`);
		}
		const accountId = owner.accountId;
		const open = this.openMap(accountId);
		if (clientOrderId !== null && open.has(clientOrderId)) {
			throw new OrderFail(
				'duplicate',
				`${CODES.duplicateOrder.msg}: clientOrderId '${clientOrderId}' is already in use`,
				'newClientOrderId',
			);
		}

		// balances: only what is free (not locked by resting orders) can be spent
		const base = info.base;
		const quote = info.quote;
		const last = D.parseDec(info.last)!;
		const feeRate = D.parseDec(FEE_RATE)!;
		const short = () =>
			new OrderFail(
				'insufficient',
				CODES.insufficientAsset.msg,
				amount !== null ? 'amount' : 'quantity',
			);
		let execQty = D.ZERO;
		let cost = D.ZERO;
		let fee = D.ZERO;
		let lockCoin = '';
		let lockAmount = D.ZERO;
		if (type === 'MARKET') {
			execQty =
				quantity !== null
					? D.parseDec(quantity)!
					: D.divTrunc(D.parseDec(amount!)!, last, BASE_QTY_SCALE);
			if (!D.isPositive(execQty))
				throw orderFieldFail('amount', 'too small for one unit step of the base coin');
			cost = D.mul(execQty, last);
			fee = D.mul(cost, feeRate);
			if (side === 'BUY') {
				if (D.cmp(this.wallet.free(accountId, quote), D.add(cost, fee)) < 0) throw short();
			} else if (D.cmp(this.wallet.free(accountId, base), execQty) < 0) {
				throw short();
			}
		} else {
			const q = D.parseDec(quantity!)!;
			lockCoin = side === 'BUY' ? quote : base;
			lockAmount = side === 'BUY' ? D.mul(q, D.parseDec(price!)!) : q;
			if (D.cmp(this.wallet.free(accountId, lockCoin), lockAmount) < 0) throw short();
		}
		if (test) return null;

		// place
		const orderId = (this.seq++).toString();
		if (clientOrderId === null) {
			clientOrderId = orderId;
			while (open.has(clientOrderId)) clientOrderId = `${clientOrderId}x`;
		}
		const now = seededAt ?? this.clock();
		const transactTime = String(now);
		const o: OrderState = {
			accountId,
			apiKey: owner.apiKey,
			symbol: symbolV,
			clientOrderId,
			orderId,
			price: type === 'MARKET' ? '0' : price!,
			origQty: quantity ?? '0',
			reqAmount: amount ?? '0',
			executedQty: D.ZERO,
			cumQuote: D.ZERO,
			fee: D.ZERO,
			feeCoin: '',
			status: 'NEW',
			timeInForce: tif,
			type: type as OrderType,
			side: side as OrderSide,
			stpMode: (stp ?? 'EXPIRE_TAKER') as StpMode,
			time: now,
			updateTime: now,
			lockCoin,
			locked: D.ZERO,
		};
		if (type === 'MARKET') {
			if (side === 'BUY') {
				this.wallet.move(accountId, base, 1, execQty, transactTime, symbolV);
				this.wallet.move(accountId, quote, 1, D.neg(cost), transactTime, symbolV);
			} else {
				this.wallet.move(accountId, base, 1, D.neg(execQty), transactTime, symbolV);
				this.wallet.move(accountId, quote, 1, cost, transactTime, symbolV);
			}
			this.wallet.move(accountId, quote, 2, D.neg(fee), transactTime, symbolV);
			o.executedQty = execQty;
			o.cumQuote = cost;
			o.fee = fee;
			o.feeCoin = quote;
			o.status = 'FILLED';
		} else {
			this.wallet.lock(accountId, lockCoin, lockAmount);
			o.locked = lockAmount;
			open.set(clientOrderId, o);
		}
		this.byId.set(orderId, o);
		this.all.push(o);
		const answer = this.createAnswer(o);
		if (seededAt === undefined) this.ledger.orders.push({ ...answer, via, apiKey: owner.apiKey });
		return answer;
	}

	/**
	 * Seed a resting (LIMIT or LIMIT_MAKER) order as if it had been placed at `time`: the same checks
	 * and locks as an order sent over HTTP, but not in ledger.orders (it is state a test starts from,
	 * like seeded history). Order IDs grow with time on the exchange, so `time` may not be before
	 * the newest order's time, nor after the clock. Throws an Error naming the problem.
	 */
	seedOpen(
		owner: { accountId: string; apiKey: string },
		input: OrderInput,
		time: number,
	): OrderView {
		if (!Number.isSafeInteger(time) || time < 0)
			throw new Error(`seeded order time must be a millisecond timestamp: ${String(time)}`);
		if (time > this.clock())
			throw new Error(`seeded order time ${time} is after the sandbox clock ${this.clock()}`);
		const newest = this.all[this.all.length - 1];
		if (newest !== undefined && time < newest.time) {
			throw new Error(
				`seeded order time ${time} is before the newest order's time ${newest.time} (order ${newest.orderId}): seed the oldest first, as order IDs grow with time`,
			);
		}
		if (input.type !== 'LIMIT' && input.type !== 'LIMIT_MAKER')
			throw new Error('seeded orders rest on the book: type must be LIMIT or LIMIT_MAKER');
		let answer: OrderData | null;
		try {
			answer = this.place(owner, input, 'single', false, time);
		} catch (error) {
			if (error instanceof OrderFail)
				throw new Error(`seeded order refused: ${error.message} (field '${error.field}')`);
			throw error;
		}
		return this.view(this.byId.get(answer!.orderId)!);
	}

	/** The create answer (spec 2.4). */
	private createAnswer(o: OrderState): OrderData {
		return {
			accountId: o.accountId,
			symbol: o.symbol,
			symbolName: o.symbol,
			clientOrderId: o.clientOrderId,
			orderId: o.orderId,
			transactTime: String(o.time),
			price: o.price,
			origQty: o.origQty,
			executedQty: D.fmt(o.executedQty),
			status: o.status,
			timeInForce: o.timeInForce,
			type: o.type,
			side: o.side,
			reqAmount: o.reqAmount,
		};
	}

	/** The query answer (the family's order query shape). */
	view(o: OrderState): OrderView {
		const avg = D.isPositive(o.executedQty) ? D.divTrunc(o.cumQuote, o.executedQty, 8) : D.ZERO;
		return {
			accountId: o.accountId,
			exchangeId: EXCHANGE_ID,
			symbol: o.symbol,
			symbolName: o.symbol,
			clientOrderId: o.clientOrderId,
			orderId: o.orderId,
			price: o.price,
			origQty: o.origQty,
			executedQty: D.fmt(o.executedQty),
			cumulativeQuoteQty: D.fmt(o.cumQuote),
			cummulativeQuoteQty: D.fmt(o.cumQuote),
			avgPrice: D.fmt(avg),
			status: o.status,
			timeInForce: o.timeInForce,
			type: o.type,
			side: o.side,
			stopPrice: '0.0',
			icebergQty: '0.0',
			time: String(o.time),
			updateTime: String(o.updateTime),
			isWorking: true,
			reqAmount: o.reqAmount,
			stpMode: o.stpMode,
			feeCoin: '',
			feeAmount: '0',
			sumFeeAmount: D.fmt(o.fee),
		};
	}

	getView(orderId: string): OrderView | undefined {
		const o = this.byId.get(orderId);
		return o ? this.view(o) : undefined;
	}

	/**
	 * One order of the given accounts by orderId, or by client order ID: the open order holding that
	 * ID if there is one, else the newest order that used it.
	 */
	find(
		accountIds: string[],
		q: { orderId?: string; clientOrderId?: string },
	): OrderState | undefined {
		if (q.orderId !== undefined) {
			const o = this.byId.get(q.orderId);
			return o && accountIds.includes(o.accountId) ? o : undefined;
		}
		const cid = q.clientOrderId!;
		for (const acc of accountIds) {
			const o = this.openIds.get(acc)?.get(cid);
			if (o) return o;
		}
		for (let i = this.all.length - 1; i >= 0; i--) {
			const o = this.all[i];
			if (o.clientOrderId === cid && accountIds.includes(o.accountId)) return o;
		}
		return undefined;
	}

	/** Orders of one account, newest first (orderId descending), filtered. */
	list(accountId: string, open: boolean, f: OrderListFilter, limit: number): OrderState[] {
		const out: OrderState[] = [];
		for (let i = this.all.length - 1; i >= 0 && out.length < limit; i--) {
			const o = this.all[i];
			if (o.accountId !== accountId || isOpen(o.status) !== open) continue;
			if (f.symbol !== undefined && o.symbol !== f.symbol) continue;
			if (f.side !== undefined && o.side !== f.side) continue;
			if (f.beforeOrderId !== undefined && cmpId(o.orderId, f.beforeOrderId) >= 0) continue;
			if (f.startTime !== undefined && o.time < f.startTime) continue;
			if (f.endTime !== undefined && o.time > f.endTime) continue;
			out.push(o);
		}
		return out;
	}

	/** Past (final) orders are kept for PAST_ORDERS_DAYS. */
	pastCutoff(): number {
		return this.clock() - PAST_ORDERS_DAYS * DAY_MS;
	}

	/** The error a cancel of this (final) order gets, or null when it is open. */
	static finalError(o: OrderState): ApiError | null {
		switch (o.status) {
			case 'FILLED':
				return apiError(CODES.orderFilled);
			case 'CANCELED':
				return apiError(CODES.orderCancelled);
			case 'PARTIALLY_CANCELED':
				return apiError(CODES.orderPartiallyCancelled);
			default:
				return null;
		}
	}

	/** Cancel an open order (throws the family's code for a final one). */
	cancel(o: OrderState, via: LedgerCancel['via'], apiKey: string): CancelAnswer {
		const err = OrderBook.finalError(o);
		if (err) throw err;
		const now = this.clock();
		if (D.isPositive(o.locked)) this.wallet.unlock(o.accountId, o.lockCoin, o.locked);
		o.locked = D.ZERO;
		o.status = D.isPositive(o.executedQty) ? 'PARTIALLY_CANCELED' : 'CANCELED';
		o.updateTime = now;
		this.openMap(o.accountId).delete(o.clientOrderId);
		this.ledger.cancels.push({
			orderId: o.orderId,
			clientOrderId: o.clientOrderId,
			accountId: o.accountId,
			status: o.status,
			via,
			apiKey,
			at: now,
		});
		return {
			accountId: o.accountId,
			symbol: o.symbol,
			clientOrderId: o.clientOrderId,
			orderId: o.orderId,
			transactTime: String(now),
			price: o.price,
			origQty: o.origQty,
			executedQty: D.fmt(o.executedQty),
			status: o.status,
			timeInForce: o.timeInForce,
			type: o.type,
			side: o.side,
		};
	}

	/**
	 * Fill `quantity` (default: all that remains) of a resting order at its limit price. The fee
	 * (FEE_RATE) is charged in the coin received, as the family does ("feeSide: get").
	 */
	fill(orderId: string, quantity?: string): OrderView {
		const o = this.byId.get(orderId);
		if (!o) throw new Error(`no order ${orderId}`);
		if (!isOpen(o.status)) throw new Error(`order ${orderId} is ${o.status}, not open`);
		const orig = D.parseDec(o.origQty)!;
		const remaining = D.sub(orig, o.executedQty);
		let q = remaining;
		if (quantity !== undefined) {
			const d = D.parseDec(quantity);
			if (!d || !D.isPositive(d))
				throw new Error(`fill quantity must be a positive decimal string: ${quantity}`);
			if (D.cmp(d, remaining) > 0)
				throw new Error(`fill quantity ${quantity} exceeds the remaining ${D.fmt(remaining)}`);
			q = d;
		}
		const info = SYMBOLS[o.symbol];
		const price = D.parseDec(o.price)!;
		const value = D.mul(q, price);
		const feeRate = D.parseDec(FEE_RATE)!;
		const now = this.clock();
		const created = String(now);
		if (o.side === 'BUY') {
			const fee = D.mul(q, feeRate);
			this.wallet.unlock(o.accountId, info.quote, value);
			o.locked = D.sub(o.locked, value);
			this.wallet.move(o.accountId, info.base, 1, q, created, o.symbol);
			this.wallet.move(o.accountId, info.quote, 1, D.neg(value), created, o.symbol);
			this.wallet.move(o.accountId, info.base, 2, D.neg(fee), created, o.symbol);
			o.fee = D.add(o.fee, fee);
			o.feeCoin = info.base;
		} else {
			const fee = D.mul(value, feeRate);
			this.wallet.unlock(o.accountId, info.base, q);
			o.locked = D.sub(o.locked, q);
			this.wallet.move(o.accountId, info.base, 1, D.neg(q), created, o.symbol);
			this.wallet.move(o.accountId, info.quote, 1, value, created, o.symbol);
			this.wallet.move(o.accountId, info.quote, 2, D.neg(fee), created, o.symbol);
			o.fee = D.add(o.fee, fee);
			o.feeCoin = info.quote;
		}
		o.executedQty = D.add(o.executedQty, q);
		o.cumQuote = D.add(o.cumQuote, value);
		o.updateTime = now;
		if (D.cmp(o.executedQty, orig) === 0) {
			o.status = 'FILLED';
			if (D.isPositive(o.locked)) this.wallet.unlock(o.accountId, o.lockCoin, o.locked);
			o.locked = D.ZERO;
			this.openMap(o.accountId).delete(o.clientOrderId);
		} else {
			o.status = 'PARTIALLY_FILLED';
		}
		return this.view(o);
	}

	/**
	 * One step for every open order (optionally of one symbol), oldest first: NEW becomes
	 * PARTIALLY_FILLED (half its quantity, truncated to 8 decimals, or all of it when that is zero),
	 * PARTIALLY_FILLED becomes FILLED. Returns the orders after their step.
	 */
	advance(symbol?: string): OrderView[] {
		const out: OrderView[] = [];
		for (const o of this.all.filter(
			(x) => isOpen(x.status) && (symbol === undefined || x.symbol === symbol),
		)) {
			if (o.status === 'NEW') {
				const half = D.divTrunc(D.parseDec(o.origQty)!, { v: 2n, s: 0 }, 8);
				out.push(this.fill(o.orderId, D.isPositive(half) ? D.fmt(half) : undefined));
			} else {
				out.push(this.fill(o.orderId));
			}
		}
		return out;
	}
}
