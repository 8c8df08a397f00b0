import { ERROR_CODES, LIMITS } from '../constants';

/** What each refusal means to the user: the message, and the fix after the service's own words. */

/** A `{code, msg}` rejection from the service, its code as a string whatever the body used. */
export interface ServiceRejection {
	code: string;
	msg: string;
	httpStatus: number;
	retryAfterMs?: number;
	/** After a 429: when this process sends requests of that kind again (wall clock). */
	retryAt?: number;
	waitOptionHelps?: boolean;
}

interface RejectionFacts {
	rejection: ServiceRejection;
	/** How far the service clock is ahead of this server's (negative: behind), when measured. */
	clockOffsetMs?: number;
}

interface RejectionText {
	message: string | ((msg: string) => string);
	/** Ends with what was (not) executed. */
	fix: string | ((facts: RejectionFacts) => string);
}

/** Of this request only: a run that sent others says what became of them itself. */
const NOTHING_EXECUTED = 'This request was not executed.';

const PERMISSION: RejectionText = {
	message: 'The API key is not allowed to do this',
	fix: `Orders and transfers need a key with trade permission; transfers and custody-account records need a master-account key. Use a key with the needed permission. ${NOTHING_EXECUTED}`,
};

const UNKNOWN_SYMBOL: RejectionText = {
	message: 'Symbol: the service does not know this symbol',
	fix: `Check the Symbol field (e.g. BTCUSDT, upper case, no separator). ${NOTHING_EXECUTED}`,
};

const TRANSFER_ACCOUNTS: RejectionText = {
	message: (msg) => `The service refused the accounts of this transfer: ${msg}`,
	fix: `Check From Account ID and To Account ID: both must be accounts of this API key's user, and differ. ${NOTHING_EXECUTED}`,
};

const INVALID_SIGNATURE: RejectionText = {
	message: 'The service rejected the request signature',
	fix: `Check that the Secret Key in the credential is the one issued with the API Key (no extra spaces). ${NOTHING_EXECUTED}`,
};

const INVALID_API_KEY: RejectionText = {
	message: 'The service did not accept the API key',
	fix: `Check the API Key in the credential, that the key is enabled, and that this server's IP is allowed for it. ${NOTHING_EXECUTED}`,
};

// The node checks these before sending; the exchange can still refuse an order when its rules
// changed within the minute the node keeps them (docs/operations.md "Symbol rules").
const SYMBOL_RULES: RejectionText = {
	message: (msg) => `The order breaks the symbol’s trading rules: ${msg}`,
	fix: `Check the symbol’s tick size, step size and limits with Market › Get Symbol Rules, correct the price, quantity or amount, or turn on the option Fit to Symbol Rules. ${NOTHING_EXECUTED}`,
};

const SYMBOL_CLOSED: RejectionText = {
	message: 'The symbol is not open for trading through the API',
	fix: `Check the symbol’s status with Market › Get Symbol Rules and run again once it is TRADING. ${NOTHING_EXECUTED}`,
};

