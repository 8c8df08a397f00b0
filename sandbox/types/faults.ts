/**
 * Fault kinds (README.md, "Fault injection"). "Before" kinds answer without processing; "after"
 * kinds process the request (a write is applied) and then answer wrongly or not at all; the "late"
 * kind answers at once and processes later; batch and other inline kinds shape an answer the way the
 * family's answers may look.
 */
export type FaultKind =
	// before processing: nothing is applied
	| 'http500'
	| 'http502'
	| 'http503'
	| 'rateLimit'
	/**
	 * The request-rate limiter's refusal, as if the request's key had met its class's limit: HTTP
	 * 429 (400 under behaviour rateLimitStatus 400), code 0003, no Retry-After, and that key and
	 * class suspended for requestRates.suspensionMs from now (no suspension while request rates are
	 * off or for a request the limiter does not count: no known key or endpoint).
	 */
	| 'rateLimitSuspension'
	| 'dropBefore'
	/** An unknown-outcome code (-1146 order create, -1147 cancel, -1007 other), nothing applied. */
	| 'unknownBefore'
	// after processing: the write is applied
	| 'dropAfter'
	| 'http500After'
	| 'http502After'
	| 'http503After'
	/** The write is applied, then answered with an unknown-outcome code (as unknownBefore). */
	| 'unknownAfter'
	// batch answers (POST /api/v1/spot/batchOrders); orders are placed as usual
	/** result[] in reverse order. */
	| 'batchReorder'
	/** Top-level code "0000" for this answer. */
	| 'batchCode0000'
	/** Top-level code "-1000" although result[] is present and orders were placed. */
	| 'batchTopCodeNonZero'
	/** The last result[] entry replaced by null (its order may have been placed). */
	| 'batchNullEntry'
	/** No `code` in any result[] entry. */
	| 'batchEntryNoCode'
	// redirects (answered without processing; the redirected request may then be processed)
	/** 3xx (redirectStatus, default 307) back to this host: the same URL, or /api/v1/time for a 303. */
	| 'redirectSameHost'
	/** 3xx to the same path and query on `sandbox.otherHost`, which records what reaches it. */
	| 'redirectOtherHost'
	/** 3xx to a sandbox path that redirects to itself forever. */
	| 'redirectLoop'
	// other answers before processing
	/** HTTP 418 (IP ban), code -3145, Retry-After (retryAfterSeconds, default 120). */
	| 'ipBan'
	/** HTTP 200 `{"success": false}`; nothing is applied. */
	| 'transferSuccessFalse'
	/**
	 * HTTP 200 carrying an error: `{"code": <code, default "-1147">, "msg": <its message>, "result": []}`;
	 * nothing is applied. A client that trusts the status alone takes it for a success.
	 */
	| 'answer200Code'
	// late: answered at once, processed later
	/**
	 * For order creates (POST /api/v1/spot/new/order, /api/v1/spot/batchOrders): HTTP 400 -1146
	 * "Order creation timeout" at once with nothing placed; the request is processed `delayMs`
	 * (default 8000) real milliseconds later, placing what it would have placed (ledger.orders
	 * included), as an engine that finishes after the gateway gave up. A refusal then is dropped.
	 */
	| 'createLate'
	// after processing: the write is applied, the answer is malformed or slow
	/** The real answer, one byte every dripIntervalMs (default 50). */
	| 'dripFeed'
	/** HTTP 200 with an HTML page. */
	| 'answerHtml'
	/** HTTP 200, JSON `null`. */
	| 'answerNull'
	/** HTTP 200, JSON `""`. */
	| 'answerEmptyString'
	/** HTTP 200 with an empty body. */
	| 'answerEmptyBody'
	/** HTTP 200, JSON `true`. */
	| 'answerTrue'
	/** The real answer's first half, then the connection is closed (Content-Length says more). */
	| 'answerTruncated'
	/** The real answer sent as is under `Content-Encoding: gzip` (not a gzip stream). */
	| 'answerBadGzip'
	// inline: processed normally, answered differently
	/** Ids (orderId, accountId, id, lastOrderId, userId) written as bare JSON integers, every digit verbatim. */
	| 'numericIds'
	/**
	 * Decimals (price, origQty, executedQty, reqAmount, free, locked, total, change, …) written as bare
	 * JSON numbers, every digit verbatim (an 18-decimal amount beyond what a double holds).
	 */
	| 'numericDecimals'
	/** A history page with more records than the requested limit (extraRecords more, default limit more). */
	| 'historyOversize'
	/** A history page oldest first (the same records, ascending). */
	| 'historyOldestFirst'
	/** A history page in no order: the first record of another `created` than the first record's moved to the front (a page of one time stays as it is). */
	| 'historyUnordered'
	/** DELETE /api/v1/spot/cancelOrderByIds: each failure entry of `result` names its order under `id`, not `orderId`. */
	| 'cancelByIdsOtherKey'
	/**
	 * DELETE /api/v1/spot/cancelOrderByIds: processed as usual, each failure entry of `result`
	 * carrying the rule's `code` (default "-2013", the family's "order does not exist").
	 */
	| 'cancelByIdsEntryCode';

export interface FaultRule {
	kind: FaultKind;
	times: number;
	/** Exact path (no query string); default: any. */
	path?: string;
	/** HTTP method (case-insensitive); default: any. */
	method?: string;
	/** For rateLimit: value of Retry-After in seconds; default 1. */
	retryAfterSeconds?: number;
	/** For unknownBefore/unknownAfter (default by request, see FaultKind), answer200Code (default "-1147") and cancelByIdsEntryCode (default "-2013"): the code to answer. */
	code?: string;
	/** For unknownBefore/unknownAfter: the HTTP status (default 400, as the family answers every code). */
	status?: number;
	/** For redirect kinds: the 3xx status; default 307. */
	redirectStatus?: 301 | 302 | 303 | 307 | 308;
	/** For redirectSameHost: the Location to send instead of the default. */
	location?: string;
	/** For dripFeed: milliseconds between bytes; default 50. */
	dripIntervalMs?: number;
	/** For historyOversize: records beyond the requested limit; default the limit itself. */
	extraRecords?: number;
	/** For createLate: real milliseconds until the request is processed; default 8000. */
	delayMs?: number;
}

export interface FaultPlan {
	latencyMs?: number;
	clockOffsetMs?: number;
	rules?: FaultRule[];
	random?: {
		seed: number;
		http5xx?: number;
		dropBefore?: number;
		dropAfter?: number;
		rateLimit?: number;
		/** http500After / http502After / http503After, one of the three drawn. */
		http5xxAfter?: number;
		unknownBefore?: number;
		unknownAfter?: number;
		batchReorder?: number;
		/** redirectSameHost / redirectOtherHost / redirectLoop with status 303 or 307, drawn. */
		redirect?: number;
		/** One of answerHtml, answerNull, answerEmptyString, answerEmptyBody, answerTrue, answerTruncated, answerBadGzip. */
		malformed?: number;
		dripFeed?: number;
		/** Byte interval of random drip feeds; default 50. */
		dripIntervalMs?: number;
		ipBan?: number;
		transferSuccessFalse?: number;
		numericIds?: number;
		historyOversize?: number;
		historyOldestFirst?: number;
		createLate?: number;
		/** Delay of random createLate faults; default 8000. */
		createLateDelayMs?: number;
		answer200Code?: number;
		cancelByIdsOtherKey?: number;
		numericDecimals?: number;
		paths?: string[];
	};
}
