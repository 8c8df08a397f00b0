/**
 * Sandbox state: balances (total and locked), history records, transfers, and the order book.
 * No HTTP here.
 */
import {
	ACCOUNT_TYPES,
	DEFAULT_FUNDING_SYMBOLS,
	FLOW_TYPES,
	INITIAL_BALANCES,
	RECORD_ID_BASE,
	TRANSFER_ID_BASE,
	accountsOf,
	tradingAccountOf,
} from './constants';
import { CODES } from './codes';
import * as D from './decimal';
import { apiError, fieldError, positiveDecimal } from './errors';
import { OrderBook, type OrderInput, type Wallet } from './orders';
import { mulberry32 } from './prng';
import { RecordStore } from './store';
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

export { ApiError, OrderFail, apiError, fieldError, positiveDecimal } from './errors';
export type { OrderInput } from './orders';

export class Engine {
	readonly store = new RecordStore();
	readonly orders: OrderBook;
	/** Total balance per account and coin (free + locked). */
	private balances = new Map<string, Map<string, D.Dec>>();
	/** Amount locked by resting orders, per account and coin. */
	private locks = new Map<string, Map<string, D.Dec>>();
	private recordSeq = RECORD_ID_BASE;
	private transferSeq = TRANSFER_ID_BASE;

	constructor(
		private readonly clock: () => number,
		private readonly ledger: Ledger,
	) {
		const wallet: Wallet = {
			free: (a, c) => this.free(a, c),
			lock: (a, c, d) => this.putIn(this.locks, a, c, D.add(this.lockedOf(a, c), d)),
			unlock: (a, c, d) => this.putIn(this.locks, a, c, D.sub(this.lockedOf(a, c), d)),
			move: (a, c, f, d, created, symbol) => this.writeMove(a, c, f, d, created, symbol),
		};
		this.orders = new OrderBook(clock, wallet, ledger);
		this.resetState();
	}

	resetState(): void {
		this.store.clear();
		this.balances.clear();
		this.locks.clear();
		this.orders.clear();
		this.recordSeq = RECORD_ID_BASE;
		this.transferSeq = TRANSFER_ID_BASE;
		for (const [acc, coins] of Object.entries(INITIAL_BALANCES)) {
			for (const [coin, amount] of Object.entries(coins)) this.setBalance(acc, coin, amount);
		}
	}

	// ---- balances ----

	private checkAccount(accountId: string): void {
		if (!(accountId in ACCOUNT_TYPES)) throw new Error(`unknown account ${accountId}`);
	}

	private bal(accountId: string, coin: string): D.Dec {
		return this.balances.get(accountId)?.get(coin) ?? D.ZERO;
	}

	private lockedOf(accountId: string, coin: string): D.Dec {
		return this.locks.get(accountId)?.get(coin) ?? D.ZERO;
	}

	private free(accountId: string, coin: string): D.Dec {
		return D.sub(this.bal(accountId, coin), this.lockedOf(accountId, coin));
	}

	private putIn(
		map: Map<string, Map<string, D.Dec>>,
		accountId: string,
		coin: string,
		d: D.Dec,
	): void {
		let m = map.get(accountId);
		if (!m) {
			m = new Map();
			map.set(accountId, m);
		}
		m.set(coin, d);
	}

	private putBal(accountId: string, coin: string, d: D.Dec): void {
		this.putIn(this.balances, accountId, coin, d);
	}

	/** Set the total balance of a coin; it may not go below what resting orders lock. */
	setBalance(accountId: string, coin: string, amount: string): void {
		this.checkAccount(accountId);
		const d = D.parseDec(amount);
		if (!d || d.v < 0n) throw new Error(`balance must be a non-negative decimal string: ${amount}`);
		if (D.cmp(d, this.lockedOf(accountId, coin)) < 0) {
			throw new Error(
				`balance ${amount} is below the ${D.fmt(this.lockedOf(accountId, coin))} ${coin} locked by resting orders`,
			);
		}
		this.putBal(accountId, coin, d);
	}

	/** Total balance (free + locked). */
	getBalance(accountId: string, coin: string): string {
		return D.fmt(this.bal(accountId, coin));
	}

	getBalanceDetail(
		accountId: string,
		coin: string,
	): { free: string; locked: string; total: string } {
		return {
			free: D.fmt(this.free(accountId, coin)),
			locked: D.fmt(this.lockedOf(accountId, coin)),
			total: D.fmt(this.bal(accountId, coin)),
		};
	}

