import {
	sleep,
	type IHttpRequestOptions,
	type IN8nHttpFullResponse,
	type INode,
} from 'n8n-workflow';

import { KEY_ONLY_HEADER } from '../../../credentials/TradingServiceApi.credentials';
import { CREDENTIAL_TYPE, ERROR_CODES, LIMITS } from '../constants';
import {
	AttemptDeadline,
	classifyResponse,
	discardBody,
	isUnknownOutcomeCode,
	readBody,
} from './answer';
import {
	heldBackError,
	httpStatusError,
	keptFailingError,
	networkFailure,
	notReachableError,
	rejectionError,
	statusProvesNothingDone,
	toNodeError,
	unreadable,
	waitOptionHelps,
} from './errors';
import { monotonicNow, wallTimeOf, type RequestPacer } from './pacing';
import type {
	AttemptFailure,
	Endpoint,
	EndpointRequest,
	Exchange,
	ExchangeSettings,
	RetryPolicy,
	SendWindow,
	TransportContext,
} from './types';

/**
 * One request and its attempts (the only call of n8n's request helper). A write goes again only when
 * the service proves it did nothing, else ends unknown; a 418 never goes again (docs/transport.md).
 */

/** The service starts a suspension when the refused request arrived, a little before it is read here. */
const SUSPENSION_MARGIN_MS = 500;

/** The most times one request waits out a suspension: a second one means someone else keeps sending. */
const MAX_RATE_LIMIT_WAITS = 2;

const CLOCK_CHECK_POLICY: RetryPolicy = {
	maxRetries: 0,
	baseDelayMs: 0,
	maxDelayMs: 0,
	timeoutMs: 5000,
};

interface Attempts {
	context: TransportContext;
	node: INode;
	policy: RetryPolicy;
	settings: ExchangeSettings;
	endpoint: Endpoint;
	itemIndex: number | undefined;
	retry: number;
	rateLimitWaits?: number;
	pacer?: RequestPacer;
}

/** Sends `request` until answered or it cannot be tried again; `window` learns when it was sent. */
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
	const own = Number(request.qs?.recvWindow);
	const recvWindowMs = Number.isFinite(own) && own > 0 ? own : settings.recvWindowMs;
	const state: Attempts = { context, node, policy, settings, endpoint, itemIndex, retry: 0 };
	for (; ; state.retry++) {
		// The paced endpoint's turn first (it may take a while), then the key's rate; each looked up
		// right before it is asked (pacing.ts).
		const paced = settings.gateOf?.(endpoint);
		const release = await paced?.gate.pass(paced.intervalMs);
		const pacing = settings.pacerOf?.(endpoint);
		state.pacer = pacing?.pacer;
		const turn = await pacing?.pacer.acquire(settings.rateLimitWaitMs, {
			perSecond: pacing.perSecond,
			urgent: request.urgent === true,
		});
		const suspendedUntil = turn?.kind === 'suspended' ? turn.until : undefined;
		const bannedUntil = settings.serviceBan?.bannedUntil();
		if (settings.ban !== undefined || bannedUntil !== undefined || suspendedUntil !== undefined) {
			if (turn?.kind === 'go') turn.done();
			release?.();
			const hold = { runBan: settings.ban, bannedUntil, suspendedUntil };
			return { kind: 'rejected', error: heldBackError(node, hold, settings, itemIndex) };
		}
		window.firstSentAt ??= Date.now();
		let outcome: { body: unknown } | AttemptFailure;
		try {
			outcome = await attempt(context, endpoint, request, policy, settings);
		} catch (error) {
			// A failure the attempt could not classify: for a write, it may have been sent.
			if (endpoint.writes !== true) throw toNodeError(node, error);
			const detail = (error as Error).message ?? String(error);
			return { kind: 'unknown', reason: 'the request failed in an unexpected way', detail };
		} finally {
			if (turn?.kind === 'go') turn.done();
			release?.();
			const acceptableUntil = Date.now() + recvWindowMs + LIMITS.futureToleranceMs;
			window.acceptableUntil = Math.max(window.acceptableUntil ?? 0, acceptableUntil);
		}
		if ('body' in outcome) return { kind: 'answered', body: outcome.body };
		const ended = await afterFailure(state, outcome);
		if (ended !== undefined) return ended;
	}
}

