import type { INode } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { checkHistoryPage, historyPageRequest, type HistoryRecord } from '../helpers/history';
import { ENDPOINTS, type ServiceClient } from '../transport';
import { historyQuery, type PollBounds, type TriggerSettings } from './settings';
import { STATE_VERSION, addToGroups, trimSeen, type TriggerState } from './state';

/**
 * First activation: remembers what exists, emits nothing. One request: the newest page of the
 * whole retention window.
 */
export async function takeBaseline(
	node: INode,
	client: ServiceClient,
	settings: TriggerSettings,
	bounds: PollBounds,
	query: string,
): Promise<TriggerState> {
	const page = (await client.request(
		ENDPOINTS.history,
		historyPageRequest(historyQuery(settings, bounds.start, bounds.end), LIMITS.historyPageSize),
	)) as HistoryRecord[];
	checkHistoryPage(node, page, LIMITS.historyPageSize);
	return baselineState(page, settings.lateWindowMs, bounds.start, query);
}

/** The state that remembers a newest-first page of what exists; `start`: the range's start. */
export function baselineState(
	page: HistoryRecord[],
	lateWindowMs: number,
	start: number,
	query: string,
): TriggerState {
	if (page.length === 0) {
		// Nothing exists yet: every record that appears from now on is new.
		return { version: STATE_VERSION, query, watermark: null, floor: start, seen: {} };
	}
	const created = page.map((record) => Number(record.created));
	const watermark = Math.max(...created);
	let floor = watermark - lateWindowMs;
	// A full page may have cut the oldest millisecond short: only what was read counts as known.
	if (page.length === LIMITS.historyPageSize) floor = Math.max(floor, Math.min(...created) + 1);
	const seen: Record<string, string[]> = {};
	for (const record of page) {
		if (Number(record.created) >= floor) addToGroups(seen, record.created, record.id);
	}
	const trimmed = trimSeen(seen, floor, floor, watermark);
	return { version: STATE_VERSION, query, watermark, floor: trimmed.floor, seen: trimmed.seen };
}
