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

export type OrderStatus = 'NEW' | 'FILLED';
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

export type LedgerOrder = OrderData & { via: 'single' | 'batch'; apiKey: string };

export interface Ledger {
	requests: LedgerRequest[];
	transfers: LedgerTransfer[];
	orders: LedgerOrder[];
}

export type FaultKind = 'http500' | 'http502' | 'http503' | 'dropBefore' | 'dropAfter' | 'rateLimit';

export interface FaultRule {
	kind: FaultKind;
	times: number;
	/** Exact path (no query string); default: any. */
	path?: string;
	/** HTTP method (case-insensitive); default: any. */
	method?: string;
	/** For rateLimit: value of Retry-After in seconds; default 1. */
	retryAfterSeconds?: number;
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
		paths?: string[];
	};
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
	ledger: Ledger;
}
