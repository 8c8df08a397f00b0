/** Start options of the sandbox, its demo keys' shape and the answer variants it can switch to. */

export type Permission = 'read' | 'trade';

export interface DemoKey {
	apiKey: string;
	/** The HMAC secret; for an Ed25519 key, its private key in PEM (demo only: the client's half). */
	secret: string;
	permissions: Permission[];
	kind: 'master' | 'sub';
	/**
	 * A self-generated Ed25519 key: the public key (PEM) the user uploaded. Requests of this key
	 * are verified with it (a Base64 Ed25519 signature); an HMAC signature is refused (0002).
	 */
	ed25519PublicKey?: string;
}

export interface RateLimitConfig {
	windowMs: number;
	maxWeight: number;
	/** Whether a route's least interval between calls of one key (transfers: 1 s) is enforced; default true. */
	intervals?: boolean;
}

/**
 * The exchange's request rates per API key (the HashKey UAE/MENA documentation, "Order Rate
 * Limiting"): requests a second to order endpoints and to query endpoints, and how long a key's
 * class stays suspended after it went over (real milliseconds).
 */
export interface RequestRates {
	/** Order requests (create, batch, every cancel) per key in any 1000 ms; documented: 20. */
	orderPerSecond: number;
	/** Every other request of a key, in any 1000 ms; documented: 5. */
	queryPerSecond: number;
	/** Real milliseconds a key's class stays suspended after a refusal; documented: 60000. */
	suspensionMs: number;
}

export interface SandboxOptions {
	/** Port to listen on; 0 (default) = ephemeral. */
	port?: number;
	/**
	 * Futures funding: settlements every this many ms of the sandbox clock, at the multiples of it
	 * since the epoch; default 28800000 (8 hours).
	 */
	fundingIntervalMs?: number;
	/** Host to bind; default 127.0.0.1. */
	host?: string;
	/**
	 * Weight budget per API key, and the routes' least intervals (transfers once per second); default
	 * { windowMs: 60000, maxWeight: 6000 }; false = unlimited.
	 */
	rateLimit?: RateLimitConfig | false;
	/**
	 * Request rates per API key and class (order, query), on top of the weight budget: default the
	 * documented DOCUMENTED_REQUEST_RATES; a partial object takes the rest from them (e.g.
	 * `{ suspensionMs: 2000 }` for a test); false = none. See README.md, "Rate limits".
	 */
	requestRates?: Partial<RequestRates> | false;
	/**
	 * Extension: base clock in ms (default Date.now). The server clock is `now() + clockOffsetMs`.
	 * Tests use it to freeze time and probe the timestamp rule at exactly +-1 ms of each edge.
	 */
	now?: () => number;
	/** Extension: seed the demo history (same as `npm run sandbox -- --seed-demo`). */
	seedDemo?: boolean;
	/** Answer variants where the family's answers differ from the spec's samples; see SandboxBehaviour. */
	behaviour?: SandboxBehaviour;
	/**
	 * Trading rules of the listed symbols (exchange information, and checked on every order):
	 * 'realistic' (default): each symbol's own tick, step, minimums, maximums and status, refused
	 * with the UAE codes; 'lenient': tick and step 10^-18, no minimum, no maximum, every symbol
	 * TRADING, prices fixed at `last` (what the suites written before the rules existed need).
	 */
	symbolRules?: 'realistic' | 'lenient';
	/** The market's prices: a seeded random walk on the sandbox clock (realistic rules only). */
	market?: SandboxMarketOptions;
	/**
	 * User data stream: how long a listen key lives after it is created or kept alive, on the
	 * sandbox clock (`now()`); default 3600000 (the family's 60 minutes).
	 */
	listenKeyTtlMs?: number;
	/**
	 * User data stream: real milliseconds between two server pings on a socket; default 30000 (the
	 * family's 30 s). A socket whose last two pings went unanswered is terminated at the next one.
	 */
	streamPingIntervalMs?: number;
}

export interface SandboxMarketOptions {
	/** Seed of the price walk; default 1. Same seed and clock, same prices. */
	seed?: number;
	/** Whether prices walk (one step a minute); default true. false: every price stays at `last`. */
	moving?: boolean;
}

/**
 * Answer variants. Each default follows the spec; the alternative is an answer this exchange family
 * is documented or observed to give, so a test can prove the node reads both.
 */
