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
} from '../../../credentials/TradingServiceApi.credentials';
import { CREDENTIAL_TYPE, LIMITS } from '../constants';
import { answerProblem } from './answer';
import { toNodeError, unexpectedResponseError } from './errors';
import { banFor, normaliseBaseUrl, pacerFor } from './pacing';
import { sendWithRetries } from './request';
import { gateFor, limiterFor } from './throttles';
import type {
	Endpoint,
	EndpointRequest,
	ExchangeSettings,
	RetryPolicy,
	SendWindow,
	TransportContext,
} from './types';

export { isUnknownOutcomeCode, isZeroCode, parseJsonKeepingDigits, sameCode } from './answer';
export { isServiceRejection, toNodeError, unexpectedResponseError } from './errors';
export type { AnswerShape, Endpoint, EndpointRequest, RetryPolicy, SendWindow } from './types';

/** The key's accounts and their types (UAE documentation): read once per process (keyAccounts). */
export const KEY_ACCOUNTS_ENDPOINT: Endpoint = {
	method: 'GET',
	path: '/api/v1/account/type',
	weight: 5,
	answer: {
		is: 'list',
		has: { accountId: 'present' },
		otherwise: 'The service answered the account list with something other than a list of accounts',
	},
};

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
	maxRetries: 5,
	baseDelayMs: 250,
	maxDelayMs: 60000,
	timeoutMs: 30000,
};

/** What happened to a write (docs/transport.md): answered, rejected (nothing executed), or unknown. */
export type WriteAttempt =
	| { kind: 'answered'; body: unknown; window: SendWindow }
	| { kind: 'rejected'; error: NodeApiError | NodeOperationError; window: SendWindow }
	/** `unusable`: a 2xx answer whose shape tells nothing. */
	| {
			kind: 'unknown';
			reason: string;
			detail: string;
			window: SendWindow;
			unusable?: { problem: string; body: unknown };
	  };

interface ClientSettings extends ExchangeSettings {
	/** Nothing is sent while the credential has a problem. */
	credentialProblem?: CredentialProblem;
}

/** A page walk: the next request to send (none: done), and what to do with each answer. */
export interface Pager {
	next(): EndpointRequest | undefined;
	take(page: unknown): void;
}

type CachedAccounts = { accounts: Promise<IDataObject[]>; readAt: number; settled: boolean };
const keyAccountsCache = new Map<string, CachedAccounts>();

/** For tests, which start each case with none. */
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
 * The one place the package talks to the service, for one node run (the trigger: one poll). It
 * reads the credential once, however many requests are in flight. A write is never sent twice
 * here: `write` says what became of it.
 */
export class ServiceClient {
	private settingsRead?: Promise<ClientSettings>;
	private nodeRead?: INode;

	/**
	 * `rateLimitWaitMs`: the run's Wait After a Rate Limit, asked at the first request.
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
		const perSecond = check.ok ? check.credentials.requestsPerSecond : undefined;
		// One call a second for the key means one every n seconds for each of n processes sharing it.
		const processes = Number(credentials.processesSharingKey ?? 1);
		const sharing = Number.isInteger(processes) && processes > 1 ? processes : 1;
		const budget = Number(credentials.weightBudget ?? 0);
		const windowSeconds = Number(credentials.weightWindowSeconds ?? 60);
		return {
			// Off (no budget), throttles.ts has nothing to do on any request.
			limiterOf:
				budget > 0 && windowSeconds > 0
					? () => {
							const limiter = limiterFor(baseUrl, apiKey, budget, windowSeconds);
							return limiter && { limiter, budget };
						}
					: undefined,
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

	/** The key of per-process caches of the service's public data (symbol rules): one per service. */
	async serviceUrl(): Promise<string> {
		return normaliseBaseUrl(String((await this.settings()).credentials.baseUrl ?? ''));
	}

	/** The service and API key, as per-process memories name a key: never the secret. */
	async keyIdentity(): Promise<string> {
		return `${await this.serviceUrl()} ${String((await this.settings()).credentials.apiKey ?? '')}`;
	}

	/**
	 * The key's accounts, read once per process, service and key and kept LIMITS.accountScopeTtlMs:
	 * every order lookup names one (helpers/accountScope.ts), they change rarely, and a read per run
	 * would spend a fifth of a second's query requests. A failed read is never kept.
	 */
	async keyAccounts(itemIndex?: number): Promise<IDataObject[]> {
		return await sharedKeyAccounts(
			await this.keyIdentity(),
			() => this.request(KEY_ACCOUNTS_ENDPOINT, { itemIndex }) as Promise<IDataObject[]>,
		);
	}

	/** Checked here as well as when signing, so that nothing is sent. */
	private credentialError(
		problem: CredentialProblem,
		itemIndex: number | undefined,
	): NodeOperationError {
		return new NodeOperationError(this.node, credentialProblemMessage(problem), {
			description: problem.fix,
			itemIndex,
		});
	}

	private send(
		settings: ClientSettings,
		endpoint: Endpoint,
		request: EndpointRequest,
		window: SendWindow,
	) {
		const { functions, node, policy } = this;
		return sendWithRetries(functions, node, policy, settings, endpoint, request, window);
	}

	/** A read: its answer, of the endpoint's shape. Throws only n8n errors. */
	async request(endpoint: Endpoint, request: EndpointRequest = {}): Promise<unknown> {
		const settings = await this.settings();
		if (settings.credentialProblem !== undefined)
			throw this.credentialError(settings.credentialProblem, request.itemIndex);
		const exchange = await this.send(settings, endpoint, request, {});
		if (exchange.kind === 'rejected') throw exchange.error;
		if (exchange.kind === 'unknown') {
			// Only writes end unknown; a read that kept failing ends rejected.
			throw new NodeApiError(this.node, { reason: exchange.reason } as JsonObject, {
				message: exchange.reason,
				itemIndex: request.itemIndex,
			});
		}
		const problem = answerProblem(endpoint.answer, exchange.body);
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

	/** A write: what became of it, with its send window. Never throws. */
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
		const exchange = await this.send(settings, endpoint, request, window);
		if (exchange.kind !== 'answered') return { ...exchange, window };
		const problem = answerProblem(endpoint.answer, exchange.body);
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

	/** Every page of a paged read, one after the other. */
	async requestAllPages(endpoint: Endpoint, pager: Pager): Promise<void> {
		for (let request = pager.next(); request !== undefined; request = pager.next()) {
			pager.take(await this.request(endpoint, request));
		}
	}
}