/** What a failed attempt leaves: the request's end, or undefined once it may go again. */
async function afterFailure(
	state: Attempts,
	outcome: AttemptFailure,
): Promise<Exchange | undefined> {
	const { node, endpoint, itemIndex, retry } = state;
	const isWrite = endpoint.writes === true;
	const tryAgain = async (reason: string, detail: string) => {
		if (retry >= state.policy.maxRetries) {
			const error = keptFailingError(node, reason, detail, retry + 1, itemIndex);
			return { kind: 'rejected', error } as const;
		}
		await sleep(Math.min(state.policy.baseDelayMs * 2 ** retry, state.policy.maxDelayMs));
		return undefined;
	};
	switch (outcome.kind) {
		case 'rejected': {
			const { rejection } = outcome;
			if (rejection.httpStatus === 418) {
				// Sending again only prolongs a ban: nothing more in this run, nor from this process
				// by any run for as long as the service says (a while when it does not say).
				state.settings.ban = rejection;
				state.settings.serviceBan?.banned(rejection.retryAfterMs);
				return { kind: 'rejected', error: rejectionError(node, rejection, itemIndex) };
			}
			if (isUnknownOutcomeCode(rejection.code)) {
				const reason = `the service answered code ${rejection.code}: "${rejection.msg}"`;
				if (!isWrite) return await tryAgain(reason, `code ${rejection.code}`);
				const detail = `Code ${rejection.code} means the service may have executed the request`;
				return { kind: 'unknown', reason, detail };
			}
			const clockOff = rejection.code === ERROR_CODES.timestampOutsideWindow;
			const offset = clockOff ? await clockOffset(state.context, state.settings) : undefined;
			return { kind: 'rejected', error: rejectionError(node, rejection, itemIndex, offset) };
		}
		case 'rateLimited': {
			// Nothing was processed. The key's class is suspended a minute (the UAE documentation),
			// longer if Retry-After says so: nothing of it leaves this process before then, and this
			// request goes again after it when the run may wait that long.
			const wait = Math.max(outcome.retryAfterMs ?? 0, LIMITS.rateLimitSuspensionMs);
			const until = monotonicNow() + wait + SUSPENSION_MARGIN_MS;
			state.pacer?.suspend(until);
			const waits = (state.rateLimitWaits ?? 0) < MAX_RATE_LIMIT_WAITS;
			if (waits && until - monotonicNow() <= state.settings.rateLimitWaitMs) {
				state.rateLimitWaits = (state.rateLimitWaits ?? 0) + 1;
				// Without a pacer (a request outside any key's rate) the wait happens here.
				if (state.pacer === undefined) await sleep(until - monotonicNow());
				return undefined;
			}
			const rejection = {
				...outcome.rejection,
				retryAt: wallTimeOf(until),
				waitOptionHelps: waitOptionHelps(state.settings, until),
			};
			return { kind: 'rejected', error: rejectionError(node, rejection, itemIndex) };
		}
		case 'notSent':
			if (retry < state.policy.maxRetries) return await tryAgain(outcome.reason, outcome.detail);
			return {
				kind: 'rejected',
				error: notReachableError(node, outcome.reason, outcome.detail, retry + 1, itemIndex),
			};
		case 'unknown':
			if (isWrite) return { kind: 'unknown', reason: outcome.reason, detail: outcome.detail };
			return await tryAgain(outcome.reason, outcome.detail);
		case 'http':
			if (isWrite && !statusProvesNothingDone(outcome.status))
				return { kind: 'unknown', reason: outcome.reason, detail: `HTTP ${outcome.status}` };
			return {
				kind: 'rejected',
				error: httpStatusError(node, outcome.status, outcome.reason, itemIndex),
			};
	}
}

