import { NodeOperationError, type INode } from 'n8n-workflow';

import { LIMITS } from '../../constants';
import { HistoryWalk, type WalkResult } from '../../helpers/history';
import { compareIds, type HistoryRecord } from '../../helpers/historyPage';
import { ENDPOINTS } from '../../transport';
import { describeFilter, matchesFilter } from '../filters';
import { historyQuery, type TriggerSettings } from '../settings';
import { queryKey } from '../state';
import type { EventSource } from './source';

/** Oldest first: by `created`, then by id (numeric strings, compared without losing digits). */
export function oldestFirst(a: HistoryRecord, b: HistoryRecord): number {
	return Number(a.created) - Number(b.created) || compareIds(a.id, b.id);
}

/**
 * The account history (GET /api/v1/account/balanceFlow) as the trigger's source: pages by time,
 * in whichever order the service lists them (helpers/history.ts); a record's `created` and id are
 * what the state keeps. A full page of one millisecond is skipped over, not an error: an error
 * would repeat on every poll and block all later events.
 */
export function historySource(node: INode, settings: TriggerSettings): EventSource<HistoryRecord> {
	return {
		query: queryKey(settings.flowType.value, settings.accountType),
		pageSize: LIMITS.historyPageSize,
		expiredCatchUp: 'is older than the service keeps records',
		key: (record) => record,
		oldestFirst,
		matches: (record) => matchesFilter(record, settings.filter),
		async read(client, range, options) {
			const walk = new HistoryWalk(node, historyQuery(settings, range.startTime, range.endTime), {
				overfull: 'skip',
				deadline: options.deadline,
				maxPages: options.maxPages,
				until: options.until,
				newest: options.newestPage === true ? LIMITS.historyPageSize : undefined,
			});
			await client.requestAllPages(ENDPOINTS.history, walk);
			return walk.result;
		},
		noTestEvent: (read) => noTestEventError(node, settings, read),
	};
}

/** Why no record was found: none at all, or none that passes the filters (with the newest one's values). */
export function noTestEventError(
	node: INode,
	settings: TriggerSettings,
	walk: Pick<WalkResult, 'records' | 'resume'>,
): NodeOperationError {
	const newest: HistoryRecord | undefined = walk.records[0];
	const eventName = settings.flowType.displayName;
	const days = settings.flowType.retentionDays;
	if (newest === undefined) {
		return new NodeOperationError(node, `No ${eventName} record in the last ${days} days`, {
			description: `The service keeps ${eventName} records for ${days} days and has none${settings.accountType === undefined ? '' : ' for this Account Type'}. The trigger will fire on the next one that appears once the workflow is active.`,
		});
	}
	// A stopped walk read the newest records of a newest-first service (all at or above the unread
	// rest), the earliest of an earliest-first one (all at or below it).
	const where =
		walk.resume === undefined
			? `in the last ${days} days`
			: `among the ${Number(newest.created) >= walk.resume.to ? 'newest' : 'earliest'} ${walk.records.length} records`;
	const newestHas = [
		`coin "${String(newest.coin ?? '')}"`,
		newest.symbol === undefined ? 'no symbol' : `symbol "${String(newest.symbol)}"`,
		`change ${String(newest.change ?? '')}`,
	].join(', ');
	return new NodeOperationError(
		node,
		`No ${eventName} record matches ${describeFilter(settings.filter)} ${where}`,
		{
			description: `Coin and Symbol must equal the service's value exactly, including upper and lower case. For comparison, the newest ${eventName} record has ${newestHas}.`,
		},
	);
}
