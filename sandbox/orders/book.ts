/**
 * The sandbox's order book: placing, finding, listing and cancelling spot orders. No HTTP here.
 *
 * Exchange behaviours kept on purpose (see README.md):
 * - a client order ID is unique among the account's OPEN orders only; once an order is filled or
 *   cancelled its ID may be used again, so a blind re-send of a filled MARKET order fills twice;
 * - LIMIT and LIMIT_MAKER orders rest as NEW and lock funds until a test fills them (fill/advance)
 *   or they are cancelled (cancelling.ts, possibly late); MARKET orders fill at once at the
 *   symbol's last price.
 */
import { DAY_MS, ORDER_ID_BASE } from '../constants';
import { CODES } from '../codes';
import type { DeferredWork } from '../deferred';
import * as D from '../decimal';
import type { Market } from '../market/market';
import { type ApiError, OrderFail } from '../errors';
import { cmpId } from '../store';
import type { StreamEvents } from '../stream/events';
import type { CancelAnswer, Ledger, OrderData, OrderView } from '../types';
import { cancelOrder, finalError, type CancelContext, type CancelRequest } from './cancelling';
import { advanceStep, fillOrder, type FillContext } from './fills';
import {
	PAST_ORDERS_DAYS,
	isOpen,
	type OrderInput,
	type OrderListFilter,
	type OrderOwner,
	type OrderState,
	type Wallet,
} from './state';
import { TradeBook } from './trades';
import { checkOrderFields, fundsFor } from './validate';
import { PLAIN_STYLE, createAnswer, orderView, type AnswerStyle } from './views';

/**
 * How place() places: only validate (`test`), seed as if at `seededAt` (seedOpen), answer in
 * `style`, by the rules of the unified v1.1 endpoints (`unified`: validate.ts).
 */
export interface PlaceOptions {
	test?: boolean;
	seededAt?: number;
	style?: AnswerStyle;
	unified?: boolean;
}

/**
 * A LIMIT IOC or FOK order (v1.1) against the sandbox's market, which is one price of unlimited
 * depth: marketable (a BUY at or above the last price, a SELL at or below it) it fills at once and
 * in full at the last price, like a MARKET order of its quantity; otherwise nothing of it can trade
 * now, so it is CANCELED unfilled (IOC and FOK alike, as the book has no partial depth).
 */
function immediateFill(
	checked: { type: string; timeInForce: string; side: string; price: string | null },
	lastPrice: string,
): 'fill' | 'cancel' | undefined {
	if (checked.type !== 'LIMIT' || checked.timeInForce === 'GTC') return undefined;
	const order = D.cmp(D.parseDec(checked.price!)!, D.parseDec(lastPrice)!);
	return (checked.side === 'BUY' ? order >= 0 : order <= 0) ? 'fill' : 'cancel';
}

export class OrderBook {
	private byId = new Map<string, OrderState>();
	/** Every order, ascending by orderId. */
	private all: OrderState[] = [];
	/** accountId -> clientOrderId -> the open order holding that id. */
	private openIds = new Map<string, Map<string, OrderState>>();
	private seq = ORDER_ID_BASE;
	/** Every fill of every order (GET /api/v1/account/trades). */
	readonly trades: TradeBook;
	private readonly fillContext: FillContext;
	private readonly cancelContext: CancelContext;

	constructor(
		private readonly clock: () => number,
		private readonly wallet: Wallet,
		private readonly ledger: Ledger,
		deferred: DeferredWork,
		private readonly market: Market,
		/** The user data stream's events of each order change (stream/events.ts). */
		private readonly events: StreamEvents,
	) {
		const release = (o: OrderState) => this.openMap(o.accountId).delete(o.clientOrderId);
		this.trades = new TradeBook(clock);
		this.fillContext = { wallet, clock, release, trades: this.trades, events };
		this.cancelContext = { wallet, clock, ledger, release, deferred, events };
	}

