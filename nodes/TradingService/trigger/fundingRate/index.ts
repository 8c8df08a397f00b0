import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { unknownContractError } from '../../futures/contracts';
import { ServiceClient, toNodeError } from '../../transport';
import { crossingItem, followSamples, isBeyond } from './crossing';
import { readCurrentRate, readSettledRates, SETTLED_RATES_MOST, type RateSample } from './read';
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
 * returns one item per crossing (and, with Also Fire When the Rate Comes Back, per return), or
 * null. The state is written only once every request of the poll has succeeded: a failed poll
 * throws and changes nothing.
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
		const current = await readOrFail(context, settings, () =>
			readCurrentRate(client, node, settings.symbol),
		);
		// The current rate as an item of the kind its side gives (crossed when beyond, else back).
		const event = isBeyond(settings, current.rate) ? 'crossed' : 'back';
		const change = { event, sample: current, previousRate: stored?.rate ?? null } as const;
		return [[{ json: crossingItem(settings, change, detectedAt) }]];
	}
	const samples = await readOrFail(context, settings, () =>
		readSamples(context, client, settings, stored, justLoaded(staticData)),
	);
	const outcome = followSamples(settings, query, stored, samples);
	writeCrossingState(staticData, outcome.state);
	markPolled(staticData);
	const items = outcome.changes
		.filter((change) => change.event === 'crossed' || settings.fireWhenBack)
		.map((change): INodeExecutionData => ({ json: crossingItem(settings, change, detectedAt) }));
	return items.length > 0 ? [items] : null;
}

/** The poll's reads; an error fails the poll (a contract the exchange does not list, worded so). */
async function readOrFail<T>(
	context: IPollFunctions,
	settings: CrossingSettings,
	read: () => Promise<T>,
): Promise<T> {
	try {
		return await read();
	} catch (error) {
		const explained = unknownContractError(
			error,
			'Contract',
			() => settings.symbol,
			'The poll changed nothing.',
		);
		throw toNodeError(context.getNode(), explained);
	}
}

/**
 * The current rate; and first, when n8n has just loaded a state (a restart, an activation) whose
 * funding time has passed, every rate settled since it (one request per 100), oldest first. n8n
 * saves the static data only when a poll emits, so a loaded state may predate polls that changed
 * it (the rate came back to the near side): the settled rates say what happened meanwhile, one
 * rate per funding period, so a crossing while n8n was down fires once and one fired before is not
 * repeated. A return and a new rise within one period are not in them: Also Fire When the Rate
 * Comes Back makes the return an item, which n8n saves (docs/trigger.md, "After a restart").
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
			`Trading Service Trigger: the funding rate history of ${settings.symbol} does not reach back to the last saved poll (more than ${SETTLED_RATES_MOST} settlements since, or no longer listed); crossings before the oldest one read are not emitted`,
		);
	}
	return [...settled.rates, current];
}
