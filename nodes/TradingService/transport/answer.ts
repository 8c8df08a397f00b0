import { NodeApiError, type IN8nHttpFullResponse, type INode, type JsonObject } from 'n8n-workflow';

import { ERROR_CODES } from '../constants';
import { MAX_ANSWER_BYTES, type BodyRead } from './body';
import type { Endpoint } from './endpoints';
import { isZeroCode, sameCode, type ServiceRejection } from './errors';
import { parseJsonKeepingDigits } from './json';

/**
 * What one answer means, in the terms that decide whether another attempt is safe: its body, a
 * refusal, a rate limit, or an unknown outcome. Pure: the attempt that got the answer is http.ts.
 */

/**
 * Fields whose number is kept as its literal text, whatever its form or size, so that each is a
 * string in every item, as when the service sends it quoted: IDs (spec: long, up to 20 digits) and
 * the decimals the node reads or compares (spec: decimal; an 18-decimal amount sent as a JSON number
 * would otherwise come back rounded, and an order placed as sent would no longer match its answer).
 */
export const TEXT_FIELDS: ReadonlySet<string> = new Set([
	// IDs
	'id',
	'orderId',
	'accountId',
	'userId',
	'lastOrderId',
	'fromAccountId',
	'toAccountId',
	// orders (create, query, batch entries)
	'price',
	'origQty',
	'executedQty',
	'cummulativeQuoteQty',
	'cumulativeQuoteQty',
	'avgPrice',
	'reqAmount',
	'stopPrice',
	'icebergQty',
	'quantity',
	'amount',
	'feeAmount',
	'sumFeeAmount',
	'fee',
	// balances
	'free',
	'locked',
	'total',
	// history records and transfers
	'change',
	'netTransferAmount',
	'fromAccountBalance',
	'toAccountBalance',
]);

/** The family's code for an IP ban (HTTP 418), used when the answer carries none. */
const IP_BAN_CODE = '-3145';

/** Why an attempt failed, in the terms that decide whether another attempt is safe. */
export type AttemptFailure =
	| { kind: 'rejected'; rejection: ServiceRejection }
	| { kind: 'rateLimited'; retryAfterMs?: number; rejection: ServiceRejection }
	| { kind: 'notSent'; reason: string; detail: string }
	| { kind: 'unknown'; reason: string; detail: string }
	| { kind: 'http'; status: number; reason: string };

function parseRetryAfter(headers: IN8nHttpFullResponse['headers']): number | undefined {
	const value = headers?.['retry-after'];
	const text = Array.isArray(value) ? value[0] : value;
	if (text === undefined) return undefined;
	const seconds = Number(text);
	return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

function asRejection(
	body: unknown,
	httpStatus: number,
	codesPerEntry: boolean,
): ServiceRejection | undefined {
	if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
	const { code, msg } = body as { code?: unknown; msg?: unknown };
	if (code === undefined || code === null) return undefined;
	const codeText = String(code);
	// Success is numeric zero in any spelling the family uses (0, "0", "0000").
	if (isZeroCode(code) || codeText === '200') return undefined;
	// A 2xx answer with a code per entry is the caller's to read, whatever its top-level code:
	// some entries may have been executed.
	if (
		codesPerEntry &&
		httpStatus >= 200 &&
		httpStatus < 300 &&
		Array.isArray((body as { result?: unknown }).result)
	)
		return undefined;
	return { code: codeText, msg: typeof msg === 'string' ? msg : '', httpStatus };
}

/** Why an answer's body could not be used, as a failure of the attempt. */
export function unreadable(
	read: Exclude<BodyRead, { ok: true }>,
	isWrite: boolean,
	timeoutMs: number,
	node: INode,
): AttemptFailure {
	switch (read.failure) {
		case 'deadline':
			// Past the deadline the service may still be working on the request: a read is tried
			// again, a write is unknown.
			return {
				kind: 'unknown',
				reason: `the service did not answer within ${timeoutMs / 1000} s`,
				detail: 'ETIMEDOUT',
			};
		case 'broken':
			return {
				kind: 'unknown',
				reason: 'the answer broke off before it was complete',
				detail: read.code,
			};
		case 'tooLarge': {
			const reason = `the answer was larger than ${MAX_ANSWER_BYTES / (1024 * 1024)} MiB`;
			if (isWrite) return { kind: 'unknown', reason, detail: 'Answer too large' };
			// A service that floods a read would flood it again: no retry.
			throw new NodeApiError(node, { reason } as JsonObject, {
				message: `The Trading Service's answer was too large: ${reason}`,
				description:
					'The node stopped reading it. Check that Base URL in the credential points at the Trading Service API, or narrow the request (a shorter time range).',
			});
		}
	}
}

/**
 * Classifies an answer: the parsed body on success, the failure otherwise. Numbers a double cannot
 * hold, and IDs and decimals in any form, come back as strings (json.ts). A 2xx answer that is not JSON is unknown: the request was written
 * and something answered, but nobody can tell what the service did.
 */
export function classifyResponse(
	endpoint: Endpoint,
	status: number,
	headers: IN8nHttpFullResponse['headers'],
	text: string,
): { body: unknown } | AttemptFailure {
	let body: unknown = text;
	let isJson = true;
	try {
		body = parseJsonKeepingDigits(text, endpoint.textFields ?? TEXT_FIELDS);
	} catch {
		isJson = false;
	}
	const rejection = asRejection(body, status, endpoint.codesPerEntry === true);
	if (status === 418) {
		// An IP ban in this API family: retrying only prolongs it.
		const ban: ServiceRejection & { retryAfterMs?: number } = {
			code: rejection?.code ?? IP_BAN_CODE,
			msg: rejection?.msg ?? 'IP banned',
			httpStatus: status,
			retryAfterMs: parseRetryAfter(headers),
		};
		return { kind: 'rejected', rejection: ban };
	}
	// The UAE documentation's error table gives the rate-limit code 0003 with HTTP 400: the same
	// refusal as a 429, nothing processed, the key suspended.
	if (
		status === 429 ||
		(status === 400 && rejection !== undefined && sameCode(rejection.code, ERROR_CODES.rateLimited))
	) {
		return {
			kind: 'rateLimited',
			retryAfterMs: parseRetryAfter(headers),
			rejection: rejection ?? {
				code: ERROR_CODES.rateLimited,
				msg: 'Rate limit exceeded',
				httpStatus: status,
			},
		};
	}
	if (status >= 500) {
		return {
			kind: 'unknown',
			reason: `the service failed with HTTP ${status}`,
			detail: `HTTP ${status}`,
		};
	}
	// A 404 means the Base URL is wrong, whatever the body says.
	if (rejection && status !== 404) return { kind: 'rejected', rejection };
	if (status >= 200 && status < 300) {
		return isJson
			? { body }
			: {
					kind: 'unknown',
					reason: 'the service answered with something that is not JSON',
					detail: 'Unreadable answer',
				};
	}
	return {
		kind: 'http',
		status,
		reason: `HTTP ${status}${status === 404 ? ': the path does not exist at this Base URL' : ''}`,
	};
}
