import type { IDataObject } from 'n8n-workflow';

import {
	compareDecimals,
	formatDecimal,
	multiplyDecimals,
	parseDecimal,
	type Decimal,
} from '../../helpers/decimals';
import type { RateSample } from './read';
import type { CrossingSettings } from './settings';
import { CROSSING_STATE_VERSION, type CrossingState } from './state';

/**
 * The crossing rule, pure: a rate is *beyond* the threshold when it is above it (Rises Above) or
 * below it (Falls Below), strictly: a rate equal to the threshold is not beyond. A crossing is a
 * sample beyond the threshold after one that was not: one item, however long the rate stays
 * beyond; the rule is armed again once a sample is back on the near side. Exact decimals, no
 * floating point: "0.0005" is exactly the threshold 0.05 %.
 */
export function isBeyond(settings: CrossingSettings, rate: string): boolean {
	const order = compareDecimals(parseDecimal(rate) as Decimal, settings.thresholdRate);
	return settings.crossing === 'above' ? order > 0 : order < 0;
}

/** A rate (a fraction) in percent, exactly: "0.00051" is "0.051". */
export function ratePercent(rate: string): string {
	return formatDecimal(multiplyDecimals(parseDecimal(rate) as Decimal, { units: 100n, scale: 0 }));
}

/**
 * What a change of side is: `crossed`, the rate went beyond the threshold (the alert); `back`, it
 * returned to the threshold or its near side (an item only with Also Fire When the Rate Comes Back).
 */
export type SideChange = 'crossed' | 'back';

/** What one change says, as the item's fields (all decimals and times are text). */
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

export interface CrossingOutcome {
	/** The changes of side found, oldest first (at most one per sample). */
	changes: Change[];
	/** The state after the last sample. */
	state: CrossingState;
}

/**
 * Goes through the samples of a poll, oldest first (the rates settled since a state n8n may have
 * saved before the last poll, then the current rate), from the stored state: every change of side
 * (a crossing, a return). Without a stored state (first activation, or the Contract, Direction or
 * Threshold changed) the last sample is only remembered: the baseline, no change.
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
