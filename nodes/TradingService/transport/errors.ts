import { NodeApiError, NodeOperationError, type INode, type JsonObject } from 'n8n-workflow';

import { ERROR_CODES, LIMITS } from '../constants';
import { monotonicNow, wallTimeOf } from './pacing';
import { MAX_ANSWER_BYTES, sameCode } from './answer';
import { describeRejection, type ServiceRejection } from './rejections';
import type { AttemptFailure, BodyRead, ExchangeSettings } from './types';

/** Only a failure comes here: what a failed attempt means, and the n8n errors thrown, with advice. */

/** The table's spelling of a code ("0401" for 401), or the code as text when the table lacks it. */
function tableCode(code: string): string {
	return Object.values(ERROR_CODES).find((known) => sameCode(code, known)) ?? code;
}

/** The service answered and refused: nothing was executed. */
export class ServiceRejectedError extends NodeApiError {
	rejection!: ServiceRejection;
}

export function isServiceRejection(error: unknown, code?: string): error is ServiceRejectedError {
	return (
		error instanceof ServiceRejectedError &&
		(code === undefined || sameCode(error.rejection.code, code))
	);
}

export function rejectionError(
	node: INode,
	rejection: ServiceRejection,
	itemIndex: number | undefined,
	clockOffsetMs?: number,
): ServiceRejectedError {
	const texts = describeRejection(tableCode(rejection.code), rejection, clockOffsetMs);
	const response = { code: rejection.code, msg: rejection.msg } as JsonObject;
	const httpCode = String(rejection.httpStatus);
	const error = new ServiceRejectedError(node, response, { ...texts, httpCode, itemIndex });
	error.rejection = rejection;
	return error;
}

export function unreadable(
	read: Exclude<BodyRead, { ok: true }>,
	isWrite: boolean,
	timeoutMs: number,
	node: INode,
): AttemptFailure {
	switch (read.failure) {
		case 'deadline': {
			// The service may still be working on it: a read is tried again, a write is unknown.
			const reason = `the service did not answer within ${timeoutMs / 1000} s`;
			return { kind: 'unknown', reason, detail: 'ETIMEDOUT' };
		}
		case 'broken': {
			const reason = 'the answer broke off before it was complete';
			return { kind: 'unknown', reason, detail: read.code };
		}
		case 'tooLarge': {
			const reason = `the answer was larger than ${MAX_ANSWER_BYTES / (1024 * 1024)} MiB`;
			if (isWrite) return { kind: 'unknown', reason, detail: 'Answer too large' };
			// A service that floods a read would flood it again: no retry.
			throw new NodeApiError(node, { reason } as JsonObject, {
				message: `The Trading Service's answer was too large: ${reason}`,
				description:
					'The node stopped reading it. Check that Base URL in the credential points at the Trading Service API, or narrow the request (a shorter time range).',
			});
		}
	}
}

// n8n replaces an error message that contains a Node.js error code (ECONNRESET, …) with a generic
// one, losing what matters here (e.g. "unknown outcome"): codes go in the description only.

const NOT_SENT_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'];
const NETWORK_CODES = [
	'ECONNRESET',
	'EPIPE',
	'ETIMEDOUT',
	'ECONNABORTED',
	'ESOCKETTIMEDOUT',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
];

function findErrorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
		current = (current as { cause?: unknown }).cause;
	}
	const message = error instanceof Error ? error.message : String(error);
	if (/socket hang up/i.test(message)) return 'ECONNRESET';
	if (/timeout/i.test(message)) return 'ETIMEDOUT';
	return undefined;
}

/**
 * The exchange's hosts moved from api-glb / stream-glb to api-pro / stream-pro on 2026-06-16 (same
 * domains). An address on an old host is used as typed; when it cannot be reached, this says where
 * the service is now. Undefined for any other address.
 */
export function movedHostAdvice(address: string): string | undefined {
	let host: string;
	try {
		host = new URL(address).hostname;
	} catch {
		return undefined;
	}
	const old = /^(api|stream)-glb\./i.exec(host);
	if (old === null) return undefined;
	const kind = old[1].toLowerCase();
	const now = `${kind}-pro.${host.slice(old[0].length)}`;
	const field =
		kind === 'api' ? 'Base URL' : 'Stream URL (or Base URL, when Stream URL is left empty)';
	return `${host} is the exchange's address before 2026-06-16, when its service moved to ${now}: replace ${host} with ${now} in the credential's ${field}`;
}

/** The absolute address a failed request went to, as the HTTP client's error records it. */
function addressOf(error: unknown): string {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
		const config = (current as { config?: { baseURL?: unknown; url?: unknown } }).config;
		for (const address of [config?.url, config?.baseURL])
			if (typeof address === 'string' && /^[a-z]+:\/\//i.test(address)) return address;
		current = (current as { cause?: unknown }).cause;
	}
	return '';
}

/** A failure of the connection as an attempt's failure; undefined when it is none of those. */
export function networkFailure(error: unknown): AttemptFailure | undefined {
	const code = findErrorCode(error);
	const notSent = code !== undefined && NOT_SENT_CODES.includes(code);
	if (!notSent && (code === undefined || !NETWORK_CODES.includes(code))) return undefined;
	const reason = notSent
		? 'the connection could not be opened'
		: 'the connection failed before the service answered';
	const moved = movedHostAdvice(addressOf(error));
	return {
		kind: notSent ? 'notSent' : 'unknown',
		reason: moved === undefined ? reason : `${reason}: ${moved}`,
		detail: code,
	};
}

