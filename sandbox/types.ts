/**
 * Public types of the Trading Service sandbox (see README.md beside this file).
 *
 * Ids (record ids, order ids, transfer ids) and all decimals are JSON strings:
 * the ids are 19-digit numbers, larger than Number.MAX_SAFE_INTEGER.
 */

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
	/**
	 * Answer of DELETE /api/v1/spot/openOrders: 'documented' (default, the family's docs:
	 * {"code": "0", "message": "success", "timestamp": ms, "lastOrderId": "<id>"}) or 'successOnly'
	 * ({"success": true}, as CCXT shows the family answering).
	 */
	cancelOpenOrdersAnswer?: 'documented' | 'successOnly';
	/** `result` of DELETE /api/v1/spot/cancelOrderByIds when every id was cancelled: [] (default) or null (the family's docs). */
	cancelByIdsAllCancelled?: 'emptyArray' | 'null';
}

export interface HistoryRecord {
	id: string;
	accountId: string;
	coin: string;
	coinId: string;
	coinName: string;
	flowTypeValue: number;
	flowType: string;
	flowName: string;
	change: string;
	total: string;
	created: string;
	symbol?: string;
}

/** NEW and PARTIALLY_FILLED are open; the others are final. */
export type OrderStatus = 'NEW' | 'PARTIALLY_FILLED' | 'FILLED' | 'CANCELED' | 'PARTIALLY_CANCELED';
export type OrderSide = 'BUY' | 'SELL';
export type OrderType = 'LIMIT' | 'MARKET' | 'LIMIT_MAKER';
export type TimeInForce = 'GTC' | 'IOC';

export interface OrderData {
	accountId: string;
	symbol: string;
	symbolName: string;
	clientOrderId: string;
	orderId: string;
	transactTime: string;
	price: string;
	origQty: string;
	executedQty: string;
	status: OrderStatus;
	timeInForce: TimeInForce;
	type: OrderType;
	side: OrderSide;
	reqAmount: string;
}

/**
 * An order as the query endpoints answer it (GET /api/v1/spot/order, openOrders, tradeOrders): the
 * family's query shape, a superset of OrderData. Ids, times and decimals are strings.
 */
export interface OrderView {
	accountId: string;
	exchangeId: string;
	symbol: string;
	symbolName: string;
	clientOrderId: string;
	orderId: string;
	price: string;
	origQty: string;
	executedQty: string;
	cumulativeQuoteQty: string;
	cummulativeQuoteQty: string;
	avgPrice: string;
	status: OrderStatus;
	timeInForce: TimeInForce;
	type: OrderType;
	side: OrderSide;
	stopPrice: string;
	icebergQty: string;
	time: string;
	updateTime: string;
	isWorking: boolean;
	reqAmount: string;
	stpMode: 'EXPIRE_TAKER' | 'EXPIRE_MAKER';
	feeCoin: string;
	feeAmount: string;
	sumFeeAmount: string;
}

/** Answer of DELETE /api/v1/spot/order (the family's cancel shape). */
export interface CancelAnswer {
	accountId: string;
	symbol: string;
	clientOrderId: string;
	orderId: string;
	transactTime: string;
	price: string;
	origQty: string;
	executedQty: string;
	status: OrderStatus;
	timeInForce: TimeInForce;
	type: OrderType;
	side: OrderSide;
}

/** One balance line of GET /api/v1/account. */
export interface BalanceLine {
	asset: string;
	assetId: string;
	assetName: string;
	total: string;
	free: string;
	locked: string;
}

export interface LedgerRequest {
	method: string;
	/** Path without the query string. */
	path: string;
	/** Raw query string as received, without the leading '?'. */
	query: string;
	/** Raw body as received (utf-8). */
	body: string;
	/** Value of the X-APIKEY header, if any. */
	apiKey?: string;
	/** HTTP status sent (or that would have been sent for dropAfter); 0 for dropBefore. */
	status: number;
	/** Error code of the response body, if it was an error. */
	code?: string;
	/** Nominal weight of the endpoint (0 for unknown paths). */
	weight: number;
	/** Server clock (sandbox.now()) when the request was received. */
	at: number;
	/** Fault kind applied to this request, if any. */
	fault?: string;
	/**
	 * For a fault that acts after processing (e.g. http500After, unknownAfter, dropAfter): the HTTP
	 * status the request's own processing produced (200 = the write was applied).
	 */
	appliedStatus?: number;
}

export interface LedgerTransfer {
	id: string;
	fromAccountId: string;
	toAccountId: string;
	coin: string;
	quantity: string;
	created: string;
	apiKey: string;
}

/** An order as placed (the create answer at that moment); its later state: Sandbox.getOrder(orderId). */
export type LedgerOrder = OrderData & { via: 'single' | 'batch'; apiKey: string };

/** An applied cancel. */
export interface LedgerCancel {
	orderId: string;
	clientOrderId: string;
	accountId: string;
	/** Status after the cancel: CANCELED or PARTIALLY_CANCELED. */
	status: OrderStatus;
	via: 'single' | 'symbol' | 'ids';
	apiKey: string;
	/** Server clock when applied. */
	at: number;
}

export interface Ledger {
	requests: LedgerRequest[];
	transfers: LedgerTransfer[];
	/** Placed orders (an order test places nothing and is not here). */
	orders: LedgerOrder[];
	cancels: LedgerCancel[];
}

