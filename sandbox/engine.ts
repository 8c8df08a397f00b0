/**
 * Sandbox state: balances, history records, transfers and the order book, wired together so that
 * every balance move writes its history record, and every order change and balance move becomes an
 * event of the user data stream (stream/events.ts) once it is complete. No HTTP here.
 */
import { INITIAL_BALANCES, TRANSFER_ID_BASE, accountsOf, tradingAccountOf } from './constants';
import { Balances } from './balances';
import { CODES } from './codes';
import type { DeferredWork } from './deferred';
import * as D from './decimal';
import { apiError, fieldError, positiveDecimal } from './errors';
import { Futures } from './futures/futures';
import type { Market } from './market/market';
import { OrderBook } from './orders/book';
import type { OrderInput, Wallet } from './orders/state';
import type { AnswerStyle } from './orders/views';
import { RecordBook, type HistoryQuery } from './records';
import { StreamEvents } from './stream/events';
import type {
	AddRecordInput,
	BalanceLine,
	DemoKey,
	HistoryRecord,
	Ledger,
	OrderData,
	OrderView,
	SeedRecordsOptions,
} from './types';

export class Engine {
	readonly orders: OrderBook;
	/** The user data stream's events; the sandbox connects them to its WebSocket hub. */
	readonly events: StreamEvents;
	/** The futures read side: contracts' positions, orders, fills and funding (futures/). */
	readonly futures: Futures;
	private readonly balances = new Balances();
	private readonly records: RecordBook;
	private transferSeq = TRANSFER_ID_BASE;

	constructor(
		private readonly clock: () => number,
		private readonly ledger: Ledger,
		deferred: DeferredWork,
		market: Market,
		fundingIntervalMs?: number,
	) {
		this.records = new RecordBook(clock, this.balances);
		this.events = new StreamEvents(clock, (a, c) => this.balances.detail(a, c));
		const wallet: Wallet = {
			free: (a, c) => this.balances.free(a, c),
			lock: (a, c, d) => {
				this.balances.lock(a, c, d);
				this.events.touch(a, c);
			},
			unlock: (a, c, d) => {
				this.balances.unlock(a, c, d);
				this.events.touch(a, c);
			},
			move: (a, c, f, d, created, symbol) => this.writeMove(a, c, f, d, created, symbol),
		};
		this.orders = new OrderBook(clock, wallet, ledger, deferred, market, this.events);
		this.futures = new Futures(
			{
				clock,
				market,
				events: this.events,
				move: (a, c, f, d, created, symbol) => this.writeMove(a, c, f, d, created, symbol),
				coins: (a) => this.balances.lines(a).map((l) => [l.asset, l.total]),
			},
			fundingIntervalMs,
		);
		// funding due by the sandbox clock is settled before each request and state getter
		deferred.addSweep(() => this.futures.settleDue());
		this.resetState();
	}

	resetState(): void {
		this.records.clear();
		this.balances.clear();
		this.orders.clear();
		this.transferSeq = TRANSFER_ID_BASE;
		for (const [acc, coins] of Object.entries(INITIAL_BALANCES)) {
			for (const [coin, amount] of Object.entries(coins)) this.balances.set(acc, coin, amount);
		}
		this.futures.reset();
		this.events.discard();
	}

	// ---- balances ----

	/** Set the total balance of a coin; it may not go below what resting orders lock. */
	setBalance(accountId: string, coin: string, amount: string): void {
		this.balances.set(accountId, coin, amount);
		this.events.touch(accountId, coin);
		this.events.commit();
	}

	/** Total balance (free + locked). */
	getBalance(accountId: string, coin: string): string {
		return D.fmt(this.balances.total(accountId, coin));
	}

	getBalanceDetail(
		accountId: string,
		coin: string,
	): { free: string; locked: string; total: string } {
		return this.balances.detail(accountId, coin);
	}

	/** Every coin the account has held, sorted by name, zero balances included. */
	balanceLines(accountId: string): BalanceLine[] {
		return this.balances.lines(accountId);
	}

