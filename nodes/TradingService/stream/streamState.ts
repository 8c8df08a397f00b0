import type { IDataObject } from 'n8n-workflow';

import { OPEN_ORDER_STATUSES } from '../constants';
import { canonical } from './events';

/**
 * What the real-time trigger keeps in the workflow's static data (docs/trigger.md, "Across
 * restarts"). At an emit n8n 2.41.1 saves static data *before* it creates the execution, so a saved
 * state may name an event whose execution never came to be: the IDs of events emitted shortly
 * before a save are not trusted after a restart, and the catch-up emits them again with the same
 * deduplication key.
 *
 * - `cursor`: the exchange time of the newest event seen (ms);
 * - `recent`: the latest events that may start the workflow, oldest first, each with the local time
 *   it was emitted (0: only remembered, at the baseline); `savedAt`: when the state was written;
 * - `open`: the orders last seen open (order ID → symbol); `balances`: each coin's "free|locked";
 *   `balancesTaken`: the balances' baseline was taken (an empty account lists no coin); absent in
 *   a state written before it, where known balances stand for it;
 * - `positions`: each futures position's last known size (symbol|side), the size before it and the
 *   event that made it so (positions.ts), of the futures account `positionAccount`; absent in a
 *   state written before Position Changed existed;
 * - `futuresOpen`: the futures orders last seen open (order ID → "symbol|LIMIT" or "symbol|STOP", the
 *   list that holds it) of the futures account `futuresAccount`, followed since `futuresSince` (its
 *   baseline's time: a catch-up reads no futures order older than it); `futuresCursor`: while a
 *   catch-up's futures part has not succeeded, the cursor it started from (the next reads from it);
 *   absent before the futures order events existed, or while none is chosen (the baseline is then
 *   taken at activation);
 * - `listenKey`: the key in use, deleted by the next activation when a killed process could not.
 */
export interface StreamState {
	version: number;
	cursor: number;
	recent: Array<[string, number]>;
	savedAt: number;
	open: Record<string, string>;
	balances: Record<string, string>;
	balancesTaken?: true;
	positions: Record<string, PositionMark>;
	positionAccount?: string;
	futuresOpen?: Record<string, string>;
	futuresAccount?: string;
	futuresSince?: number;
	futuresCursor?: number;
	listenKey?: string;
}

/** A position's last known state, the state before it, and the event that changed one to the other. */
export type PositionMark = { state: string; from: string; id: string };

const STREAM_STATE_VERSION = 2;
const MAX_RECENT_EVENTS = 1000;
export const MAX_OPEN_ORDERS = 1000;
/**
 * An event emitted less than this before its state was saved may have no execution (n8n creates
 * it after the save); one emitted earlier has one. Creating an execution takes milliseconds; the
 * margin covers a slow database.
 */
export const UNSETTLED_MS = 60_000;

const KEY = 'realTime';

const isMapOf = (value: unknown, isEntry: (entry: unknown) => boolean): boolean =>
	value !== null &&
	typeof value === 'object' &&
	!Array.isArray(value) &&
	Object.values(value).every(isEntry);

const isText = (entry: unknown): boolean => typeof entry === 'string';

const isRecentEntry = (entry: unknown): entry is [string, number] =>
	Array.isArray(entry) &&
	entry.length === 2 &&
	typeof entry[0] === 'string' &&
	Number.isSafeInteger(entry[1]);

const isPositionMark = (mark: unknown): boolean =>
	typeof mark === 'object' &&
	mark !== null &&
	['state', 'from', 'id'].every((field) => isText((mark as IDataObject)[field]));

const copyMarks = (marks: Record<string, PositionMark>): Record<string, PositionMark> =>
	Object.fromEntries(Object.entries(marks).map(([key, mark]) => [key, { ...mark }]));

