import {
	NodeApiError,
	NodeOperationError,
	sleep,
	type ICredentialDataDecryptedObject,
	type INode,
	type JsonObject,
} from 'n8n-workflow';

import {
	credentialProblemMessage,
	credentialProblemOf,
	type CredentialProblem,
} from '../../../credentials/credentialChecks';
import { CREDENTIAL_TYPE, ERROR_CODES, LIMITS } from '../constants';
import { attempt, measureClockOffset, type RetryPolicy, type TransportContext } from './http';
import type { Endpoint, EndpointRequest } from './endpoints';
import {
	httpStatusError,
	isUnknownOutcomeCode,
	keptFailingError,
	notReachableError,
	rejectionError,
	statusProvesNothingDone,
	toNodeError,
	unexpectedResponseError,
} from './errors';
import { limiterFor, type WeightLimiter } from './pacing';

export { ENDPOINTS, type Endpoint, type EndpointRequest } from './endpoints';
export {
	isServiceRejection,
	isUnknownOutcomeCode,
	isZeroCode,
	sameCode,
	toNodeError,
	unexpectedResponseError,
} from './errors';
export type { RetryPolicy, TransportContext } from './http';

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
	maxRetries: 5,
	baseDelayMs: 250,
	maxDelayMs: 60000,
	timeoutMs: 30000,
};

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

/** What happened to a request that changes the account. */
export type WriteAttempt =
	/** A usable 2xx answer: what it says about the write is the caller's to read. */
	| { kind: 'answered'; body: unknown; window: SendWindow }
	/** Nothing was executed: the service refused, or the request never reached it. */
	| { kind: 'rejected'; error: NodeApiError | NodeOperationError; window: SendWindow }
	/** It may have been executed. `unusable`: a 2xx answer whose shape tells nothing. */
	| {
			kind: 'unknown';
			reason: string;
			detail: string;
			window: SendWindow;
			unusable?: { problem: string; body: unknown };
	  };

/** How one request's attempts ended. */
type Exchange =
	| { kind: 'answered'; body: unknown }
	| { kind: 'rejected'; error: NodeApiError | NodeOperationError }
	| { kind: 'unknown'; reason: string; detail: string };

/** What the transport reads from the credential, once per client. */
interface ClientSettings {
	limiter: WeightLimiter | undefined;
	/** The credential's receive window: how long after its timestamp the service may accept a request. */
	recvWindowMs: number;
	/** What is wrong with the credential's fields; nothing is sent while set. */
	credentialProblem?: CredentialProblem;
	/** The credential as read once, handed to n8n's request helper so it does not read it again per request. */
	credentials: ICredentialDataDecryptedObject;
}

/** A page walk: the next request to send (none: done), and what to do with each answer. */
export interface Pager {
	next(): EndpointRequest | undefined;
	take(page: unknown): void;
}

/**
 * The one place the package talks to the service, for one node run (the router makes one per run,
 * the trigger one per poll). It reads the credential once, however many requests the run sends and
 * however many of them are in flight at once.
 *
 * Reads are retried on rate limits, 5xx, unknown-outcome codes and network failures; writes only
 * when the service proves it did nothing (429, connection refused). Every attempt goes through the
 * credential's `authenticate`, so each is freshly timestamped and signed; redirects are never
 * followed. A write is never sent twice here: `write` says what became of it.
 */
export class ServiceClient {
	private settingsRead?: Promise<ClientSettings>;

	private nodeRead?: INode;

	constructor(
		private readonly functions: TransportContext,
		private readonly policy: RetryPolicy = DEFAULT_RETRY_POLICY,
	) {}

	/** The node, read once (n8n copies it on every `getNode()`). */
	private get node(): INode {
		return (this.nodeRead ??= this.functions.getNode());
	}

	private settings(): Promise<ClientSettings> {
		return (this.settingsRead ??= this.readSettings());
	}

	private async readSettings(): Promise<ClientSettings> {
		const credentials = await this.functions.getCredentials(CREDENTIAL_TYPE);
		const recvWindow = Number(credentials.recvWindow ?? LIMITS.defaultRecvWindowMs);
		return {
			limiter: limiterFor(
				String(credentials.baseUrl ?? ''),
				String(credentials.apiKey ?? ''),
				Number(credentials.weightBudget ?? 0),
				Number(credentials.weightWindowSeconds ?? 60),
			),
			// The service caps recvWindow; an unreadable value is taken at that cap, which only makes
			// the node wait longer before it concludes an unanswered write can no longer be accepted.
			recvWindowMs:
				Number.isFinite(recvWindow) && recvWindow > 0
					? Math.min(recvWindow, LIMITS.maxRecvWindowMs)
					: LIMITS.maxRecvWindowMs,
			credentialProblem: credentialProblemOf(credentials),
			credentials,
		};
	}

