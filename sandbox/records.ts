/**
 * History records: building and checking them, handing out ids, writing them to the store, and
 * reading a page within the flow type's retention window. Balances are read, never changed, here.
 */
import { DEFAULT_FUNDING_SYMBOLS, FLOW_TYPES, RECORD_ID_BASE } from './constants';
import { checkAccount, type Balances } from './balances';
import * as D from './decimal';
import { RecordStore } from './store';
import { defaultAccountFor, syntheticRecords } from './syntheticHistory';
import type { AddRecordInput, HistoryRecord, SeedRecordsOptions } from './types';

export interface HistoryQuery {
	flowType: number;
	accountIds: string[];
	startTime: number;
	endTime: number;
	limit: number;
	/** Only records carrying this client order ID (the UAE documentation's filter). */
	clientOrderId?: string;
	/**
	 * Which records `limit` keeps and how they are listed (behaviour `historyOrder`): 'descending'
	 * (default, spec §4.1: the newest, newest first), 'ascending' (the UAE documentation's general
	 * rule: the earliest, earliest first) or 'ascendingNewest' (the newest, earliest first).
	 */
	order?: HistoryOrder;
}

export type HistoryOrder = 'descending' | 'ascending' | 'ascendingNewest';

export class RecordBook {
	readonly store = new RecordStore();
	private recordSeq = RECORD_ID_BASE;

	constructor(
		private readonly clock: () => number,
		private readonly balances: Balances,
	) {}

	clear(): void {
		this.store.clear();
		this.recordSeq = RECORD_ID_BASE;
	}

	private nextRecordId(): string {
		let id: string;
		do {
			id = (this.recordSeq++).toString();
		} while (this.store.hasId(id));
		return id;
	}

	/** Build (not store) a full record from a partial one; validates what it is given. */
	private buildRecord(r: AddRecordInput): HistoryRecord {
		checkAccount(r.accountId);
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
			total: r.total ?? D.fmt(this.balances.total(r.accountId, coin)),
			created: r.created,
		};
		const symbol = r.symbol ?? (r.flowTypeValue === 32 ? DEFAULT_FUNDING_SYMBOLS[0] : undefined);
		if (symbol !== undefined) rec.symbol = symbol;
		if (r.orderId !== undefined) rec.orderId = r.orderId;
		if (r.clientOrderId !== undefined) rec.clientOrderId = r.clientOrderId;
		return rec;
	}

	/** Add history records as given (balances are not touched); total defaults to the current balance. */
	add(inputs: AddRecordInput[]): HistoryRecord[] {
		const out: HistoryRecord[] = [];
		for (const r of inputs) {
			const rec = this.buildRecord(r);
			this.store.insert(rec);
			out.push(rec);
		}
		return out;
	}

	/** Deterministic synthetic history (balances are not touched). */
	seed(opts: SeedRecordsOptions): HistoryRecord[] {
		if (!FLOW_TYPES[opts.flowType]) throw new Error(`unknown flowType ${opts.flowType}`);
		const count = Math.floor(opts.count);
		if (!(count >= 0)) throw new Error('count must be >= 0');
		if (!(opts.endTime >= opts.startTime)) throw new Error('endTime must be >= startTime');
		const accountId = opts.accountId ?? defaultAccountFor(opts.flowType);
		checkAccount(accountId);
		const recs = syntheticRecords(opts, accountId, this.recordSeq);
		this.recordSeq += BigInt(count);
		if (recs.some((r) => this.store.hasId(r.id))) {
			// extremely unlikely (explicit ids given to addRecords); fall back to fresh ids
			for (const r of recs) r.id = this.nextRecordId();
		}
		this.store.insertMany(recs);
		return recs;
	}

	/** Write the record of a balance move whose total after the move is `total`; `ids`: a transfer's. */
	writeMove(
		accountId: string,
		coin: string,
		flowType: number,
		change: D.Dec,
		total: D.Dec,
		created: string,
		symbol?: string,
		ids?: { orderId: string; clientOrderId: string },
	): void {
		this.store.insert(
			this.buildRecord({
				accountId,
				coin,
				flowTypeValue: flowType,
				change: D.fmt(change),
				total: D.fmt(total),
				created,
				symbol,
				...ids,
			}),
		);
	}

	/** A page of one flow type in `q.order`, never older than the flow type's retention window. */
	query(q: HistoryQuery): HistoryRecord[] {
		const order = q.order ?? 'descending';
		if (order === 'descending') return this.queryNewestFirst(q);
		if (order === 'ascendingNewest') return this.queryNewestFirst(q).reverse();
		// The earliest `limit` records: the whole window is read newest first, its tail kept
		// (a test mode; the store pages from the newest end only).
		const all = this.queryNewestFirst({ ...q, limit: Infinity });
		return all.slice(Math.max(0, all.length - q.limit)).reverse();
	}

	/** A page of one flow type, newest first (created desc, id desc). */
	private queryNewestFirst(q: HistoryQuery): HistoryRecord[] {
		const retention = FLOW_TYPES[q.flowType].retentionDays * 86_400_000;
		const cutoff = this.clock() - retention;
		const window = {
			flowType: q.flowType,
			accountIds: q.accountIds,
			from: Math.max(q.startTime, cutoff),
			to: q.endTime,
		};
		if (q.clientOrderId === undefined) return this.store.query({ ...window, limit: q.limit });
		// Filtered before the limit, as a filter must be: the whole window is read (rare, small).
		return this.store
			.query({ ...window, limit: Infinity })
			.filter((record) => record.clientOrderId === q.clientOrderId)
			.slice(0, q.limit);
	}
}
