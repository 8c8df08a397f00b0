import {
	NodeOperationError,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type IPollFunctions,
} from 'n8n-workflow';

import { parseDecimal } from '../../helpers/decimals';
import { unknownContractError } from '../../futures/contracts';
import { FUTURES_ENDPOINTS } from '../../futures/endpoints';
import { FUNDING_RATE_PAGING, IdWalk } from '../../futures/idPages';
import { ServiceClient, toNodeError } from '../../transport';
import {
	crossingItem,
	crossingQueryKey,
	followSamples,
	isBeyond,
	justLoaded,
	markPolled,
	readCrossingSettings,
	readCrossingState,
	writeCrossingState,
	type CrossingSettings,
	type CrossingState,
	type RateSample,
} from './crossing';

/** The most settled rates one catch-up reads (10 requests of 100, about 333 days of 8-hour funding). */
const SETTLED_RATES_MOST = 1000;

/**
 * Funding Rate Crosses a Threshold, one poll (docs/trigger.md). The state is written only once
 * every request of the poll has succeeded.
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
 * The current rate; and first, when n8n has just loaded a state whose funding time has passed,
 * every rate settled since it, oldest first: a loaded state may predate polls that changed it
 * (docs/trigger.md, "After a restart").
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

/** The contract's current funding rate, one request; an answer without a valid one is an error. */
export async function readCurrentRate(
	client: ServiceClient,
	node: INode,
	symbol: string,
): Promise<RateSample> {
	const answer = (await client.request(FUTURES_ENDPOINTS.fundingRate, {
		qs: { symbol },
	})) as IDataObject[];
	const entry = answer.find((candidate) => candidate.symbol === symbol);
	if (entry === undefined) {
		throw answerError(node, `The service listed no funding rate for ${symbol}`);
	}
	return sampleOf(node, symbol, entry, CURRENT_RATE);
}

/**
 * The rates settled at funding times in [from, to), oldest first, paged down by `endId` until a
 * page reaches back to `from` (`complete`), SETTLED_RATES_MOST rates or the list's end.
 */
async function readSettledRates(
	client: ServiceClient,
	node: INode,
	symbol: string,
	from: string,
	to: string,
): Promise<{ rates: RateSample[]; complete: boolean }> {
	const reaches = (entry: IDataObject) => Number(textOf(entry.settleTime)) <= Number(from);
	const walk = new IdWalk(node, FUNDING_RATE_PAGING, { symbol }, SETTLED_RATES_MOST).until(reaches);
	await client.requestAllPages(FUTURES_ENDPOINTS.historyFundingRate, walk);
	const settled = walk.entries
		.filter((entry) => entry.symbol === undefined || entry.symbol === symbol)
		.map((entry) => sampleOf(node, symbol, entry, SETTLED_RATE));
	const inRange = settled
		.filter((sample) => Number(sample.nextFundingTime) >= Number(from))
		.filter((sample) => Number(sample.nextFundingTime) < Number(to))
		.sort((a, b) => Number(a.nextFundingTime) - Number(b.nextFundingTime));
	return { rates: inRange, complete: walk.entries.some(reaches) };
}

/** Where an answer's entry holds a rate and its funding time, and what the errors call them. */
const CURRENT_RATE = ['rate', 'funding rate', 'nextFundingTime', 'next funding time'] as const;
const SETTLED_RATE = [
	'settleRate',
	'settled funding rate',
	'settleTime',
	'funding settlement time',
] as const;

/** A rate that is not a decimal, or a time that is not one, is an error: the poll changes nothing. */
function sampleOf(
	node: INode,
	symbol: string,
	entry: IDataObject,
	[rateKey, rateName, timeKey, timeName]: typeof CURRENT_RATE | typeof SETTLED_RATE,
): RateSample {
	const rate = textOf(entry[rateKey]);
	const nextFundingTime = textOf(entry[timeKey]);
	if (rate === undefined || parseDecimal(rate) === undefined) {
		throw answerError(
			node,
			`The service's ${rateName} of ${symbol} is not a decimal: ${JSON.stringify(entry[rateKey])}`,
		);
	}
	if (nextFundingTime === undefined || !/^\d{1,16}$/.test(nextFundingTime)) {
		throw answerError(
			node,
			`The service's ${timeName} of ${symbol} is not a time: ${JSON.stringify(entry[timeKey])}`,
		);
	}
	return { rate, nextFundingTime };
}

/** A decimal or a string of digits the service sent as a number, as text; undefined otherwise. */
function textOf(value: unknown): string | undefined {
	if (typeof value === 'string') return value;
	if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
	return undefined;
}

function answerError(node: INode, problem: string): NodeOperationError {
	return new NodeOperationError(node, problem, {
		description:
			'The poll changed nothing: the next poll reads the rate again. If this persists, check the contract in exchange information.',
	});
}
