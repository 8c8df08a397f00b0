/**
 * The user data stream's events, built from the engine's changes: one executionReport per order
 * state change (a ticketInfo after each fill's), then one outboundAccountInfo per account whose
 * balances moved, carrying only the coins that moved. Order events are built when the change
 * happens (a MARKET order's NEW, then its FILLED); balances are read when the change is complete,
 * and nothing is handed on before then (commit), so the REST state already shows what an event says.
 * Shapes: the family's private stream (docs/api.md "User data stream"): ids, numbers and times as
 * strings, flags as booleans.
 */
import * as D from '../decimal';
import { isOpen, type OrderState } from '../orders/state';
import type { AccountTrade, SandboxBehaviour } from '../types';

/** One event of the stream, as sent inside a message's array. */
export type StreamEvent = Record<string, unknown>;

/** Where committed events go: the WebSocket hub. */
export interface StreamSink {
	/** Whether any live listen key follows this account (events for no one are not built). */
	follows(accountId: string): boolean;
	/** The events of one change of one account, in order. */
	deliver(accountId: string, events: StreamEvent[]): void;
}

export class StreamEvents {
	private sink: StreamSink | null = null;
	/** Order events of the change in progress, in order, with the account each belongs to. */
	private pending: { accountId: string; event: StreamEvent }[] = [];
	/** accountId -> coins whose balance (total or locked) moved in the change in progress. */
	private touched = new Map<string, Set<string>>();
	/** How a MARKET order's type is shown (behaviour marketOrderType); set by the sandbox. */
	marketOrderType: () => Required<SandboxBehaviour>['marketOrderType'] = () => 'MARKET';

	constructor(
		private readonly clock: () => number,
		private readonly balance: (accountId: string, coin: string) => { free: string; locked: string },
	) {}

	setSink(sink: StreamSink | null): void {
		this.sink = sink;
	}

	private wanted(accountId: string): boolean {
		return this.sink !== null && this.sink.follows(accountId);
	}

	/** A balance of `accountId` moved (total or locked). */
	touch(accountId: string, coin: string): void {
		if (!this.wanted(accountId)) return;
		let coins = this.touched.get(accountId);
		if (!coins) {
			coins = new Set();
			this.touched.set(accountId, coins);
		}
		coins.add(coin);
	}

	/**
	 * A futures event (outboundContractPositionInfo) for the listen keys that follow
	 * `listenerAccountId` (the futures account owner's keys: their spot trading account).
	 */
	contract(listenerAccountId: string, event: StreamEvent): void {
		if (!this.wanted(listenerAccountId)) return;
		this.pending.push({ accountId: listenerAccountId, event });
	}

	/** The order's state now, with the fill that brought it there if any. */
	order(o: OrderState, fill?: AccountTrade): void {
		if (!this.wanted(o.accountId)) return;
		const E = String(this.clock());
		this.pending.push({ accountId: o.accountId, event: this.executionReport(o, E, fill) });
		if (fill) {
			this.pending.push({
				accountId: o.accountId,
				event: {
					e: 'ticketInfo',
					E,
					s: o.symbol,
					q: fill.qty,
					t: fill.time,
					p: fill.price,
					T: fill.ticketId,
					o: o.orderId,
					c: o.clientOrderId,
					a: o.accountId,
					m: fill.isMaker,
					S: o.side,
				},
			});
		}
	}

	private executionReport(o: OrderState, E: string, fill?: AccountTrade): StreamEvent {
		const orig = D.parseDec(o.origQty)!;
		const remaining = D.isPositive(orig) ? D.sub(orig, o.executedQty) : D.ZERO;
		const avg = D.isPositive(o.executedQty) ? D.divTrunc(o.cumQuote, o.executedQty, 8) : D.ZERO;
		let type: string = o.type;
		if (o.type === 'MARKET' && this.marketOrderType() === 'byBase')
			type = o.reqAmount !== '0' ? 'MARKET_OF_QUOTE' : 'MARKET_OF_BASE';
		return {
			e: 'executionReport',
			E,
			s: o.symbol,
			c: o.clientOrderId,
			S: o.side,
			o: type,
			f: o.timeInForce,
			q: o.origQty,
			p: o.price,
			X: o.status,
			i: o.orderId,
			l: fill ? fill.qty : '0',
			z: D.fmt(o.executedQty),
			L: fill ? fill.price : '0',
			n: fill ? fill.commission : '0',
			N: fill ? fill.commissionAsset : '',
			u: true,
			w: isOpen(o.status),
			m: fill ? fill.isMaker : false,
			O: String(o.time),
			Z: D.fmt(o.cumQuote),
			C: false,
			v: '0',
			d: fill ? fill.id : '',
			r: D.fmt(remaining),
			V: D.fmt(avg),
			P: '0',
			reqAmt: o.reqAmount,
			lo: false,
			lt: '',
		};
	}

	/**
	 * The change is complete: hand on its order events, then one outboundAccountInfo per account
	 * whose balances moved (those coins only, free and locked as they are now).
	 */
	commit(): void {
		const pending = this.pending;
		const touched = this.touched;
		this.pending = [];
		this.touched = new Map();
		const sink = this.sink;
		if (!sink) return;
		const byAccount = new Map<string, StreamEvent[]>();
		const add = (accountId: string, event: StreamEvent) => {
			let list = byAccount.get(accountId);
			if (!list) {
				list = [];
				byAccount.set(accountId, list);
			}
			list.push(event);
		};
		for (const p of pending) add(p.accountId, p.event);
		const E = String(this.clock());
		for (const [accountId, coins] of touched) {
			add(accountId, {
				e: 'outboundAccountInfo',
				E,
				T: true,
				W: true,
				D: true,
				B: [...coins].sort().map((a) => {
					const b = this.balance(accountId, a);
					return { a, f: b.free, l: b.locked };
				}),
			});
		}
		for (const [accountId, events] of byAccount) sink.deliver(accountId, events);
	}

	/** Forget a change in progress (reset). */
	discard(): void {
		this.pending = [];
		this.touched = new Map();
	}
}