	/** Every coin the account has held, sorted by name, zero balances included. */
	balanceLines(accountId: string): BalanceLine[] {
		const coins = new Set([
			...(this.balances.get(accountId)?.keys() ?? []),
			...(this.locks.get(accountId)?.keys() ?? []),
		]);
		return [...coins].sort().map((coin) => {
			const b = this.getBalanceDetail(accountId, coin);
			return {
				asset: coin,
				assetId: coin,
				assetName: coin,
				total: b.total,
				free: b.free,
				locked: b.locked,
			};
		});
	}

	// ---- records ----

	private nextRecordId(): string {
		let id: string;
		do {
			id = (this.recordSeq++).toString();
		} while (this.store.hasId(id));
		return id;
	}

	/** Build (not store) a full record from a partial one; validates what it is given. */
	private buildRecord(r: AddRecordInput): HistoryRecord {
		this.checkAccount(r.accountId);
		const ft = FLOW_TYPES[r.flowTypeValue];
		if (!ft) throw new Error(`unknown flowTypeValue ${r.flowTypeValue}`);
		if (!/^\d+$/.test(r.created))
			throw new Error(`created must be a string of digits: ${r.created}`);
		const change = D.parseDec(r.change);
		if (!change) throw new Error(`change must be a decimal string: ${r.change}`);
		const coin = r.coin ?? 'USDT';
		if (r.id !== undefined && (!/^\d{1,20}$/.test(r.id) || this.store.hasId(r.id))) {
			throw new Error(`record id must be a new numeric string: ${r.id}`);
		}
		const rec: HistoryRecord = {
			id: r.id ?? this.nextRecordId(),
			accountId: r.accountId,
			coin,
			coinId: r.coinId ?? coin,
			coinName: r.coinName ?? coin,
			flowTypeValue: r.flowTypeValue,
			flowType: r.flowType ?? ft.flowType,
			flowName: r.flowName ?? ft.flowName,
			change: D.fmt(change),
			total: r.total ?? this.getBalance(r.accountId, coin),
			created: r.created,
		};
		const symbol = r.symbol ?? (r.flowTypeValue === 32 ? DEFAULT_FUNDING_SYMBOLS[0] : undefined);
		if (symbol !== undefined) rec.symbol = symbol;
		return rec;
	}

	/** Add history records as given (balances are not touched); total defaults to the current balance. */
	addRecords(inputs: AddRecordInput[]): HistoryRecord[] {
		const out: HistoryRecord[] = [];
		for (const r of inputs) {
			const rec = this.buildRecord(r);
			this.store.insert(rec);
			out.push(rec);
		}
		return out;
	}

	/** Deterministic synthetic history (balances are not touched). */
	seedRecords(opts: SeedRecordsOptions): HistoryRecord[] {
		const ft = FLOW_TYPES[opts.flowType];
		if (!ft) throw new Error(`unknown flowType ${opts.flowType}`);
		const count = Math.floor(opts.count);
		if (!(count >= 0)) throw new Error('count must be >= 0');
		if (!(opts.endTime >= opts.startTime)) throw new Error('endTime must be >= startTime');
		const perMs = Math.max(1, Math.floor(opts.perMillisecond ?? 1));
		const accountId = opts.accountId ?? defaultAccountFor(opts.flowType);
		this.checkAccount(accountId);
		const coin = opts.coin ?? 'USDT';
		const symbols =
			opts.symbols ??
			(opts.flowType === 32
				? DEFAULT_FUNDING_SYMBOLS
				: opts.flowType === 1 || opts.flowType === 2
					? ['BTCUSDT']
					: []);
		const rnd = mulberry32(opts.seed ?? 1);
		const groups = Math.ceil(count / perMs);
		const span = opts.endTime - opts.startTime;
		const signMode = signModeFor(opts.flowType);
		// running total in units of 1e-8, kept as a safe integer
		let total = 1_000_000_000_000; // 10000
		const recs: HistoryRecord[] = new Array(count);
		const base = this.recordSeq;
		let n = 0;
		for (let g = 0; g < groups && n < count; g++) {
			const t =
				groups > 1 ? opts.startTime + Math.floor((span * g) / (groups - 1)) : opts.startTime;
			const created = String(t);
			for (let k = 0; k < perMs && n < count; k++, n++) {
				let units = 1 + Math.floor(rnd() * 500_000_000); // 0.00000001 .. 5
				if (signMode < 0 || (signMode === 0 && rnd() < 0.5)) units = -units;
				if (total + units < 0) units = -units;
				total += units;
				const rec: HistoryRecord = {
					id: (base + BigInt(n)).toString(),
					accountId,
					coin,
					coinId: coin,
					coinName: coin,
					flowTypeValue: opts.flowType,
					flowType: ft.flowType,
					flowName: ft.flowName,
					change: fmtUnits(units),
					total: fmtUnits(total),
					created,
				};
				if (symbols.length > 0) rec.symbol = symbols[Math.floor(rnd() * symbols.length)];
				recs[n] = rec;
			}
		}
		this.recordSeq = base + BigInt(count);
		if (recs.some((r) => this.store.hasId(r.id))) {
			// extremely unlikely (explicit ids given to addRecords); fall back to fresh ids
			for (const r of recs) r.id = this.nextRecordId();
		}
		this.store.insertMany(recs);
		return recs;
	}

