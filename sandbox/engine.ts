/**
 * Sandbox state: balances, history records, orders, transfers. No HTTP here.
 */
import {
	ACCOUNT_TYPES,
	BASE_QTY_SCALE,
	DEFAULT_FUNDING_SYMBOLS,
	FEE_RATE,
	FLOW_TYPES,
	INITIAL_BALANCES,
	MAX_CLIENT_ORDER_ID_LENGTH,
	ORDER_ID_BASE,
	RECORD_ID_BASE,
	SYMBOLS,
	TRANSFER_ID_BASE,
	accountsOf,
	tradingAccountOf,
} from './constants';
import { CODES, intCode, type CodeInfo } from './codes';
import * as D from './decimal';
import { JsonNumber, type JsonValue } from './json';
import { mulberry32 } from './prng';
import { RecordStore } from './store';
import type {
	AddRecordInput,
	DemoKey,
	HistoryRecord,
	Ledger,
	OrderData,
	OrderSide,
	OrderType,
	SeedRecordsOptions,
	TimeInForce,
} from './types';

/** An API error: HTTP status and top-level string code. */
export class ApiError extends Error {
	constructor(
		public readonly status: number,
		public readonly code: string,
		msg: string,
	) {
		super(msg);
	}
}

/** An error answer with a code of the family's table; `detail` is appended to its message. */
export function apiError(info: CodeInfo, detail?: string): ApiError {
	return new ApiError(info.status, info.code, detail ? `${info.msg} (${detail})` : info.msg);
}

export function fieldError(name: string, detail?: string): ApiError {
	return new ApiError(400, CODES.invalidField.code, `Required field '${name}' missing or invalid${detail ? ` (${detail})` : ''}`);
}

export type OrderFailKind = 'field' | 'symbol' | 'duplicate' | 'insufficient';

/** Per-order failure; mapped to a string code (single endpoint) or an integer code (batch). */
export class OrderFail extends Error {
	constructor(
		public readonly kind: OrderFailKind,
		msg: string,
		/** The field at fault (named in the batch message). */
		public readonly field: string,
	) {
		super(msg);
	}
	/** Message of a batch result entry: "Create order failed: <reason naming the field>". */
	get batchMessage(): string {
		return `Create order failed: ${this.message}${this.message.includes(`'${this.field}'`) ? '' : ` (field '${this.field}')`}`;
	}
	get stringCode(): string {
		return {
			field: CODES.invalidField.code,
			symbol: CODES.instrumentNotFound.code,
			duplicate: CODES.duplicateOrder.code,
			insufficient: CODES.insufficientAsset.code,
		}[this.kind];
	}
	get intCode(): number {
		return intCode(this.stringCode);
	}
}

function orderFieldFail(name: string, detail?: string): OrderFail {
	return new OrderFail('field', `Required field '${name}' missing or invalid${detail ? ` (${detail})` : ''}`, name);
}

/** Order parameters: strings (query/form) or JSON values (batch). */
export type OrderInput = Record<string, JsonValue | undefined>;

/** Validate a positive plain decimal (string or JSON number literal) and return it canonical; null when absent. */
export function positiveDecimal(v: JsonValue | undefined, name: string, fail: (n: string, d?: string) => Error): string | null {
	if (v === undefined || v === null) return null;
	let s: string;
	if (typeof v === 'string') s = v;
	else if (v instanceof JsonNumber) s = v.raw;
	else throw fail(name, 'must be a decimal number or string');
	if (!D.PLAIN_DECIMAL_RE.test(s)) throw fail(name, 'must be a positive plain decimal, no sign or exponent');
	const frac = s.split('.')[1];
	if (frac && frac.length > D.MAX_SCALE) throw fail(name, `at most ${D.MAX_SCALE} decimal places`);
	const d = D.parseDec(s)!;
	if (!D.isPositive(d)) throw fail(name, 'must be greater than zero');
	return D.fmt(d);
}

function optString(input: OrderInput, name: string): string | null {
	const v = input[name];
	if (v === undefined || v === null) return null;
	if (typeof v === 'string') return v;
	throw orderFieldFail(name, 'must be a string');
}

export class Engine {
	readonly store = new RecordStore();
	private balances = new Map<string, Map<string, D.Dec>>();
	private clientOrderIds = new Map<string, Set<string>>();
	private recordSeq = RECORD_ID_BASE;
	private orderSeq = ORDER_ID_BASE;
	private transferSeq = TRANSFER_ID_BASE;

	constructor(
		private readonly clock: () => number,
		private readonly ledger: Ledger,
	) {
		this.resetState();
	}

