import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	ILoadOptionsFunctions,
	IPollFunctions,
	ITriggerFunctions,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

import type { Endpoint } from './endpoints';
import type { IntervalGate, RequestPacer, ServiceBan, WeightLimiter } from './pacing';
import type { ServiceRejection } from './rejections';

/** What the transport's files hand each other: types only, nothing that runs. */

/** Whatever n8n hands the package: a node run, a trigger poll, the real-time trigger, or a picker's list search. */
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
	/** Per-attempt deadline. A write past it has an unknown outcome. */
	timeoutMs: number;
}

/**
 * When the attempts of one request may have reached the service, in this machine's clock. The
 * service accepts a request only while its clock is within recvWindow after the request's
 * timestamp, so after `acceptableUntil` no attempt made so far can still be accepted.
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
	/** The key's weight limiter with this credential's budget, looked up right before each request; none when off. */
	limiterOf?: () => { limiter: WeightLimiter; budget: number } | undefined;
	/** The credential's receive window: how long after its timestamp the service may accept a request. */
	recvWindowMs: number;
	/** The credential as read once, handed to n8n's request helper so it does not read it again per request. */
	credentials: ICredentialDataDecryptedObject;
	/** The service's ban in this process, after a 418. */
	serviceBan?: ServiceBan;
	/** The pacer of the endpoint's class for this key at this service, with this credential's rate. */
	pacerOf?: (endpoint: Endpoint) => { pacer: RequestPacer; perSecond: number } | undefined;
	/** How long a request may wait for a rate-limit suspension to end (0: refused unsent at once). */
	rateLimitWaitMs: number;
	/** Whether the run offers the option Wait After a Rate Limit (version 2's action node): an error may then suggest it. */
	offersRateLimitWait: boolean;
	/** The interval gate of a paced endpoint (transfers) for this key at this service, with this credential's interval. */
	gateOf?: (endpoint: Endpoint) => { gate: IntervalGate; intervalMs: number } | undefined;
	/** The IP ban (418) this run met: nothing more is sent in this run. */
	ban?: ServiceRejection;
}

/** Why an attempt failed, in the terms that decide whether another attempt is safe. */
export type AttemptFailure =
	| { kind: 'rejected'; rejection: ServiceRejection }
	| { kind: 'rateLimited'; retryAfterMs?: number; rejection: ServiceRejection }
	| { kind: 'notSent'; reason: string; detail: string }
	| { kind: 'unknown'; reason: string; detail: string }
	| { kind: 'http'; status: number; reason: string };

export type BodyRead =
	| { ok: true; text: string }
	| { ok: false; failure: 'deadline' | 'tooLarge' }
	| { ok: false; failure: 'broken'; code: string };
