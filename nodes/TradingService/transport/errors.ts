import { NodeApiError, NodeOperationError, type INode, type JsonObject } from 'n8n-workflow';

import { ERROR_CODES, LIMITS } from '../constants';

/** A `{code, msg}` rejection from the service, normalised: codes as strings, whatever the body used. */
export interface ServiceRejection {
	code: string;
	msg: string;
	httpStatus: number;
}

interface ErrorText {
	message: string;
	description: string;
}

/** What happened and how to fix it, per error code the service is known to use. */
function describeRejection(rejection: ServiceRejection, clockOffsetMs?: number): ErrorText {
	const { code, msg } = rejection;
	const said = `The service said: "${msg}" (code ${code}).`;
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
		case ERROR_CODES.invalidSignature:
			return {
				message: 'The service rejected the request signature',
				description: `${said} Check that the Secret Key in the credential is the one issued with the API Key (no extra spaces). Nothing was executed.`,
			};
		case ERROR_CODES.invalidApiKey:
			return {
				message: 'The service did not accept the API key',
				description: `${said} Check the API Key in the credential, that the key is enabled, and that this server's IP is allowed for it. Nothing was executed.`,
			};
		case ERROR_CODES.unauthorized:
			return {
				message: 'The API key is not allowed to do this',
				description: `${said} Orders and transfers need a key with trade permission; custody-account records need a master-account key. Use a key with the needed permission. Nothing was executed.`,
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
		case ERROR_CODES.invalidSymbol:
			return {
				message: 'The service does not know this symbol',
				description: `${said} Check the Symbol field (e.g. BTCUSDT, upper case, no separator).`,
			};
		case ERROR_CODES.duplicateClientOrderId:
			return {
				message: 'An order with this client order ID already exists',
				description: `${said} The order was placed earlier and was not placed again. Use a new Client Order ID for a new order.`,
			};
		case ERROR_CODES.invalidField:
			return {
				message: `The service rejected a field: ${msg}`,
				description: `${said} Correct the field the message names and run again. Nothing was executed.`,
			};
		default:
			return {
				message: `The service rejected the request: ${msg}`,
				description: `${said} HTTP status ${rejection.httpStatus}.`,
			};
	}
}

/** The service answered and refused: nothing was executed. Carries the service's code and message. */
export class ServiceRejectedError extends NodeApiError {
	rejection!: ServiceRejection;
}

export function isServiceRejection(error: unknown, code?: string): error is ServiceRejectedError {
	return error instanceof ServiceRejectedError && (code === undefined || error.rejection.code === code);
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

/**
 * A write whose outcome nobody knows: the request may have been applied (a dropped connection, a
 * timeout, a 5xx). Never retried without proof it is safe; the user is told what to check.
 */
export class OutcomeUnknownError extends NodeApiError {
	readonly outcomeUnknown = true;
}

export function isOutcomeUnknown(error: unknown): error is OutcomeUnknownError {
	return error instanceof OutcomeUnknownError;
}

export function outcomeUnknownError(
	node: INode,
	what: string,
	cause: string,
	detail: string,
	howToCheck: string,
	itemIndex: number | undefined,
): OutcomeUnknownError {
	return new OutcomeUnknownError(node, { outcome: 'unknown' } as JsonObject, {
		message: `Unknown outcome: the ${what} may or may not have been executed (${cause})`,
		description: `${detail}. The service did not confirm the ${what}, so it was not sent again: sending it again could execute it twice. ${howToCheck} before you run this again.`,
		itemIndex,
	});
}

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
