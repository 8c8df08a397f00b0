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

/** Where a key's state is changed: the exchange's web site, not this credential. */
const API_MANAGEMENT = "the exchange's API Management page";

const PERMISSION: RejectionText = {
	message: 'The API key is not allowed to do this',
	fix: `On ${API_MANAGEMENT}, give the key the permission this request needs: read permission for balances, history and lookups, trade permission for orders, cancels and transfers (transfers and custody-account records also need a master-account key); or use a key that has it. ${NOTHING_EXECUTED}`,
};

const UNAUTHORIZED: RejectionText = {
	message: 'The service could not validate the API key for this request',
	fix: `Check that the key was created on the exchange this Base URL points at (a production key does not work on the exchange's sandbox, nor the other way round), and on ${API_MANAGEMENT} that it has the permission this request needs: read for balances, history and lookups, trade for orders, cancels and transfers. ${NOTHING_EXECUTED}`,
};

const ACCOUNT_NOT_ALLOWED: RejectionText = {
	message: 'The API key may not use this account',
	fix: `Pick one of the key's own accounts (Account › Get Accounts lists them): a sub-account key reaches its own account only, and transfers and custody-account records need a master-account key. ${NOTHING_EXECUTED}`,
};

const KEY_EXPIRED: RejectionText = {
	message: 'The API key has expired',
	fix: `The exchange expires an API key that was not used for 90 days. On ${API_MANAGEMENT}, create a new key (for an Ed25519 key, upload the public key again) and enter it in the credential. ${NOTHING_EXECUTED}`,
};

const IP_NOT_ALLOWED: RejectionText = {
	message: "This server's IP address is not allowed for the API key",
	fix: `On ${API_MANAGEMENT}, add this n8n server's public IP address to the key's IP access restriction, or remove the restriction. ${NOTHING_EXECUTED}`,
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
	fix: `Check that the Secret Key in the credential is the one issued with the API Key (no extra spaces), or with Authentication Ed25519, that the Private Key is the pair of the public key uploaded for this API Key. ${NOTHING_EXECUTED}`,
};

const INVALID_API_KEY: RejectionText = {
	message: 'The service did not accept the API key',
	fix: `Check the API Key in the credential, and on ${API_MANAGEMENT} that the key is enabled and this server's IP is allowed for it. ${NOTHING_EXECUTED}`,
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
	[ERROR_CODES.apiKeyExpired]: KEY_EXPIRED,
	[ERROR_CODES.invalidIp]: IP_NOT_ALLOWED,
	[ERROR_CODES.timestampOutsideWindow]: {
		message: 'The request timestamp was outside the service’s receive window',
		fix: ({ clockOffsetMs }) =>
			`${
				clockOffsetMs === undefined
					? ''
					: `The service clock is ${Math.abs(clockOffsetMs)} ms ${clockOffsetMs >= 0 ? 'ahead of' : 'behind'} this n8n server's clock. `
			}Sync the n8n server's clock (NTP), or raise Receive Window in the credential (at most ${LIMITS.maxRecvWindowMs} ms). A timestamp may be at most ${LIMITS.futureToleranceMs} ms ahead of the service clock. ${NOTHING_EXECUTED}`,
	},
	[ERROR_CODES.unauthorized]: UNAUTHORIZED,
	[ERROR_CODES.noPermission]: PERMISSION,
	[ERROR_CODES.accountNotAllowed]: ACCOUNT_NOT_ALLOWED,
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
	// Their messages name the API key too: the code decides before the text.
	if (code === ERROR_CODES.apiKeyExpired || /api ?key expired/i.test(rejection.msg))
		return KEY_EXPIRED;
	if (code === ERROR_CODES.invalidIp) return IP_NOT_ALLOWED;
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
