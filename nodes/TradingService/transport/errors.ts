import { NodeApiError, NodeOperationError, type INode, type JsonObject } from 'n8n-workflow';

import { ERROR_CODES, LIMITS, UNKNOWN_OUTCOME_CODES } from '../constants';

/** A `{code, msg}` rejection from the service, normalised: codes as strings, whatever the body used. */
export interface ServiceRejection {
	code: string;
	msg: string;
	httpStatus: number;
	/** The answer's Retry-After, where it had one (a 418 IP ban says how long it lasts). */
	retryAfterMs?: number;
}

/**
 * How a write ended: placed (the service executed it), rejected (it executed nothing, so sending it
 * again is safe once the cause is fixed) or unknown (it may have been executed; nobody could tell).
 */
export type WriteOutcome = 'placed' | 'rejected' | 'unknown';

// ------------------------------------------------------------------ codes

/** Whether a code is numeric zero in any spelling the family uses: 0, "0", "0000". */
export function isZeroCode(code: unknown): boolean {
	return (typeof code === 'number' && code === 0) || (typeof code === 'string' && /^\s*[+-]?0+\s*$/.test(code));
}

/** Whether two codes are the same number ("0401" and 401, "-1141" and -1141). */
export function sameCode(code: unknown, other: string): boolean {
	if (typeof code !== 'number' && typeof code !== 'string') return false;
	const text = String(code).trim();
	return /^[+-]?\d+$/.test(text) && Number(text) === Number(other);
}

/** Whether a code says the request may have been executed (timeouts, "execution status unknown"). */
export function isUnknownOutcomeCode(code: unknown): boolean {
	return UNKNOWN_OUTCOME_CODES.some((unknown) => sameCode(code, unknown));
}

/** The table's spelling of a code ("0401" for 401), or the code as text when the table lacks it. */
function tableCode(code: string): string {
	return Object.values(ERROR_CODES).find((known) => sameCode(code, known)) ?? code;
}

// ------------------------------------------------------------------ outcomes on errors

interface ErrorWithContext {
	context?: Record<string, unknown>;
	description?: string | null;
}

/** The outcome an error reports for its write, if it is about one. */
export function outcomeOf(error: unknown): WriteOutcome | undefined {
	const outcome = (error as ErrorWithContext | null)?.context?.outcome;
	return outcome === 'placed' || outcome === 'rejected' || outcome === 'unknown' ? outcome : undefined;
}

const OUTCOME_SENTENCES: Record<WriteOutcome, string> = {
	placed: 'Outcome: placed.',
	rejected: 'Outcome: rejected (nothing was executed).',
	unknown: 'Outcome: unknown (it may have been executed).',
};

/**
 * Marks an n8n error with the outcome of the write it is about: in its context (kept in the
 * execution data and in Continue On Fail items) and at the end of its description.
 */
export function withOutcome<E extends NodeApiError | NodeOperationError>(error: E, outcome: WriteOutcome): E {
	error.context.outcome = outcome;
	const sentence = OUTCOME_SENTENCES[outcome];
	const description = error.description ?? '';
	const stripped = description.replace(/ ?Outcome: (placed|rejected|unknown)[^.]*\.$/, '');
	error.description = stripped === '' ? sentence : `${stripped} ${sentence}`;
	return error;
}

// ------------------------------------------------------------------ rejections

interface ErrorText {
	message: string;
	description: string;
}

/**
 * What happened and how to fix it, per error code of the family's table. Where the code of a case is
 * unsure (a bad signature is 0002 in the table, 0001 on one of the family's pages), the message text
 * decides as well.
 */
