import { NodeOperationError, sleep, type ICredentialDataDecryptedObject } from 'n8n-workflow';

import { CREDENTIAL_TYPE, ERROR_CODES, LIMITS } from '../constants';
import { attempt, measureClockOffset, type RetryPolicy, type TransportContext } from './http';
import type { Endpoint, EndpointRequest } from './endpoints';
import {
	httpStatusError,
	isUnknownOutcomeCode,
	keptFailingError,
	notReachableError,
	outcomeOf,
	outcomeUnknownError,
	rejectionError,
	statusProvesNothingDone,
	toNodeError,
	unexpectedResponseError,
	withOutcome,
} from './errors';
import { limiterFor, type WeightLimiter } from './pacing';
import { credentialProblemMessage, credentialProblemOf, type CredentialProblem } from './credentialChecks';

export { ENDPOINTS, type Endpoint, type EndpointRequest, type WriteTrace } from './endpoints';
export {
	isOutcomeUnknown,
	isServiceRejection,
	isUnknownOutcomeCode,
	isZeroCode,
	outcomeOf,
	outcomeUnknownError,
	sameCode,
	toNodeError,
	withOutcome,
	type WriteOutcome,
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

/** What the transport reads from the credential once per node run. */
interface RunSettings {
	limiter: WeightLimiter | undefined;
	/** The credential's receive window: how long after its timestamp the service may accept a request. */
	recvWindowMs: number;
	baseUrl: string;
	/** What is wrong with the credential's fields (credentialChecks.ts); nothing is sent while set. */
	credentialProblem?: CredentialProblem;
	/** The credential as read once per run, handed to n8n's request helper so it does not read it again per request. */
	credentials: ICredentialDataDecryptedObject;
}

// The settings of each node run, so the credential is read (and decrypted) once per run, not once
// per request on top of the read n8n's request helper makes.
const settingsOfRun = new WeakMap<TransportContext, RunSettings>();

async function settingsOf(context: TransportContext): Promise<RunSettings> {
	const known = settingsOfRun.get(context);
	if (known !== undefined) return known;
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	const baseUrl = String(credentials.baseUrl ?? '');
	const recvWindow = Number(credentials.recvWindow ?? LIMITS.defaultRecvWindowMs);
	const settings: RunSettings = {
		limiter: limiterFor(baseUrl, String(credentials.apiKey ?? ''), Number(credentials.weightBudget ?? 0), Number(credentials.weightWindowSeconds ?? 60)),
		// The service caps recvWindow; an unreadable value is taken at that cap, which only makes
		// the node wait longer before it concludes an unanswered write can no longer be accepted.
		recvWindowMs: Number.isFinite(recvWindow) && recvWindow > 0 ? Math.min(recvWindow, LIMITS.maxRecvWindowMs) : LIMITS.maxRecvWindowMs,
		baseUrl,
		credentialProblem: credentialProblemOf(credentials),
		credentials,
	};
	settingsOfRun.set(context, settings);
	return settings;
}

/** The receive window a request is signed with: its own recvWindow, else the credential's. */
function recvWindowOf(request: EndpointRequest, settings: RunSettings): number {
	const own = Number(request.qs?.recvWindow);
	return Number.isFinite(own) && own > 0 ? own : settings.recvWindowMs;
}

/**
 * One request with the transport's own retries: reads on rate limits, 5xx, unknown-outcome codes
 * and network failures; writes only when the service proves it did nothing (429, connection
 * refused). Every attempt goes through the credential's `authenticate`, so each is freshly
 * timestamped and signed. A write's first unknown outcome ends the request: it is never sent again
 * here (the order operations reconcile by lookup; transfers report it).
 */
async function send(
	context: TransportContext,
	endpoint: Endpoint,
	request: EndpointRequest,
	policy: RetryPolicy,
): Promise<unknown> {
	const node = context.getNode();
	const { itemIndex, trace } = request;
	const settings = await settingsOf(context);
	const isWrite = endpoint.write !== undefined;
	const unknownOutcome = (reason: string, detail: string) => {
		const { what, howToCheck } = endpoint.write!.describe(request);
		return outcomeUnknownError(node, what, reason, detail, howToCheck, itemIndex);
	};
	for (let retry = 0; ; retry++) {
		if (trace !== undefined && trace.firstSentAt === undefined) trace.firstSentAt = Date.now();
		let outcome: Awaited<ReturnType<typeof attempt>>;
		try {
			outcome = await attempt(context, endpoint, request, policy, settings.limiter, settings.credentials);
		} catch (error) {
			// A failure the attempt could not classify: for a write, it may have been sent.
			if (isWrite) throw unknownOutcome('the request failed in an unexpected way', (error as Error).message ?? String(error));
			throw toNodeError(node, error);
		} finally {
			if (trace !== undefined) {
				trace.acceptableUntil = Math.max(trace.acceptableUntil ?? 0, Date.now() + recvWindowOf(request, settings) + LIMITS.futureToleranceMs);
			}
		}
		if ('body' in outcome) return outcome.body;

		const retriesLeft = retry < policy.maxRetries;
		switch (outcome.kind) {
			case 'rejected': {
				const { rejection } = outcome;
				if (isUnknownOutcomeCode(rejection.code)) {
					const reason = `the service answered code ${rejection.code}: "${rejection.msg}"`;
					if (isWrite) throw unknownOutcome(reason, `Code ${rejection.code} means the service may have executed the request`);
					if (!retriesLeft) throw keptFailingError(node, reason, `code ${rejection.code}`, retry + 1, itemIndex);
					await sleep(backoffMs(policy, retry));
					continue;
				}
				const offset = rejection.code === ERROR_CODES.timestampOutsideWindow ? await measureClockOffset(context) : undefined;
				throw rejectionError(node, rejection, itemIndex, offset);
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
				if (isWrite) throw unknownOutcome(outcome.reason, outcome.detail);
				if (!retriesLeft) throw keptFailingError(node, outcome.reason, outcome.detail, retry + 1, itemIndex);
				await sleep(backoffMs(policy, retry));
				continue;
			case 'http':
				if (isWrite && !statusProvesNothingDone(outcome.status)) throw unknownOutcome(outcome.reason, `HTTP ${outcome.status}`);
				throw httpStatusError(node, outcome.status, outcome.reason, itemIndex);
		}
	}
}

/**
 * The one place the package talks to the service: an endpoint from the table plus the request's
 * parameters. A 2xx answer of the wrong shape is an error here, so operations only ever see usable
 * answers. Throws only n8n errors; every error about a write carries its outcome (rejected or
 * unknown, see errors.ts `outcomeOf`). A write is never sent twice here.
 */
export async function serviceRequest(
	this: TransportContext,
	endpoint: Endpoint,
	request: EndpointRequest = {},
	policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): Promise<unknown> {
	const node = this.getNode();
	const isWrite = endpoint.write !== undefined;
	const settings = await settingsOf(this);
	// Checked here as well as when signing, so that it is known to fail before anything is sent.
	const credentialProblem = settings.credentialProblem;
	if (credentialProblem !== undefined) {
		const error = new NodeOperationError(node, credentialProblemMessage(credentialProblem), {
			description: credentialProblem.fix,
			itemIndex: request.itemIndex,
		});
		throw isWrite ? withOutcome(error, 'rejected') : error;
	}
	let body: unknown;
	try {
		body = await send(this, endpoint, request, policy);
	} catch (error) {
		const nodeError = toNodeError(node, error);
		if (!isWrite) throw nodeError;
		// Every failure send() does not mark unknown proves the write was not executed.
		throw withOutcome(nodeError, outcomeOf(nodeError) ?? 'rejected');
	}
	const problem = endpoint.checkResponse?.(body, request);
	if (problem !== undefined) {
		const error = unexpectedResponseError(node, problem, body, endpoint.write?.describe(request).howToCheck, request.itemIndex);
		// A 2xx answer to a write: it may well have been executed.
		throw isWrite ? withOutcome(error, 'unknown') : error;
	}
	return body;
}
