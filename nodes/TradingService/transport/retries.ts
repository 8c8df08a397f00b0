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
	silenceError,
	statusProvesNothingDone,
	toNodeError,
} from './errors';
import { attempt, measureClockOffset, type RetryPolicy, type TransportContext } from './http';
import { ServiceSilence, type IntervalGate, type WeightLimiter } from './pacing';
import type { ServiceRejection } from './rejections';

/**
 * One request with the transport's own retries, until it is answered or cannot be tried again.
 * Reads are retried on rate limits, 5xx, unknown-outcome codes and network failures; writes only
 * when the service proves it did nothing (429 with Retry-After, connection refused). A write that
 * may have been executed ends unknown here and is never sent again.
 *
 * Rate limits follow the UAE documentation, which says to wait one minute after a 429 and bans an
 * IP address that keeps sending (418). A 429 without Retry-After silences the service for this
 * process for that minute (pacing.ts): a read waits it out and is tried once more, a write is
 * rejected (nothing was executed) saying when to run again, and nothing else is sent meanwhile.
 * A 418 is never retried: nothing more is sent in this run, and without Retry-After nothing from
 * this process for IP_BAN_DEFAULT_MS.
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
	/** The service's silence in this process (pacing.ts); without it, one for this request alone. */
	silence?: ServiceSilence;
	/** The interval gate of a paced endpoint (transfers) for this key at this service. */
	gateOf?: (endpoint: Endpoint) => IntervalGate | undefined;
	/** The IP ban (418) this run met: nothing more is sent in this run. */
	ban?: ServiceRejection;
}

/**
 * Holds a request back while its service is silent: a read waits, a write (or a read that has
 * waited its share) is refused unsent. Undefined when it may go.
 */
async function holdBack(
	node: INode,
	settings: ExchangeSettings,
	silence: ServiceSilence,
	isWrite: boolean,
	itemIndex: number | undefined,
): Promise<Exchange | undefined> {
	let waited = 0;
	for (;;) {
		if (settings.ban !== undefined)
			return {
				kind: 'rejected',
				error: silenceError(
					node,
					{ banned: true, retryAfterMs: settings.ban.retryAfterMs },
					itemIndex,
				),
			};
		const step = silence.step(isWrite, waited);
		if (step.kind === 'go') return undefined;
		if (step.kind === 'refuse')
			return {
				kind: 'rejected',
				error: silenceError(node, { banned: step.banned, until: step.until }, itemIndex),
			};
		await sleep(step.ms);
		waited += step.ms;
	}
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
	const silence = settings.silence ?? new ServiceSilence();
	const gate = settings.gateOf?.(endpoint);
	let silencedOnce = false;
	for (let retry = 0; ; retry++) {
		// The paced endpoint's turn first (it may take a while), then the silence as it is by then.
		const release = await gate?.pass();
		const held = await holdBack(node, settings, silence, isWrite, itemIndex);
		if (held !== undefined) {
			release?.();
			return held;
		}
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
			release?.();
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
				if (rejection.httpStatus === 418) {
					// Sending again only prolongs a ban: nothing more in this run, nor from this process
					// for a while when the service does not say how long it lasts.
					settings.ban = rejection;
					if (rejection.retryAfterMs === undefined) silence.banned();
					return { kind: 'rejected', error: rejectionError(node, rejection, itemIndex) };
				}
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
				if (outcome.retryAfterMs === undefined) {
					// The UAE rule: a minute of silence for this service in this n8n instance. A read waits
					// it out (at the top of the loop) and is tried once more; a write is not delayed by
					// a minute behind the workflow's back.
					const rejection = { ...outcome.rejection, retryAt: silence.rateLimited() };
					if (isWrite || silencedOnce)
						return { kind: 'rejected', error: rejectionError(node, rejection, itemIndex) };
					silencedOnce = true;
					continue;
				}
				// A 429 proves nothing was processed: safe to retry reads and writes alike.
				// A Retry-After longer than the longest wait fails now rather than being cut short.
				if (!retriesLeft || outcome.retryAfterMs > policy.maxDelayMs) {
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
