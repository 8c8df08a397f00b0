import type { IDataObject } from 'n8n-workflow';

import { FUTURES_ENDPOINTS } from '../futures/endpoints';
import { parseDecimal } from '../helpers/decimals';
import type { Activation } from './activation';
import { canonical, stampOf, text, type PositionChange } from './events';
import type { PositionMark, SeenEvents, StreamState } from './state';

/**
 * Position Changed: the futures positions of the API key's own futures account (account type 3),
 * from the stream's `outboundContractPositionInfo` (the UAE documentation's Position Push) and,
 * after a gap, from GET /api/v2/futures/positions.
 *
 * A position's state is its size (positionState); margin, PnL and the other figures move without
 * a trade and are not part of it. An event is a change of the size from the last known one, per
 * symbol and side, whichever source saw it:
 * what the stream brought is not emitted again by a catch-up, and a catch-up emits one item for
 * each position that changed while the stream was down (its state now; the changes in between
 * cannot be read back). A position the list no longer holds was closed: size "0".
 */

export const POSITION_PUSH = 'outboundContractPositionInfo';

/** The key's own futures account: its one type-3 account not labelled as a sub account's. */
export function contractAccountOf(accounts: IDataObject[]): string | undefined {
	const own = accounts.filter(
		(account) =>
			Number(account.accountType) === 3 &&
			!/^sub\b/i.test(typeof account.accountLabel === 'string' ? account.accountLabel.trim() : ''),
	);
	return own.length === 1 ? String(own[0].accountId) : undefined;
}

export const positionKey = (symbol: string, side: string): string => `${symbol}|${side}`;

/**
 * A position's state as compared: its size, canonical ("0" once closed). Only the size: the
 * stream and the list give the average price and realized PnL with different precision (the
 * documentation's push has a realized PnL of 8 decimals, its list 4), and every trade moves the
 * size, while funding, margin and mark-price updates do not.
 */
export function positionState(change: Pick<PositionChange, 'position'>): string {
	const size = parseDecimal(change.position);
	if (size === undefined) return change.position;
	return size.units === 0n ? '0' : canonical(change.position);
}

/** An outboundContractPositionInfo; undefined when it lacks the symbol, side, size or account. */
export function positionChangeOfPush(
	push: IDataObject,
	receivedAt: number,
): PositionChange | undefined {
	const symbol = text(push.s);
	const side = text(push.S);
	const size = text(push.P);
	const accountId = text(push.A);
	if (!symbol || !side || !size || !accountId) return undefined;
	const stamp = stampOf(push.E, receivedAt);
	const at = stamp.time;
	const change: PositionChange = {
		id: '',
		source: 'stream',
		market: 'contract',
		...stamp,
		symbol,
		side,
		avgPrice: text(push.p),
		position: size,
		available: text(push.a),
		liquidationPrice: text(push.f),
		margin: text(push.m),
		realizedPnL: text(push.r),
		unrealizedPnL: text(push.up),
		profitRate: text(push.pr),
		positionValue: text(push.pv),
		leverage: text(push.v),
		marginType: text(push.mt),
		accountId,
		raw: push,
	};
	change.id = `position-${symbol}-${side}-${at}-${positionState(change)}`;
	return change;
}

/**
 * A position as GET /api/v2/futures/positions lists it. The list gives no time: its state is as of
 * `sentAt`, n8n's clock when the request was sent (ordering.ts).
 */
export function positionChangeOfListed(
	entry: IDataObject,
	sentAt: number,
	accountId: string,
): PositionChange | undefined {
	const symbol = text(entry.symbol);
	const side = text(entry.positionSide) ?? text(entry.side);
	const size = text(entry.baseQty) ?? text(entry.position);
	if (!symbol || !side || !size) return undefined;
	const change: PositionChange = {
		id: '',
		source: 'catchUp',
		market: 'contract',
		time: sentAt,
		clock: 'n8n',
		seenAt: sentAt,
		symbol,
		side,
		avgPrice: text(entry.avgPrice),
		position: size,
		available: text(entry.available),
		liquidationPrice: text(entry.liquidationPrice),
		margin: text(entry.margin),
		realizedPnL: text(entry.realizedPnL),
		unrealizedPnL: text(entry.unrealizedPnL),
		profitRate: text(entry.profitRate),
		positionValue: text(entry.quoteQty),
		leverage: text(entry.leverage),
		marginType: text(entry.marginType),
		accountId,
		raw: entry,
	};
	change.id = `position-${symbol}-${side}-catchUp-${sentAt}-${positionState(change)}`;
	return change;
}

/** A position last known open that the list no longer holds: closed while the stream was down. */
function closedPosition(key: string, sentAt: number, accountId: string): PositionChange {
	const [symbol, side] = key.split('|');
	return {
		id: `position-${symbol}-${side}-catchUp-${sentAt}-0`,
		source: 'catchUp',
		market: 'contract',
		time: sentAt,
		clock: 'n8n',
		seenAt: sentAt,
		symbol,
		side,
		position: '0',
		accountId,
		raw: { symbol, positionSide: side, baseQty: '0' },
	};
}

/**
 * Every position the list holds now, and a closed one for each known one it does not, each as of
 * the moment the request was sent.
 */
export async function readPositions(
	{ client, clock }: Activation,
	known: Record<string, PositionMark>,
	accountId: string,
): Promise<PositionChange[]> {
	const sentAt = clock.now();
	const listed = (await client.request(FUTURES_ENDPOINTS.positions)) as IDataObject[];
	const changes: PositionChange[] = [];
	const keys = new Set<string>();
	for (const entry of listed) {
		const change = positionChangeOfListed(entry, sentAt, accountId);
		if (change === undefined) continue;
		keys.add(positionKey(change.symbol, change.side));
		changes.push(change);
	}
	// Known closed ones too: a close emitted just before a restart may have to be replayed.
	for (const key of Object.keys(known))
		if (!keys.has(key)) changes.push(closedPosition(key, sentAt, accountId));
	return changes;
}

/**
 * A position event against the last known state: undefined when it changes nothing; else the
 * event to emit and the position's new mark. `replays` (restore) holds the changes emitted just
 * before a restart that may have no execution: the same state seen again is emitted again with
 * the same ID, so n8n's deduplication key lets it run once.
 */
export function positionStep(
	known: Record<string, PositionMark>,
	replays: Map<string, PositionMark>,
	change: PositionChange,
): { event: PositionChange; mark: PositionMark } | undefined {
	const key = positionKey(change.symbol, change.side);
	const state = positionState(change);
	const before = known[key]?.state ?? '0';
	const replay = replays.get(key);
	replays.delete(key);
	if (replay !== undefined && replay.state === state)
		return { event: { ...change, id: replay.id }, mark: replay };
	if (state === before) return undefined;
	return { event: change, mark: { state, from: before, id: change.id } };
}

/**
 * At a restart: the positions whose last change was emitted too shortly before the state was
 * saved to be sure of its execution (state.ts, UNSETTLED_MS), by position, to be replayed.
 */
export function unsettledPositions(
	state: StreamState,
	settled: SeenEvents,
): Map<string, PositionMark> {
	const emitted = new Set(state.recent.filter(([, at]) => at > 0).map(([id]) => id));
	const replays = new Map<string, PositionMark>();
	for (const [key, mark] of Object.entries(state.positions))
		if (emitted.has(mark.id) && !settled.has(mark.id)) replays.set(key, mark);
	return replays;
}