	/** Checked here as well as when signing, so that it is known to fail before anything is sent. */
	private credentialError(
		problem: CredentialProblem,
		itemIndex: number | undefined,
	): NodeOperationError {
		return new NodeOperationError(this.node, credentialProblemMessage(problem), {
			description: problem.fix,
			itemIndex,
		});
	}

	/**
	 * A read: its answer, checked against the endpoint's shape, so callers only ever see usable
	 * answers. Throws only n8n errors.
	 */
	async request(endpoint: Endpoint, request: EndpointRequest = {}): Promise<unknown> {
		const settings = await this.settings();
		if (settings.credentialProblem !== undefined)
			throw this.credentialError(settings.credentialProblem, request.itemIndex);
		const exchange = await this.exchange(endpoint, request, settings, {});
		if (exchange.kind === 'rejected') throw exchange.error;
		if (exchange.kind === 'unknown') {
			// Only writes end unknown; a read that kept failing ends rejected.
			throw new NodeApiError(this.node, { reason: exchange.reason } as JsonObject, {
				message: exchange.reason,
				itemIndex: request.itemIndex,
			});
		}
		const problem = endpoint.checkResponse?.(exchange.body);
		if (problem !== undefined)
			throw unexpectedResponseError(
				this.node,
				problem,
				exchange.body,
				undefined,
				request.itemIndex,
			);
		return exchange.body;
	}

	/** A write: what became of it, with when its attempts may have reached the service. Never throws. */
	async write(endpoint: Endpoint, request: EndpointRequest): Promise<WriteAttempt> {
		const window: SendWindow = {};
		let settings: ClientSettings;
		try {
			settings = await this.settings();
		} catch (error) {
			return { kind: 'rejected', error: toNodeError(this.node, error), window };
		}
		if (settings.credentialProblem !== undefined) {
			return {
				kind: 'rejected',
				error: this.credentialError(settings.credentialProblem, request.itemIndex),
				window,
			};
		}
		const exchange = await this.exchange(endpoint, request, settings, window);
		if (exchange.kind !== 'answered') return { ...exchange, window };
		const problem = endpoint.checkResponse?.(exchange.body);
		if (problem !== undefined) {
			// A 2xx answer to a write: it may well have been executed.
			return {
				kind: 'unknown',
				reason: problem,
				detail: 'Unusable answer',
				window,
				unusable: { problem, body: exchange.body },
			};
		}
		return { kind: 'answered', body: exchange.body, window };
	}

	/** Every page of a paged read, one request after the other, as the pager asks for them. */
	async requestAllPages(endpoint: Endpoint, pager: Pager): Promise<void> {
		for (let request = pager.next(); request !== undefined; request = pager.next()) {
			pager.take(await this.request(endpoint, request));
		}
	}

	/** One request with the transport's own retries, until it is answered or cannot be tried again. */
	private async exchange(
		endpoint: Endpoint,
		request: EndpointRequest,
		settings: ClientSettings,
		window: SendWindow,
	): Promise<Exchange> {
		const node = this.node;
		const policy = this.policy;
		const { itemIndex } = request;
		const isWrite = endpoint.writes === true;
		const recvWindowMs = recvWindowOf(request, settings);
		for (let retry = 0; ; retry++) {
			window.firstSentAt ??= Date.now();
			let outcome: Awaited<ReturnType<typeof attempt>>;
			try {
				outcome = await attempt(
					this.functions,
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
								error: keptFailingError(
									node,
									reason,
									`code ${rejection.code}`,
									retry + 1,
									itemIndex,
								),
							};
						await sleep(backoffMs(policy, retry));
						continue;
					}
					const offset =
						rejection.code === ERROR_CODES.timestampOutsideWindow
							? await measureClockOffset(this.functions)
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
}

/** The receive window a request is signed with: its own recvWindow, else the credential's. */
function recvWindowOf(request: EndpointRequest, settings: ClientSettings): number {
	const own = Number(request.qs?.recvWindow);
	return Number.isFinite(own) && own > 0 ? own : settings.recvWindowMs;
}
