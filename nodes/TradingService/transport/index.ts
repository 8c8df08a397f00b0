import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type INode,
	type JsonObject,
} from 'n8n-workflow';

import {
	checkCredentialData,
	credentialProblemMessage,
	type CredentialProblem,
} from '../../../credentials/credentialChecks';
import { CREDENTIAL_TYPE, LIMITS } from '../constants';
import { ENDPOINTS, type Endpoint, type EndpointRequest } from './endpoints';
import { toNodeError, unexpectedResponseError } from './errors';
import { banFor, gateFor, limiterFor, normaliseBaseUrl, pacerFor } from './pacing';
import { sendWithRetries } from './request';
import type { ExchangeSettings, RetryPolicy, SendWindow, TransportContext } from './types';

export { isUnknownOutcomeCode, isZeroCode, parseJsonKeepingDigits, sameCode } from './answer';
export { ENDPOINTS, type Endpoint, type EndpointRequest } from './endpoints';
export { isServiceRejection, toNodeError, unexpectedResponseError } from './errors';
export type { RetryPolicy, SendWindow, TransportContext } from './types';

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
	maxRetries: 5,
	baseDelayMs: 250,
	maxDelayMs: 60000,
	timeoutMs: 30000,
};

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

/** What the transport reads from the credential, once per client. */
interface ClientSettings extends ExchangeSettings {
	/** What is wrong with the credential's fields; nothing is sent while set. */
	credentialProblem?: CredentialProblem;
}

/** A page walk: the next request to send (none: done), and what to do with each answer. */
export interface Pager {
	next(): EndpointRequest | undefined;
	take(page: unknown): void;
}

/** A key's accounts as kept per process (ServiceClient.keyAccounts). */
interface CachedAccounts {
	accounts: Promise<IDataObject[]>;
	readAt: number;
	settled: boolean;
}

const keyAccountsCache = new Map<string, CachedAccounts>();

/** Forgets every key's accounts: tests start each case with none. */
export function clearAccountScopeCache(): void {
	keyAccountsCache.clear();
}

/** The accounts kept under `key`, or those `read` returns, kept from now on. */
async function sharedKeyAccounts(
	key: string,
	read: () => Promise<IDataObject[]>,
): Promise<IDataObject[]> {
	const now = Date.now();
	for (const [other, entry] of keyAccountsCache) {
		if (entry.settled && now - entry.readAt >= LIMITS.accountScopeTtlMs)
			keyAccountsCache.delete(other);
	}
	const cached = keyAccountsCache.get(key);
	if (cached !== undefined) return await cached.accounts;
	const entry: CachedAccounts = { readAt: now, settled: false, accounts: read() };
	keyAccountsCache.set(key, entry);
	entry.accounts.then(
		() => {
			entry.settled = true;
		},
		() => {
			if (keyAccountsCache.get(key) === entry) keyAccountsCache.delete(key);
		},
	);
	return await entry.accounts;
}

/**
 * The one place the package talks to the service, for one node run (the router makes one per run,
 * the trigger one per poll). It reads the credential once, however many requests the run sends and
 * however many of them are in flight at once. Each request goes out with its retries and within
 * its key's rate (request.ts, pacing.ts); a write is never sent twice here: `write` says what
 * became of it.
 */
export class ServiceClient {
	private settingsRead?: Promise<ClientSettings>;

	private nodeRead?: INode;

	/**
	 * `rateLimitWaitMs`: how long a request may wait for a rate-limit suspension to end (the action
	 * node's Wait After a Rate Limit), asked once, at the first request; by default the longest wait.
	 * `offersRateLimitWait`: whether the run has that option, so that an error may suggest it.
	 */
	constructor(
		private readonly functions: TransportContext,
		private readonly policy: RetryPolicy = DEFAULT_RETRY_POLICY,
		private readonly rateLimitWaitMs: () => number = () => LIMITS.maxRateLimitWaitMs,
		private readonly offersRateLimitWait = false,
	) {}