	/** Write a record stemming from a balance move: total = balance after the move. */
	private writeMove(
		accountId: string,
		coin: string,
		flowType: number,
		change: D.Dec,
		created: string,
		symbol?: string,
	): void {
		const after = D.add(this.bal(accountId, coin), change);
		this.putBal(accountId, coin, after);
		this.store.insert(
			this.buildRecord({
				accountId,
				coin,
				flowTypeValue: flowType,
				change: D.fmt(change),
				total: D.fmt(after),
				created,
				symbol,
			}),
		);
	}

	// ---- history ----

	queryHistory(q: {
		flowType: number;
		accountIds: string[];
		startTime: number;
		endTime: number;
		limit: number;
	}): HistoryRecord[] {
		const retention = FLOW_TYPES[q.flowType].retentionDays * 86_400_000;
		const cutoff = this.clock() - retention;
		return this.store.query({
			flowType: q.flowType,
			accountIds: q.accountIds,
			from: Math.max(q.startTime, cutoff),
			to: q.endTime,
			limit: q.limit,
		});
	}

	// ---- transfers ----

	transfer(
		key: DemoKey,
		p: { fromAccountId?: string; toAccountId?: string; coin?: string; quantity?: string },
	): { id: string; timestamp: string } {
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
		if (D.cmp(this.free(from, coin), qty) < 0) throw apiError(CODES.insufficientAsset);
		const created = String(this.clock());
		this.writeMove(from, coin, 51, D.neg(qty), created);
		this.writeMove(to, coin, 51, qty, created);
		const id = (this.transferSeq++).toString();
		this.ledger.transfers.push({
			id,
			fromAccountId: from,
			toAccountId: to,
			coin,
			quantity: qtyStr,
			created,
			apiKey: key.apiKey,
		});
		return { id, timestamp: created };
	}

	// ---- orders ----

	/** Place (or with `test`, only validate) one order on the key's trading account; throws OrderFail. */
	placeOrder(
		key: DemoKey,
		input: OrderInput,
		via: 'single' | 'batch',
		test = false,
	): OrderData | null {
		return this.orders.place(
			{ accountId: tradingAccountOf(key), apiKey: key.apiKey },
			input,
			via,
			test,
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

function defaultAccountFor(flowType: number): string {
	switch (flowType) {
		case 32:
			return '10003';
		case 900:
		case 904:
			return '10005';
		case 906:
		case 910:
			return '10006';
		default:
			return '10001';
	}
}

/** +1 always credit, -1 always debit, 0 either. */
function signModeFor(flowType: number): number {
	switch (flowType) {
		case 2:
		case 904:
		case 910:
			return -1;
		case 900:
		case 906:
			return 1;
		default:
			return 0;
	}
}

/** Format an integer count of 1e-8 units as a decimal string. */
function fmtUnits(units: number): string {
	const neg = units < 0;
	const a = Math.abs(units);
	const i = Math.floor(a / 1e8);
	const f = a % 1e8;
	let s = String(i);
	if (f !== 0) s += `.${String(f).padStart(8, '0').replace(/0+$/, '')}`;
	return neg ? `-${s}` : s;
}