/** A copy of a state, for static data or from it: n8n may hold on to what it is given. */
const copyOf = (state: StreamState): StreamState => ({
	version: STREAM_STATE_VERSION,
	cursor: state.cursor,
	recent: state.recent.map(([id, at]) => [id, at]),
	savedAt: state.savedAt,
	open: { ...state.open },
	balances: { ...state.balances },
	...(state.balancesTaken === true ? { balancesTaken: true } : {}),
	positions: copyMarks(state.positions ?? {}),
	...(typeof state.positionAccount === 'string' ? { positionAccount: state.positionAccount } : {}),
	...(state.futuresOpen !== undefined ? { futuresOpen: { ...state.futuresOpen } } : {}),
	...(typeof state.futuresAccount === 'string' ? { futuresAccount: state.futuresAccount } : {}),
	...(Number.isSafeInteger(state.futuresSince) ? { futuresSince: state.futuresSince } : {}),
	...(Number.isSafeInteger(state.futuresCursor) ? { futuresCursor: state.futuresCursor } : {}),
	...(typeof state.listenKey === 'string' ? { listenKey: state.listenKey } : {}),
});

export const emptyStreamState = (): StreamState => ({
	version: STREAM_STATE_VERSION,
	cursor: 0,
	recent: [],
	savedAt: 0,
	open: {},
	balances: {},
	positions: {},
});

/** The stored state, or undefined when there is none (first activation) or it is unreadable. */
export function readStreamState(staticData: IDataObject): StreamState | undefined {
	const stored = staticData[KEY] as Partial<StreamState> | undefined | null;
	if (stored?.version !== STREAM_STATE_VERSION) return undefined;
	if (!Number.isSafeInteger(stored.cursor) || !Number.isSafeInteger(stored.savedAt))
		return undefined;
	if (!Array.isArray(stored.recent) || !stored.recent.every(isRecentEntry)) return undefined;
	if (!isMapOf(stored.open, isText) || !isMapOf(stored.balances, isText)) return undefined;
	if (stored.positions !== undefined && !isMapOf(stored.positions, isPositionMark))
		return undefined;
	if (stored.futuresOpen !== undefined && !isMapOf(stored.futuresOpen, isText)) return undefined;
	return copyOf(stored as StreamState);
}

export function writeStreamState(staticData: IDataObject, state: StreamState): void {
	staticData[KEY] = copyOf(state) as unknown as IDataObject;
}

/** The events seen (ID → local time emitted, 0 for remembered only), bounded, oldest first. */
export class SeenEvents {
	private readonly ids: Map<string, number>;

	constructor(recent: Array<[string, number]> = []) {
		this.ids = new Map(recent);
	}

	/** What a restart may trust of a saved state: every event whose execution surely exists. */
	static settled(state: StreamState): SeenEvents {
		return new SeenEvents(
			state.recent.filter(([, at]) => at === 0 || at <= state.savedAt - UNSETTLED_MS),
		);
	}

	has(id: string): boolean {
		return this.ids.has(id);
	}

	add(id: string, emittedAt: number): void {
		this.ids.delete(id);
		this.ids.set(id, emittedAt);
		// A Map keeps insertion order: the first is the oldest.
		while (this.ids.size > MAX_RECENT_EVENTS)
			this.ids.delete(this.ids.keys().next().value as string);
	}

	recent(): Array<[string, number]> {
		return [...this.ids.entries()];
	}
}

/** A futures order's statuses while it works: a limit order's, and a stop order's before it triggers. */
export const FUTURES_OPEN_STATUSES = [...OPEN_ORDER_STATUSES, 'ORDER_NEW'];

/** The open-orders list a futures order is in: STOP for stop orders, LIMIT for the others. */
export const futuresListOf = (orderType: string | undefined): 'LIMIT' | 'STOP' =>
	/STOP/i.test(orderType ?? '') ? 'STOP' : 'LIMIT';

/** Records an order's latest known status: open orders are kept (bounded), final ones dropped. */
export function trackOrder(
	open: Record<string, string>,
	orderId: string,
	symbol: string,
	status: string,
	openStatuses: readonly string[] = OPEN_ORDER_STATUSES,
): void {
	if (!openStatuses.includes(status)) delete open[orderId];
	else if (open[orderId] !== undefined || Object.keys(open).length < MAX_OPEN_ORDERS)
		open[orderId] = symbol;
}

/** A coin's balance as kept: canonical decimals, so "1.50" and "1.5" are one balance. */
export const balanceText = (free: string, locked = '0'): string =>
	`${canonical(free)}|${canonical(locked)}`;
