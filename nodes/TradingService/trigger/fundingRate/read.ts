import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { parseDecimal } from '../../helpers/decimals';
import { FUTURES_ENDPOINTS } from '../../futures/endpoints';
import type { ServiceClient } from '../../transport';

/** A funding rate and the funding time it is for, as the service gives them (text). */
export interface RateSample {
	/** A fraction: "0.0005" is 0.05 %. */
	rate: string;
	/** Milliseconds since the epoch, as a string of digits. */
	nextFundingTime: string;
}

/** Settled rates the history can list in one request (the documented maximum). */
export const SETTLED_RATES_LIMIT = 100;

const DIGITS = /^\d{1,16}$/;

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

/**
 * The contract's current funding rate: GET /api/v2/futures/fundingRate?symbol=..., one request.
 * An answer without the contract, or with a rate or time that is not one, is an error: the poll
 * then changes nothing.
 */
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
	const rate = textOf(entry.rate);
	const nextFundingTime = textOf(entry.nextFundingTime);
	if (rate === undefined || parseDecimal(rate) === undefined) {
		throw answerError(
			node,
			`The service's funding rate of ${symbol} is not a decimal: ${JSON.stringify(entry.rate)}`,
		);
	}
	if (nextFundingTime === undefined || !DIGITS.test(nextFundingTime)) {
		throw answerError(
			node,
			`The service's next funding time of ${symbol} is not a time: ${JSON.stringify(entry.nextFundingTime)}`,
		);
	}
	return { rate, nextFundingTime };
}

/** The settled rates of a range of funding times, oldest first, and whether the range was read whole. */
export interface SettledRates {
	rates: RateSample[];
	/** False when the range holds more settlements than one request lists (the oldest are missing). */
	complete: boolean;
}

/**
 * The rates settled at funding times from `from` (inclusive) to `to` (exclusive), from
 * GET /api/v2/futures/historyFundingRate (newest first, at most 100): one request. Each is given
 * as a sample of the period it settled, its `settleTime` as the funding time.
 */
export async function readSettledRates(
	client: ServiceClient,
	node: INode,
	symbol: string,
	from: string,
	to: string,
): Promise<SettledRates> {
	const answer = (await client.request(FUTURES_ENDPOINTS.historyFundingRate, {
		qs: { symbol, limit: SETTLED_RATES_LIMIT },
	})) as IDataObject[];
	const settled = answer
		.filter((entry) => entry.symbol === undefined || entry.symbol === symbol)
		.map((entry) => settledSample(node, symbol, entry));
	const inRange = settled
		.filter((sample) => Number(sample.nextFundingTime) >= Number(from))
		.filter((sample) => Number(sample.nextFundingTime) < Number(to))
		.sort((a, b) => Number(a.nextFundingTime) - Number(b.nextFundingTime));
	const reachedFrom =
		answer.length < SETTLED_RATES_LIMIT ||
		settled.some((sample) => Number(sample.nextFundingTime) <= Number(from));
	return { rates: inRange, complete: reachedFrom };
}

function settledSample(node: INode, symbol: string, entry: IDataObject): RateSample {
	const rate = textOf(entry.settleRate);
	const nextFundingTime = textOf(entry.settleTime);
	if (rate === undefined || parseDecimal(rate) === undefined) {
		throw answerError(
			node,
			`The service's settled funding rate of ${symbol} is not a decimal: ${JSON.stringify(entry.settleRate)}`,
		);
	}
	if (nextFundingTime === undefined || !DIGITS.test(nextFundingTime)) {
		throw answerError(
			node,
			`The service's funding settlement time of ${symbol} is not a time: ${JSON.stringify(entry.settleTime)}`,
		);
	}
	return { rate, nextFundingTime };
}
