import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IPollFunctions,
	ITriggerFunctions,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

import type { RequestPacer, ServiceBan } from './pacing';
import type { ServiceRejection } from './rejections';
import type { IntervalGate, WeightLimiter } from './throttles';

/** What the transport's files hand each other, and what a room declares of its endpoints: types only. */

/** What a caller hands the transport besides the endpoint. */
export interface EndpointRequest {
	/** Query parameters, signed and sent in this order; `body`: sent as JSON. */
	qs?: IDataObject;
	body?: IDataObject | IDataObject[];
	/** The input item the request serves, for error messages. */
	itemIndex?: number;
	/** Goes before waiting requests that are not (pacing.ts). */
	urgent?: boolean;
}

/** What one key of a usable answer holds (answer.ts FIELD_HOLDS). */
export type FieldShape =
	| 'present'
	| 'id'
	| 'string'
	| 'text'
	| 'digits'
	| 'boolean'
	| 'list'
	| 'objects'
	| 'listOrNull';

/** A usable 2xx answer, declared: the transport checks it before any caller reads the answer. */
export interface AnswerShape {
	/** An object, a list of objects, or `rows`: a list of lists (candles). */
	readonly is: 'object' | 'list' | 'rows';
	/** The keys the object, or every entry of the list, must have. */
	readonly has?: Readonly<Record<string, FieldShape>>;
	/** The problem, in words, when the answer is not of this shape. */
	readonly otherwise: string;
}

/** One endpoint, declared once in the room that uses it (orders/endpoints.ts, market/endpoints.ts, …). */
export interface Endpoint {
	readonly method: IHttpRequestMethods;
	readonly path: string;
	/** Request weight against the key's budget: spec §8, else the UAE documentation (docs/api.md §4). */
	readonly weight: number;
	/** The key's rate it counts against: 'order' (new orders, batch orders, cancels); absent, a query. */
	readonly rateClass?: 'order';
	/** Whether the service takes the API key alone (market data, spec §5.1): nothing is signed. */
	readonly signed?: false;
	/** Least time between two requests to it with one key (UAE documentation: some once a second). */
	readonly minIntervalMs?: number;
	/** Changes the account: tried again only when the service proves it did nothing, else unknown. */
	readonly writes?: true;
	/** Whether a 2xx answer carries a code per entry of `result`: handed over whole, some may have been executed. */
	readonly codesPerEntry?: true;
	readonly answer?: AnswerShape;
	/** Keys whose numbers keep their literal text, instead of textFields.ts TEXT_FIELDS. */
	readonly textFields?: ReadonlySet<string>;
}

/** A node run, a trigger poll, the real-time trigger, or a picker's list search. */
export type TransportContext =
	| IExecuteFunctions
	| IPollFunctions
	| ITriggerFunctions
	| ILoadOptionsFunctions;

export interface RetryPolicy {
	/** Further attempts after the first, for reads and for provably unprocessed writes. */
	maxRetries: number;
	/** First backoff; doubles per attempt. */
	baseDelayMs: number;
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
	/** Each looked up right before each request, with this credential's figure; none when off. */
	limiterOf?: () => { limiter: WeightLimiter; budget: number } | undefined;
	pacerOf?: (endpoint: Endpoint) => { pacer: RequestPacer; perSecond: number } | undefined;
	gateOf?: (endpoint: Endpoint) => { gate: IntervalGate; intervalMs: number } | undefined;
	/** How long after its timestamp the service may accept a request. */
	recvWindowMs: number;
	/** Handed to n8n's request helper so it does not read (and decrypt) it again per request. */
	credentials: ICredentialDataDecryptedObject;
	/** The service's ban in this process, after a 418. */
	serviceBan?: ServiceBan;
	/** How long a request may wait for a rate-limit suspension to end (0: refused unsent at once). */
	rateLimitWaitMs: number;
	/** Whether the run offers Wait After a Rate Limit: an error may then suggest it. */
	offersRateLimitWait: boolean;
	/** The IP ban (418) this run met: nothing more is sent in this run. */
	ban?: ServiceRejection;
	/**
	 * The last clock check (after an "outside the receive window" refusal) and when it started: a
	 * refusal within a minute of it reports the same offset instead of asking again.
	 */
	clockCheck?: { startedAt: number; offset: Promise<number | undefined> };
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