	/** The node, read once (n8n copies it on every `getNode()`). */
	private get node(): INode {
		return (this.nodeRead ??= this.functions.getNode());
	}

	private settings(): Promise<ClientSettings> {
		return (this.settingsRead ??= this.readSettings());
	}

	private async readSettings(): Promise<ClientSettings> {
		const rateLimitWaitMs = this.rateLimitWaitMs();
		const credentials = await this.functions.getCredentials(CREDENTIAL_TYPE);
		const recvWindow = Number(credentials.recvWindow ?? LIMITS.defaultRecvWindowMs);
		const baseUrl = String(credentials.baseUrl ?? '');
		const apiKey = String(credentials.apiKey ?? '');
		const check = checkCredentialData(credentials);
		// Nothing is sent while the credential has a problem, so the rates matter only when it has none.
		const perSecond = check.ok ? check.credentials.requestsPerSecond : undefined;
		// One call a second for the key means one every n seconds for each of n processes sharing it.
		const processes = Number(credentials.processesSharingKey ?? 1);
		const sharing = Number.isInteger(processes) && processes > 1 ? processes : 1;
		const budget = Number(credentials.weightBudget ?? 0);
		const windowSeconds = Number(credentials.weightWindowSeconds ?? 60);
		return {
			limiterOf: () => {
				const limiter = limiterFor(baseUrl, apiKey, budget, windowSeconds);
				return limiter && { limiter, budget };
			},
			serviceBan: banFor(baseUrl),
			pacerOf: ({ rateClass = 'query' as const }) =>
				perSecond && {
					pacer: pacerFor(baseUrl, apiKey, rateClass, perSecond[rateClass]),
					perSecond: perSecond[rateClass],
				},
			rateLimitWaitMs,
			offersRateLimitWait: this.offersRateLimitWait,
			gateOf: ({ method, path, minIntervalMs }) =>
				minIntervalMs === undefined
					? undefined
					: {
							gate: gateFor(baseUrl, apiKey, `${method} ${path}`, minIntervalMs * sharing),
							intervalMs: minIntervalMs * sharing,
						},
			// The service caps recvWindow; an unreadable value is taken at that cap, which only makes
			// the node wait longer before it concludes an unanswered write can no longer be accepted.
			recvWindowMs:
				Number.isFinite(recvWindow) && recvWindow > 0
					? Math.min(recvWindow, LIMITS.maxRecvWindowMs)
					: LIMITS.maxRecvWindowMs,
			credentialProblem: check.ok ? undefined : check.problem,
			credentials,
		};
	}

	/**
	 * The credential's Base URL, normalised (transport/pacing.ts): what per-process caches of the
	 * service's public data (symbol rules) are keyed by, so two spellings of one service share them.
	 */
	async serviceUrl(): Promise<string> {
		return normaliseBaseUrl(String((await this.settings()).credentials.baseUrl ?? ''));
	}

	/**
	 * The key's accounts (GET /api/v1/account/type, weight 5), read once per process, service and
	 * key and kept LIMITS.accountScopeTtlMs: every order lookup names one of them
	 * (helpers/accountScope.ts), accounts change rarely, and a read per run would spend a fifth of a
	 * second's query requests. Callers at once share one read; a failed read is never kept.
	 */
	async keyAccounts(itemIndex?: number): Promise<IDataObject[]> {
		// The key is public (it goes in a header); the secret is never part of the cache key.
		const key = `${await this.serviceUrl()} ${String((await this.settings()).credentials.apiKey ?? '')}`;
		return await sharedKeyAccounts(
			key,
			() => this.request(ENDPOINTS.accountTypes, { itemIndex }) as Promise<IDataObject[]>,
		);
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
		const exchange = await sendWithRetries(
			this.functions,
			this.node,
			this.policy,
			settings,
			endpoint,
			request,
			{},
		);
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
		const exchange = await sendWithRetries(
			this.functions,
			this.node,
			this.policy,
			settings,
			endpoint,
			request,
			window,
		);
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
}