/** One attempt: the weight budget, n8n's helper, the answer read within deadline and byte cap. */
async function attempt(
	context: TransportContext,
	endpoint: Endpoint,
	request: EndpointRequest,
	policy: RetryPolicy,
	settings: Pick<ExchangeSettings, 'limiterOf' | 'credentials'>,
): Promise<{ body: unknown } | AttemptFailure> {
	const weighed = settings.limiterOf?.();
	await weighed?.limiter.acquire(endpoint.weight, weighed.budget);
	const isWrite = endpoint.writes === true;
	const options: IHttpRequestOptions = {
		method: endpoint.method,
		url: endpoint.path,
		qs: request.qs,
		body: request.body,
		// The credential signs every request but those its endpoint declares key-only (market data).
		...(endpoint.signed === false && { headers: { [KEY_ONLY_HEADER]: '1' } }),
		json: true,
		// A redirect would carry the signed request and the API key wherever the Location points,
		// and a 303 would turn a write into a GET of another path.
		disableFollowRedirect: true,
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: policy.timeoutMs,
	};
	// The credential read once per run: without it n8n's helper reads (and decrypts) it for every request.
	const data = { ...settings.credentials };
	const known = { credentialsDecrypted: { id: '', name: '', type: CREDENTIAL_TYPE, data } };
	const deadline = new AttemptDeadline(Date.now() + policy.timeoutMs);
	try {
		const sending = context.helpers.httpRequestWithAuthentication.call(
			context,
			CREDENTIAL_TYPE,
			options,
			known,
		) as Promise<IN8nHttpFullResponse>;
		const response = await Promise.race([sending, deadline.passed]);
		if (response === 'deadline') {
			// The helper cannot be aborted: let the answer go when it comes.
			sending.then(
				(late) => discardBody(late?.body),
				() => undefined,
			);
			const failure = { ok: false, failure: 'deadline' } as const;
			return unreadable(failure, isWrite, policy.timeoutMs, context.getNode());
		}
		const status = response.statusCode;
		if (status >= 300 && status < 400) {
			discardBody(response.body);
			const reason = `HTTP ${status}, a redirect: signed requests are never sent on to another address`;
			return { kind: 'http', status, reason };
		}
		const read = await readBody(response.body, deadline);
		if (!read.ok) return unreadable(read, isWrite, policy.timeoutMs, context.getNode());
		return classifyResponse(endpoint, status, response.headers, read.text);
	} catch (error) {
		const failure = networkFailure(error);
		if (failure !== undefined) return failure;
		throw toNodeError(context.getNode(), error);
	} finally {
		deadline.cancel();
	}
}

/** The service's clock: read when a refusal says the machine's clock is off. */
export const SERVER_TIME_ENDPOINT: Endpoint = { method: 'GET', path: '/api/v1/time', weight: 1 };

/** One clock check serves every refusal of the minute after it (a run of 200 refused orders). */
function clockOffset(context: TransportContext, settings: ExchangeSettings) {
	const now = monotonicNow();
	if (settings.clockCheck === undefined || now - settings.clockCheck.startedAt >= 60_000)
		settings.clockCheck = { startedAt: now, offset: pacedClockCheck(context, settings) };
	return settings.clockCheck.offset;
}

/** How far the service's clock is off this server's; undefined when it must wait or fails. */
async function pacedClockCheck(
	context: TransportContext,
	settings: ExchangeSettings,
): Promise<number | undefined> {
	const pacing = settings.pacerOf?.(SERVER_TIME_ENDPOINT);
	const turn = await pacing?.pacer.acquire(0, { perSecond: pacing.perSecond });
	if (turn?.kind === 'suspended') return undefined;
	const before = Date.now();
	try {
		const answer = await attempt(context, SERVER_TIME_ENDPOINT, {}, CLOCK_CHECK_POLICY, {
			credentials: settings.credentials,
		});
		if (!('body' in answer)) return undefined;
		const serverTime = Number((answer.body as { serverTime?: unknown } | null)?.serverTime);
		return Number.isFinite(serverTime)
			? Math.round(serverTime - (before + Date.now()) / 2)
			: undefined;
	} catch {
		return undefined;
	} finally {
		turn?.done();
	}
}
