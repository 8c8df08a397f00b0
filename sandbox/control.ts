/**
 * The sandbox's state and the API tests drive it with (everything of Sandbox but the listener):
 * reset, balances, history, order and fill seeding, fills, the fault plan, the rate limit and the
 * request rates, the answer variants and the work deferred by them (delayed cancels, late
 * creates), and the user data stream (listen keys, sockets, its events and faults: stream/).
 * SandboxServer (server.ts) puts HTTP on top.
 */
import { DEFAULT_RATE_LIMIT, DEMO_KEYS, tradingAccountOf } from './constants';
import { DeferredWork } from './deferred';
import { seedDemoHistory } from './demo';
import { Engine } from './engine';
import { FaultInjector } from './faultInjector';
import { RateLimiter } from './http';
import { Market } from './market/market';
import type { OrderInput } from './orders/state';
import { OtherHostServer } from './otherHost';
import { RequestRateLimiter, requestRatesFrom } from './requestRates';
import type { Services } from './routes/route';
import { walletOf, type WalletControl } from './wallet/wallet';
import { UserStream } from './stream/hub';
import type {
	AccountTrade,
	DemoKey,
	AddRecordInput,
	FaultPlan,
	FuturesControl,
	HistoryRecord,
	Ledger,
	OrderView,
	Permission,
	RateLimitConfig,
	RequestRates,
	SandboxBehaviour,
	SandboxOptions,
	SeedOpenOrderInput,
	SeedRecordsOptions,
	SeedTradesOptions,
	StreamControl,
} from './types';

const DEFAULT_BEHAVIOUR: Required<SandboxBehaviour> = {
	signatureErrorCode: '0002',
	batchSuccessCode: 0,
	batchEntryCodes: 'integer',
	cancelByIdsAllCancelled: 'emptyArray',
	cancelNotOpenCodes: 'uae',
	cancelApplyDelayMs: 0,
	createAnswerStatus: 'NEW',
	marketOrderType: 'MARKET',
	rateLimitRule: 'retryAfter',
	uaeSilenceMs: 60_000,
	rateLimitStatus: 429,
	historyOrder: 'descending',
	historyRefusedKeys: [],
	expiredKeys: [],
	keyIpAllowList: {},
	droppedPermissions: {},
	transferHistoryLagMs: 0,
	transferReusedIds: 'refuse',
	fundingHistoryEndId: 'inclusive',
	fundingHistoryIds: 'shared',
	walletOrder: 'descending',
	walletEndTime: 'inclusive',
};

export class SandboxControl {
	readonly ledger: Ledger = { requests: [], transfers: [], orders: [], cancels: [] };
	readonly otherHost = new OtherHostServer();
	protected readonly engine: Engine;
	protected readonly faults = new FaultInjector();
	/** Delayed cancels and late creates; reset() and stop() drop what still waits. */
	protected readonly deferred = new DeferredWork();
	protected readonly limiter: RateLimiter;
	/** The request rates per API key and class (option requestRates). */
	protected readonly requestLimiter: RequestRateLimiter;
	/** Symbols, their rules and prices (options symbolRules and market). */
	protected readonly market: Market;
	protected behaviour: Required<SandboxBehaviour>;
	/** The user data stream: listen keys, its WebSocket side and its test controls. */
	protected readonly userStream: UserStream;
	private readonly baseClock: () => number;
	baseUrl = '';

	constructor(protected readonly options: SandboxOptions = {}) {
		this.baseClock = options.now ?? Date.now;
		this.limiter = new RateLimiter(this.startRateLimit());
		this.requestLimiter = new RequestRateLimiter(requestRatesFrom(options.requestRates));
		this.market = new Market(
			{
				symbolRules: options.symbolRules ?? 'realistic',
				seed: options.market?.seed ?? 1,
				moving: options.market?.moving ?? true,
			},
			() => this.now(),
		);
		this.engine = new Engine(
			() => this.now(),
			this.ledger,
			this.deferred,
			this.market,
			options.fundingIntervalMs,
		);
		this.userStream = new UserStream({
			now: () => this.now(),
			baseUrl: () => this.baseUrl,
			listenKeyTtlMs: options.listenKeyTtlMs,
			streamPingIntervalMs: options.streamPingIntervalMs,
		});
		this.engine.events.setSink(this.userStream);
		this.engine.events.marketOrderType = () => this.behaviour.marketOrderType;
		this.behaviour = this.startBehaviour();
		if (options.seedDemo) this.seedDemo();
	}

	private startRateLimit(): RateLimitConfig | false {
		return this.options.rateLimit === undefined
			? { ...DEFAULT_RATE_LIMIT }
			: this.options.rateLimit;
	}

	private startBehaviour(): Required<SandboxBehaviour> {
		return { ...DEFAULT_BEHAVIOUR, ...(this.options.behaviour ?? {}) };
	}

	/** The state an endpoint serves a request from. */
	protected services(): Services {
		return {
			engine: this.engine,
			behaviour: this.behaviour,
			limiter: this.limiter,
			market: this.market,
			stream: this.userStream,
			now: () => this.now(),
		};
	}

	/** The user data stream's test controls. */
	get stream(): StreamControl {
		return this.userStream;
	}

	/** The wallet controls: deposits (a successful one credits custody), withdrawals (wallet/). */
	get wallet(): WalletControl {
		return walletOf(this.engine, () => this.now());
	}

