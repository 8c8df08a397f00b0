import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { TradesPageError } from '../../helpers/trades';
import { accountScope } from '../../helpers/accountScope';
import { ServiceClient, toNodeError } from '../../transport';
import { pollDeadline } from '../budget';
import { readState, writeState, type TriggerState } from '../state';
import { catchUpFills, takeFillsBaseline, type FillsCatchUp } from './catchUp';
import { fillsBounds, fillsQueryKey, readFillsSettings } from './settings';
import { fetchTestFill, fillMatches } from './testEvent';
import { fillsOldestFirst } from './walk';

/**
 * The poll of Order Filled, with the history path's guarantees: Fetch Test Event returns the newest
 * fill and leaves the state alone; the first active poll remembers what exists and returns null;
 * every later poll returns the new fills, oldest first, one item each (a partial fill is a fill),
 * or null. The state is written only after every request of the poll has succeeded.
 */
export async function pollOrderFilled(
	context: IPollFunctions,
	startedAt: number,
): Promise<INodeExecutionData[][] | null> {
	const settings = readFillsSettings(context);
	const bounds = fillsBounds(startedAt);
	const client = new ServiceClient(context);
	try {
		// A master key's trade list can name a sub account: only the key's own fills start it.
		settings.accountId = (await accountScope(client, context.getNode(), undefined)).accountId;
	} catch (error) {
		throw toNodeError(context.getNode(), error);
	}
	if (context.getMode() === 'manual')
		return [await fetchTestFill(context.getNode(), client, settings, bounds)];

	const staticData = context.getWorkflowStaticData('node');
	const query = fillsQueryKey(settings);
	const state: TriggerState | undefined = readState(staticData, query);
	let result: FillsCatchUp;
	try {
		if (state === undefined) {
			writeState(
				staticData,
				await takeFillsBaseline(context.getNode(), client, settings, bounds, query),
			);
			return null;
		}
		result = await catchUpFills(
			context,
			client,
			settings,
			state,
			bounds,
			pollDeadline(context, startedAt),
		);
	} catch (error) {
		// A page that breaks the trade list's promises says nothing reliable about what is new: the
		// poll stops without emitting or moving the state, and the next one reads the same range.
		if (!(error instanceof TradesPageError)) throw toNodeError(context.getNode(), error);
		context.logger.warn(
			`Trading Service Trigger: ${error.message}; this poll emitted nothing and the next poll reads the same range again`,
		);
		return null;
	}
	// An idle poll leaves the static data untouched, so n8n has nothing to save.
	if (JSON.stringify(result.state) !== JSON.stringify(state)) writeState(staticData, result.state);

	const items = result.fresh
		.filter((fill) => fillMatches(fill, settings))
		.sort(fillsOldestFirst)
		.map((fill): INodeExecutionData => ({ json: fill }));
	return items.length > 0 ? [items] : null;
}
