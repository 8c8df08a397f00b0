/**
 * Everything the Trading Service API spec (shared/spec/trading-service-api.md) fixes as a value:
 * endpoints, flow types, account types, order enums, limits and retention. Node code reads these
 * from here only, so a change in the service is a change in one place.
 */

export const CREDENTIAL_TYPE = 'tradingServiceApi';

/** Paths of the endpoints the package uses. The history path is the public exchange API's (spec §4.1 does not show it). */
export const ENDPOINTS = {
	serverTime: '/api/v1/time',
	history: '/api/v1/account/balanceFlow',
	assetTransfer: '/api/v1/account/assetTransfer',
	newOrder: '/api/v1/spot/new/order',
	batchOrders: '/api/v1/spot/batchOrders',
} as const;

/** Request weights (spec §8). Endpoints the spec gives no weight are counted as 1. */
export const WEIGHTS = {
	history: 5,
	batchOrders: 1,
	default: 1,
} as const;

export const LIMITS = {
	/** Most records one history request returns (spec §4.1, §8). */
	historyPageSize: 500,
	/** Most orders in one batch request; all of one symbol (spec §4.3). */
	ordersPerBatch: 20,
	clientOrderIdLength: 255,
	orderIdLength: 20,
	/** recvWindow default, and the largest value the credential accepts (spec §5.4 recommends ≤ 5000). */
	defaultRecvWindowMs: 5000,
	maxRecvWindowMs: 60000,
	/** A timestamp may run ahead of the server clock by less than this (spec §5.4). */
	futureToleranceMs: 1000,
} as const;

export const DAY_MS = 24 * 60 * 60 * 1000;

export interface FlowType {
	value: number;
	/** The name the spec's §2.2 table gives. */
	specName: string;
	/** What users see in the dropdown. */
	displayName: string;
	/** How far back the service keeps records of this type (spec §4.1 rule 1). */
	retentionDays: 7 | 30;
}

export const FLOW_TYPES: readonly FlowType[] = [
	{ value: 1, specName: 'Trade', displayName: 'Trade', retentionDays: 7 },
	{ value: 2, specName: 'FEE', displayName: 'Fee', retentionDays: 7 },
	{ value: 32, specName: 'Funding FEE', displayName: 'Funding Fee', retentionDays: 30 },
	{ value: 51, specName: 'USER_ACCOUNT_TRANSFER', displayName: 'Transfer Between Accounts', retentionDays: 30 },
	{ value: 900, specName: 'CUSTODY_DEPOSIT', displayName: 'Custody Deposit', retentionDays: 30 },
	{ value: 904, specName: 'CUSTODY_WITHDRAW', displayName: 'Custody Withdrawal', retentionDays: 30 },
	{ value: 906, specName: 'FIAT_DEPOSIT', displayName: 'Fiat Deposit', retentionDays: 30 },
	{ value: 910, specName: 'FIAT_WITHDRAW', displayName: 'Fiat Withdrawal', retentionDays: 30 },
];

export const FLOW_TYPE_VALUES = {
	trade: 1,
	fee: 2,
	fundingFee: 32,
	transfer: 51,
	custodyDeposit: 900,
	custodyWithdraw: 904,
	fiatDeposit: 906,
	fiatWithdraw: 910,
} as const;

export function findFlowType(value: number): FlowType | undefined {
	return FLOW_TYPES.find((flowType) => flowType.value === value);
}

export interface AccountType {
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
export type OrderSide = (typeof ORDER_SIDES)[number];

export const ORDER_TYPES = ['LIMIT', 'MARKET', 'LIMIT_MAKER'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

/** The only time-in-force each order type allows (spec §2.5). */
export const TIME_IN_FORCE_BY_TYPE: Record<OrderType, string> = {
	LIMIT: 'GTC',
	LIMIT_MAKER: 'GTC',
	MARKET: 'IOC',
};

export const STP_MODES = ['EXPIRE_TAKER', 'EXPIRE_MAKER'] as const;
export const DEFAULT_STP_MODE = 'EXPIRE_TAKER';

/**
 * Error codes the service answers with (spec §7 lists none; these are the public exchange API's,
 * as the sandbox implements them). Top-level bodies carry them as strings, batch results as integers.
 */
export const ERROR_CODES = {
	invalidField: '0001',
	rateLimited: '0003',
	insufficientBalance: '0401',
	internal: '-1000',
	unauthorized: '-1002',
	timestampOutsideWindow: '-1021',
	invalidSignature: '-1022',
	invalidSymbol: '-1121',
	duplicateClientOrderId: '-1149',
	invalidApiKey: '-2015',
} as const;
