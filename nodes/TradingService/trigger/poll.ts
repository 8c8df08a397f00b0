import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { HistoryPageError, compareIds, type HistoryRecord } from '../helpers/history';
import { ServiceClient, toNodeError } from '../transport';
import { takeBaseline } from './baseline';
import { pollDeadline } from './budget';
import { catchUp, type CatchUp } from './catchUp';
import { matchesFilter } from './filters';
import { isOrderFilled, pollBounds, readSettings } from './settings';
import { queryKey, readState, writeState } from './state';
import { fetchTestEvent } from './testEvent';
import { pollOrderFilled } from './fills/poll';

export { BUDGET_SHARE, pollDeadline } from './budget';

/** Oldest first: by `created`, then by id (numeric strings, compared without losing digits). */
export function oldestFirst(a: HistoryRecord, b: HistoryRecord): number {
	return Number(a.created) - Number(b.created) || compareIds(a.id, b.id);
}

/**
 * The trigger's poll (Order Filled: trigger/fills/poll.ts, with the same guarantees). Manual runs
 * ("Fetch Test Event") return the newest matching record and leave the state alone; the first
 * active poll remembers what exists and returns null; every later poll returns the new records,
 * oldest first, or null when there are none. The state is written only after every request of the
 * poll has succeeded: a failed poll throws and changes nothing.
 */
export async function pollTradingService(
	this: IPollFunctions,
): Promise<INodeExecutionData[][] | null> {
	const startedAt = Date.now();
	if (isOrderFilled(this.getNodeParameter('event'))) return await pollOrderFilled(this, startedAt);
	const settings = readSettings(this);
	const bounds = pollBounds(settings, startedAt);

	// The transport of this poll: it reads the credential once.
	const client = new ServiceClient(this);
	if (this.getMode() === 'manual')
		return [await fetchTestEvent(this.getNode(), client, settings, bounds)];

	const staticData = this.getWorkflowStaticData('node');
	const query = queryKey(settings.flowType.value, settings.accountType);
	const state = readState(staticData, query);
	let result: CatchUp;
	try {
		if (state === undefined) {
			writeState(staticData, await takeBaseline(this.getNode(), client, settings, bounds, query));
			return null;
		}
		result = await catchUp(this, client, settings, state, bounds, pollDeadline(this, startedAt));
	} catch (error) {
		// A page out of order, or longer than asked for, says nothing reliable about what is new:
		// this poll stops without emitting or moving the watermark, and the next one reads the same
		// range again. Failing the poll instead would report an error on every poll while the
		// service misbehaves.
		if (!(error instanceof HistoryPageError)) throw toNodeError(this.getNode(), error);
		this.logger.warn(
			`Trading Service Trigger: ${error.message}; this poll emitted nothing and the next poll reads the same range again`,
		);
		return null;
	}
	// An idle poll leaves the static data untouched, so n8n has nothing to save.
	if (JSON.stringify(result.state) !== JSON.stringify(state)) writeState(staticData, result.state);

	const items = result.fresh
		.filter((record) => matchesFilter(record, settings.filter))
		.sort(oldestFirst)
		.map((record): INodeExecutionData => ({ json: record }));
	return items.length > 0 ? [items] : null;
}
