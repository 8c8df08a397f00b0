import type { IDataObject } from 'n8n-workflow';

import { FUTURES_ENDPOINTS } from '../futures/endpoints';
import { parseDecimal } from '../helpers/decimals';
import type { Activation } from './activation';
import { canonical, stampOf, text, type PositionChange } from './events';
import type { PositionMark, SeenEvents, StreamState } from './streamState';

/**
 * Position Changed (docs/trigger.md): the positions of the key's own futures account, from the
 * stream's Position Push and, after a gap, the position list. An event is a change of a position's
 * size from the last known one, per symbol and side, whichever source saw it.
 */

export const POSITION_PUSH = 'outboundContractPositionInfo';

export const positionKey = (symbol: string, side: string): string => `${symbol}|${side}`;

/**
 * A position's state as compared: its size, canonical ("0" once closed). Only the size: the stream
 * and the list give the other figures with different precision, and every trade moves the size,
 * while funding, margin and mark-price updates do not.
 */
export function positionState(change: Pick<PositionChange, 'position'>): string {
	const size = parseDecimal(change.position);
	if (size === undefined) return change.position;
	return size.units === 0n ? '0' : canonical(change.position);
}

/** A position's figures in the item's order: its field, its name in the push, in the list. */
const FIGURES: ReadonlyArray<readonly [string, string, string]> = [
	['avgPrice', 'p', 'avgPrice'],
	['position', 'P', 'baseQty'],
	['available', 'a', 'available'],
	['liquidationPrice', 'f', 'liquidationPrice'],
	['margin', 'm', 'margin'],
	['realizedPnL', 'r', 'realizedPnL'],
	['unrealizedPnL', 'up', 'unrealizedPnL'],
	['profitRate', 'pr', 'profitRate'],
	['positionValue', 'pv', 'quoteQty'],
	['leverage', 'v', 'leverage'],
	['marginType', 'mt', 'marginType'],
];

/** A position change read from `record` with the names of the push (1) or of the list (2). */
function positionChange(
	record: IDataObject,
	names: 1 | 2,
	head: Pick<PositionChange, 'source' | 'time' | 'clock' | 'seenAt' | 'symbol' | 'side'>,
	size: string,
	accountId: string,
): PositionChange {
	const figures: IDataObject = {};
	for (const figure of FIGURES)
		figures[figure[0]] = figure[0] === 'position' ? size : text(record[figure[names]]);
	const change = { id: '', market: 'contract', ...head, ...figures };
	return { ...change, accountId, raw: record } as PositionChange;
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
	const head = { source: 'stream', ...stampOf(push.E, receivedAt), symbol, side } as const;
	const change = positionChange(push, 1, head, size, accountId);
	change.id = `position-${symbol}-${side}-${head.time}-${positionState(change)}`;
	return change;
}

/** A position as the list gives it, read by a request sent at `sentAt`. */
function positionChangeOfListed(
	entry: IDataObject,
	sentAt: number,
	accountId: string,
): PositionChange | undefined {
	const symbol = text(entry.symbol);
	const side = text(entry.positionSide) ?? text(entry.side);
	const size = text(entry.baseQty) ?? text(entry.position);
	if (!symbol || !side || !size) return undefined;
	// The list gives no time: n8n's clock when the request was sent.
	const head = { source: 'catchUp', ...stampOf(undefined, sentAt), symbol, side } as const;
	const change = positionChange(entry, 2, head, size, accountId);
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
		...stampOf(undefined, sentAt),
		symbol,
		side,
		position: '0',
		accountId,
		raw: { symbol, positionSide: side, baseQty: '0' },
	};
}

/** Every position the list holds now, and a closed one (size "0") for each known one it does not. */
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
 * A position event against the last known state: undefined when it changes nothing; else the event
 * to emit and the position's new mark. `replays` holds the changes emitted just before a restart
 * that may have no execution: the same state seen again is emitted again with the same ID, so
 * n8n's deduplication key lets it run once.
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
 * At a restart, the positions to replay: those whose last change was emitted too shortly before
 * the state was saved to be sure of its execution (streamState.ts, UNSETTLED_MS).
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
