import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { parseDecimal } from '../../helpers/decimals';
import { FUTURES_ENDPOINTS } from '../../futures/endpoints';
import { FUNDING_RATE_PAGING, IdWalk } from '../../futures/idPages';
import type { ServiceClient } from '../../transport';

/** A funding rate and the funding time it is for, as the service gives them (text). */
export interface RateSample {
	/** A fraction: "0.0005" is 0.05 %. */
	rate: string;
	/** Milliseconds since the epoch, as a string of digits. */
	nextFundingTime: string;
}

/**
 * The most settled rates one catch-up reads (10 requests of 100): about 333 days of 8-hour
 * funding. A longer gap since the saved state loses the crossings before the oldest one read.
 */
export const SETTLED_RATES_MOST = 1000;

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
	/** False when the history read does not reach back to `from` (more than SETTLED_RATES_MOST). */
	complete: boolean;
}

/**
 * The rates settled at funding times from `from` (inclusive) to `to` (exclusive), from
 * GET /api/v2/futures/historyFundingRate (newest first, 100 a page): pages down by `endId` until a
 * page reaches back to `from` (or SETTLED_RATES_MOST rates, or the list's end), each rate once
 * whichever way the exchange reads `endId` (futures/idPages.ts). Each is given as a sample of the
 * period it settled, its `settleTime` as the funding time.
 */
export async function readSettledRates(
	client: ServiceClient,
	node: INode,
	symbol: string,
	from: string,
	to: string,
): Promise<SettledRates> {
	const reaches = (entry: IDataObject) => Number(textOf(entry.settleTime)) <= Number(from);
	const walk = new IdWalk(node, FUNDING_RATE_PAGING, { symbol }, SETTLED_RATES_MOST).until(reaches);
	await client.requestAllPages(FUTURES_ENDPOINTS.historyFundingRate, walk);
	const settled = walk.entries
		.filter((entry) => entry.symbol === undefined || entry.symbol === symbol)
		.map((entry) => settledSample(node, symbol, entry));
	const inRange = settled
		.filter((sample) => Number(sample.nextFundingTime) >= Number(from))
		.filter((sample) => Number(sample.nextFundingTime) < Number(to))
		.sort((a, b) => Number(a.nextFundingTime) - Number(b.nextFundingTime));
	return { rates: inRange, complete: walk.entries.some(reaches) };
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
