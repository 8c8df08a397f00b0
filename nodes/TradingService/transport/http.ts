import type { IExecuteFunctions, IHttpRequestOptions, IN8nHttpFullResponse, IPollFunctions } from 'n8n-workflow';

import { CREDENTIAL_TYPE, ERROR_CODES } from '../constants';
import { ENDPOINTS, type Endpoint, type EndpointRequest } from './endpoints';
import { toNodeError, type ServiceRejection } from './errors';
import type { WeightLimiter } from './pacing';

/**
 * One HTTP attempt and what its answer means: the only code that calls n8n's request helper.
 * The retry decisions on top of it live in index.ts.
 */

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
const NETWORK_CODES = ['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'ESOCKETTIMEDOUT', 'ERR_SOCKET_CONNECTION_TIMEOUT'];

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

function asRejection(body: unknown, httpStatus: number): ServiceRejection | undefined {
	if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
	const { code, msg } = body as { code?: unknown; msg?: unknown };
	if (code === undefined || code === null) return undefined;
	const codeText = String(code);
	if (codeText === '0' || codeText === '200') return undefined;
	return { code: codeText, msg: typeof msg === 'string' ? msg : '', httpStatus };
}

function parseBody(body: unknown): unknown {
	if (typeof body !== 'string') return body;
	try {
		return JSON.parse(body);
	} catch {
		return body;
	}
}

/** Classifies a full response: the parsed body on success, the failure otherwise. */
function classifyResponse(response: IN8nHttpFullResponse): { body: unknown } | AttemptFailure {
	const status = response.statusCode;
	const body = parseBody(response.body);
	const rejection = asRejection(body, status);
	if (status === 429 || status === 418) {
		return {
			kind: 'rateLimited',
			retryAfterMs: parseRetryAfter(response.headers),
			rejection: rejection ?? { code: ERROR_CODES.rateLimited, msg: 'Rate limit exceeded', httpStatus: status },
		};
	}
	if (status >= 500) {
		return { kind: 'unknown', reason: `the service failed with HTTP ${status}`, detail: `HTTP ${status}` };
	}
	// A 404 means the Base URL is wrong, whatever the body says.
	if (rejection && status !== 404) return { kind: 'rejected', rejection };
	if (status >= 200 && status < 300) return { body };
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
): Promise<{ body: unknown } | AttemptFailure> {
	await limiter?.acquire(endpoint.weight);
	const options: IHttpRequestOptions = {
		method: endpoint.method,
		url: endpoint.path,
		qs: request.qs,
		body: request.body,
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: policy.timeoutMs,
	};
	try {
		const response = (await context.helpers.httpRequestWithAuthentication.call(
			context,
			CREDENTIAL_TYPE,
			options,
		)) as IN8nHttpFullResponse;
		return classifyResponse(response);
	} catch (error) {
		const code = findErrorCode(error);
		if (code !== undefined && NOT_SENT_CODES.includes(code)) {
			return { kind: 'notSent', reason: 'the connection could not be opened', detail: code };
		}
		if (code !== undefined && NETWORK_CODES.includes(code)) {
			return { kind: 'unknown', reason: 'the connection failed before the service answered', detail: code };
		}
		throw toNodeError(context.getNode(), error);
	}
}

/** Asks the service for its clock, to tell the user how far off theirs is. Best effort. */
export async function measureClockOffset(context: TransportContext): Promise<number | undefined> {
	try {
		const before = Date.now();
		const response = (await context.helpers.httpRequestWithAuthentication.call(context, CREDENTIAL_TYPE, {
			method: ENDPOINTS.serverTime.method,
			url: ENDPOINTS.serverTime.path,
			json: true,
			timeout: 5000,
		})) as { serverTime?: unknown };
		const serverTime = Number(response?.serverTime);
		if (!Number.isFinite(serverTime)) return undefined;
		return Math.round(serverTime - (before + Date.now()) / 2);
	} catch {
		return undefined;
	}
}
