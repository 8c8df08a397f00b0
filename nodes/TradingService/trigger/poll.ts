import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { accountScope } from '../helpers/accountScope';
import { HistoryPageError } from '../helpers/historyPage';
import { TradesPageError } from '../helpers/trades';
import { ServiceClient, toNodeError } from '../transport';
import { takeBaseline } from './baseline';
import { pollDeadline } from './budget';
import { catchUp, type CatchUp } from './catchUp';
import { isHistoryEvent, pollBounds, readEventSettings } from './settings';
import { sourceOf } from './sources';
import { readState, writeState } from './state';
import { fetchTestEvent } from './testEvent';
import { FUNDING_RATE_CROSSING, pollFundingRateCrossing } from './fundingRate';

/**
 * The trigger's poll, for either source (trigger/sources/). Manual runs ("Fetch Test Event")
 * return the newest matching record and leave the state alone; the first active poll remembers
 * what exists and returns null; every later poll returns the new records, oldest first, one item
 * each (a partial fill is a fill), or null when there are none. The state is written only after
 * every request of the poll has succeeded: a failed poll throws and changes nothing. Funding Rate
 * Crosses a Threshold reads no records: it has its own poll (trigger/fundingRate/).
 */
export async function pollTradingService(
	this: IPollFunctions,
): Promise<INodeExecutionData[][] | null> {
	if (this.getNodeParameter('event') === FUNDING_RATE_CROSSING) {
		return await pollFundingRateCrossing(this);
	}
	const startedAt = Date.now();
	const node = this.getNode();
	const settings = readEventSettings(this);
	const bounds = pollBounds(settings, startedAt);

	// The transport of this poll: it reads the credential once.
	const client = new ServiceClient(this);
	if (!isHistoryEvent(settings)) {
		// A master key's trade list can name a sub account: only the key's own fills start it.
		try {
			settings.accountId = (await accountScope(client, node, undefined)).accountId;
		} catch (error) {
			throw toNodeError(node, error);
		}
	}
	if (this.getMode() === 'manual') return [await fetchTestEvent(node, client, settings, bounds)];

	const source = sourceOf(node, settings);
	const staticData = this.getWorkflowStaticData('node');
	const state = readState(staticData, source.query);
	let result: CatchUp;
	try {
		if (state === undefined) {
			writeState(staticData, await takeBaseline(node, client, settings, bounds, source.query));
			return null;
		}
		result = await catchUp(this, client, settings, state, bounds, pollDeadline(this, startedAt));
	} catch (error) {
		// A page out of order, or longer than asked for, says nothing reliable about what is new:
		// this poll stops without emitting or moving the watermark, and the next one reads the same
		// range again. Failing the poll instead would report an error on every poll while the
		// service misbehaves.
		if (!(error instanceof HistoryPageError || error instanceof TradesPageError)) {
			throw toNodeError(node, error);
		}
		this.logger.warn(
			`Trading Service Trigger: ${error.message}; this poll emitted nothing and the next poll reads the same range again`,
		);
		return null;
	}
	// An idle poll leaves the static data untouched, so n8n has nothing to save.
	if (JSON.stringify(result.state) !== JSON.stringify(state)) writeState(staticData, result.state);

	const items = result.fresh
		.filter((record) => source.matches(record))
		.sort((a, b) => source.oldestFirst(a, b))
		.map((record): INodeExecutionData => ({ json: record }));
	return items.length > 0 ? [items] : null;
}
