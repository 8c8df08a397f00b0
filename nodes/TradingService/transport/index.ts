import {
	NodeApiError,
	sleep,
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
	type IN8nHttpFullResponse,
	type IPollFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE, ENDPOINTS, ERROR_CODES, WEIGHTS } from '../constants';
import { outcomeUnknownError, rejectionError, toNodeError, type ServiceRejection } from './errors';
import { limiterFor, type WeightLimiter } from './pacing';

export {
	isOutcomeUnknown,
	isServiceRejection,
	OutcomeUnknownError,
	ServiceRejectedError,
	toNodeError,
} from './errors';

export type TransportContext = IExecuteFunctions | IPollFunctions;

export interface ServiceRequest {
	method: IHttpRequestMethods;
	path: string;
	/** Query parameters, serialised in this order by the credential. */
	qs?: IDataObject;
	/** Sent as JSON. */
	body?: IDataObject | IDataObject[];
	/**
	 * `read`: retried on rate limits, 5xx and network failures. `write`: retried only when the
	 * service proves it did nothing (429, connection refused); otherwise an unknown outcome is
	 * reported, never guessed.
	 */
	kind: 'read' | 'write';
	/** The endpoint's request weight (spec §8); 1 when the spec gives none. */
	weight?: number;
	itemIndex?: number;
	/** For writes: what the user would be told may have happened ("transfer", "batch of 20 orders"). */
	writeName?: string;
	/** For writes: how the user can find out whether it happened. */
	howToCheck?: string;
}

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
	request: ServiceRequest,
	policy: RetryPolicy,
	limiter: WeightLimiter | undefined,
): Promise<{ body: unknown } | AttemptFailure> {
	await limiter?.acquire(request.weight ?? WEIGHTS.default);
	const options: IHttpRequestOptions = {
		method: request.method,
		url: request.path,
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
			method: 'GET',
			url: ENDPOINTS.serverTime,
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
 * The one place the package talks to the service. Every attempt goes through the credential's
 * `authenticate`, so each is freshly timestamped and signed.
 */
export async function serviceRequest(
	this: TransportContext,
	request: ServiceRequest,
	policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): Promise<unknown> {
	const node = this.getNode();
	const limiter = await limiterOf(this);
	for (let retry = 0; ; retry++) {
		const outcome = await attempt(this, request, policy, limiter);
		if ('body' in outcome) return outcome.body;

		const retriesLeft = retry < policy.maxRetries;
		switch (outcome.kind) {
			case 'rejected': {
				const offset =
					outcome.rejection.code === ERROR_CODES.timestampOutsideWindow ? await measureClockOffset(this) : undefined;
				throw rejectionError(node, outcome.rejection, request.itemIndex, offset);
			}
			case 'rateLimited': {
				// A 429 proves nothing was processed: safe to retry reads and writes alike.
				// A Retry-After longer than the longest wait fails now rather than being cut short.
				if (!retriesLeft || (outcome.retryAfterMs ?? 0) > policy.maxDelayMs) {
					throw rejectionError(node, outcome.rejection, request.itemIndex);
				}
				await sleep(backoffMs(policy, retry, outcome.retryAfterMs));
				continue;
			}
			case 'notSent':
				if (!retriesLeft) {
					throw new NodeApiError(node, { attempts: retry + 1 } as JsonObject, {
						message: `Could not reach the Trading Service: ${outcome.reason}`,
						description: `${outcome.detail} after ${retry + 1} attempts. Check the Base URL in the credential and that the service is reachable from the n8n server. Nothing was sent.`,
						itemIndex: request.itemIndex,
					});
				}
				await sleep(backoffMs(policy, retry));
				continue;
			case 'unknown':
				if (request.kind === 'write') {
					throw outcomeUnknownError(
						node,
						request.writeName ?? 'request',
						outcome.reason,
						outcome.detail,
						request.howToCheck ?? 'Check the account in the service',
						request.itemIndex,
					);
				}
				if (!retriesLeft) {
					throw new NodeApiError(node, { attempts: retry + 1 } as JsonObject, {
						message: `The Trading Service kept failing: ${outcome.reason}`,
						description: `${outcome.detail}; the request was tried ${retry + 1} times. The service may be down or overloaded; try again later.`,
						itemIndex: request.itemIndex,
					});
				}
				await sleep(backoffMs(policy, retry));
				continue;
			case 'http':
				throw new NodeApiError(node, { status: outcome.status } as JsonObject, {
					message: `The Trading Service answered ${outcome.reason}`,
					description:
						outcome.status === 404
							? 'Check the Base URL in the credential: it should be the service address without a path, e.g. http://127.0.0.1:8787.'
							: 'The answer carried no service error code. Check the Base URL and the API key in the credential, and any proxy between n8n and the service.',
					httpCode: String(outcome.status),
					itemIndex: request.itemIndex,
				});
		}
	}
}