	/** Change a balance and write the history record of the move: total = balance after the move. */
	private writeMove(
		accountId: string,
		coin: string,
		flowType: number,
		change: D.Dec,
		created: string,
		symbol?: string,
		ids?: { orderId: string; clientOrderId: string },
	): void {
		const after = this.balances.add(accountId, coin, change);
		this.events.touch(accountId, coin);
		this.records.writeMove(accountId, coin, flowType, change, after, created, symbol, ids);
	}

	// ---- history ----

	/** Add history records as given (balances are not touched); total defaults to the current balance. */
	addRecords(inputs: AddRecordInput[]): HistoryRecord[] {
		return this.records.add(inputs);
	}

	/** Deterministic synthetic history (balances are not touched). */
	seedRecords(opts: SeedRecordsOptions): HistoryRecord[] {
		return this.records.seed(opts);
	}

	queryHistory(q: HistoryQuery): HistoryRecord[] {
		return this.records.query(q);
	}

	// ---- transfers ----

	/**
	 * A transfer between two of the key's accounts. `clientOrderId` ("" or absent: none) is checked by
	 * the route; one an earlier transfer was sent with is refused -1141, nothing moved.
	 */
	transfer(
		key: DemoKey,
		p: {
			fromAccountId?: string;
			toAccountId?: string;
			coin?: string;
			quantity?: string;
			clientOrderId?: string;
		},
		reusedIds: 'refuse' | 'accept' = 'refuse',
	): { id: string; timestamp: string; clientOrderId: string } {
		const own = accountsOf(key);
		const from = p.fromAccountId;
		if (from === undefined || !/^\d+$/.test(from))
			throw fieldError('fromAccountId', 'numeric account id');
		const to = p.toAccountId;
		if (to === undefined || !/^\d+$/.test(to))
			throw fieldError('toAccountId', 'numeric account id');
		if (!own.includes(from))
			throw apiError(CODES.invalidFromAccount, `'${from}' is not one of your accounts`);
		if (!own.includes(to))
			throw apiError(CODES.invalidToAccount, `'${to}' is not one of your accounts`);
		if (from === to) throw apiError(CODES.sameAccountTransfer);
		const coin = p.coin;
		if (coin === undefined || !/^[A-Z0-9]{1,20}$/.test(coin)) throw fieldError('coin');
		const qtyStr = positiveDecimal(p.quantity, 'quantity', fieldError);
		if (qtyStr === null) throw fieldError('quantity');
		const qty = D.parseDec(qtyStr)!;
		const clientOrderId = p.clientOrderId ?? '';
		if (
			clientOrderId !== '' &&
			reusedIds === 'refuse' &&
			this.ledger.transfers.some((transfer) => transfer.clientOrderId === clientOrderId)
		) {
			throw apiError(
				CODES.duplicateOrder,
				`a transfer was already sent with clientOrderId '${clientOrderId}'`,
			);
		}
		if (D.cmp(this.balances.free(from, coin), qty) < 0) throw apiError(CODES.insufficientAsset);
		const created = String(this.clock());
		const id = (this.transferSeq++).toString();
		const ids = { orderId: id, clientOrderId };
		this.writeMove(from, coin, 51, D.neg(qty), created, undefined, ids);
		this.writeMove(to, coin, 51, qty, created, undefined, ids);
		this.ledger.transfers.push({
			id,
			fromAccountId: from,
			toAccountId: to,
			coin,
			quantity: qtyStr,
			clientOrderId,
			created,
			apiKey: key.apiKey,
		});
		this.events.commit();
		return { id, timestamp: created, clientOrderId };
	}

	// ---- orders ----

	/**
	 * Place (or with `test`, only validate) one order on the key's trading account, answered in
	 * `style`; throws OrderFail.
	 */
	placeOrder(
		key: DemoKey,
		input: OrderInput,
		via: 'single' | 'batch',
		opts: { test?: boolean; style?: AnswerStyle; unified?: boolean } = {},
	): OrderData | null {
		return this.orders.place(
			{ accountId: tradingAccountOf(key), apiKey: key.apiKey },
			input,
			via,
			opts,
		);
	}

	/** A resting order on the key's trading account as if placed at `time` (OrderBook.seedOpen). */
	seedOpenOrder(key: DemoKey, input: OrderInput, time: number): OrderView {
		return this.orders.seedOpen(
			{ accountId: tradingAccountOf(key), apiKey: key.apiKey },
			input,
			time,
		);
	}
}
