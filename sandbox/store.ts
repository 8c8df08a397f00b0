/**
 * History record store, indexed per (flowType, accountId), each list kept sorted ascending by
 * (created, id). A page query binary-searches the end of the window in each visible list and
 * merges the lists newest first: O(log n + limit * lists), never a sort per query.
 */
import type { HistoryRecord } from './types';

interface Entry {
	t: number;
	id: string;
	rec: HistoryRecord;
}

/** Compare numeric id strings without BigInt: shorter is smaller, then lexicographic. */
export function cmpId(a: string, b: string): number {
	if (a.length !== b.length) return a.length - b.length;
	return a < b ? -1 : a > b ? 1 : 0;
}

function cmpEntry(a: Entry, b: Entry): number {
	return a.t - b.t || cmpId(a.id, b.id);
}

export interface RecordQuery {
	flowType: number;
	accountIds: string[];
	/** Inclusive lower bound of created. */
	from: number;
	/** Inclusive upper bound of created. */
	to: number;
	limit: number;
}

export class RecordStore {
	private byFlow = new Map<number, Map<string, Entry[]>>();
	private ids = new Set<string>();
	private count = 0;

	get size(): number {
		return this.count;
	}

	hasId(id: string): boolean {
		return this.ids.has(id);
	}

	clear(): void {
		this.byFlow.clear();
		this.ids.clear();
		this.count = 0;
	}

	private list(flowType: number, accountId: string): Entry[] {
		let perAccount = this.byFlow.get(flowType);
		if (!perAccount) {
			perAccount = new Map();
			this.byFlow.set(flowType, perAccount);
		}
		let l = perAccount.get(accountId);
		if (!l) {
			l = [];
			perAccount.set(accountId, l);
		}
		return l;
	}

	/** Insert one record (its id must be new). */
	insert(rec: HistoryRecord): void {
		if (this.ids.has(rec.id)) throw new Error(`duplicate record id ${rec.id}`);
		const e: Entry = { t: Number(rec.created), id: rec.id, rec };
		const l = this.list(rec.flowTypeValue, rec.accountId);
		this.ids.add(rec.id);
		this.count++;
		if (l.length === 0 || cmpEntry(l[l.length - 1], e) <= 0) {
			l.push(e);
			return;
		}
		// binary search for the first entry greater than e
		let lo = 0;
		let hi = l.length;
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			if (cmpEntry(l[mid], e) <= 0) lo = mid + 1;
			else hi = mid;
		}
		l.splice(lo, 0, e);
	}

	/** Insert many records of one (flowType, accountId); fast path when they come sorted after the existing ones. */
	insertMany(recs: HistoryRecord[]): void {
		if (recs.length === 0) return;
		const groups = new Map<Entry[], Entry[]>();
		for (const rec of recs) {
			if (this.ids.has(rec.id)) throw new Error(`duplicate record id ${rec.id}`);
			this.ids.add(rec.id);
			this.count++;
			const l = this.list(rec.flowTypeValue, rec.accountId);
			let g = groups.get(l);
			if (!g) {
				g = [];
				groups.set(l, g);
			}
			g.push({ t: Number(rec.created), id: rec.id, rec });
		}
		for (const [l, g] of groups) {
			let sorted = true;
			for (let k = 1; k < g.length; k++) {
				if (cmpEntry(g[k - 1], g[k]) > 0) {
					sorted = false;
					break;
				}
			}
			const appendable = sorted && (l.length === 0 || cmpEntry(l[l.length - 1], g[0]) <= 0);
			for (const e of g) l.push(e);
			if (!appendable) l.sort(cmpEntry);
		}
	}

	/** Records of the visible accounts with from <= created <= to, newest first (created desc, id desc). */
	query(q: RecordQuery): HistoryRecord[] {
		const out: HistoryRecord[] = [];
		if (q.limit <= 0 || q.from > q.to) return out;
		const perAccount = this.byFlow.get(q.flowType);
		if (!perAccount) return out;
		const lists: Entry[][] = [];
		const pos: number[] = [];
		for (const accountId of new Set(q.accountIds)) {
			const l = perAccount.get(accountId);
			if (!l || l.length === 0) continue;
			// index of the last entry with t <= to
			let lo = 0;
			let hi = l.length;
			while (lo < hi) {
				const mid = (lo + hi) >>> 1;
				if (l[mid].t <= q.to) lo = mid + 1;
				else hi = mid;
			}
			if (lo > 0) {
				lists.push(l);
				pos.push(lo - 1);
			}
		}
		while (out.length < q.limit) {
			let best = -1;
			for (let k = 0; k < lists.length; k++) {
				if (pos[k] < 0) continue;
				if (best < 0 || cmpEntry(lists[k][pos[k]], lists[best][pos[best]]) > 0) best = k;
			}
			if (best < 0) break;
			const e = lists[best][pos[best]];
			if (e.t < q.from) break; // the newest remaining entry is already too old
			out.push(e.rec);
			pos[best]--;
		}
		return out;
	}
}
