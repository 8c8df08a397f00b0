import type { IDataObject } from 'n8n-workflow';

/**
 * What the real-time trigger keeps in the workflow's static data. n8n saves static data each time
 * the trigger starts an execution (emit) and when the workflow is deactivated, so the state is
 * written before every emit: what is saved with an execution already names that execution's event.
 *
 * - `cursor`: the exchange time of the newest event seen (ms). A catch-up reads from a little
 *   before it (USER_STREAM.catchUpOverlapMs).
 * - `recent`: the IDs of the latest events seen, oldest first, at most MAX_RECENT_EVENTS: the
 *   events a catch-up finds again in its overlap are known by these.
 * - `open`: the orders last seen open (order ID → symbol), at most MAX_OPEN_ORDERS: a catch-up
 *   looks each up to learn whether it was cancelled while the stream was down.
 * - `balances`: each coin's last known "free|locked": after a reconnect, a coin whose balance
 *   differs from it gets one snapshot item.
 */
export interface StreamState {
	version: number;
	cursor: number;
	recent: string[];
	open: Record<string, string>;
	balances: Record<string, string>;
}

export const STREAM_STATE_VERSION = 1;
export const MAX_RECENT_EVENTS = 1000;
export const MAX_OPEN_ORDERS = 1000;

const KEY = 'realTime';

const isStringMap = (value: unknown): value is Record<string, string> =>
	value !== null &&
	typeof value === 'object' &&
	!Array.isArray(value) &&
	Object.values(value).every((entry) => typeof entry === 'string');

/** The stored state, or undefined when there is none (first activation) or it is unreadable. */
export function readStreamState(staticData: IDataObject): StreamState | undefined {
	const stored = staticData[KEY] as Partial<StreamState> | undefined;
	if (stored === undefined || stored === null || stored.version !== STREAM_STATE_VERSION)
		return undefined;
	if (!Number.isSafeInteger(stored.cursor)) return undefined;
	if (!Array.isArray(stored.recent) || !stored.recent.every((id) => typeof id === 'string'))
		return undefined;
	if (!isStringMap(stored.open) || !isStringMap(stored.balances)) return undefined;
	return {
		version: STREAM_STATE_VERSION,
		cursor: stored.cursor as number,
		recent: [...stored.recent],
		open: { ...stored.open },
		balances: { ...stored.balances },
	};
}

export function writeStreamState(staticData: IDataObject, state: StreamState): void {
	staticData[KEY] = {
		version: state.version,
		cursor: state.cursor,
		recent: [...state.recent],
		open: { ...state.open },
		balances: { ...state.balances },
	};
}

/** The events this process has seen: the stored recent IDs, and every ID since, bounded. */
export class SeenEvents {
	private readonly ids: Set<string>;

	constructor(recent: string[]) {
		this.ids = new Set(recent);
	}

	has(id: string): boolean {
		return this.ids.has(id);
	}

	add(id: string): void {
		this.ids.delete(id);
		this.ids.add(id);
		// A Set keeps insertion order: the first is the oldest.
		while (this.ids.size > MAX_RECENT_EVENTS)
			this.ids.delete(this.ids.values().next().value as string);
	}

	recent(): string[] {
		return [...this.ids];
	}
}

/** Records an order's latest known status: open orders are kept (bounded), final ones dropped. */
export function trackOrder(
	open: Record<string, string>,
	orderId: string,
	symbol: string,
	status: string,
): void {
	if (['NEW', 'PARTIALLY_FILLED', 'PENDING_NEW', 'PENDING_CANCEL'].includes(status)) {
		if (open[orderId] !== undefined || Object.keys(open).length < MAX_OPEN_ORDERS)
			open[orderId] = symbol;
	} else {
		delete open[orderId];
	}
}

export const balanceText = (free: string, locked: string): string => `${free}|${locked}`;
