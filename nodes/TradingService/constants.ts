/**
 * Everything the Trading Service API (docs/api.md) fixes as a value:
 * endpoints, flow types, account types, order enums, limits and retention. Node code reads these
 * from here only, so a change in the service is a change in one place.
 */

export const CREDENTIAL_TYPE = 'tradingServiceApi';

/** Paths of the endpoints the package uses. transport/endpoints.ts adds method, weight and write wording. */
export const PATHS = {
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
	/** recvWindow default (spec §5.4 recommends ≤ 5000), and the largest value the credential accepts. */
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
	/** What users see in the history dropdown. */
	displayName: string;
	/** What the trigger calls a new record of this type. */
	eventName: string;
	/** What the trigger's event dropdown says about it. */
	eventDetail: string;
	/** How far back the service keeps records of this type (spec §4.1 rule 1). */
	retentionDays: 7 | 30;
	/** Whether a record's sign tells incoming from outgoing (the trigger's Direction filter). */
	hasDirection: boolean;
}

/** The one table of flow types (spec §2.2): the history operation and the trigger read it. */
export const FLOW_TYPES: readonly FlowType[] = [
	{ value: 1, specName: 'Trade', displayName: 'Trade', eventName: 'Trade', eventDetail: 'A trade fill: one record per coin that moved', retentionDays: 7, hasDirection: true },
	{ value: 2, specName: 'FEE', displayName: 'Fee', eventName: 'Trading Fee', eventDetail: 'A trading fee taken from the account', retentionDays: 7, hasDirection: false },
	{ value: 32, specName: 'Funding FEE', displayName: 'Funding Fee', eventName: 'Funding Fee Charged', eventDetail: 'A funding fee settled on a contract position, paid or received (see Direction)', retentionDays: 30, hasDirection: true },
	{ value: 51, specName: 'USER_ACCOUNT_TRANSFER', displayName: 'Transfer Between Accounts', eventName: 'Transfer Between Accounts', eventDetail: 'A transfer between your accounts (see Direction)', retentionDays: 30, hasDirection: true },
	{ value: 900, specName: 'CUSTODY_DEPOSIT', displayName: 'Custody Deposit', eventName: 'Custody Deposit', eventDetail: 'A deposit into the custody account', retentionDays: 30, hasDirection: false },
	{ value: 904, specName: 'CUSTODY_WITHDRAW', displayName: 'Custody Withdrawal', eventName: 'Custody Withdrawal', eventDetail: 'A withdrawal from the custody account', retentionDays: 30, hasDirection: false },
	{ value: 906, specName: 'FIAT_DEPOSIT', displayName: 'Fiat Deposit', eventName: 'Fiat Deposit', eventDetail: 'A deposit into the fiat account', retentionDays: 30, hasDirection: false },
	{ value: 910, specName: 'FIAT_WITHDRAW', displayName: 'Fiat Withdrawal', eventName: 'Fiat Withdrawal', eventDetail: 'A withdrawal from the fiat account', retentionDays: 30, hasDirection: false },
];

export function findFlowType(value: number): FlowType | undefined {
	return FLOW_TYPES.find((flowType) => flowType.value === value);
}

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
	unauthorized: '-1002',
	timestampOutsideWindow: '-1021',
	invalidSignature: '-1022',
	invalidSymbol: '-1121',
	duplicateClientOrderId: '-1149',
	invalidApiKey: '-2015',
} as const;
