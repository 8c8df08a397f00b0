import {
	sleep,
	type ICredentialDataDecryptedObject,
	type INode,
	type NodeApiError,
	type NodeOperationError,
} from 'n8n-workflow';

import { ERROR_CODES, LIMITS } from '../constants';
import { ENDPOINTS, type Endpoint, type EndpointRequest } from './endpoints';
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
import type { IntervalGate, RequestPacer, ServiceBan, WeightLimiter } from './pacing';
import type { ServiceRejection } from './rejections';

/**
 * One request with the transport's own retries, until it is answered or cannot be tried again.
 * Reads are retried on 5xx, unknown-outcome codes and network failures; writes only when the
 * service proves it did nothing (a rate limit, connection refused). A write that may have been
 * executed ends unknown here and is never sent again.
 *
 * Rate limits follow the UAE documentation: 5 query and 20 order requests a second per API key;
 * over them a 429 (or 400 with code 0003), then wait one minute; an IP address that keeps sending
 * is banned (418). Every request leaves through its key and class's pacer (pacing.ts), so the node
 * stays within the rates; after a rate limit the pacer lets nothing of that key and class leave
 * until the suspension is over, and the request waits for it and goes again when the run allows
 * the wait (Wait After a Rate Limit), or is refused unsent, saying when to run again. A 418 is
 * never retried: nothing more is sent in this run, and without Retry-After nothing from this
 * process for IP_BAN_DEFAULT_MS.
 */

function backoffMs(policy: RetryPolicy, retry: number): number {
	return Math.min(policy.baseDelayMs * 2 ** retry, policy.maxDelayMs);
}

/**
 * Added to a suspension's end: the service starts it when the refused request arrived, a little
 * before this process reads the refusal, and the clocks may differ by a little.
 */
const SUSPENSION_MARGIN_MS = 500;

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
	/** The service's ban in this process (pacing.ts), after a 418 without Retry-After. */
	serviceBan?: ServiceBan;
	/** The pacer of the endpoint's class for this key at this service (pacing.ts). */
	pacerOf?: (endpoint: Endpoint) => RequestPacer | undefined;
	/**
	 * How long a request may wait for a rate-limit suspension to end before it is sent (0: not at
	 * all, the request is refused unsent). The node's Wait After a Rate Limit option.
	 */
	rateLimitWaitMs: number;
	/** The interval gate of a paced endpoint (transfers) for this key at this service. */
	gateOf?: (endpoint: Endpoint) => IntervalGate | undefined;
	/** The IP ban (418) this run met: nothing more is sent in this run. */
	ban?: ServiceRejection;
}

/** A ban of this run or of the service: the request is refused unsent. Undefined when there is none. */
function banned(
	node: INode,
	settings: ExchangeSettings,
	itemIndex: number | undefined,
): Exchange | undefined {
	if (settings.ban !== undefined)
		return {
			kind: 'rejected',
			error: silenceError(
				node,
				{ banned: true, retryAfterMs: settings.ban.retryAfterMs },
				itemIndex,
			),
		};
	const until = settings.serviceBan?.bannedUntil();
	if (until !== undefined)
		return { kind: 'rejected', error: silenceError(node, { banned: true, until }, itemIndex) };
	return undefined;
}

/** The most times one request waits out a suspension: a second one means someone else keeps sending. */
const MAX_RATE_LIMIT_WAITS = 2;

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
	let rateLimitWaits = 0;
	for (let retry = 0; ; retry++) {
		// The paced endpoint's turn first (it may take a while), then the key's rate as it is by then.
		// Each is looked up right before it is asked, with no await between: the process drops one
		// nothing uses, and a request holding on to a dropped one would not count in the one the
		// other requests use.
		const gate = settings.gateOf?.(endpoint);
		const release = await gate?.pass();
		const pacer = settings.pacerOf?.(endpoint);
		const turn = await pacer?.acquire(settings.rateLimitWaitMs);
		const held =
			banned(node, settings, itemIndex) ??
			(turn?.kind === 'suspended'
				? ({
						kind: 'rejected',
						error: silenceError(node, { banned: false, until: turn.until }, itemIndex),
					} as const)
				: undefined);
		if (held !== undefined) {
			if (turn?.kind === 'go') turn.done();
			release?.();
			return held;
		}
		const done = turn?.kind === 'go' ? turn.done : undefined;
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
			done?.();
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
					if (rejection.retryAfterMs === undefined) settings.serviceBan?.banned();
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
						? await pacedClockCheck(context, settings)
						: undefined;
				return { kind: 'rejected', error: rejectionError(node, rejection, itemIndex, offset) };
			}
			case 'rateLimited': {
				// Nothing was processed. The service suspends the key's class for a minute (or as long
				// as its Retry-After says): nothing of that class leaves this process before then, and
				// this request goes again after it when the run may wait that long.
				const until =
					Date.now() +
					(outcome.retryAfterMs ?? LIMITS.rateLimitSuspensionMs) +
					SUSPENSION_MARGIN_MS;
				pacer?.suspend(until);
				if (
					rateLimitWaits < MAX_RATE_LIMIT_WAITS &&
					until - Date.now() <= settings.rateLimitWaitMs
				) {
					rateLimitWaits++;
					// Without a pacer (a request outside any key's rate) the wait happens here.
					if (pacer === undefined) await sleep(until - Date.now());
					continue;
				}
				return {
					kind: 'rejected',
					error: rejectionError(node, { ...outcome.rejection, retryAt: until }, itemIndex),
				};
			}
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

/** The service's clock, asked within the key's query rate; undefined when that must wait. */
async function pacedClockCheck(
	context: TransportContext,
	settings: ExchangeSettings,
): Promise<number | undefined> {
	const turn = await settings.pacerOf?.(ENDPOINTS.serverTime)?.acquire(0);
	if (turn?.kind === 'suspended') return undefined;
	try {
		return await measureClockOffset(context);
	} finally {
		turn?.done();
	}
}

/** The receive window a request is signed with: its own recvWindow, else the credential's. */
function recvWindowOf(request: EndpointRequest, settings: ExchangeSettings): number {
	const own = Number(request.qs?.recvWindow);
	return Number.isFinite(own) && own > 0 ? own : settings.recvWindowMs;
}
