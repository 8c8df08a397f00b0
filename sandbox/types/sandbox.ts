/** The sandbox as tests and tools drive it (startSandbox's answer). */
import type { FaultPlan } from './faults';
import type { FuturesControl } from './futures';
import type { Ledger } from './ledger';
import type {
	DemoKey,
	Permission,
	RateLimitConfig,
	RequestRates,
	SandboxBehaviour,
} from './options';
import type { OrderView, SeedOpenOrderInput } from './orders';
import type { OtherHost } from './otherHost';
import type { AddRecordInput, HistoryRecord, SeedRecordsOptions } from './records';
import type { StreamControl } from './stream';
import type { AccountTrade, SeedTradesOptions } from './trades';
import type { WalletControl } from '../wallet/wallet';

export interface Sandbox {
	baseUrl: string;
	stop(): Promise<void>;
	reset(): void;
	now(): number;
	setBalance(accountId: string, coin: string, amount: string): void;
	getBalance(accountId: string, coin: string): string;
	addRecords(records: AddRecordInput[]): HistoryRecord[];
	seedRecords(opts: SeedRecordsOptions): HistoryRecord[];
	/**
	 * Synthetic fills of a demo key's trading account (GET /api/v1/account/trades), many at once
	 * for paging tests: fills only (no order, balance or history record). Seed the oldest first:
	 * startTime may not be before the newest fill's time, endTime not after now(). Returns them
	 * oldest first. Throws an Error naming the problem.
	 */
	seedTrades(opts: SeedTradesOptions): AccountTrade[];
	setFaults(plan: FaultPlan): void;
	clearFaults(): void;
	setRateLimit(config: RateLimitConfig | false): void;
	/** The request rates in force (per API key and class), or false when there are none. */
	requestRates(): RequestRates | false;
	/**
	 * Change the request rates (a partial object takes the rest from the documented rates; false:
	 * none); clears every window and suspension. reset() goes back to the start option.
	 */
	setRequestRates(rates: Partial<RequestRates> | false): void;
	/**
	 * Request-rate refusals since the last reset(), counted over ledger.requests: 0003 refusals
	 * (`limit: 'rateLimited'`) and requests sent into a suspension (`limit: 'intoSuspension'`, 418).
	 */
	rateLimitStats(): { rateLimited: number; intoSuspension: number };
	/** Change answer variants (merged into the current ones); reset() goes back to the start options. */
	setBehaviour(behaviour: SandboxBehaviour): void;
	/** Key controls (behaviours expiredKeys, keyIpAllowList, droppedPermissions); reset() lifts them. */
	expireKey(apiKey: string): void;
	restrictKeyToIps(apiKey: string, ips: string[] | undefined): void;
	dropPermission(apiKey: string, permission: Permission): void;
	/** Extension: write the demo history (funding fees, transfers, deposits, trades) relative to now(). */
	seedDemo(): void;
	/** The other host redirect faults point to; reset() clears its requests and reply. */
	otherHost: OtherHost;
	/**
	 * An order's current state in the query shape, in the book's own terms (status and type as held,
	 * whatever the answer behaviours), or undefined for an unknown id.
	 */
	getOrder(orderId: string): OrderView | undefined;
	/**
	 * Every fill of a demo key's trading account (default the master key's), newest first, as
	 * GET /api/v1/account/trades lists them: for tests that check what a node read, without spending
	 * the key's request rate on the check.
	 */
	fills(key?: DemoKey): AccountTrade[];
	/**
	 * Fill a resting order at its limit price: `quantity` (a decimal string; default all that
	 * remains). NEW -> PARTIALLY_FILLED -> FILLED; balances, locks and TRADE/FEE records follow.
	 * Throws for an unknown or final order, one whose cancel is pending (PENDING_CANCEL), or a
	 * quantity above what remains.
	 */
	fillOrder(orderId: string, quantity?: string): OrderView;
	/**
	 * One step for every open order (of `symbol`, if given) but those PENDING_CANCEL, oldest first:
	 * NEW fills half its quantity (PARTIALLY_FILLED), PARTIALLY_FILLED fills the rest (FILLED).
	 * Returns the orders stepped.
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
	/**
	 * The user data stream (listen keys, ws://host:port/api/v1/ws/<listenKey>): its test controls
	 * and counters. reset() deletes every listen key, closes every socket and undoes every control.
	 */
	stream: StreamControl;
	/**
	 * The futures read side's controls: scripted funding rates, fills that move a position, resting
	 * orders, the positions. reset() clears every position, order, fill, fee and script.
	 */
	futures: FuturesControl;
	/** Deposits (a successful one credits custody once) and withdrawals; reset() forgets them. */
	wallet: WalletControl;
}
