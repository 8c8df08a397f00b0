import { NodeOperationError, type INode, type INodeExecutionData } from 'n8n-workflow';

import { HistoryWalk, type HistoryRecord, type WalkResult } from '../helpers/history';
import { ENDPOINTS, type ServiceClient } from '../transport';
import { describeFilter, matchesFilter } from './filters';
import { historyQuery, type PollBounds, type TriggerSettings } from './settings';

/** Pages "Fetch Test Event" reads at most while looking for a record that matches the filters. */
export const MANUAL_MAX_PAGES = 10;

/**
 * "Fetch Test Event": the newest record that passes the filters, read with the same page walk as
 * Return All, at most a few pages deep. Reads state, never writes it.
 */
export async function fetchTestEvent(
	node: INode,
	client: ServiceClient,
	settings: TriggerSettings,
	bounds: PollBounds,
): Promise<INodeExecutionData[]> {
	const walk = new HistoryWalk(node, historyQuery(settings, bounds.start, bounds.end), {
		overfull: 'skip',
		maxPages: MANUAL_MAX_PAGES,
		until: (record) => matchesFilter(record, settings.filter),
	});
	await client.requestAllPages(ENDPOINTS.history, walk);
	if (walk.result.found !== undefined) return [{ json: walk.result.found }];
	throw noTestEventError(node, settings, walk.result);
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
