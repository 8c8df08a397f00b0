/** Start options of the sandbox, its demo keys' shape and the answer variants it can switch to. */

export type Permission = 'read' | 'trade';

export interface DemoKey {
	apiKey: string;
	secret: string;
	permissions: Permission[];
	kind: 'master' | 'sub';
}

export interface RateLimitConfig {
	windowMs: number;
	maxWeight: number;
}

export interface SandboxOptions {
	/** Port to listen on; 0 (default) = ephemeral. */
	port?: number;
	/** Host to bind; default 127.0.0.1. */
	host?: string;
	/** Weight budget per API key; default { windowMs: 60000, maxWeight: 6000 }; false = unlimited. */
	rateLimit?: RateLimitConfig | false;
	/**
	 * Extension: base clock in ms (default Date.now). The server clock is `now() + clockOffsetMs`.
	 * Tests use it to freeze time and probe the timestamp rule at exactly +-1 ms of each edge.
	 */
	now?: () => number;
	/** Extension: seed the demo history (same as `npm run sandbox -- --seed-demo`). */
	seedDemo?: boolean;
	/** Answer variants where the family's answers differ from the spec's samples; see SandboxBehaviour. */
	behaviour?: SandboxBehaviour;
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
}