/**
 * Fault kinds (README.md, "Fault injection"). "Before" kinds answer without processing; "after"
 * kinds process the request (a write is applied) and then answer wrongly or not at all; batch kinds
 * shape a batch answer the way the family's answers may look.
 */
export type FaultKind =
	// before processing: nothing is applied
	| 'http500'
	| 'http502'
	| 'http503'
	| 'rateLimit'
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
	/** A history page with more records than the requested limit (extraRecords more, default limit more). */
	| 'historyOversize'
	/** A history page oldest first (the same records, ascending). */
	| 'historyOldestFirst';

export interface FaultRule {
	kind: FaultKind;
	times: number;
	/** Exact path (no query string); default: any. */
	path?: string;
	/** HTTP method (case-insensitive); default: any. */
	method?: string;
	/** For rateLimit: value of Retry-After in seconds; default 1. */
	retryAfterSeconds?: number;
	/** For unknownBefore/unknownAfter: the code to answer (default by request, see FaultKind). */
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
		paths?: string[];
	};
}

/** A request that reached `sandbox.otherHost`. */
export interface CaughtRequest {
	method: string;
	/** Path and query as received. */
	url: string;
	/** Header names in lower case, as Node reports them. */
	headers: Record<string, string | string[] | undefined>;
	body: string;
}

export interface OtherHostReply {
	status?: number;
	headers?: Record<string, string>;
	body?: string;
}

/** The second listener redirect faults point to ("another host"). */
export interface OtherHost {
	/** e.g. 'http://127.0.0.2:PORT'. */
	url: string;
	requests: CaughtRequest[];
	/** What it answers every request with; default 200 `{"success":true,"timestamp":1,"clientOrderId":"","orderId":"1"}`. */
	setReply(reply: OtherHostReply): void;
}

export type AddRecordInput = Partial<HistoryRecord> & {
	accountId: string;
	flowTypeValue: number;
	change: string;
	created: string;
};

export interface SeedRecordsOptions {
	flowType: number;
	count: number;
	startTime: number;
	endTime: number;
	accountId?: string;
	perMillisecond?: number;
	symbols?: string[];
	coin?: string;
	seed?: number;
}

/** A resting order seeded as if placed at `time` (Sandbox.seedOpenOrder). */
export interface SeedOpenOrderInput {
	/** Whose trading account: a demo key (default DEMO_KEYS.master: account 10001; the sub key: 20001). */
	key?: DemoKey;
	symbol: string;
	side: OrderSide;
	/** Default LIMIT. */
	type?: 'LIMIT' | 'LIMIT_MAKER';
	price: string;
	quantity: string;
	/** Default: the order ID, as for an order sent without one. */
	clientOrderId?: string;
	/** When it was placed (ms, server clock): not after now(), not before the newest order's time. */
	time: number;
}

export interface Sandbox {
	baseUrl: string;
	stop(): Promise<void>;
	reset(): void;
	now(): number;
	setBalance(accountId: string, coin: string, amount: string): void;
	getBalance(accountId: string, coin: string): string;
	addRecords(records: AddRecordInput[]): HistoryRecord[];
	seedRecords(opts: SeedRecordsOptions): HistoryRecord[];
	setFaults(plan: FaultPlan): void;
	clearFaults(): void;
	setRateLimit(config: RateLimitConfig | false): void;
	/** Change answer variants (merged into the current ones); reset() goes back to the start options. */
	setBehaviour(behaviour: SandboxBehaviour): void;
	/** Extension: write the demo history (funding fees, transfers, deposits, trades) relative to now(). */
	seedDemo(): void;
	/** The other host redirect faults point to; reset() clears its requests and reply. */
	otherHost: OtherHost;
	/** An order's current state in the query shape, or undefined for an unknown id. */
	getOrder(orderId: string): OrderView | undefined;
	/**
	 * Fill a resting order at its limit price: `quantity` (a decimal string; default all that
	 * remains). NEW -> PARTIALLY_FILLED -> FILLED; balances, locks and TRADE/FEE records follow.
	 * Throws for an unknown or final order, or a quantity above what remains.
	 */
	fillOrder(orderId: string, quantity?: string): OrderView;
	/**
	 * One step for every open order (of `symbol`, if given), oldest first: NEW fills half its
	 * quantity (PARTIALLY_FILLED), PARTIALLY_FILLED fills the rest (FILLED). Returns the orders stepped.
	 */
	advanceOrders(symbol?: string): OrderView[];
	/**
	 * Seed a resting order placed at `time` in the past (e.g. stale open orders for a cancel test):
	 * the checks and locks of a real order, status NEW, `time` = `updateTime` = `time`; not in
	 * ledger.orders (a cancel of it is in ledger.cancels). Seed the oldest first (order IDs grow
	 * with time). Throws an Error naming the problem (a future time, an out-of-order time, a field).
	 */
	seedOpenOrder(input: SeedOpenOrderInput): OrderView;
	/** Free, locked (by resting orders) and total balance of a coin. getBalance() is the total. */
	getBalanceDetail(
		accountId: string,
		coin: string,
	): { free: string; locked: string; total: string };
	ledger: Ledger;
}