export const REJECTIONS: Readonly<Record<string, RejectionText>> = {
	[ERROR_CODES.invalidSignature]: INVALID_SIGNATURE,
	[ERROR_CODES.invalidApiKey]: INVALID_API_KEY,
	[ERROR_CODES.timestampOutsideWindow]: {
		message: 'The request timestamp was outside the service’s receive window',
		fix: ({ clockOffsetMs }) =>
			`${
				clockOffsetMs === undefined
					? ''
					: `The service clock is ${Math.abs(clockOffsetMs)} ms ${clockOffsetMs >= 0 ? 'ahead of' : 'behind'} this n8n server's clock. `
			}Sync the n8n server's clock (NTP), or raise Receive Window in the credential (at most ${LIMITS.maxRecvWindowMs} ms). A timestamp may be at most ${LIMITS.futureToleranceMs} ms ahead of the service clock. ${NOTHING_EXECUTED}`,
	},
	[ERROR_CODES.unauthorized]: PERMISSION,
	[ERROR_CODES.noPermission]: PERMISSION,
	[ERROR_CODES.accountNotAllowed]: PERMISSION,
	[ERROR_CODES.rateLimited]: {
		message: 'The service’s rate limit was exceeded',
		fix: ({ rejection }) =>
			rejection.retryAt === undefined
				? `Wait a minute and run again. ${NOTHING_EXECUTED}`
				: `The service suspends this key's requests of this kind for a minute after a rate limit, and bans an IP address that keeps sending (HTTP 418), so this n8n process sends none of them until ${new Date(rejection.retryAt).toISOString()}. Run again after that${rejection.waitOptionHelps === true ? ', or turn on the option Wait After a Rate Limit' : ''}. The node keeps to the credential's request rates: if something else uses this API key too, lower them or raise n8n Processes Sharing This Key. ${NOTHING_EXECUTED}`,
	},
	[ERROR_CODES.insufficientBalance]: {
		message: 'The account balance is too low for this request',
		fix: `Lower the quantity or fund the account first. ${NOTHING_EXECUTED}`,
	},
	[ERROR_CODES.instrumentNotFound]: UNKNOWN_SYMBOL,
	[ERROR_CODES.invalidPricePrecision]: SYMBOL_RULES,
	[ERROR_CODES.quantityTooLarge]: SYMBOL_RULES,
	[ERROR_CODES.quantityTooSmall]: SYMBOL_RULES,
	[ERROR_CODES.quantityPrecision]: SYMBOL_RULES,
	[ERROR_CODES.amountTooSmall]: SYMBOL_RULES,
	[ERROR_CODES.amountPrecision]: SYMBOL_RULES,
	[ERROR_CODES.amountTooLarge]: SYMBOL_RULES,
	[ERROR_CODES.symbolNotOpen]: SYMBOL_CLOSED,
	[ERROR_CODES.symbolNotForApi]: SYMBOL_CLOSED,
	[ERROR_CODES.invalidSymbols]: UNKNOWN_SYMBOL,
	[ERROR_CODES.searchOlderThanOneMonth]: {
		message: 'The exchange searches the last 30 days only',
		fix: `Pick a later Start: the exchange counts the 30 days by its own clock, so leave a few minutes of margin. ${NOTHING_EXECUTED}`,
	},
	[ERROR_CODES.duplicateClientOrderId]: {
		message: 'An open order already uses this client order ID',
		fix: 'This request placed nothing. Use a new Client Order ID for a new order.',
	},
	[ERROR_CODES.invalidFromAccount]: TRANSFER_ACCOUNTS,
	[ERROR_CODES.invalidToAccount]: TRANSFER_ACCOUNTS,
	[ERROR_CODES.sameAccountTransfer]: TRANSFER_ACCOUNTS,
	[ERROR_CODES.unsupportedOperation]: {
		message: 'The service does not support this request',
		fix: `Check the Base URL in the credential: it should be the service address without a path. ${NOTHING_EXECUTED}`,
	},
	[ERROR_CODES.unknownListenKey]: {
		message: 'The exchange does not know this listen key (it expired or was deleted)',
		fix: `The real-time trigger creates a new listen key and reconnects by itself. ${NOTHING_EXECUTED}`,
	},
	[ERROR_CODES.invalidField]: {
		message: (msg) => `The service rejected a field: ${msg}`,
		fix: `Correct the field the message names and run again. ${NOTHING_EXECUTED}`,
	},
};

/** An IP ban (HTTP 418), whatever code it carries. */
const IP_BAN: RejectionText = {
	message: "This server's IP address is banned by the service",
	fix: ({ rejection }) =>
		`The service bans an IP address that kept sending requests after being rate limited (HTTP 429).${
			rejection.retryAfterMs === undefined
				? ''
				: ` The service asks to wait ${Math.ceil(rejection.retryAfterMs / 1000)} s.`
		} Stop the workflows using this credential until the ban ends, then lower their request rate (a Weight Budget in the credential, fewer items per run). ${NOTHING_EXECUTED}`,
};

const OTHER: RejectionText = {
	message: (msg) => `The service rejected the request: ${msg}`,
	fix: ({ rejection }) => `HTTP status ${rejection.httpStatus}. ${NOTHING_EXECUTED}`,
};

const PERMISSION_CODES: readonly string[] = [
	ERROR_CODES.unauthorized,
	ERROR_CODES.noPermission,
	ERROR_CODES.accountNotAllowed,
];

/**
 * `code` as the table spells it. Where a case's code is unsure (a bad signature is 0002 in the
 * table, 0001 on one of the family's pages), the message text decides too; a permission code wins
 * over the text, whose message names the API key too.
 */
function textFor(code: string, rejection: ServiceRejection): RejectionText {
	if (rejection.httpStatus === 418) return IP_BAN;
	if (rejection.httpStatus === 429) return REJECTIONS[ERROR_CODES.rateLimited];
	if (code === ERROR_CODES.invalidSignature || /signature/i.test(rejection.msg))
		return INVALID_SIGNATURE;
	if (!PERMISSION_CODES.includes(code) && /api[- ]?key/i.test(rejection.msg))
		return INVALID_API_KEY;
	return REJECTIONS[code] ?? OTHER;
}

/** What happened and how to fix it. */
export function describeRejection(
	code: string,
	rejection: ServiceRejection,
	clockOffsetMs?: number,
): { message: string; description: string } {
	const text = textFor(code, rejection);
	const said = `The service said: "${rejection.msg}" (code ${rejection.code}).`;
	const message = typeof text.message === 'string' ? text.message : text.message(rejection.msg);
	const fix = typeof text.fix === 'string' ? text.fix : text.fix({ rejection, clockOffsetMs });
	return { message, description: `${said} ${fix}` };
}
