// What the Trading Service API (docs/api.md) fixes as a value and several rooms share: a change
// in the service is a change in one place.

import { CREDENTIAL_LIMITS } from '../../credentials/TradingServiceApi.credentials';

export const CREDENTIAL_TYPE = 'tradingServiceApi';

/** The `site` of market data and exchange info: without it the service answers for HK. */
export const MARKET_SITE = 'MENA';

export const LIMITS = {
	/** Parallel Requests: its default and most (docs/operations.md states the trade-off). */
	defaultParallelRequests: 50,
	maxParallelRequests: 200,
	/** Most fills one GET /api/v1/account/trades returns (UAE documentation: default 500, max 1000). */
	accountTradesPageSize: 1000,
	/** How far back GET /api/v1/account/trades reaches (UAE documentation: the last 30 days). */
	accountTradesRetentionDays: 30,
	/** Most records one history request returns (spec §4.1, §8). */
	historyPageSize: 500,
	/** Most orders in one batch request; all of one symbol (spec §4.3). */
	ordersPerBatch: 20,
	clientOrderIdLength: 255,
	/** Most orders one open-orders or past-orders request returns (the family's `limit` maximum). */
	ordersPageSize: 1000,
	/** Open orders of a master key: the sub account's follow the main account's only when those are fewer than this. */
	openOrdersMainAccountPage: 500,
	/** Most order IDs one cancel-by-IDs request takes (more: -2022). */
	cancelIdsPerRequest: 100,
	/** How far back past orders are kept (the family's tradeOrders: 90 days). */
	pastOrdersDays: 90,
	/** Requests a second per API key and class, by default and at most: the credential's. */
	orderRequestsPerSecond: CREDENTIAL_LIMITS.orderRequestsPerSecond,
	queryRequestsPerSecond: CREDENTIAL_LIMITS.queryRequestsPerSecond,
	maxRequestsPerSecond: CREDENTIAL_LIMITS.maxRequestsPerSecond,
	/** How long the service suspends a key after a rate limit (UAE documentation: one minute). */
	rateLimitSuspensionMs: 60_000,
	/** The longest Wait After a Rate Limit waits: the minute, room for clocks and a late answer. */
	maxRateLimitWaitMs: 70_000,
	/** The credential's receive window: its default and the largest the service accepts. */
	defaultRecvWindowMs: CREDENTIAL_LIMITS.defaultRecvWindowMs,
	maxRecvWindowMs: CREDENTIAL_LIMITS.maxRecvWindowMs,
	/** Most characters of a transfer's client order ID (the UAE documentation). */
	transferClientOrderIdLength: 64,
	/** A timestamp may run ahead of the server clock by less than this (spec §5.4). */
	futureToleranceMs: 1000,
	/** Order book levels per side: at most 200, 100 when not asked (UAE documentation). */
	depthMax: 200,
	depthDefault: 100,
	/** Recent trades per request: at most 100 (UAE documentation). */
	tradesMax: 100,
	/** Candles per request: at most 1000 (UAE documentation). */
	klinesMax: 1000,
	/** Most requests of one Get Candles Return All per item: a mistyped Start sends no thousands. */
	klinesReturnAllRequests: 100,
	/** Symbol rules kept per n8n instance and Base URL: short, so a halt reaches orders soon. */
	symbolRulesTtlMs: 60_000,
	/** How long the key's accounts (helpers/accountScope.ts) are kept. */
	accountScopeTtlMs: 600_000,
} as const;

export const DAY_MS = 24 * 60 * 60 * 1000;

interface AccountType {
	value: number;
	displayName: string;
}

export const ACCOUNT_TYPES: readonly AccountType[] = [
	{ value: 1, displayName: 'Spot Trading Account' },
	{ value: 3, displayName: 'Contract Trading Account' },
	{ value: 5, displayName: 'Custody Account' },
	{ value: 6, displayName: 'Fiat Account' },
];

export const ORDER_SIDES = ['BUY', 'SELL'] as const;