	resetState(): void {
		this.store.clear();
		this.balances.clear();
		this.clientOrderIds.clear();
		this.recordSeq = RECORD_ID_BASE;
		this.orderSeq = ORDER_ID_BASE;
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

	private putBal(accountId: string, coin: string, d: D.Dec): void {
		let m = this.balances.get(accountId);
		if (!m) {
			m = new Map();
			this.balances.set(accountId, m);
		}
		m.set(coin, d);
	}

	setBalance(accountId: string, coin: string, amount: string): void {
		this.checkAccount(accountId);
		const d = D.parseDec(amount);
		if (!d || d.v < 0n) throw new Error(`balance must be a non-negative decimal string: ${amount}`);
		this.putBal(accountId, coin, d);
	}

	getBalance(accountId: string, coin: string): string {
		return D.fmt(this.bal(accountId, coin));
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
		if (!/^\d+$/.test(r.created)) throw new Error(`created must be a string of digits: ${r.created}`);
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
			opts.symbols ?? (opts.flowType === 32 ? DEFAULT_FUNDING_SYMBOLS : opts.flowType === 1 || opts.flowType === 2 ? ['BTCUSDT'] : []);
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
			const t = groups > 1 ? opts.startTime + Math.floor((span * g) / (groups - 1)) : opts.startTime;
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
	private writeMove(accountId: string, coin: string, flowType: number, change: D.Dec, created: string, symbol?: string): void {
		const after = D.add(this.bal(accountId, coin), change);
		this.putBal(accountId, coin, after);
		this.store.insert(
			this.buildRecord({ accountId, coin, flowTypeValue: flowType, change: D.fmt(change), total: D.fmt(after), created, symbol }),
		);
	}

	// ---- history ----

	queryHistory(q: { flowType: number; accountIds: string[]; startTime: number; endTime: number; limit: number }): HistoryRecord[] {
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
		if (from === undefined || !/^\d+$/.test(from)) throw fieldError('fromAccountId', 'numeric account id');
		const to = p.toAccountId;
		if (to === undefined || !/^\d+$/.test(to)) throw fieldError('toAccountId', 'numeric account id');
		if (!own.includes(from)) throw apiError(CODES.invalidFromAccount, `'${from}' is not one of your accounts`);
		if (!own.includes(to)) throw apiError(CODES.invalidToAccount, `'${to}' is not one of your accounts`);
		if (from === to) throw apiError(CODES.sameAccountTransfer);
		const coin = p.coin;
		if (coin === undefined || !/^[A-Z0-9]{1,20}$/.test(coin)) throw fieldError('coin');
		const qtyStr = positiveDecimal(p.quantity, 'quantity', fieldError);
		if (qtyStr === null) throw fieldError('quantity');
		const qty = D.parseDec(qtyStr)!;
		if (D.cmp(this.bal(from, coin), qty) < 0) throw apiError(CODES.insufficientAsset);
		const created = String(this.clock());
		this.writeMove(from, coin, 51, D.neg(qty), created);
		this.writeMove(to, coin, 51, qty, created);
		const id = (this.transferSeq++).toString();
		this.ledger.transfers.push({ id, fromAccountId: from, toAccountId: to, coin, quantity: qtyStr, created, apiKey: key.apiKey });
		return { id, timestamp: created };
	}

	// ---- orders ----

	/** Validate and place one order; throws OrderFail. */
	placeOrder(key: DemoKey, input: OrderInput, via: 'single' | 'batch'): OrderData {
		const symbolV = input.symbol;
		if (typeof symbolV !== 'string' || symbolV === '') throw orderFieldFail('symbol');
		const info = SYMBOLS[symbolV];
		if (!info) throw new OrderFail('symbol', `${CODES.instrumentNotFound.msg}: '${symbolV}'`, 'symbol');

		const side = optString(input, 'side');
		if (side !== 'BUY' && side !== 'SELL') throw orderFieldFail('side', 'BUY or SELL');
		const type = optString(input, 'type');
		if (type !== 'LIMIT' && type !== 'MARKET' && type !== 'LIMIT_MAKER') throw orderFieldFail('type', 'LIMIT, MARKET or LIMIT_MAKER');

		const tifIn = optString(input, 'timeInForce');
		const tif: TimeInForce = type === 'MARKET' ? 'IOC' : 'GTC';
		if (tifIn !== null && tifIn !== tif) throw orderFieldFail('timeInForce', `${type} orders take ${tif}`);

		const price = positiveDecimal(input.price, 'price', orderFieldFail);
		const quantity = positiveDecimal(input.quantity, 'quantity', orderFieldFail);
		const amount = positiveDecimal(input.amount, 'amount', orderFieldFail);
		if (type === 'MARKET') {
			if (price !== null) throw orderFieldFail('price', 'MARKET orders take no price');
			if (quantity !== null && amount !== null) throw orderFieldFail('amount', 'MARKET orders take exactly one of quantity or amount');
			if (quantity === null && amount === null) throw orderFieldFail('quantity', 'MARKET orders need quantity or amount');
			if (amount !== null && side !== 'BUY') throw orderFieldFail('amount', 'amount (quote cash) is for MARKET BUY orders only');
		} else {
			if (price === null) throw orderFieldFail('price', `${type} orders need price`);
			if (quantity === null) throw orderFieldFail('quantity', `${type} orders need quantity`);
			if (amount !== null) throw orderFieldFail('amount', 'amount is for MARKET orders only');
		}

		const stp = optString(input, 'stpMode');
		if (stp !== null && stp !== 'EXPIRE_TAKER' && stp !== 'EXPIRE_MAKER') throw orderFieldFail('stpMode', 'EXPIRE_TAKER or EXPIRE_MAKER');

		let clientOrderId = optString(input, 'newClientOrderId');
		if (clientOrderId !== null && (clientOrderId.length === 0 || clientOrderId.length > MAX_CLIENT_ORDER_ID_LENGTH)) {
			throw orderFieldFail('newClientOrderId', `1 to ${MAX_CLIENT_ORDER_ID_LENGTH} characters`);
		}
		const accountId = tradingAccountOf(key);
		let used = this.clientOrderIds.get(accountId);
		if (!used) {
			used = new Set();
			this.clientOrderIds.set(accountId, used);
		}
		if (clientOrderId !== null && used.has(clientOrderId)) {
			throw new OrderFail('duplicate', `${CODES.duplicateOrder.msg}: clientOrderId '${clientOrderId}' is already in use`, 'newClientOrderId');
		}

		// balances
		const base = info.base;
		const quote = info.quote;
		const last = D.parseDec(info.last)!;
		const feeRate = D.parseDec(FEE_RATE)!;
		let execQty = D.ZERO;
		let cost = D.ZERO;
		let fee = D.ZERO;
		if (type === 'MARKET') {
			execQty = quantity !== null ? D.parseDec(quantity)! : D.divTrunc(D.parseDec(amount!)!, last, BASE_QTY_SCALE);
			if (!D.isPositive(execQty)) throw orderFieldFail('amount', 'too small for one unit step of the base coin');
			cost = D.mul(execQty, last);
			fee = D.mul(cost, feeRate);
			if (side === 'BUY') {
				if (D.cmp(this.bal(accountId, quote), D.add(cost, fee)) < 0) throw new OrderFail('insufficient', CODES.insufficientAsset.msg, amount !== null ? 'amount' : 'quantity');
			} else if (D.cmp(this.bal(accountId, base), execQty) < 0) {
				throw new OrderFail('insufficient', CODES.insufficientAsset.msg, amount !== null ? 'amount' : 'quantity');
			}
		} else {
			const q = D.parseDec(quantity!)!;
			if (side === 'BUY') {
				if (D.cmp(this.bal(accountId, quote), D.mul(q, D.parseDec(price!)!)) < 0) throw new OrderFail('insufficient', CODES.insufficientAsset.msg, amount !== null ? 'amount' : 'quantity');
			} else if (D.cmp(this.bal(accountId, base), q) < 0) {
				throw new OrderFail('insufficient', CODES.insufficientAsset.msg, amount !== null ? 'amount' : 'quantity');
			}
		}

		// place
		const orderId = (this.orderSeq++).toString();
		if (clientOrderId === null) {
			clientOrderId = orderId;
			while (used.has(clientOrderId)) clientOrderId = `${clientOrderId}x`;
		}
		used.add(clientOrderId);
		const transactTime = String(this.clock());
		if (type === 'MARKET') {
			if (side === 'BUY') {
				this.writeMove(accountId, base, 1, execQty, transactTime, symbolV);
				this.writeMove(accountId, quote, 1, D.neg(cost), transactTime, symbolV);
			} else {
				this.writeMove(accountId, base, 1, D.neg(execQty), transactTime, symbolV);
				this.writeMove(accountId, quote, 1, cost, transactTime, symbolV);
			}
			this.writeMove(accountId, quote, 2, D.neg(fee), transactTime, symbolV);
		}
		const order: OrderData = {
			accountId,
			symbol: symbolV,
			symbolName: symbolV,
			clientOrderId,
			orderId,
			transactTime,
			price: type === 'MARKET' ? '0' : price!,
			origQty: quantity ?? '0',
			executedQty: D.fmt(execQty),
			status: type === 'MARKET' ? 'FILLED' : 'NEW',
			timeInForce: tif,
			type: type as OrderType,
			side: side as OrderSide,
			reqAmount: amount ?? '0',
		};
		this.ledger.orders.push({ ...order, via, apiKey: key.apiKey });
		return order;
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