	clear(): void {
		this.byId.clear();
		this.all = [];
		this.openIds.clear();
		this.seq = ORDER_ID_BASE;
		this.trades.clear();
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
	 * Returns the create answer (spec 2.4) in `style`, or null for a test order; ledger.orders gets
	 * it in the book's own terms. `seededAt` (tests only, see seedOpen) places it as if at that time
	 * and leaves it out of ledger.orders.
	 */
	place(
		owner: OrderOwner,
		input: OrderInput,
		via: 'single' | 'batch',
		opts: PlaceOptions = {},
	): OrderData | null {
		const { test = false, seededAt, style = PLAIN_STYLE, unified = false } = opts;
		const checked = checkOrderFields(input, this.market, unified);
		const accountId = owner.accountId;
		const open = this.openMap(accountId);
		if (checked.clientOrderId !== null && open.has(checked.clientOrderId)) {
			throw new OrderFail(
				'duplicate',
				`${CODES.duplicateOrder.msg}: clientOrderId '${checked.clientOrderId}' is already in use`,
				'newClientOrderId',
			);
		}
		// realistic rules: MARKET orders fill at the walk's current price
		const lastPrice = this.market.price(checked.info);
		const free = (coin: string) => this.wallet.free(accountId, coin);
		let funds = fundsFor(checked, free, lastPrice);
		if (test) return null;
		const immediate = immediateFill(checked, lastPrice);
		// A marketable IOC/FOK order trades as a MARKET order of its quantity would.
		if (immediate === 'fill') funds = fundsFor({ ...checked, type: 'MARKET' }, free, lastPrice);

		const { symbol, info, side, type } = checked;
		const orderId = (this.seq++).toString();
		let clientOrderId = checked.clientOrderId;
		if (clientOrderId === null) {
			clientOrderId = orderId;
			while (open.has(clientOrderId)) clientOrderId = `${clientOrderId}x`;
		}
		const now = seededAt ?? this.clock();
		const transactTime = String(now);
		const o: OrderState = {
			accountId,
			apiKey: owner.apiKey,
			symbol,
			clientOrderId,
			orderId,
			price: type === 'MARKET' ? '0' : checked.price!,
			origQty: checked.quantity ?? '0',
			reqAmount: checked.amount ?? '0',
			executedQty: D.ZERO,
			cumQuote: D.ZERO,
			fee: D.ZERO,
			feeCoin: '',
			status: 'NEW',
			timeInForce: checked.timeInForce,
			type,
			side,
			stpMode: checked.stpMode ?? 'EXPIRE_TAKER',
			time: now,
			updateTime: now,
			lockCoin: funds.lockCoin,
			locked: D.ZERO,
		};
		if (immediate === 'cancel') {
			o.status = 'CANCELED';
			this.events.order(o);
		} else if (type === 'MARKET' || immediate === 'fill') {
			// the stream shows a MARKET order NEW, then filled
			this.events.order(o);
			const { execQty, cost, fee } = funds;
			const { base, quote } = info;
			if (side === 'BUY') {
				this.wallet.move(accountId, base, 1, execQty, transactTime, symbol);
				this.wallet.move(accountId, quote, 1, D.neg(cost), transactTime, symbol);
			} else {
				this.wallet.move(accountId, base, 1, D.neg(execQty), transactTime, symbol);
				this.wallet.move(accountId, quote, 1, cost, transactTime, symbol);
			}
			this.wallet.move(accountId, quote, 2, D.neg(fee), transactTime, symbol);
			o.executedQty = execQty;
			o.cumQuote = cost;
			o.fee = fee;
			o.feeCoin = quote;
			o.status = 'FILLED';
			// filled at once against the market: one fill, the taker's, at the price it filled at
			const [fill] = this.trades.record([
				{
					accountId,
					orderId,
					clientOrderId,
					symbol,
					side,
					price: D.parseDec(lastPrice)!,
					qty: execQty,
					fee,
					feeCoin: quote,
					isMaker: false,
					time: now,
				},
			]);
			this.events.order(o, fill);
		} else {
			this.wallet.lock(accountId, funds.lockCoin, funds.lockAmount);
			o.locked = funds.lockAmount;
			open.set(clientOrderId, o);
			this.events.order(o);
		}
		this.byId.set(orderId, o);
		this.all.push(o);
		if (seededAt === undefined)
			this.ledger.orders.push({ ...createAnswer(o), via, apiKey: owner.apiKey });
		// the order is on the book and readable: its events go out now
		this.events.commit();
		return createAnswer(o, style);
	}

	/**
	 * Seed a resting (LIMIT or LIMIT_MAKER) order as if it had been placed at `time`: the same checks
	 * and locks as an order sent over HTTP, but not in ledger.orders (it is state a test starts from,
	 * like seeded history). Order IDs grow with time on the exchange, so `time` may not be before
	 * the newest order's time, nor after the clock. Throws an Error naming the problem.
	 */
	seedOpen(owner: OrderOwner, input: OrderInput, time: number): OrderView {
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
			answer = this.place(owner, input, 'single', { seededAt: time });
		} catch (error) {
			if (error instanceof OrderFail)
				throw new Error(`seeded order refused: ${error.message} (field '${error.field}')`);
			throw error;
		}
		return orderView(this.byId.get(answer!.orderId)!);
	}

	/** The query answer (the family's order query shape). */
	view(o: OrderState, style: AnswerStyle = PLAIN_STYLE): OrderView {
		return orderView(o, style);
	}

	getView(orderId: string): OrderView | undefined {
		const o = this.byId.get(orderId);
		return o ? orderView(o) : undefined;
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

	/** Orders of one account, newest first (orderId descending; `oldestFirst`: ascending), filtered. */
	list(
		accountId: string,
		open: boolean,
		f: OrderListFilter,
		limit: number,
		oldestFirst = false,
	): OrderState[] {
		const out: OrderState[] = [];
		const n = this.all.length;
		for (let k = 0; k < n && out.length < limit; k++) {
			const o = this.all[oldestFirst ? k : n - 1 - k];
			if (o.accountId !== accountId || isOpen(o.status) !== open) continue;
			if (f.skipPendingCancel && o.status === 'PENDING_CANCEL') continue;
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

	/** The error a cancel of this order gets when it is final, or null when it is open (cancelling.ts). */
	static finalError(o: OrderState): ApiError | null {
		return finalError(o);
	}

	/** Cancel an open order, at once or after `delayMs` (cancelling.ts); throws for a final one. */
	cancel(o: OrderState, req: CancelRequest): CancelAnswer {
		return cancelOrder(o, req, this.cancelContext);
	}

	/** Fill `quantity` (default: all that remains) of a resting order at its limit price (fills.ts). */
	fill(orderId: string, quantity?: string): OrderView {
		const o = this.byId.get(orderId);
		if (!o) throw new Error(`no order ${orderId}`);
		fillOrder(o, quantity, this.fillContext);
		return orderView(o);
	}

	/**
	 * One step for every open order (optionally of one symbol) but those whose cancel is pending,
	 * oldest first: NEW becomes
	 * PARTIALLY_FILLED (half its quantity, truncated to 8 decimals, or all of it when that is zero),
	 * PARTIALLY_FILLED becomes FILLED. Returns the orders after their step.
	 */
	advance(symbol?: string): OrderView[] {
		return this.all
			.filter((x) => isOpen(x.status) && x.status !== 'PENDING_CANCEL')
			.filter((x) => symbol === undefined || x.symbol === symbol)
			.map((o) => this.fill(o.orderId, advanceStep(o)));
	}
}