export const ORDER_TYPES = ['LIMIT', 'MARKET', 'LIMIT_MAKER'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

/** The only time-in-force each order type allows (spec §2.5). */
export const TIME_IN_FORCE_BY_TYPE: Record<OrderType, string> = {
	LIMIT: 'GTC',
	LIMIT_MAKER: 'GTC',
	MARKET: 'IOC',
};

/**
 * Order states in which an order is still on the book (the spec shows only FILLED; these are the
 * family's): its client order ID is held, and a cancel of it may still be applied.
 */
export const OPEN_ORDER_STATUSES: readonly string[] = [
	'NEW',
	'PARTIALLY_FILLED',
	'PENDING_NEW',
	'PENDING_CANCEL',
];

/** How the exchange may name a MARKET order it answers: by what its size was given in. */
export const MARKET_TYPE_ALIASES: Readonly<Record<string, 'quantity' | 'amount'>> = {
	MARKET_OF_BASE: 'quantity',
	MARKET_OF_QUOTE: 'amount',
};

/** A cancel accepted and not yet applied: the order is still listed open; no second request. */
export const CANCEL_PENDING_STATUS = 'PENDING_CANCEL';

/** Statuses of an order whose cancel was applied: it is off the book, with or without fills. */
export const CANCELLED_ORDER_STATUSES: readonly string[] = ['CANCELED', 'PARTIALLY_CANCELED'];

/**
 * A cancel refused as having nothing to cancel, without saying whether the order is filled,
 * cancelled or unknown (docs/error-codes.md): the node looks the order up before it reports which.
 */
export const CANCEL_NOTHING_TO_CANCEL_CODES: readonly string[] = ['0212', '0211', '-1143', '-2013'];

export const STP_MODES = ['EXPIRE_TAKER', 'EXPIRE_MAKER'] as const;
export const DEFAULT_STP_MODE = 'EXPIRE_TAKER';

/**
 * Error codes (docs/error-codes.md gives each one's source and meaning). Top-level answers carry
 * them as strings ("0401"), batch entries as numbers (401): compare them by number
 * (transport/errors.ts `sameCode`), never as text.
 */
export const ERROR_CODES = {
	invalidField: '0001',
	invalidSignature: '0002',
	rateLimited: '0003',
	invalidApiKey: '0102',
	/** Key states (hashkeypro-apidoc "Error Codes"): expired (90 days unused), IP not on its list. */
	apiKeyExpired: '0103',
	invalidIp: '0202',
	accountNotAllowed: '0104',
	instrumentNotFound: '0201',
	orderNotFound: '0211',
	orderCompletedOrMissing: '0212',
	insufficientBalance: '0401',
	/** Symbol rules (exchange information filters): the UAE table's codes. */
	invalidPricePrecision: '0209',
	quantityTooLarge: '-1135',
	quantityTooSmall: '-1136',
	quantityPrecision: '-1137',
	amountTooSmall: '-1140',
	amountPrecision: '-1148',
	symbolNotOpen: '-1151',
	symbolNotForApi: '-1155',
	amountTooLarge: '-1206',
	/** A search that reaches back more than one month (fills keep 30 days): UAE error table. */
	searchOlderThanOneMonth: '-2028',
	unknownError: '-1000',
	internalError: '-1001',
	unauthorized: '-1002',
	noPermission: '-1005',
	executionUnknown: '-1006',
	serverTimeout: '-1007',
	unsupportedOperation: '-1020',
	timestampOutsideWindow: '-1021',
	orderPartiallyCancelled: '-1138',
	orderFilled: '-1139',
	duplicateClientOrderId: '-1141',
	orderCancelled: '-1142',
	orderNotOnBook: '-1143',
	orderCreateTimeout: '-1146',
	orderCancelTimeout: '-1147',
	orderCreateFailed: '-1149',
	invalidFromAccount: '-1172',
	invalidToAccount: '-1173',
	sameAccountTransfer: '-1174',
	orderDoesNotExist: '-2013',
	batchTooLarge: '-2022',
	ipBanned: '-3145',
	invalidSymbols: '-100010',
	/** A listen key the exchange does not know (expired, deleted, never made): the family's code. */
	unknownListenKey: '-1125',
} as const;

/**
 * Codes after which a write may or may not have been executed (the family's "execution status
 * unknown", timeouts and internal errors): never a rejection.
 */
export const UNKNOWN_OUTCOME_CODES: readonly string[] = [
	ERROR_CODES.unknownError,
	ERROR_CODES.internalError,
	ERROR_CODES.executionUnknown,
	ERROR_CODES.serverTimeout,
	ERROR_CODES.orderCreateTimeout,
	ERROR_CODES.orderCancelTimeout,
];