/** Not sent: an IP ban (418) this run met or the process keeps, or the key's class suspended (429). */
export function heldBackError(
	node: INode,
	hold: {
		runBan?: ServiceRejection;
		/** Monotonic times (pacing.ts). */
		bannedUntil?: number;
		suspendedUntil?: number;
	},
	settings: ExchangeSettings,
	itemIndex: number | undefined,
): NodeApiError {
	const { runBan } = hold;
	const bannedUntil = hold.bannedUntil === undefined ? undefined : wallTimeOf(hold.bannedUntil);
	const suspendedUntil =
		hold.suspendedUntil === undefined ? undefined : wallTimeOf(hold.suspendedUntil);
	const helps = waitOptionHelps(settings, hold.suspendedUntil);
	const banned = runBan !== undefined || bannedUntil !== undefined;
	// A ban of this run lasts the run; the service's own, or a suspension, until a time.
	const until = runBan !== undefined ? undefined : (bannedUntil ?? suspendedUntil);
	const retryAfterMs = runBan?.retryAfterMs;
	const when =
		until === undefined
			? retryAfterMs === undefined
				? 'for the rest of this run'
				: `for the rest of this run; the service asked to wait ${Math.ceil(retryAfterMs / 1000)} s`
			: `until ${new Date(until).toISOString()}`;
	return new NodeApiError(node, { status: banned ? 418 : 429 } as JsonObject, {
		message: banned
			? "Not sent: this server's IP address is banned by the service"
			: 'Not sent: this API key is suspended after a rate limit',
		description: banned
			? `The service answered HTTP 418: it bans an IP address that keeps sending after a rate limit (HTTP 429). The node sends nothing more to it ${when}. Stop the workflows using this service until the ban ends, then check the credential's request rates and n8n Processes Sharing This Key. Nothing was sent.`
			: `The service answered a rate limit (HTTP 429, code 0003) and suspends this key's requests of this kind for a minute; it bans an IP address that keeps sending, so this n8n process sends none of them ${when}. Run again after that${helps ? ', or turn on the option Wait After a Rate Limit' : ''}. If something else uses this API key too, lower the credential's request rates or raise n8n Processes Sharing This Key. Nothing was sent.`,
		httpCode: banned ? '418' : '429',
		itemIndex,
	});
}

/** Whether turning on Wait After a Rate Limit (where the run has it) would have sent the request. */
export function waitOptionHelps(
	settings: ExchangeSettings,
	suspendedUntil: number | undefined,
): boolean {
	return (
		settings.offersRateLimitWait &&
		settings.rateLimitWaitMs === 0 &&
		suspendedUntil !== undefined &&
		suspendedUntil - monotonicNow() <= LIMITS.maxRateLimitWaitMs
	);
}

export function notReachableError(
	node: INode,
	reason: string,
	detail: string,
	attempts: number,
	itemIndex?: number,
): NodeApiError {
	return new NodeApiError(node, { attempts } as JsonObject, {
		message: `Could not reach the Trading Service: ${reason}`,
		description: `${detail} after ${attempts} attempts. Check the Base URL in the credential and that the service is reachable from the n8n server. Nothing was sent.`,
		itemIndex,
	});
}

/** A read that failed on every attempt. */
export function keptFailingError(
	node: INode,
	reason: string,
	detail: string,
	attempts: number,
	itemIndex?: number,
): NodeApiError {
	return new NodeApiError(node, { attempts } as JsonObject, {
		message: `The Trading Service kept failing: ${reason}`,
		description: `${detail}; the request was tried ${attempts} times. The service may be down or overloaded; try again later.`,
		itemIndex,
	});
}

export function httpStatusError(
	node: INode,
	status: number,
	reason: string,
	itemIndex?: number,
): NodeApiError {
	return new NodeApiError(node, { status } as JsonObject, {
		message: `The Trading Service answered ${reason}`,
		description:
			status === 404
				? 'Check the Base URL in the credential: it should be the service address (scheme and host, e.g. https://api.example.com) without a path.'
				: 'The answer carried no service error code. Check the Base URL and the API key in the credential, and any proxy between n8n and the service.',
		httpCode: String(status),
		itemIndex,
	});
}

/** A client error without a service code proves a write was not executed; 408 (a proxy's timeout) not. */
export function statusProvesNothingDone(status: number): boolean {
	return status >= 400 && status < 500 && status !== 408;
}

/** A 2xx answer of the wrong shape; for a write, the user is told what to check. */
export function unexpectedResponseError(
	node: INode,
	problem: string,
	body: unknown,
	howToCheck: string | undefined,
	itemIndex?: number,
): NodeApiError {
	return new NodeApiError(
		node,
		{ response: JSON.stringify(body)?.slice(0, 300) ?? '' } as JsonObject,
		{
			message: problem,
			description:
				howToCheck === undefined
					? 'Check that Base URL in the credential points at the Trading Service API.'
					: `Results cannot be matched to what was sent. ${howToCheck} before running again.`,
			itemIndex,
		},
	);
}

/** n8n errors pass through untouched (they carry item index and advice); anything else is wrapped. */
export function toNodeError(node: INode, error: unknown): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error instanceof Error ? error : String(error));
}
