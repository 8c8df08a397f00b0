import {
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type IN8nHttpFullResponse,
	type ICredentialDataDecryptedObject,
	type ILoadOptionsFunctions,
	type IPollFunctions,
	type ITriggerFunctions,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../constants';
import { classifyResponse, unreadable, type AttemptFailure } from './answer';
import { ENDPOINTS, type Endpoint, type EndpointRequest } from './endpoints';
import { toNodeError } from './errors';
import type { WeightLimiter } from './pacing';
import { AttemptDeadline, discardBody, readBody } from './body';
import { parseJsonKeepingDigits } from './json';

/**
 * One HTTP attempt: the only code that calls n8n's request helper. What its answer means is
 * answer.ts; the retry decisions on top of it live in retries.ts.
 */

/**
 * Whatever n8n hands the package: a node run, a trigger poll, the real-time trigger, or a
 * picker's list search.
 */
export type TransportContext =
	| IExecuteFunctions
	| IPollFunctions
	| ITriggerFunctions
	| ILoadOptionsFunctions;

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
			return unreadable(
				{ ok: false, failure: 'deadline' },
				isWrite,
				policy.timeoutMs,
				context.getNode(),
			);
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
		if (!read.ok) return unreadable(read, isWrite, policy.timeoutMs, context.getNode());
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