export interface SandboxBehaviour {
	/** Code of a signature mismatch: '0002' (default, the family's table) or '0001' (a family doc page); same message. */
	signatureErrorCode?: '0002' | '0001';
	/** Top-level `code` of a batch answer: 0 (default, spec 4.3 sample) or "0000" (the family's answers). */
	batchSuccessCode?: 0 | '0000';
	/**
	 * Per-order `code` of a batch answer: 'integer' (default, spec 4.3: 0, 401, -1141) or 'string'
	 * (the family's answers: "0000", "0401", "-1141").
	 */
	batchEntryCodes?: 'integer' | 'string';
	/** `result` of DELETE /api/v1/spot/cancelOrderByIds when every id was cancelled: [] (default) or null (the family's docs). */
	cancelByIdsAllCancelled?: 'emptyArray' | 'null';
	/**
	 * Codes of a cancel of an order that is no longer open (filled, cancelled) or unknown: 'uae'
	 * (default, the UAE documentation's): the single cancel answers 0212 ("already completed or does
	 * not exist"), each such entry of cancelOrderByIds 0211 (its example); 'specific': the codes
	 * that say which (-1139 filled, -1142 cancelled, -1138 partially cancelled, -1143 not found).
	 */
	cancelNotOpenCodes?: 'uae' | 'specific';
	/**
	 * Milliseconds (real time, not the server clock) between accepting a cancel of an open order and
	 * applying it, on every cancel endpoint: 0 (default) applies at once. Meanwhile the order is
	 * PENDING_CANCEL, still open (listed, holding its client order ID and its funds) but no longer
	 * fillable, as the family's answers "accepted, not completed" allow.
	 */
	cancelApplyDelayMs?: number;
	/**
	 * Status a create answer shows for an order that rests: 'NEW' (default) or 'PENDING_NEW' (the
	 * family's create example). The book holds the order as NEW either way; a MARKET order that
	 * filled at once still answers FILLED.
	 */
	createAnswerStatus?: 'NEW' | 'PENDING_NEW';
	/**
	 * Type every answer shows for a MARKET order: 'MARKET' (default) or 'byBase': MARKET_OF_BASE when
	 * it was sent with `quantity`, MARKET_OF_QUOTE when sent with `amount` (the family's order stream).
	 */
	marketOrderType?: 'MARKET' | 'byBase';
	/**
	 * How rate limits are answered. 'retryAfter' (default): a 429 carries Retry-After, and sending
	 * again is harmless. 'uae' (the UAE documentation): no 429 carries Retry-After (the documentation
	 * says to wait one minute), and an IP address that sends anything within `uaeSilenceMs` of its
	 * last 429 is answered 418 (-3145), as one the exchange bans.
	 */
	rateLimitRule?: 'retryAfter' | 'uae';
	/** Under rateLimitRule 'uae': how long after a 429 an IP address must stay silent; default 60000. */
	uaeSilenceMs?: number;
	/**
	 * HTTP status of a request-rate refusal (code 0003, also the rateLimitSuspension fault): 429
	 * (default, what the UAE documentation's rate-limit page says) or 400 (what its error table lists
	 * for 0003). The weight budget's 429 is not affected.
	 */
	rateLimitStatus?: 429 | 400;
	/**
	 * Order of a history page (GET /api/v1/account/balanceFlow), for every flow type:
	 * 'descending' (default: spec §4.1, which says newest first for funding fees; the newest `limit`
	 * records of the range, newest first), 'ascending' (the UAE documentation's general rule, earliest
	 * first: the earliest `limit` records of the range, earliest first) or 'ascendingNewest' (the
	 * newest `limit` records, listed earliest first).
	 */
	historyOrder?: 'descending' | 'ascending' | 'ascendingNewest';
	/**
	 * API keys refused the history list (GET /api/v1/account/balanceFlow) with -1005 No permission,
	 * as the UAE documentation says the exchange answers a key not allowed to read it (default: none).
	 * Every other endpoint treats such a key as before.
	 */
	historyRefusedKeys?: string[];
	/** API keys the exchange answers 0103 "APIKey expired" for (unused for 90 days), every request. */
	expiredKeys?: string[];
	/** Per API key, the only client IPs it may be used from; another answers 0202 "Invalid IP". */
	keyIpAllowList?: Record<string, string[]>;
	/** Per API key, permissions taken from it (-1005 "No permission" where a route needs one). */
	droppedPermissions?: Record<string, Permission[]>;
	/**
	 * Milliseconds (server clock) a transfer's history records stay unlisted after the transfer:
	 * the history lists a transfer late, as the exchange's may (its documentation does not say how
	 * late). Default 0: listed at once.
	 */
	transferHistoryLagMs?: number;
	/**
	 * What a transfer whose `clientOrderId` an earlier transfer used gets: 'refuse' (default, -1141,
	 * nothing moved) or 'accept' (moved again): the documentation does not say the exchange refuses
	 * it, so the node must not rely on it.
	 */
	transferReusedIds?: 'refuse' | 'accept';
	/**
	 * How GET /api/v2/futures/historyFundingRate reads `endId`, which the UAE documentation does not
	 * say: 'inclusive' (default: the entry with that id is listed) or 'exclusive' (ids below it).
	 */
	fundingHistoryEndId?: 'inclusive' | 'exclusive';
	/**
	 * How the funding rate history numbers its entries: 'shared' (default: one count over every
	 * contract's settlements, so one contract's ids have gaps, as the documentation's example) or
	 * 'perContract' (each contract's own count: consecutive ids 1, 2, 3...).
	 */
	fundingHistoryIds?: 'shared' | 'perContract';
	/**
	 * Order of the deposit and withdrawal lists, which the documentation does not state:
	 * 'descending' (default: the newest `limit` records, newest first) or 'ascending' (the earliest
	 * `limit`, earliest first).
	 */
	walletOrder?: 'descending' | 'ascending';
	/** Whether those lists include the records AT endTime (default 'inclusive'; the docs are silent). */
	walletEndTime?: 'inclusive' | 'exclusive';
}
