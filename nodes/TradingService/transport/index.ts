import {
	sleep,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type IN8nHttpFullResponse,
	type IPollFunctions,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE, ERROR_CODES } from '../constants';
import { ENDPOINTS, type Endpoint, type EndpointRequest } from './endpoints';
import {
	httpStatusError,
	isOutcomeUnknown,
	keptFailingError,
	notReachableError,
	outcomeUnknownError,
	rejectionError,
	toNodeError,
	unexpectedResponseError,
	type ServiceRejection,
} from './errors';
import { limiterFor, type WeightLimiter } from './pacing';

export { ENDPOINTS, type Endpoint, type EndpointRequest } from './endpoints';
export { isOutcomeUnknown, isServiceRejection, toNodeError } from './errors';

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

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
	maxRetries: 5,
	baseDelayMs: 250,
	maxDelayMs: 60000,
	timeoutMs: 30000,
};

/** How often a write whose outcome is unknown is sent again, when the endpoint says that is safe. */
const IDEMPOTENT_RETRIES = 2;
const IDEMPOTENT_RETRY_DELAY_MS = 500;

/** Why an attempt failed, in the terms that decide whether another attempt is safe. */
type AttemptFailure =
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

async function attempt(
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
async function measureClockOffset(context: TransportContext): Promise<number | undefined> {
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

function backoffMs(policy: RetryPolicy, retry: number, retryAfterMs?: number): number {
	return Math.min(retryAfterMs ?? policy.baseDelayMs * 2 ** retry, policy.maxDelayMs);
}

// The limiter of each node run, so the credential is read (and decrypted) once per run, not once
// per request on top of the read n8n's request helper makes.
const limiterOfRun = new WeakMap<TransportContext, WeightLimiter | undefined>();

async function limiterOf(context: TransportContext): Promise<WeightLimiter | undefined> {
	if (limiterOfRun.has(context)) return limiterOfRun.get(context);
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	const limiter = limiterFor(
		String(credentials.baseUrl ?? ''),
		String(credentials.apiKey ?? ''),
		Number(credentials.weightBudget ?? 0),
		Number(credentials.weightWindowSeconds ?? 60),
	);
	limiterOfRun.set(context, limiter);
	return limiter;
}

/**
 * One request with the transport's own retries: reads on rate limits, 5xx and network failures;
 * writes only when the service proves it did nothing (429, connection refused). Every attempt goes
 * through the credential's `authenticate`, so each is freshly timestamped and signed.
 */
async function send(
	context: TransportContext,
	endpoint: Endpoint,
	request: EndpointRequest,
	policy: RetryPolicy,
): Promise<unknown> {
	const node = context.getNode();
	const { itemIndex } = request;
	const limiter = await limiterOf(context);
	for (let retry = 0; ; retry++) {
		const outcome = await attempt(context, endpoint, request, policy, limiter);
		if ('body' in outcome) return outcome.body;

		const retriesLeft = retry < policy.maxRetries;
		switch (outcome.kind) {
			case 'rejected': {
				const offset =
					outcome.rejection.code === ERROR_CODES.timestampOutsideWindow ? await measureClockOffset(context) : undefined;
				throw rejectionError(node, outcome.rejection, itemIndex, offset);
			}
			case 'rateLimited': {
				// A 429 proves nothing was processed: safe to retry reads and writes alike.
				// A Retry-After longer than the longest wait fails now rather than being cut short.
				if (!retriesLeft || (outcome.retryAfterMs ?? 0) > policy.maxDelayMs) {
					throw rejectionError(node, outcome.rejection, itemIndex);
				}
				await sleep(backoffMs(policy, retry, outcome.retryAfterMs));
				continue;
			}
			case 'notSent':
				if (!retriesLeft) throw notReachableError(node, outcome.reason, outcome.detail, retry + 1, itemIndex);
				await sleep(backoffMs(policy, retry));
				continue;
			case 'unknown':
				if (endpoint.write !== undefined) {
					const { what, howToCheck } = endpoint.write.describe(request);
					throw outcomeUnknownError(node, what, outcome.reason, outcome.detail, howToCheck, itemIndex);
				}
				if (!retriesLeft) throw keptFailingError(node, outcome.reason, outcome.detail, retry + 1, itemIndex);
				await sleep(backoffMs(policy, retry));
				continue;
			case 'http':
				throw httpStatusError(node, outcome.status, outcome.reason, itemIndex);
		}
	}
}

/**
 * The one place the package talks to the service: an endpoint from the table plus the request's
 * parameters. A write whose outcome is unknown is sent again only when the endpoint says that
 * cannot execute it twice (client order IDs); a 2xx answer of the wrong shape is an error here, so
 * operations only ever see usable answers. Throws only n8n errors.
 */
export async function serviceRequest(
	this: TransportContext,
	endpoint: Endpoint,
	request: EndpointRequest = {},
	policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): Promise<unknown> {
	const idempotent = endpoint.write?.isIdempotent?.(request) === true;
	for (let retry = 0; ; retry++) {
		let body: unknown;
		try {
			body = await send(this, endpoint, request, policy);
		} catch (error) {
			if (!idempotent || !isOutcomeUnknown(error) || retry >= IDEMPOTENT_RETRIES) throw toNodeError(this.getNode(), error);
			await sleep(IDEMPOTENT_RETRY_DELAY_MS * 2 ** retry);
			continue;
		}
		const problem = endpoint.checkResponse?.(body, request);
		if (problem !== undefined) {
			throw unexpectedResponseError(this.getNode(), problem, body, endpoint.write?.describe(request).howToCheck, request.itemIndex);
		}
		return body;
	}
}
