import type { INode } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { HistoryWalk } from '../helpers/history';
import { ENDPOINTS, type ServiceClient } from '../transport';
import { historyQuery, type PollBounds, type TriggerSettings } from './settings';
import { STATE_VERSION, addToGroups, trimSeen, type KeyedRecord, type TriggerState } from './state';

/**
 * First activation: remembers what exists, emits nothing: the newest page of the whole retention
 * window. One request when the service lists newest first (spec §4.1). A service that lists
 * earliest first may keep the earliest records of a full page: the walk then reads up to the end
 * of the window (every page of it), so the watermark is the newest record, not an old one that
 * would make the next poll emit everything after it.
 */
export async function takeBaseline(
	node: INode,
	client: ServiceClient,
	settings: TriggerSettings,
	bounds: PollBounds,
	query: string,
): Promise<TriggerState> {
	const walk = new HistoryWalk(node, historyQuery(settings, bounds.start, bounds.end), {
		overfull: 'skip',
		newest: LIMITS.historyPageSize,
	});
	await client.requestAllPages(ENDPOINTS.history, walk);
	return baselineState(walk.result.records, settings.lateWindowMs, bounds.start, query);
}

/**
 * The state that remembers the newest page of what exists (any order); `start`: the range's start;
 * `pageSize`: how many a full page holds (history records; Order Filled passes the trade list's).
 */
export function baselineState(
	page: readonly KeyedRecord[],
	lateWindowMs: number,
	start: number,
	query: string,
	pageSize: number = LIMITS.historyPageSize,
): TriggerState {
	if (page.length === 0) {
		// Nothing exists yet: every record that appears from now on is new.
		return { version: STATE_VERSION, query, watermark: null, floor: start, seen: {} };
	}
	const created = page.map((record) => Number(record.created));
	const watermark = Math.max(...created);
	let floor = watermark - lateWindowMs;
	// A full page may have cut the oldest millisecond short: only what was read counts as known.
	if (page.length >= pageSize) floor = Math.max(floor, Math.min(...created) + 1);
	const seen: Record<string, string[]> = {};
	for (const record of page) {
		if (Number(record.created) >= floor) addToGroups(seen, record.created, record.id);
	}
	const trimmed = trimSeen(seen, floor, floor, watermark);
	return { version: STATE_VERSION, query, watermark, floor: trimmed.floor, seen: trimmed.seen };
}
