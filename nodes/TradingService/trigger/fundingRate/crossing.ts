import type { IDataObject, INode, IPollFunctions } from 'n8n-workflow';

import {
	compareDecimals,
	formatDecimal,
	multiplyDecimals,
	parseDecimal,
	type Decimal,
} from '../../helpers/decimals';
import {
	inputError,
	locatorValue,
	numberMayHaveLostDigits,
	oneOf,
	strictBoolean,
} from '../../helpers/validation';
import { contractSymbol } from '../../futures/contracts';

/** The Event value of Funding Rate Crosses a Threshold (version 2). */
export const FUNDING_RATE_CROSSING = 'fundingRateCrossing';

export type Crossing = 'above' | 'below';

export interface CrossingSettings {
	symbol: string;
	crossing: Crossing;
	/** The threshold in percent, as the user wrote it less redundant zeros ("0.05", "-0.01"). */
	threshold: string;
	/** The threshold as a fraction, as the service gives rates: "0.05" % is 0.0005. */
	thresholdRate: Decimal;
	fireWhenBack: boolean;
}

/** A plain decimal with an optional minus sign: digits, at most one dot, no exponent or spaces. */
const THRESHOLD = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** Most fraction digits of a threshold in percent (a rate is a fraction with a few more digits). */
const MAX_THRESHOLD_DECIMALS = 10;

/** The event's parameters, checked: a bad one fails the poll before anything is sent. */
export function readCrossingSettings(context: IPollFunctions): CrossingSettings {
	const node = context.getNode();
	const symbol = contractSymbol(
		node,
		'Contract',
		locatorValue(context.getNodeParameter('symbol', '')),
	);
	const crossing = oneOf(node, 'Direction', context.getNodeParameter('crossing', 'above'), [
		'above',
		'below',
	] as const);
	const { threshold, thresholdRate } = parseThreshold(
		node,
		context.getNodeParameter('threshold', ''),
	);
	const fireWhenBack = strictBoolean(
		node,
		'Also Fire When the Rate Comes Back',
		context.getNodeParameter('fireWhenBack', false),
	);
	return { symbol, crossing, threshold, thresholdRate, fireWhenBack };
}

/** Threshold (%): a plain decimal in percent, negative allowed, parsed strictly: never a guess. */
export function parseThreshold(
	node: INode,
	value: unknown,
): { threshold: string; thresholdRate: Decimal } {
	if (typeof value === 'number' && Number.isFinite(value) && numberMayHaveLostDigits(value)) {
		throw inputError(
			node,
			'Threshold (%)',
			`the number ${String(value)} may have lost digits`,
			'Give the threshold as text, e.g. "0.05".',
		);
	}
	const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
	if (typeof text !== 'string' || !THRESHOLD.test(text)) {
		const shown =
			text === '' || text === undefined || text === null ? 'an empty value' : `"${String(text)}"`;
		const percentSign = typeof text === 'string' && text.includes('%');
		throw inputError(
			node,
			'Threshold (%)',
			`${shown} is not a percentage`,
			percentSign
				? 'Enter the number without the % sign, e.g. 0.05 for 0.05 %.'
				: 'Enter a plain decimal in percent, e.g. 0.05 for 0.05 % (a rate of 0.0005), or -0.01 for a negative rate: digits, one dot, an optional minus sign; no spaces, commas or exponent.',
		);
	}
	const parsed = parseDecimal(text) as Decimal;
	if (parsed.scale > MAX_THRESHOLD_DECIMALS) {
		throw inputError(
			node,
			'Threshold (%)',
			`"${text}" has more than ${MAX_THRESHOLD_DECIMALS} decimals`,
			`Enter the threshold with at most ${MAX_THRESHOLD_DECIMALS} decimals.`,
		);
	}
	return {
		threshold: formatDecimal(parsed),
		thresholdRate: { units: parsed.units, scale: parsed.scale + 2 },
	};
}

/**
 * The state's query key: the Contract, the Direction and the Threshold by value ("0.050" is
 * "0.05"); not Also Fire When the Rate Comes Back, so turning it on or off keeps the state.
 */
export function crossingQueryKey(settings: CrossingSettings): string {
	return `event=${FUNDING_RATE_CROSSING};symbol=${settings.symbol};crossing=${settings.crossing};threshold=${settings.threshold}`;
}

/** A funding rate (a fraction: "0.0005" is 0.05 %) and the funding time it is for (ms), as text. */
export interface RateSample {
	rate: string;
	nextFundingTime: string;
}

/**
 * Whether a rate is beyond the threshold: strictly above it (Rises Above) or below it (Falls
 * Below), in exact decimals: "0.0005" is exactly the threshold 0.05 %, not beyond it.
 */
