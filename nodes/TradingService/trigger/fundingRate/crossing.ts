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

/** What one crossing says, as the item's fields (all decimals and times are text). */
export function crossingItem(
	settings: CrossingSettings,
	sample: RateSample,
	previousRate: string | null,
	detectedAt: string,
): IDataObject {
	return {
		symbol: settings.symbol,
		rate: sample.rate,
		ratePercent: ratePercent(sample.rate),
		threshold: settings.threshold,
		crossing: settings.crossing,
		previousRate,
		nextFundingTime: sample.nextFundingTime,
		detectedAt,
	};
}

export interface CrossingOutcome {
	/** The crossings found, oldest first (at most one per sample). */
	crossings: Array<{ sample: RateSample; previousRate: string | null }>;
	/** The state after the last sample. */
	state: CrossingState;
}

/**
 * Goes through the samples of a poll, oldest first (the rates settled since a state n8n may have
 * saved before the last poll, then the current rate), from the stored state. Without a stored
 * state (first activation, or the Contract, Direction or Threshold changed) the last sample is only
 * remembered: the baseline, no crossing.
 */
export function followSamples(
	settings: CrossingSettings,
	query: string,
	stored: CrossingState | undefined,
	samples: readonly RateSample[],
): CrossingOutcome {
	const last = samples[samples.length - 1];
	const crossings: CrossingOutcome['crossings'] = [];
	if (stored !== undefined) {
		let wasBeyond = stored.beyond;
		let previousRate = stored.rate;
		for (const sample of samples) {
			const beyond = isBeyond(settings, sample.rate);
			if (beyond && !wasBeyond) crossings.push({ sample, previousRate });
			wasBeyond = beyond;
			previousRate = sample.rate;
		}
	}
	return {
		crossings,
		state: {
			version: CROSSING_STATE_VERSION,
			query,
			beyond: isBeyond(settings, last.rate),
			rate: last.rate,
			nextFundingTime: last.nextFundingTime,
		},
	};
}
