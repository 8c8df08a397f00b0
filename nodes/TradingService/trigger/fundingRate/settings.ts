import type { INode, IPollFunctions } from 'n8n-workflow';

import { formatDecimal, parseDecimal, type Decimal } from '../../helpers/decimals';
import { locatorValue } from '../../helpers/locator';
import {
	inputError,
	numberMayHaveLostDigits,
	oneOf,
	strictBoolean,
} from '../../helpers/validation';
import { contractSymbol } from '../../futures/contracts';

/**
 * The Event value of Funding Rate Crosses a Threshold (node version 2): the contract's current
 * funding rate (GET /api/v2/futures/fundingRate) compared with a threshold on every poll.
 */
export const FUNDING_RATE_CROSSING = 'fundingRateCrossing';

export type Crossing = 'above' | 'below';

/** The event's parameters, checked. */
export interface CrossingSettings {
	/** The contract, e.g. BTCUSDT-PERPETUAL. */
	symbol: string;
	/** 'above': fires when the rate rises above the threshold; 'below': when it falls below it. */
	crossing: Crossing;
	/** The threshold in percent, as the user wrote it less redundant zeros ("0.05", "-0.01"). */
	threshold: string;
	/** The threshold as a fraction, as the service gives rates: "0.05" % is 0.0005. */
	thresholdRate: Decimal;
	/**
	 * Also Fire When the Rate Comes Back: an item too when the rate returns to the threshold or its
	 * near side. n8n then saves the state at every change of side (it saves only when a poll emits).
	 */
	fireWhenBack: boolean;
}

/** A plain decimal with an optional minus sign: digits, at most one dot, no exponent or spaces. */
const THRESHOLD = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** Most fraction digits of a threshold in percent (a rate is a fraction with a few more digits). */
export const MAX_THRESHOLD_DECIMALS = 10;

/** Reads and checks the event's parameters: a bad one fails the poll before anything is sent. */
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

/**
 * Threshold (%): a plain decimal in percent, negative allowed ("0.05" is 0.05 %, a rate of 0.0005).
 * Parsed strictly: anything else is an error naming the field, never a guess.
 */
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
 * The state's query key: changing the Contract, the Direction or the Threshold starts over like a
 * first activation (the threshold compared by value: "0.050" is "0.05"). Also Fire When the Rate
 * Comes Back is not part of it: turning it on or off keeps the state.
 */
export function crossingQueryKey(settings: CrossingSettings): string {
	return `event=${FUNDING_RATE_CROSSING};symbol=${settings.symbol};crossing=${settings.crossing};threshold=${settings.threshold}`;
}
