import type { INode } from 'n8n-workflow';

import { LIMITS } from '../constants';
import type { ServiceClient } from '../transport';
import type { EventSettings, PollBounds } from './settings';
import { sourceOf } from './sources';
import { STATE_VERSION, addToGroups, trimSeen, type KeyedRecord, type TriggerState } from './state';

/**
 * First activation: remembers what exists, emits nothing: the newest page of the whole retention
 * window. One request when the service lists newest first (the history, spec §4.1; the trade list
 * always). A history service that lists earliest first may keep the earliest records of a full
 * page: the walk then reads up to the end of the window (every page of it), so the watermark is
 * the newest record, not an old one that would make the next poll emit everything after it.
 */
export async function takeBaseline(
	node: INode,
	client: ServiceClient,
	settings: EventSettings,
	bounds: PollBounds,
	query: string,
): Promise<TriggerState> {
	const source = sourceOf(node, settings);
	const range = { startTime: bounds.start, endTime: bounds.end };
	const { records } = await source.read(client, range, { newestPage: true });
	const page = records.map((record) => source.key(record));
	return baselineState(page, settings.lateWindowMs, bounds.start, query, source.pageSize);
}

/**
 * The state that remembers the newest page of what exists (any order); `start`: the range's start;
 * `pageSize`: how many a full page holds (the source's).
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
