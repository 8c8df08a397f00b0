/**
 * The error codes the sandbox answers with, taken from this exchange family's public error table
 * (as kept in CCXT's hashkey.ts, `exceptions.exact`) wherever the spec is silent. The spec itself
 * names no error code (section 7: "List of error codes and their HTTP status codes: not shown").
 * docs/error-codes.md lists each code with its source and how the node should treat it.
 *
 * Codes are JSON strings at the top level of an error answer. The family's documentation answers
 * every one of them with HTTP 400; the sandbox does the same except where noted below.
 */

export interface CodeInfo {
	code: string;
	/** The family's message text (the start of `msg`; the sandbox may append a detail). */
	msg: string;
	/** HTTP status the sandbox answers with. */
	status: number;
}

function c(code: string, msg: string, status = 400): CodeInfo {
	return { code, msg, status };
}

export const CODES = {
	/** Missing, malformed or duplicated parameter. */
	invalidField: c('0001', 'Required field'),
	/** Signature mismatch (the family's table; one of its documentation pages uses 0001 with the same text). */
	badSignature: c('0002', 'Incorrect signature'),
	rateLimited: c('0003', 'Rate limit exceeded', 429),
	invalidApiKey: c('0102', 'Invalid APIKey'),
	/** hashkeypro-apidoc "Error Codes": a key unused for 90 days expires. */
	apiKeyExpired: c('0103', 'APIKey expired'),
	/** hashkeypro-apidoc "Error Codes": the request's IP is not on the key's IP access list. */
	invalidIp: c('0202', 'Invalid IP'),
	accountNotAllowed: c('0104', 'accountId is not allowed'),
	instrumentNotFound: c('0201', 'Instrument not found'),
	orderNotFound: c('0211', 'Order not found'),
	/**
	 * The UAE table's answer to a cancel of an order that is no longer open or does not exist: the
	 * sandbox's single cancel answers it (behaviour cancelNotOpenCodes 'uae', the default).
	 */
	orderCompletedOrMissing: c(
		'0212',
		'Order has already been completed (filled, canceled, etc) or does not exist. Please check the order status to verify',
	),
	insufficientAsset: c('0401', 'Insufficient asset'),
	/** Symbol rules (exchange information filters), the UAE table's codes, all HTTP 400. */
	invalidPricePrecision: c('0209', 'Invalid price precision'),
	quantityTooLarge: c('-1135', 'Order quantity greater than the maximum'),
	quantityTooSmall: c('-1136', 'Order quantity lower than the minimum'),
	quantityPrecision: c('-1137', 'Order quantity precision too large'),
	amountTooSmall: c('-1140', 'Order amount lower than the minimum'),
	amountPrecision: c('-1148', 'Order amount precision too large'),
	symbolNotOpen: c('-1151', 'The trading pair is not open yet'),
	symbolNotForApi: c('-1155', 'The trading pair is not available for api trading'),
	amountTooLarge: c('-1206', 'Order amount greater than the maximum'),
	unknownError: c('-1000', 'An unknown error occurred while processing the request', 500),
	internalError: c('-1001', 'Internal error', 503),
	noPermission: c('-1005', 'No permission'),
	executionUnknown: c('-1006', 'Execution status unknown'),
	serverTimeout: c('-1007', 'Timeout waiting for response from server'),
	unsupportedOperation: c('-1020', 'Unsupported operation', 404),
	timestampOutsideWindow: c('-1021', 'Timestamp for this request is outside of the recvWindow'),
	/**
	 * A keep-alive or delete of a listen key that does not exist (never created, expired, deleted, or
	 * another API key's): the family's INVALID_LISTEN_KEY.
	 */
	listenKeyNotFound: c('-1125', 'This listenKey does not exist.'),
	orderPartiallyCancelled: c('-1138', 'Order has been partially cancelled'),
	orderFilled: c('-1139', 'Order has been filled'),
	duplicateOrder: c('-1141', 'Duplicate order'),
	orderCancelled: c('-1142', 'Order has been cancelled'),
	orderNotOnBook: c('-1143', 'Order not found on order book'),
	orderCreateTimeout: c('-1146', 'Order creation timeout'),
	orderCancelTimeout: c('-1147', 'Order cancellation timeout'),
	orderCreateFailed: c('-1149', 'Order creation failed'),
	invalidFromAccount: c('-1172', 'Invalid from account id'),
	invalidToAccount: c('-1173', 'Invalid to account id'),
	sameAccountTransfer: c('-1174', 'Transfer not allowed between the same account'),
	/**
	 * "Order does not exist": not in the UAE table (the family's global documentation shows it in a
	 * cancel-by-IDs answer). The sandbox never answers it by itself; a fault may (unknownBefore with
	 * code -2013, cancelByIdsEntryCode), with this message.
	 */
	orderDoesNotExist: c('-2013', 'Order does not exist'),
	batchTooLarge: c('-2022', 'Order batch size exceeds the limit'),
	/** The UAE table's answer to a search before the last month (fills: the last 30 days only). */
	searchLastMonthOnly: c('-2028', 'The search is limited to data within the last one month'),
	/** The family's "too frequent" code; the sandbox sends it with HTTP 418 (IP ban). */
	ipBanned: c('-3145', 'Please DO NOT submit request too frequently', 418),
} as const;

export type CodeName = keyof typeof CODES;

/** The family's message for a code of the table, if the sandbox knows it. */
export function msgOf(code: string): string | undefined {
	return Object.values(CODES).find((x) => x.code === code)?.msg;
}

/** The codes that mean "the request may have been executed; the outcome is unknown". */
export const UNKNOWN_OUTCOME_CODES: readonly string[] = [
	CODES.unknownError.code,
	CODES.internalError.code,
	CODES.executionUnknown.code,
	CODES.serverTimeout.code,
	CODES.orderCreateTimeout.code,
	CODES.orderCancelTimeout.code,
];

/**
 * Per-order codes inside a batch answer are integers (spec 4.3): the string code read as a number,
 * so '0401' becomes 401 and '-1141' becomes -1141.
 */
export function intCode(code: string): number {
	return Number(code);
}
