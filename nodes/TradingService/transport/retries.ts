import {
	sleep,
	type ICredentialDataDecryptedObject,
	type INode,
	type NodeApiError,
	type NodeOperationError,
} from 'n8n-workflow';

import { ERROR_CODES, LIMITS } from '../constants';
import type { Endpoint, EndpointRequest } from './endpoints';
import {
	httpStatusError,
	isUnknownOutcomeCode,
	keptFailingError,
	notReachableError,
	rejectionError,
	statusProvesNothingDone,
	toNodeError,
} from './errors';
import { attempt, measureClockOffset, type RetryPolicy, type TransportContext } from './http';
import type { WeightLimiter } from './pacing';

/**
 * One request with the transport's own retries, until it is answered or cannot be tried again.
 * Reads are retried on rate limits, 5xx, unknown-outcome codes and network failures; writes only
 * when the service proves it did nothing (429, connection refused). A write that may have been
 * executed ends unknown here and is never sent again.
 */

function backoffMs(policy: RetryPolicy, retry: number, retryAfterMs?: number): number {
	return Math.min(retryAfterMs ?? policy.baseDelayMs * 2 ** retry, policy.maxDelayMs);
}

/**
 * When the attempts of one request may have reached the service, in this machine's clock. Each
 * attempt is signed with a timestamp taken during it; the service accepts a request only while its
 * clock is within recvWindow after that timestamp (and less than the future tolerance before it),
 * so after `acceptableUntil` no attempt made so far can still be accepted.
 */
export interface SendWindow {
	/** Before the first attempt: a service record of this request cannot be older than this minus the future tolerance. */
	firstSentAt?: number;
	/** The end of the last attempt plus its recvWindow plus the future tolerance. */
	acceptableUntil?: number;
}

/** How one request's attempts ended. */
export type Exchange =
	| { kind: 'answered'; body: unknown }
	| { kind: 'rejected'; error: NodeApiError | NodeOperationError }
	| { kind: 'unknown'; reason: string; detail: string };

/** What the attempts of a request use of the credential, read once per client. */
export interface ExchangeSettings {
	limiter: WeightLimiter | undefined;
	/** The credential's receive window: how long after its timestamp the service may accept a request. */
	recvWindowMs: number;
	/** The credential as read once, handed to n8n's request helper so it does not read it again per request. */
	credentials: ICredentialDataDecryptedObject;
}

/** Sends `request` until it is answered or cannot be tried again; `window` learns when its attempts were sent. */
export async function sendWithRetries(
	context: TransportContext,
	node: INode,
	policy: RetryPolicy,
	settings: ExchangeSettings,
	endpoint: Endpoint,
	request: EndpointRequest,
	window: SendWindow,
): Promise<Exchange> {
	const { itemIndex } = request;
	const isWrite = endpoint.writes === true;
	const recvWindowMs = recvWindowOf(request, settings);
	for (let retry = 0; ; retry++) {
		window.firstSentAt ??= Date.now();
		let outcome: Awaited<ReturnType<typeof attempt>>;
		try {
			outcome = await attempt(
				context,
				endpoint,
				request,
				policy,
				settings.limiter,
				settings.credentials,
			);
		} catch (error) {
			// A failure the attempt could not classify: for a write, it may have been sent.
			if (isWrite)
				return {
					kind: 'unknown',
					reason: 'the request failed in an unexpected way',
					detail: (error as Error).message ?? String(error),
				};
			throw toNodeError(node, error);
		} finally {
			window.acceptableUntil = Math.max(
				window.acceptableUntil ?? 0,
				Date.now() + recvWindowMs + LIMITS.futureToleranceMs,
			);
		}
		if ('body' in outcome) return { kind: 'answered', body: outcome.body };

		const retriesLeft = retry < policy.maxRetries;
		switch (outcome.kind) {
			case 'rejected': {
				const { rejection } = outcome;
				if (isUnknownOutcomeCode(rejection.code)) {
					const reason = `the service answered code ${rejection.code}: "${rejection.msg}"`;
					if (isWrite)
						return {
							kind: 'unknown',
							reason,
							detail: `Code ${rejection.code} means the service may have executed the request`,
						};
					if (!retriesLeft)
						return {
							kind: 'rejected',
							error: keptFailingError(node, reason, `code ${rejection.code}`, retry + 1, itemIndex),
						};
					await sleep(backoffMs(policy, retry));
					continue;
				}
				const offset =
					rejection.code === ERROR_CODES.timestampOutsideWindow
						? await measureClockOffset(context)
						: undefined;
				return { kind: 'rejected', error: rejectionError(node, rejection, itemIndex, offset) };
			}
			case 'rateLimited':
				// A 429 proves nothing was processed: safe to retry reads and writes alike.
				// A Retry-After longer than the longest wait fails now rather than being cut short.
				if (!retriesLeft || (outcome.retryAfterMs ?? 0) > policy.maxDelayMs) {
					return { kind: 'rejected', error: rejectionError(node, outcome.rejection, itemIndex) };
				}
				await sleep(backoffMs(policy, retry, outcome.retryAfterMs));
				continue;
			case 'notSent':
				if (!retriesLeft)
					return {
						kind: 'rejected',
						error: notReachableError(node, outcome.reason, outcome.detail, retry + 1, itemIndex),
					};
				await sleep(backoffMs(policy, retry));
				continue;
			case 'unknown':
				if (isWrite) return { kind: 'unknown', reason: outcome.reason, detail: outcome.detail };
				if (!retriesLeft)
					return {
						kind: 'rejected',
						error: keptFailingError(node, outcome.reason, outcome.detail, retry + 1, itemIndex),
					};
				await sleep(backoffMs(policy, retry));
				continue;
			case 'http':
				if (isWrite && !statusProvesNothingDone(outcome.status))
					return { kind: 'unknown', reason: outcome.reason, detail: `HTTP ${outcome.status}` };
				return {
					kind: 'rejected',
					error: httpStatusError(node, outcome.status, outcome.reason, itemIndex),
				};
		}
	}
}

/** The receive window a request is signed with: its own recvWindow, else the credential's. */
function recvWindowOf(request: EndpointRequest, settings: ExchangeSettings): number {
	const own = Number(request.qs?.recvWindow);
	return Number.isFinite(own) && own > 0 ? own : settings.recvWindowMs;
}