function describeRejection(rejection: ServiceRejection, clockOffsetMs?: number): ErrorText {
	const { msg } = rejection;
	const code = tableCode(rejection.code);
	const said = `The service said: "${msg}" (code ${rejection.code}).`;
	if (rejection.httpStatus === 418) {
		// An IP ban (HTTP 418 in this API family): retrying only prolongs it, so nothing is retried.
		const lasts = rejection.retryAfterMs === undefined ? '' : ` The service asks to wait ${Math.ceil(rejection.retryAfterMs / 1000)} s.`;
		return {
			message: "This server's IP address is banned by the service",
			description: `${said} The service bans an IP address that kept sending requests after being rate limited (HTTP 429).${lasts} Stop the workflows using this credential until the ban ends, then lower their request rate (a Weight Budget in the credential, fewer items per run). Nothing was executed.`,
		};
	}
	if (code === ERROR_CODES.invalidSignature || /signature/i.test(msg)) {
		return {
			message: 'The service rejected the request signature',
			description: `${said} Check that the Secret Key in the credential is the one issued with the API Key (no extra spaces). Nothing was executed.`,
		};
	}
	// A permission code wins over the text: its message names the API key too ("this API key lacks …").
	const permissionCode = [ERROR_CODES.unauthorized, ERROR_CODES.noPermission, ERROR_CODES.accountNotAllowed].some((known) => known === code);
	if (code === ERROR_CODES.invalidApiKey || (!permissionCode && /api[- ]?key/i.test(msg))) {
		return {
			message: 'The service did not accept the API key',
			description: `${said} Check the API Key in the credential, that the key is enabled, and that this server's IP is allowed for it. Nothing was executed.`,
		};
	}
	switch (code) {
		case ERROR_CODES.timestampOutsideWindow: {
			const measured =
				clockOffsetMs === undefined
					? ''
					: ` The service clock is ${Math.abs(clockOffsetMs)} ms ${clockOffsetMs >= 0 ? 'ahead of' : 'behind'} this n8n server's clock.`;
			return {
				message: 'The request timestamp was outside the service’s receive window',
				description: `${said}${measured} Sync the n8n server's clock (NTP), or raise Receive Window in the credential (at most ${LIMITS.maxRecvWindowMs} ms). A timestamp may be at most ${LIMITS.futureToleranceMs} ms ahead of the service clock. Nothing was executed.`,
			};
		}
		case ERROR_CODES.unauthorized:
		case ERROR_CODES.noPermission:
		case ERROR_CODES.accountNotAllowed:
			return {
				message: 'The API key is not allowed to do this',
				description: `${said} Orders and transfers need a key with trade permission; transfers and custody-account records need a master-account key. Use a key with the needed permission. Nothing was executed.`,
			};
		case ERROR_CODES.rateLimited:
			return {
				message: 'The service’s rate limit was exceeded',
				description: `${said} Wait a moment and run again, or spread the work over time (fewer items per run, a longer schedule interval). Nothing was executed.`,
			};
		case ERROR_CODES.insufficientBalance:
			return {
				message: 'The account balance is too low for this request',
				description: `${said} Lower the quantity or fund the account first. Nothing was executed.`,
			};
		case ERROR_CODES.instrumentNotFound:
		case ERROR_CODES.invalidSymbols:
			return {
				message: 'Symbol: the service does not know this symbol',
				description: `${said} Check the Symbol field (e.g. BTCUSDT, upper case, no separator). Nothing was executed.`,
			};
		case ERROR_CODES.duplicateClientOrderId:
			return {
				message: 'An open order already uses this client order ID',
				description: `${said} This request placed nothing. Use a new Client Order ID for a new order.`,
			};
		case ERROR_CODES.invalidFromAccount:
		case ERROR_CODES.invalidToAccount:
		case ERROR_CODES.sameAccountTransfer:
			return {
				message: `The service refused the accounts of this transfer: ${msg}`,
				description: `${said} Check From Account ID and To Account ID: both must be accounts of this API key's user, and differ. Nothing was executed.`,
			};
		case ERROR_CODES.unsupportedOperation:
			return {
				message: 'The service does not support this request',
				description: `${said} Check the Base URL in the credential: it should be the service address without a path. Nothing was executed.`,
			};
		case ERROR_CODES.invalidField:
			return {
				message: `The service rejected a field: ${msg}`,
				description: `${said} Correct the field the message names and run again. Nothing was executed.`,
			};
		default:
			return {
				message: `The service rejected the request: ${msg}`,
				description: `${said} HTTP status ${rejection.httpStatus}. Nothing was executed.`,
			};
	}
}

