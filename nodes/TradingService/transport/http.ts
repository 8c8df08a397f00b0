import {
	NodeApiError,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type IN8nHttpFullResponse,
	type ICredentialDataDecryptedObject,
	type INode,
	type IPollFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE, ERROR_CODES } from '../constants';
import { ENDPOINTS, type Endpoint, type EndpointRequest } from './endpoints';
import { isZeroCode, toNodeError, type ServiceRejection } from './errors';
import type { WeightLimiter } from './pacing';
import { AttemptDeadline, MAX_ANSWER_BYTES, discardBody, readBody, type BodyRead } from './body';
import { parseJsonKeepingDigits } from './json';

/**
 * One HTTP attempt and what its answer means: the only code that calls n8n's request helper.
 * The retry decisions on top of it live in index.ts.
 */

/**
 * Fields that hold IDs (spec: long, up to 20 digits): an integer there is kept as text whatever
 * its size, so an ID is a string in every item, as when the service sends it quoted.
 */
const ID_FIELDS: ReadonlySet<string> = new Set([
	'id',
	'orderId',
	'accountId',
	'userId',
	'lastOrderId',
	'fromAccountId',
	'toAccountId',
]);

/** The family's code for an IP ban (HTTP 418), used when the answer carries none. */
const IP_BAN_CODE = '-3145';

export type TransportContext = IExecuteFunctions | IPollFunctions;

export interface RetryPolicy {
	/** Further attempts after the first, for reads and for provably unprocessed writes. */
	maxRetries: number;
	/** First backoff; doubles per attempt. A Retry-After header takes precedence. */
	baseDelayMs: number;
	/** Longest single wait, Retry-After included; a longer Retry-After fails the request. */
	maxDelayMs: number;
	/** Per-request timeout. A write that times out has an unknown outcome. */
	timeoutMs: number;
}

/** Why an attempt failed, in the terms that decide whether another attempt is safe. */
export type AttemptFailure =
	| { kind: 'rejected'; rejection: ServiceRejection }
	| { kind: 'rateLimited'; retryAfterMs?: number; rejection: ServiceRejection }
	| { kind: 'notSent'; reason: string; detail: string }
	| { kind: 'unknown'; reason: string; detail: string }
	| { kind: 'http'; status: number; reason: string };

// n8n replaces an error message that contains a Node.js error code (ECONNRESET, …) with a generic
// one, losing what matters here (e.g. "unknown outcome"): codes go in the description only.

const NOT_SENT_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'];
const NETWORK_CODES = [
	'ECONNRESET',
	'EPIPE',
	'ETIMEDOUT',
	'ECONNABORTED',
	'ESOCKETTIMEDOUT',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
];

function findErrorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
		current = (current as { cause?: unknown }).cause;
	}
	const message = error instanceof Error ? error.message : String(error);
	if (/socket hang up/i.test(message)) return 'ECONNRESET';
	if (/timeout/i.test(message)) return 'ETIMEDOUT';
	return undefined;
}

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
function unreadable(
	read: Exclude<BodyRead, { ok: true }>,
	isWrite: boolean,
	policy: RetryPolicy,
	node: INode,
): AttemptFailure {
	switch (read.failure) {
		case 'deadline':
			// Past the deadline the service may still be working on the request: a read is tried
			// again, a write is unknown.
			return {
				kind: 'unknown',
				reason: `the service did not answer within ${policy.timeoutMs / 1000} s`,
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
 * Classifies an answer: the parsed body on success, the failure otherwise. Integers beyond 2^53
 * come back as strings (json.ts). A 2xx answer that is not JSON is unknown: the request was written
 * and something answered, but nobody can tell what the service did.
 */
function classifyResponse(
	endpoint: Endpoint,
	status: number,
	headers: IN8nHttpFullResponse['headers'],
	text: string,
): { body: unknown } | AttemptFailure {
	let body: unknown = text;
	let isJson = true;
	try {
		body = parseJsonKeepingDigits(text, ID_FIELDS);
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
	if (status === 429) {
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

export async function attempt(
	context: TransportContext,
	endpoint: Endpoint,
	request: EndpointRequest,
	policy: RetryPolicy,
	limiter: WeightLimiter | undefined,
	credentials?: ICredentialDataDecryptedObject,
): Promise<{ body: unknown } | AttemptFailure> {
	await limiter?.acquire(endpoint.weight);
	const isWrite = endpoint.writes === true;
	const options: IHttpRequestOptions = {
		method: endpoint.method,
		url: endpoint.path,
		qs: request.qs,
		body: request.body,
		json: true,
		// A redirect would carry the signed request and the API key wherever the Location points,
		// and a 303 would turn a write into a GET of another path.
		disableFollowRedirect: true,
		// The body as a stream, read here with the attempt's deadline and a byte cap (body.ts).
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: policy.timeoutMs,
	};
	const deadline = new AttemptDeadline(Date.now() + policy.timeoutMs);
	try {
		// The credential read once per run: without it n8n's helper reads (and decrypts) it for every request.
		const known =
			credentials === undefined
				? undefined
				: {
						credentialsDecrypted: {
							id: '',
							name: '',
							type: CREDENTIAL_TYPE,
							data: { ...credentials },
						},
					};
		const sending = context.helpers.httpRequestWithAuthentication.call(
			context,
			CREDENTIAL_TYPE,
			options,
			known,
		) as Promise<IN8nHttpFullResponse>;
		const response = await Promise.race([sending, deadline.passed]);
		if (response === 'deadline') {
			// The helper cannot be aborted: let the answer go when it comes.
			sending.then(
				(late) => discardBody(late?.body),
				() => undefined,
			);
			return unreadable({ ok: false, failure: 'deadline' }, isWrite, policy, context.getNode());
		}
		const status = response.statusCode;
		if (status >= 300 && status < 400) {
			discardBody(response.body);
			return {
				kind: 'http',
				status,
				reason: `HTTP ${status}, a redirect: signed requests are never sent on to another address`,
			};
		}
		const read = await readBody(response.body, deadline);
		if (!read.ok) return unreadable(read, isWrite, policy, context.getNode());
		return classifyResponse(endpoint, status, response.headers, read.text);
	} catch (error) {
		const code = findErrorCode(error);
		if (code !== undefined && NOT_SENT_CODES.includes(code)) {
			return { kind: 'notSent', reason: 'the connection could not be opened', detail: code };
		}
		if (code !== undefined && NETWORK_CODES.includes(code)) {
			return {
				kind: 'unknown',
				reason: 'the connection failed before the service answered',
				detail: code,
			};
		}
		throw toNodeError(context.getNode(), error);
	} finally {
		deadline.cancel();
	}
}

const CLOCK_CHECK_TIMEOUT_MS = 5000;

/** Asks the service for its clock, to tell the user how far off theirs is. Best effort. */
export async function measureClockOffset(context: TransportContext): Promise<number | undefined> {
	const deadline = new AttemptDeadline(Date.now() + CLOCK_CHECK_TIMEOUT_MS);
	try {
		const before = Date.now();
		const sending = context.helpers.httpRequestWithAuthentication.call(context, CREDENTIAL_TYPE, {
			method: ENDPOINTS.serverTime.method,
			url: ENDPOINTS.serverTime.path,
			json: true,
			disableFollowRedirect: true,
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: CLOCK_CHECK_TIMEOUT_MS,
		}) as Promise<IN8nHttpFullResponse>;
		const response = await Promise.race([sending, deadline.passed]);
		if (response === 'deadline') {
			sending.then(
				(late) => discardBody(late?.body),
				() => undefined,
			);
			return undefined;
		}
		if (response.statusCode !== 200) {
			discardBody(response.body);
			return undefined;
		}
		const read = await readBody(response.body, deadline, 64 * 1024);
		if (!read.ok) return undefined;
		const serverTime = Number(
			(parseJsonKeepingDigits(read.text) as { serverTime?: unknown } | null)?.serverTime,
		);
		if (!Number.isFinite(serverTime)) return undefined;
		return Math.round(serverTime - (before + Date.now()) / 2);
	} catch {
		return undefined;
	} finally {
		deadline.cancel();
	}
}