export function isBeyond(settings: CrossingSettings, rate: string): boolean {
	const order = compareDecimals(parseDecimal(rate) as Decimal, settings.thresholdRate);
	return settings.crossing === 'above' ? order > 0 : order < 0;
}

/** A rate (a fraction) in percent, exactly: "0.00051" is "0.051". */
export function ratePercent(rate: string): string {
	return formatDecimal(multiplyDecimals(parseDecimal(rate) as Decimal, { units: 100n, scale: 0 }));
}

/** `crossed`: the rate went beyond the threshold; `back`: it returned to it or its near side. */
type SideChange = 'crossed' | 'back';

/** One change as the item's fields (docs/trigger.md, the item). */
export function crossingItem(
	settings: CrossingSettings,
	change: Change,
	detectedAt: string,
): IDataObject {
	const { sample } = change;
	return {
		symbol: settings.symbol,
		event: change.event,
		rate: sample.rate,
		ratePercent: ratePercent(sample.rate),
		threshold: settings.threshold,
		crossing: settings.crossing,
		previousRate: change.previousRate,
		nextFundingTime: sample.nextFundingTime,
		detectedAt,
	};
}

/** One change of side: the sample it was seen in, and the rate seen before it. */
export interface Change {
	event: SideChange;
	sample: RateSample;
	previousRate: string | null;
}

/** The changes of side found, oldest first (at most one per sample), and the state after the last sample. */
interface CrossingOutcome {
	changes: Change[];
	state: CrossingState;
}

/**
 * Every change of side in a poll's samples, oldest first, from the stored state. Without a stored
 * state (first activation, or another query) the last sample is only remembered: no change.
 */
export function followSamples(
	settings: CrossingSettings,
	query: string,
	stored: CrossingState | undefined,
	samples: readonly RateSample[],
): CrossingOutcome {
	const last = samples[samples.length - 1];
	const changes: Change[] = [];
	if (stored !== undefined) {
		let wasBeyond = stored.beyond;
		let previousRate = stored.rate;
		for (const sample of samples) {
			const beyond = isBeyond(settings, sample.rate);
			if (beyond !== wasBeyond) {
				changes.push({ event: beyond ? 'crossed' : 'back', sample, previousRate });
			}
			wasBeyond = beyond;
			previousRate = sample.rate;
		}
	}
	return {
		changes,
		state: {
			version: CROSSING_STATE_VERSION,
			query,
			beyond: isBeyond(settings, last.rate),
			rate: last.rate,
			nextFundingTime: last.nextFundingTime,
		},
	};
}

/**
 * What Funding Rate Crosses a Threshold keeps in the workflow's static data between polls
 * (docs/trigger.md, "After a restart"): `query` (crossingQueryKey), whether the rate was beyond
 * the threshold at the last poll, and that poll's rate and funding time (the service's text).
 */
export interface CrossingState {
	version: number;
	query: string;
	beyond: boolean;
	rate: string;
	nextFundingTime: string;
}

const CROSSING_STATE_VERSION = 1;

/** The stored state for this query, or undefined when there is none (or it is another query's). */
export function readCrossingState(
	staticData: IDataObject,
	query: string,
): CrossingState | undefined {
	const { version, beyond, rate, nextFundingTime } = staticData;
	if (version !== CROSSING_STATE_VERSION || staticData.query !== query) return undefined;
	if (typeof beyond !== 'boolean' || typeof rate !== 'string') return undefined;
	if (typeof nextFundingTime !== 'string' || !/^\d{1,16}$/.test(nextFundingTime)) return undefined;
	return { version, query, beyond, rate, nextFundingTime };
}

/** Replaces the static data with the state; unchanged, it is left untouched (n8n has nothing to save). */
export function writeCrossingState(staticData: IDataObject, state: CrossingState): void {
	if (sameState(staticData, state)) return;
	for (const key of Object.keys(staticData)) delete staticData[key];
	Object.assign(staticData, { ...state });
}

function sameState(staticData: IDataObject, state: CrossingState): boolean {
	const keys = Object.keys(staticData);
	return (
		keys.length === Object.keys(state).length &&
		keys.every((key) => staticData[key] === state[key as keyof CrossingState])
	);
}

/**
 * The static data objects this process has completed a poll with. n8n saves static data only when
 * a poll emits (and at activation), so the state it loads may be older than the last poll: an
 * object not in this set has just been loaded (n8n started, the workflow activated or updated),
 * and its first poll catches up.
 */
const polledStates = new WeakSet<IDataObject>();

export function justLoaded(staticData: IDataObject): boolean {
	return !polledStates.has(staticData);
}

export function markPolled(staticData: IDataObject): void {
	polledStates.add(staticData);
}