/** The service answered and refused: nothing was executed. Carries the service's code and message. */
export class ServiceRejectedError extends NodeApiError {
	rejection!: ServiceRejection;
}

export function isServiceRejection(error: unknown, code?: string): error is ServiceRejectedError {
	return error instanceof ServiceRejectedError && (code === undefined || sameCode(error.rejection.code, code));
}

export function rejectionError(
	node: INode,
	rejection: ServiceRejection,
	itemIndex: number | undefined,
	clockOffsetMs?: number,
): ServiceRejectedError {
	const { message, description } = describeRejection(rejection, clockOffsetMs);
	const error = new ServiceRejectedError(node, { code: rejection.code, msg: rejection.msg } as JsonObject, {
		message,
		description,
		httpCode: String(rejection.httpStatus),
		itemIndex,
	});
	error.rejection = rejection;
	return error;
}

// ------------------------------------------------------------------ unknown outcomes

/**
 * A write whose outcome nobody knows: the request may have been applied (a dropped connection, a
 * timeout, a 5xx, an "execution status unknown" code). Never sent again blindly; the user is told
 * what to check.
 */
export class OutcomeUnknownError extends NodeApiError {
	readonly outcomeUnknown = true;
}

export function isOutcomeUnknown(error: unknown): error is OutcomeUnknownError {
	return error instanceof OutcomeUnknownError || outcomeOf(error) === 'unknown';
}

export function outcomeUnknownError(
	node: INode,
	what: string,
	cause: string,
	detail: string,
	howToCheck: string,
	itemIndex: number | undefined,
): OutcomeUnknownError {
	const error = new OutcomeUnknownError(node, { outcome: 'unknown' } as JsonObject, {
		message: `Unknown outcome: the ${what} may or may not have been executed (${cause})`,
		description: `${detail}. The service did not confirm the ${what}, so it was not sent again: sending it again could execute it twice. ${howToCheck} before you run this again.`,
		itemIndex,
	});
	return withOutcome(error, 'unknown');
}

// ------------------------------------------------------------------ other failures

/** The service could not be reached: nothing was sent. */
export function notReachableError(node: INode, reason: string, detail: string, attempts: number, itemIndex?: number): NodeApiError {
	return new NodeApiError(node, { attempts } as JsonObject, {
		message: `Could not reach the Trading Service: ${reason}`,
		description: `${detail} after ${attempts} attempts. Check the Base URL in the credential and that the service is reachable from the n8n server. Nothing was sent.`,
		itemIndex,
	});
}

/** A read that failed on every attempt (5xx, dropped connections). */
export function keptFailingError(node: INode, reason: string, detail: string, attempts: number, itemIndex?: number): NodeApiError {
	return new NodeApiError(node, { attempts } as JsonObject, {
		message: `The Trading Service kept failing: ${reason}`,
		description: `${detail}; the request was tried ${attempts} times. The service may be down or overloaded; try again later.`,
		itemIndex,
	});
}

/** An HTTP error status without a service error code. */
export function httpStatusError(node: INode, status: number, reason: string, itemIndex?: number): NodeApiError {
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

/**
 * Whether an HTTP status without a service code proves a write was not executed: a client error
 * (wrong path, method, credentials at a proxy). 408 (a proxy's timeout) proves nothing.
 */
export function statusProvesNothingDone(status: number): boolean {
	return status >= 400 && status < 500 && status !== 408;
}

/** A 2xx answer whose shape the package cannot use; for a write, the user is told what to check. */
export function unexpectedResponseError(
	node: INode,
	problem: string,
	body: unknown,
	howToCheck: string | undefined,
	itemIndex?: number,
): NodeApiError {
	return new NodeApiError(node, { response: JSON.stringify(body)?.slice(0, 300) ?? '' } as JsonObject, {
		message: problem,
		description:
			howToCheck === undefined
				? 'Check that Base URL in the credential points at the Trading Service API.'
				: `Results cannot be matched to what was sent. ${howToCheck} before running again.`,
		itemIndex,
	});
}

/** n8n errors pass through untouched (they carry item index and advice); anything else is wrapped. */
export function toNodeError(node: INode, error: unknown): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error instanceof Error ? error : String(error));
}
