import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { ServiceClient, toNodeError } from '../../transport';
import { crossingItem, followSamples } from './crossing';
import { readCurrentRate, readSettledRates, type RateSample } from './read';
import { crossingQueryKey, readCrossingSettings, type CrossingSettings } from './settings';
import {
	justLoaded,
	markPolled,
	readCrossingState,
	writeCrossingState,
	type CrossingState,
} from './state';

export { FUNDING_RATE_CROSSING } from './settings';

/**
 * Funding Rate Crosses a Threshold, one poll. Manual runs ("Fetch Test Event") return the current
 * rate as a sample item and leave the state alone. The first active poll only remembers whether
 * the rate is beyond the threshold; every later poll reads the current rate (one request) and
 * returns one item per crossing, or null. The state is written only once every request of the
 * poll has succeeded: a failed poll throws and changes nothing.
 */
export async function pollFundingRateCrossing(
	context: IPollFunctions,
): Promise<INodeExecutionData[][] | null> {
	const node = context.getNode();
	const settings = readCrossingSettings(context);
	const client = new ServiceClient(context);
	const staticData = context.getWorkflowStaticData('node');
	const query = crossingQueryKey(settings);
	const stored = readCrossingState(staticData, query);
	const detectedAt = new Date().toISOString();
	if (context.getMode() === 'manual') {
		const current = await readOrFail(context, () => readCurrentRate(client, node, settings.symbol));
		return [[{ json: crossingItem(settings, current, stored?.rate ?? null, detectedAt) }]];
	}
	const samples = await readOrFail(context, () =>
		readSamples(context, client, settings, stored, justLoaded(staticData)),
	);
	const outcome = followSamples(settings, query, stored, samples);
	writeCrossingState(staticData, outcome.state);
	markPolled(staticData);
	const items = outcome.crossings.map(
		({ sample, previousRate }): INodeExecutionData => ({
			json: crossingItem(settings, sample, previousRate, detectedAt),
		}),
	);
	return items.length > 0 ? [items] : null;
}

async function readOrFail<T>(context: IPollFunctions, read: () => Promise<T>): Promise<T> {
	try {
		return await read();
	} catch (error) {
		throw toNodeError(context.getNode(), error);
	}
}

/**
 * The current rate; and first, when n8n has just loaded a state (a restart, an activation) whose
 * funding time has passed, the rates settled since it (one more request), oldest first. n8n saves
 * the static data only when a poll emits, so a loaded state may predate polls that changed it
 * (the rate came back to the near side): the settled rates say what happened meanwhile, so a
 * crossing while n8n was down fires once and one fired before is not repeated.
 */
async function readSamples(
	context: IPollFunctions,
	client: ServiceClient,
	settings: CrossingSettings,
	stored: CrossingState | undefined,
	loaded: boolean,
): Promise<RateSample[]> {
	const node = context.getNode();
	const current = await readCurrentRate(client, node, settings.symbol);
	if (stored === undefined || !loaded) return [current];
	if (Number(current.nextFundingTime) <= Number(stored.nextFundingTime)) return [current];
	const settled = await readSettledRates(
		client,
		node,
		settings.symbol,
		stored.nextFundingTime,
		current.nextFundingTime,
	);
	if (!settled.complete) {
		context.logger.warn(
			`Trading Service Trigger: more funding settlements of ${settings.symbol} passed since the last saved poll than one history request lists; crossings before the oldest listed one are not emitted`,
		);
	}
	return [...settled.rates, current];
}
