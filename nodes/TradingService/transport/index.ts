import { sleep } from 'n8n-workflow';

import { CREDENTIAL_TYPE, ERROR_CODES } from '../constants';
import { attempt, measureClockOffset, type RetryPolicy, type TransportContext } from './http';
import type { Endpoint, EndpointRequest } from './endpoints';
import {
	httpStatusError,
	isOutcomeUnknown,
	keptFailingError,
	notReachableError,
	outcomeUnknownError,
	rejectionError,
	toNodeError,
	unexpectedResponseError,
} from './errors';
import { limiterFor, type WeightLimiter } from './pacing';

export { ENDPOINTS, type Endpoint, type EndpointRequest } from './endpoints';
export { isOutcomeUnknown, isServiceRejection, toNodeError } from './errors';

export type { RetryPolicy, TransportContext } from './http';

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
	maxRetries: 5,
	baseDelayMs: 250,
	maxDelayMs: 60000,
	timeoutMs: 30000,
};

/** How often a write whose outcome is unknown is sent again, when the endpoint says that is safe. */
const IDEMPOTENT_RETRIES = 2;
const IDEMPOTENT_RETRY_DELAY_MS = 500;

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