	/** The futures controls: funding rates, fills, resting orders, positions (futures/futures.ts). */
	get futures(): FuturesControl {
		return this.engine.futures;
	}

	reset(): void {
		this.deferred.clear();
		// before the state: the reset itself sends no event
		this.userStream.reset();
		this.engine.resetState();
		walletOf(this.engine, () => this.now()).reset();
		this.ledger.requests.length = 0;
		this.ledger.transfers.length = 0;
		this.ledger.orders.length = 0;
		this.ledger.cancels.length = 0;
		this.otherHost.clear();
		this.clearFaults();
		this.limiter.config = this.startRateLimit();
		this.limiter.clear();
		this.requestLimiter.configure(requestRatesFrom(this.options.requestRates));
		this.behaviour = this.startBehaviour();
		if (this.options.seedDemo) this.seedDemo();
	}

	now(): number {
		return this.baseClock() + this.faults.clockOffsetMs;
	}

	setBalance(accountId: string, coin: string, amount: string): void {
		this.engine.setBalance(accountId, coin, amount);
	}

	getBalance(accountId: string, coin: string): string {
		this.deferred.runDue();
		return this.engine.getBalance(accountId, coin);
	}

	getBalanceDetail(
		accountId: string,
		coin: string,
	): { free: string; locked: string; total: string } {
		this.deferred.runDue();
		return this.engine.getBalanceDetail(accountId, coin);
	}

	addRecords(records: AddRecordInput[]): HistoryRecord[] {
		return this.engine.addRecords(records);
	}

	seedRecords(opts: SeedRecordsOptions): HistoryRecord[] {
		return this.engine.seedRecords(opts);
	}

	fills(key: DemoKey = DEMO_KEYS.master): AccountTrade[] {
		this.deferred.runDue();
		return this.engine.orders.trades.query({
			accountId: tradingAccountOf(key),
			startTime: 0,
			endTime: Number.MAX_SAFE_INTEGER,
			limit: Number.MAX_SAFE_INTEGER,
		});
	}

	seedTrades(opts: SeedTradesOptions): AccountTrade[] {
		return this.engine.orders.trades.seed(tradingAccountOf(opts.key ?? DEMO_KEYS.master), opts);
	}

	seedDemo(): void {
		seedDemoHistory(this);
	}

	getOrder(orderId: string): OrderView | undefined {
		this.deferred.runDue();
		return this.engine.orders.getView(orderId);
	}

	fillOrder(orderId: string, quantity?: string): OrderView {
		this.deferred.runDue();
		return this.engine.orders.fill(orderId, quantity);
	}

	advanceOrders(symbol?: string): OrderView[] {
		this.deferred.runDue();
		return this.engine.orders.advance(symbol);
	}

	seedOpenOrder(input: SeedOpenOrderInput): OrderView {
		const {
			key = DEMO_KEYS.master,
			symbol,
			side,
			type = 'LIMIT',
			price,
			quantity,
			clientOrderId,
			time,
		} = input;
		const order: OrderInput = { symbol, side, type, price, quantity };
		if (clientOrderId !== undefined) order.newClientOrderId = clientOrderId;
		return this.engine.seedOpenOrder(key, order, time);
	}

	setFaults(plan: FaultPlan): void {
		this.faults.set(plan);
	}

	clearFaults(): void {
		this.faults.clear();
	}

	setRateLimit(config: RateLimitConfig | false): void {
		this.limiter.config = config;
		this.limiter.clear();
	}

	requestRates(): RequestRates | false {
		return this.requestLimiter.rates;
	}

	setRequestRates(rates: Partial<RequestRates> | false): void {
		this.requestLimiter.configure(requestRatesFrom(rates));
	}

	/** Counted over the ledger, which reset() empties: what the limiter refused since then. */
	rateLimitStats(): { rateLimited: number; intoSuspension: number } {
		let rateLimited = 0;
		let intoSuspension = 0;
		for (const r of this.ledger.requests) {
			if (r.limit === 'rateLimited') rateLimited++;
			else if (r.limit === 'intoSuspension') intoSuspension++;
		}
		return { rateLimited, intoSuspension };
	}

	setBehaviour(behaviour: SandboxBehaviour): void {
		this.behaviour = { ...this.behaviour, ...behaviour };
	}

	/** The key expires (0103 to every request) until reset(), as one unused for 90 days does. */
	expireKey(apiKey: string): void {
		this.setBehaviour({ expiredKeys: [...this.behaviour.expiredKeys, apiKey] });
	}

	/** The key may be used from these client IPs only (0202 otherwise); undefined lifts it. */
	restrictKeyToIps(apiKey: string, ips: string[] | undefined): void {
		const lists = { ...this.behaviour.keyIpAllowList };
		if (ips === undefined) delete lists[apiKey];
		else lists[apiKey] = ips;
		this.setBehaviour({ keyIpAllowList: lists });
	}

	/** The key loses a permission (-1005 where a route needs it) until reset(). */
	dropPermission(apiKey: string, permission: Permission): void {
		const dropped = this.behaviour.droppedPermissions[apiKey] ?? [];
		const all = { ...this.behaviour.droppedPermissions, [apiKey]: [...dropped, permission] };
		this.setBehaviour({ droppedPermissions: all });
	}
}
